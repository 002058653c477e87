#pragma once
// BrickDL's merged executions as a Plan (format version 2), so that run_plan (the CPU reference
// of every scheduler) and any plan evaluator can check and run them: one stage per subgraph (bricks
// synchronise only at a subgraph's end, §3.2); a merged subgraph is one fused task tiled by its
// bricks, with HaloMode::Recompute for padded bricks and HaloMode::Share at "l2" for memoized
// bricks (intermediate bricks computed once and read through L2, §3.2.2); a cuDNN subgraph is one
// sequential task (a kernel per op).
//
// A whole network as BrickDL runs it (network_plan, from network_model.h's schedule): each merged
// part as above, and each cuDNN part as its brick units in the cuDNN baseline's form (perf_model.h:
// one library call per unit, its element-wise ops in the epilogue): a unit of one op is a
// sequential task, a unit of several an untiled fused task (one kernel). One stage per task.
#include <cstdint>
#include <vector>

#include "common/gpumodel/plan_evaluation.h"
#include "common/plan/plan.h"
#include "reproductions/brickdl/network_model.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {

struct PlannedSubgraph {
  std::vector<int> ops;  // topological order
  bool merged = false;
  MergeVariant variant = MergeVariant::Memoized;
  int64_t edge = 0;
};

Plan brick_plan(const Graph& g, const std::vector<PlannedSubgraph>& parts);

// The fused task of a merged subgraph: tile = the brick extent of its root output, halo by variant.
Task brick_task(const Graph& g, const std::vector<int>& ops, MergeVariant v, int64_t edge);

// The brick units of `ops` (topological order) as the cuDNN baseline runs them, in an order that
// respects their dependencies (by the position of each unit's last op).
std::vector<Task> cudnn_unit_tasks(const Graph& g, const std::vector<int>& ops);

// BrickDL's schedule of a whole network as a plan (see the file comment).
Plan network_plan(const Graph& g, const NetworkSchedule& s);
// The cuDNN baseline of the whole graph as a plan: cudnn_unit_tasks of every op, one per stage.
Plan cudnn_baseline_plan(const Graph& g);

// BrickDL's own analytic model (perf_model.h) of the fused tasks of these plans, for the GPU
// model (EvaluationOptions::gpu_fused_kernels):
//   tiled (bricks)  edge and variant read from the tile and the halo (recompute = padded, share =
//                   memoized); the subgraph re-analysed; merged_kernel, then, memoized, one
//                   "bricks_atomics" kernel of one block that lasts merged_atomics x T_atomic
//                   (the model serialises the atomics after the brick kernel; the GPU model has
//                   no such mechanism, so this kernel stands for them and adds one launch);
//   untiled         one brick unit run by cuDNN: cudnn_unit_kernels.
// Throws dgs::Error naming the task for a fused task that is neither.
FusedKernelFn brickdl_fused_kernels();
// The same, plus the layout conversions of network schedule `s` of `g` (whose network_plan is
// evaluated): brick_conversion_kernel of each converted tensor, before the brick kernel of the
// first merged part that reads it (a tensor entering bricks) or after the one of the merged part
// that writes it (a tensor leaving them); found by the first op of the merged part's task.
FusedKernelFn brickdl_fused_kernels(const Graph& g, const NetworkSchedule& s);

// The stand-in kernel of `atomics` serialised atomics on `spec` (see brickdl_fused_kernels).
KernelLaunch brick_atomics_kernel(const BrickAtomics& atomics, const GpuSpec& spec);

}  // namespace dgs::brickdl
