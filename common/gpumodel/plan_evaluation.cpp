// Plans on the GPU model: the streams of a stage, the synchronisation rule, evaluate_plan.
#include "common/gpumodel/plan_evaluation.h"

#include <algorithm>

#include "common/gpumodel/l2_residency.h"
#include "common/util/error.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------
namespace {
std::string whole_task_refusal(const Graph& g, const Task& t) {
  return "the task of op '" + g.op(t.ops.at(0)).name +
         "' computes a region or a reduction slice of its outputs, and the GPU model prices "
         "whole operators only";
}
}  // namespace

std::string gpu_model_refusal(const Graph& g, const Plan& plan) {
  for (const Stage& st : plan.stages)
    for (const Task& t : st.tasks)
      if (!task_is_whole(g, t)) return whole_task_refusal(g, t);
  return "";
}

KernelOptions kernel_options(const ExecutionOptions& o) {
  KernelOptions k;
  k.tensor_cores = o.tensor_cores;
  k.fold_activation = o.fold_activation;
  return k;
}

std::vector<std::vector<KernelLaunch>> stage_streams(const Graph& g, const Stage& stage,
                                                     const GpuSpec& spec,
                                                     const FusedKernelFn& fused,
                                                     const KernelOptions& opts) {
  std::vector<std::vector<KernelLaunch>> streams;
  streams.reserve(stage.tasks.size());
  for (const Task& t : stage.tasks) {
    if (!task_is_whole(g, t)) throw Error("gpu model: " + whole_task_refusal(g, t));
    std::vector<KernelLaunch> ks;
    switch (t.kind) {
      case TaskKind::Sequential:
        for (int op : t.ops) {
          auto v = kernels_for_op(g, op, spec, opts);
          for (auto& k : v) {
            k.ops = {op};
            ks.push_back(std::move(k));
          }
        }
        break;
      case TaskKind::Merged:
        ks = kernels_for_merged_task(g, t.ops, spec, opts);
        break;
      case TaskKind::Fused:
        if (!fused)
          throw Error("gpu model: plan has a fused task (first op '" +
                      (t.ops.empty() ? std::string("?") : g.op(t.ops[0]).name) +
                      "') but no fused-kernel function was given; expected a FusedKernelFn");
        ks = fused(g, t, spec);
        break;
    }
    streams.push_back(std::move(ks));
  }
  apply_l2_residency(g, spec, streams);
  return streams;
}

StageResult simulate_plan_stage(const Graph& g, const Stage& stage, const GpuSpec& spec,
                                const FusedKernelFn& fused, const KernelOptions& opts) {
  return simulate_stage(spec, stage_streams(g, stage, spec, fused, opts));
}

bool stage_ends_with_sync(size_t num_tasks) {
  return num_tasks > 1;
}

double stage_sync_cost_us(const GpuSpec& spec, size_t num_tasks) {
  return stage_ends_with_sync(num_tasks) ? spec.stage_sync_us : 0.0;
}

bool needs_stage_sync(const Plan& plan, size_t i) {
  return i < plan.stages.size() && stage_ends_with_sync(plan.stages[i].tasks.size());
}

PlanEvaluation evaluate_plan(const Graph& g, const Plan& plan, const GpuSpec& spec,
                             const FusedKernelFn& fused) {
  const KernelOptions opts = kernel_options(plan.options);
  PlanEvaluation e;
  double warp_time = 0;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const auto streams = stage_streams(g, plan.stages[i], spec, fused, opts);
    for (const auto& s : streams)
      for (const auto& k : s) {
        ++e.kernels;
        e.flops += k.flops;
        e.dram_bytes += k.dram_bytes;
        e.l2_bytes += k.l2_bytes;
      }
    const StageResult r = simulate_stage(spec, streams);
    e.stage_latency_us.push_back(r.latency_us);
    e.latency_us += r.latency_us;
    warp_time += r.avg_active_warps_per_sm * r.latency_us;
    e.sm_busy_us += r.avg_busy_sms * r.latency_us;
    std::vector<double> stream_end(streams.size(), 0.0);
    for (const KernelTiming& k : r.kernels) {
      double& end = stream_end[static_cast<size_t>(k.stream)];
      end = std::max(end, k.end_us);
    }
    for (double end : stream_end) e.stream_busy_us += end;
    if (needs_stage_sync(plan, i)) {
      e.sync_us += spec.stage_sync_us;
      e.latency_us += spec.stage_sync_us;
    }
  }
  if (e.latency_us > 0) e.avg_active_warps_per_sm = warp_time / e.latency_us;
  return e;
}

double plan_latency(const Graph& g, const Plan& plan, const GpuSpec& spec,
                    const FusedKernelFn& fused) {
  return evaluate_plan(g, plan, spec, fused).latency_us;
}

}  // namespace dgs
