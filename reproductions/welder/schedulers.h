#pragma once
// Welder's schedulers behind the suite's Scheduler interface (common/scheduler/scheduler.h), for
// the comparison across papers (compare/scheduler_registry.cpp):
//
//   welder        the paper's scheduler (Fig. 7 graph connecting over {DRAM, register, shared})
//   welder.base   Welder-base (Fig. 13): register-level connections only
//   welder.none   Welder-none (Fig. 13): one kernel per operator, each with Welder's own tile
//   welder.ansor  Ansor-like (Figs. 9-13): TVM/Ansor rule-based fusion, Welder's tiles
//
// Each runs schedule_graph (scheduler.h) on the graph's tile-graph (tile_graph.h) with the
// WelderArch of the machine's GpuSpec (arch_from_gpu) and writes the schedule as a plan (to_plan:
// one stage per kernel, a Fused task each). The GPU model has no rule for Welder's fused kernels,
// so ScheduleResult::evaluation.gpu_fused_kernels carries Welder's own (welder_fused_kernels): the
// kernel each group's best tile configuration was profiled with (group_kernel, cost_model.h), so
// that evaluate() prices the plan with the kernels Welder's search chose.
#include <vector>

#include "common/scheduler/scheduler.h"
#include "reproductions/welder/scheduler.h"
#include "reproductions/welder/tile_graph.h"

namespace dgs {

// welder, welder.base, welder.none, welder.ansor.
SchedulerList welder_schedulers();

}  // namespace dgs

namespace dgs::welder {

// scheduler_name(Variant), the scheduler name of a variant, is declared in scheduler.h.

// The FusedKernelFn of schedule `s` of `tg` written as `plan` (to_plan with `group_stage`): the
// Fused task of a stage gets the kernels of the groups mapped to that stage (group_kernel of each
// launching group at its best configuration; none for a layout-only group). A task that is not
// one of the plan's (other ops) is refused with one line. Needs arch.gpu.
FusedKernelFn welder_fused_kernels(const Schedule& s, const TileGraph& tg, const WelderArch& arch,
                                   const Plan& plan, const std::vector<int>& group_stage);

}  // namespace dgs::welder
