#pragma once
// Evaluating a whole plan on the GPU model: the streams of each stage, the synchronisation rule
// between stages, and the plan's latency and counters.
#include <cstdint>
#include <functional>
#include <vector>

#include "common/gpumodel/block_simulation.h"
#include "common/gpumodel/kernel.h"
#include "common/gpumodel/kernel_rules.h"
#include "common/graph/graph.h"
#include "common/hw/hardware.h"
#include "common/plan/plan.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------
// Supplies the kernel(s) of a Fused task (the scheduler that fused it computes their tiles and
// traffic).
using FusedKernelFn =
    std::function<std::vector<KernelLaunch>(const Graph&, const Task&, const GpuSpec&)>;

// Why the GPU model cannot price `plan` ("" when it can): it prices whole operators, so a task
// that computes a region or a reduction slice of its outputs (!task_is_whole) is refused. The
// reason names the first such task.
std::string gpu_model_refusal(const Graph& g, const Plan& plan);

// The kernel options a plan's execution options select.
KernelOptions kernel_options(const ExecutionOptions& o);

// The streams of one stage: one per task, in task order. Sequential task = kernels_for_op of its
// ops in order; Merged task = kernels_for_merged_task (a single-conv merged task = kernels_for_op);
// Fused task = fused(g, task, spec) (throws dgs::Error if `fused` is empty); then the L2
// residency rule (l2_residency.h) lowers the DRAM bytes of kernels that read what the kernel
// before them on their stream wrote. The model prices
// whole operators: a task that computes a region of its outputs or a reduction slice
// (!task_is_whole) is refused with one line.
std::vector<std::vector<KernelLaunch>> stage_streams(const Graph& g, const Stage& stage,
                                                     const GpuSpec& spec,
                                                     const FusedKernelFn& fused = {},
                                                     const KernelOptions& opts = {});

// simulate_stage(spec, stage_streams(g, stage, spec, fused, opts)): the latency of one stage of
// a plan (no synchronisation), e.g. for a stage-wise dynamic program.
StageResult simulate_plan_stage(const Graph& g, const Stage& stage, const GpuSpec& spec,
                                const FusedKernelFn& fused = {}, const KernelOptions& opts = {});

// THE SYNCHRONISATION RULE (one rule, used by evaluate_plan and by stage-wise searches such as
// a dynamic program over stages, so that a search's objective equals the plan's evaluated latency):
// a stage with more than one task runs its tasks on several streams and ends with one
// synchronisation (stage_sync_us: its streams join before anything after it starts; the last
// stage too, since the network's output is complete only after the join). A single-task stage
// runs on stream 0 (the legacy default stream, which orders itself with every other stream) and
// pays nothing. The cost is thus a property of the stage alone and adds up over stages.
bool stage_ends_with_sync(size_t num_tasks);
// stage_sync_us if stage_ends_with_sync(num_tasks), else 0.
double stage_sync_cost_us(const GpuSpec& spec, size_t num_tasks);
// stage_ends_with_sync(plan.stages[i].tasks.size()) (false for i out of range).
bool needs_stage_sync(const Plan& plan, size_t i);

struct PlanEvaluation {
  double latency_us = 0;                           // sum of stage latencies + synchronisations
  std::vector<double> stage_latency_us;            // per stage, without synchronisation
  double sync_us = 0;                              // total synchronisation cost
  int64_t kernels = 0;                             // kernels launched
  double flops = 0, dram_bytes = 0, l2_bytes = 0;  // summed over kernels
  double avg_active_warps_per_sm = 0;  // time-averaged over the whole plan (syncs count as 0)
  double sm_busy_us = 0;               // SM-microseconds in which an SM holds at least one block
  double stream_busy_us = 0;  // stream-microseconds: per stage, each stream from the stage's
                              // start to its last kernel's end, summed
};

// The plan's latency on `spec`, stage by stage; the operator -> kernel options are the plan's own
// (kernel_options(plan.options)).
PlanEvaluation evaluate_plan(const Graph& g, const Plan& plan, const GpuSpec& spec,
                             const FusedKernelFn& fused = {});

// evaluate_plan(...).latency_us, in microseconds.
double plan_latency(const Graph& g, const Plan& plan, const GpuSpec& spec,
                    const FusedKernelFn& fused = {});

}  // namespace dgs
