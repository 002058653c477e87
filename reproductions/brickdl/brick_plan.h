#pragma once
// BrickDL's merged executions as a Plan (format version 2), so that run_plan (the CPU reference
// of every scheduler) and any plan evaluator can check and run them: one stage per subgraph (bricks
// synchronise only at a subgraph's end, §3.2); a merged subgraph is one fused task tiled by its
// bricks, with HaloMode::Recompute for padded bricks and HaloMode::Share at "l2" for memoized
// bricks (intermediate bricks computed once and read through L2, §3.2.2); a cuDNN subgraph is one
// sequential task (a kernel per op).
#include <cstdint>
#include <vector>

#include "common/plan/plan.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {

struct PlannedSubgraph {
  std::vector<int> ops;  // topological order
  bool merged = false;
  MergeVariant variant = MergeVariant::Memoized;
  int64_t edge = 0;
};

Plan brick_plan(const Graph& g, const std::vector<PlannedSubgraph>& parts);

}  // namespace dgs::brickdl
