#pragma once
// IOS in measured mode: the same DP and schedules, with stage latencies measured on the live GPU
// by the suite's CUDA stage executor (common/cuda/stage_executor.h) instead of the GPU model, and
// end-to-end latency of each schedule measured with CUDA events (warm-up, median of repeats).
// Without a GPU the CLI refuses before any of this runs; in a build without CUDA the executor's
// constructor throws "this build has no CUDA support".
#include <memory>
#include <string>
#include <vector>

#include "common/cli/cli.h"
#include "reproductions/ios/scheduler.h"

namespace dgs::gpu {
class MeasuredStageCost;
}

namespace dgs::ios {

// StageCostModel over gpu::MeasuredStageCost: each group's units flattened to their ops (a
// Conv+Relu unit stays one cuDNN call), a merge stage as one Merged task.
class MeasuredIosStageCost : public StageCostModel {
 public:
  MeasuredIosStageCost(const Network& net, uint64_t seed);
  ~MeasuredIosStageCost() override;
  double stage_latency_us(const Network& net, const IosStage& stage) override;
  std::string describe() const override { return "measured on the GPU (CUDA events, cuDNN)"; }
  int64_t measurements() const;

 private:
  std::unique_ptr<gpu::MeasuredStageCost> impl_;
};

// Fig. 1.2 and Fig. 4.1 in measured mode: the five schedules of each of `models`, searched with
// measured stage costs (r = 3, s = 8), each run end to end on the GPU.
void run_schedules_measured(ExperimentContext& ctx, const std::string& title,
                            const std::vector<std::string>& models);

}  // namespace dgs::ios
