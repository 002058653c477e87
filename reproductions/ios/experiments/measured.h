#pragma once
// IOS in measured mode: the same DP and schedules, with stage latencies measured on the live GPU
// by the suite's CUDA stage executor (common/cuda/stage_executor.h) instead of the GPU model, and
// end-to-end latency of each schedule measured with CUDA events (warm-up, median of repeats).
// The executor runs a plan as the IOS runtime does (thesis §3, research/ios.md §2.3-2.4): task j
// of every stage on context j (stream, cuDNN handle, workspace), a host synchronisation between
// stages except between two single-task stages, Conv+bias+ReLU as one cuDNN call, merged
// convolutions as one zero-padded convolution, and a synchronisation after each timed run of a
// multi-task stage; ios_executor_options() sets the artifact's limits and timing protocol.
// Without a GPU the CLI refuses before any of this runs; in a build without CUDA the executor's
// constructor throws "this build has no CUDA support".
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/cuda/stage_executor.h"
#include "reproductions/ios/scheduler.h"

namespace dgs::ios {

// The IOS artifact's runtime constants (research/ios.md §2.3): MAX_NUM_GROUPS = 10 contexts, each
// with a 128 MiB cuDNN workspace.
inline constexpr int kIosMaxStreams = 10;
inline constexpr size_t kIosWorkspaceBytes = size_t{128} << 20;
// The artifact's measure_stage_latency protocol (research/ios.md §2.4): warmup 2, then repeat 6 of
// number 6, for stages and for whole forward passes (the artifact averages the repeats; the suite
// reports their median).
inline constexpr gpu::TimingProtocol kIosTimingProtocol{2, 6, 6};
// The shortened protocol of the DP's stage measurements (the default; --full-protocol restores the
// artifact's): one warm-up run, the median of 3 samples of 3 runs. The DP measures thousands of
// distinct stages for Inception V3 (each a new stage, often a new merged convolution), so the
// artifact's 38 runs per stage make the search take minutes; end-to-end latencies of the five
// schedules keep the artifact's protocol.
inline constexpr gpu::TimingProtocol kIosSearchProtocol{1, 3, 3};

// Stage-executor options as the IOS artifact runs: its contexts, workspace and timing protocol,
// FP32 on CUDA cores, Conv+ReLU fused; random values from `seed`. `search`: the options of the DP's
// stage measurements, whose protocol is kIosSearchProtocol unless `full_protocol`.
gpu::StageExecutorOptions ios_executor_options(uint64_t seed, bool search = false,
                                               bool full_protocol = false);

// StageCostModel over gpu::MeasuredStageCost: each group's units flattened to their ops (a
// Conv+Relu unit stays one cuDNN call), a merge stage as one Merged task.
class MeasuredIosStageCost : public StageCostModel {
 public:
  // `progress` (may be empty) is called after every kProgressEvery-th new stage measurement.
  static constexpr int64_t kProgressEvery = 250;
  MeasuredIosStageCost(const Network& net, uint64_t seed, bool full_protocol = false,
                       std::function<void(int64_t measured)> progress = {});
  ~MeasuredIosStageCost() override;
  double stage_latency_us(const Network& net, const IosStage& stage) override;
  std::string describe() const override { return "measured on the GPU (CUDA events, cuDNN)"; }
  int64_t measurements() const;

 private:
  std::unique_ptr<gpu::MeasuredStageCost> impl_;
  std::function<void(int64_t)> progress_;
  int64_t reported_ = 0;
};

// Fig. 1.2 and Fig. 4.1 in measured mode: the five schedules of each of `models`, searched with
// measured stage costs (r = 3, s = 8), each run end to end on the GPU.
void run_schedules_measured(ExperimentContext& ctx, const std::string& title,
                            const std::vector<std::string>& models);

}  // namespace dgs::ios
