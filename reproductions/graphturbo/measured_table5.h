#pragma once
// Table 5 in measured mode (needs a GPU; without one the CLI refuses before this runs, exit 4).
// ResNet18-Tailor (tailor.h, FP32) at the paper's batches on the live GPU:
//   - per layer through cuDNN (common/cuda/stage_executor.h: one cudnnConvolutionBiasActivation
//     call per conv+ReLU layer), the stand-in for TVM wrapping CUTLASS;
//   - per layer, two-conv fusion and the instance-split order, each kernel one launch of the
//     suite's tile-program interpreter (common/cuda/device_network.h), so the three schedules
//     compare at equal kernel quality;
// every output checked: cuDNN's first image against the CPU reference executor at batch 1 (same
// weights and image), every tile-program schedule's whole output against cuDNN's. A schedule whose
// output differs refuses the experiment before anything is written. Calls only the CUDA-free
// headers of common/cuda/, so it compiles in the build without CUDA.
#include "common/cli/cli.h"

namespace dgs::graphturbo {

void run_table5_measured(ExperimentContext& ctx);

}  // namespace dgs::graphturbo
