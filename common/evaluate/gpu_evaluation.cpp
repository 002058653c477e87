// The GPU model's evaluation as the shared result type.
#include "common/evaluate/gpu_evaluation.h"

#include "common/hw/hardware_spec.h"

namespace dgs {

EvaluationResult gpu_evaluation_result(const PlanEvaluation& e, const Plan& plan,
                                       const GpuSpec& spec) {
  EvaluationResult r;
  r.hardware_kind = "gpu";
  r.hardware_name = spec.name;
  r.evaluator = "GPU model";
  r.latency_us = e.latency_us;
  r.flops = e.flops;
  r.stages = static_cast<int64_t>(plan.stages.size());
  r.tasks = plan.num_tasks();
  r.kernels = e.kernels;
  r.stage_latency_us = e.stage_latency_us;
  add_value(r.bytes_by_level, gpu_hardware::kL2, e.l2_bytes);
  add_value(r.bytes_by_level, gpu_hardware::kDram, e.dram_bytes);
  add_value(r.busy_us_by_unit, gpu_hardware::kStream, e.stream_busy_us);
  add_value(r.busy_us_by_unit, gpu_hardware::kSm, e.sm_busy_us);
  add_value(r.details, "sync_us", e.sync_us);
  add_value(r.details, "avg_active_warps_per_sm", e.avg_active_warps_per_sm);
  return r;
}

}  // namespace dgs
