#pragma once
// Table 5 in measured mode (needs a GPU; without one the CLI refuses before this runs, exit 4).
// ResNet18-Tailor (tailor.h) at the paper's batches on the live GPU, every kernel a library
// kernel (tailor_library.h), FP16 NHWC on tensor cores with FP32 accumulation:
//   - per layer through cuDNN (the library baseline) and through CUTLASS's implicit-GEMM
//     convolution (the paper's per-layer kernels: TVM wrapping CUTLASS);
//   - two-conv fusion, the instance-split order and Algorithm 1's split on CUTLASS's
//     back-to-back convolution fusion (the paper's CUTLASS baseline and GraphTurbo's schedule on
//     it);
// every output checked: cuDNN's first image against the CPU reference executor at batch 1 (same
// weights and image, rounded to FP16), every CUTLASS schedule's whole output against cuDNN's. A
// schedule whose output differs refuses the experiment before anything is written. Calls only
// the CUDA-free headers of common/cuda/, so it compiles in the build without CUDA.
#include "cli/cli.h"

namespace dgs::graphturbo {

void run_table5_measured(ExperimentContext& ctx);

}  // namespace dgs::graphturbo
