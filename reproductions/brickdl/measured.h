#pragma once
// Measured mode of Figs. 10 and 11 (needs a GPU): the proxies at full size, the cuDNN per-layer
// baseline (cudnnConvolutionBiasActivationForward, algorithm by
// cudnnFindConvolutionForwardAlgorithm) against the suite's padded and memoized brick kernels
// (common/cuda/brick_kernels.h), timed with CUDA events: by default 3 timed runs after one
// warm-up, their mean and median (--full-protocol: the paper's 20 runs, §4.1). The conversion of
// the input to bricks and of the output back is timed separately (the paper's "cost of creating
// bricks"). Atomic counts come from the memoized kernel's own counters. DRAM and L2 counters need
// CUPTI/Nsight, which the suite does not link: the table says so.
#include <string>
#include <vector>

#include "cli/cli.h"

namespace dgs::brickdl {

struct MeasuredCase {
  std::string group;        // "3+3", "16^3"
  std::vector<int> layers;  // conv layers per subgraph, e.g. {3, 3}
  int64_t edge = 8;
};

// `short_edge` > 0: without --full-protocol the proxy runs at that spatial edge instead of its own
// (Fig. 11's 224^3 proxy at 112^3: the brick kernels take seconds per run at 224^3).
void run_measured_chain(ExperimentContext& ctx, const std::string& model,
                        const std::vector<MeasuredCase>& cases, int64_t short_edge = 0);

}  // namespace dgs::brickdl
