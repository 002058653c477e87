#pragma once
// The GPU model's evaluation (PlanEvaluation) as the result every model reports.
#include "common/gpumodel/plan_evaluation.h"
#include "common/hw/evaluation_result.h"
#include "common/hw/hardware.h"
#include "common/plan/plan.h"

namespace dgs {

// The result of evaluate_plan(g, plan, spec, ...) = `e`, as an EvaluationResult:
//   latency_us, flops, kernels, stage_latency_us from e; stages and tasks from the plan;
//   bytes_by_level: "l2" = e.l2_bytes, "dram" = e.dram_bytes (the levels the model counts);
//   busy_us_by_unit: "stream" = e.stream_busy_us, "sm" = e.sm_busy_us;
//   energy_pj_by_component: empty (the GPU model has no energy);
//   details: "sync_us" = e.sync_us, "avg_active_warps_per_sm" = e.avg_active_warps_per_sm.
EvaluationResult gpu_evaluation_result(const PlanEvaluation& e, const Plan& plan,
                                       const GpuSpec& spec);

}  // namespace dgs
