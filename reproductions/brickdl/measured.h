#pragma once
// Measured mode of Figs. 10 and 11 (needs a GPU): the proxies at full size, the cuDNN per-layer
// baseline (cudnnConvolutionBiasActivationForward, algorithm by
// cudnnFindConvolutionForwardAlgorithm) against the suite's padded and memoized brick kernels
// (common/cuda/brick_kernels.h), timed with CUDA events: 20 timed runs after warm-up, their mean
// (the paper's protocol, §4.1) and median. The conversion of the input to bricks and of the output
// back is timed separately (the paper's "cost of creating bricks"). Atomic counts come from the
// memoized kernel's own counters. DRAM and L2 counters need CUPTI/Nsight, which the suite does not
// link: the table says so.
#include <string>
#include <vector>

#include "common/cli/cli.h"

namespace dgs::brickdl {

struct MeasuredCase {
  std::string group;        // "3+3", "16^3"
  std::vector<int> layers;  // conv layers per subgraph, e.g. {3, 3}
  int64_t edge = 8;
};

void run_measured_chain(ExperimentContext& ctx, const std::string& model,
                        const std::vector<MeasuredCase>& cases);

}  // namespace dgs::brickdl
