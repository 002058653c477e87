#pragma once
// Measured mode of Figs. 10 and 11 (needs a GPU): the proxies, the cuDNN per-layer baseline
// (cudnnConvolutionBiasActivationForward) against the suite's padded and memoized brick kernels
// (common/cuda/brick_kernels.h), timed with CUDA events, mean and median of the timed runs. By
// default the proxies run smaller (Fig. 10 at 96^3, Fig. 11 at 112^3) and each brick kernel is
// timed until 3 runs or 2 s of runs, after one run on a small chain that loads the module (on the
// H200 a brick kernel run at full size took 3-10 s, and the former default, full size with one
// warm-up and 3 runs, had not finished Fig. 10 after 200 s); --full-protocol: the paper's sizes and
// 20 runs after 2 warm-up runs (§4.1), and cuDNN's algorithm search. The conversion of the input to
// bricks and of the output back is timed separately (the paper's "cost of creating bricks"). Atomic
// counts come from the memoized kernel's own counters. DRAM and L2 counters need CUPTI/Nsight,
// which the suite does not link: the table says so.
#include <string>
#include <vector>

#include "cli/cli.h"

namespace dgs::brickdl {

struct MeasuredCase {
  std::string group;        // "3+3", "16^3"
  std::vector<int> layers;  // conv layers per subgraph, e.g. {3, 3}
  int64_t edge = 8;
};

// The brick kernels' default timing: another timed run while fewer than `max_runs` were taken
// and they add up to less than `budget_ms`; the first run always.
bool another_timed_run(const std::vector<double>& samples_ms, int max_runs, double budget_ms);

// `short_edge` > 0: without --full-protocol the proxy runs at that spatial edge instead of its own
// (Fig. 10's 112^3 proxy at 96^3, Fig. 11's 224^3 one at 112^3: the brick kernels take seconds
// per run at the full sizes).
void run_measured_chain(ExperimentContext& ctx, const std::string& model,
                        const std::vector<MeasuredCase>& cases, int64_t short_edge = 0);

}  // namespace dgs::brickdl
