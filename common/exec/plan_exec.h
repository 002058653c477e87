#pragma once
// Running a Plan (common/plan) on the CPU reference executor: the one correctness check of every
// scheduler. run_plan executes a valid plan stage by stage, task by task, region by region: each
// task computes only the regions it writes and the halos they need (compute_op_region), reads
// what earlier stages wrote from a store of whole tensors whose unwritten elements are NaN, and
// writes its regions there (partial sums are added). Levels and placements do not change values;
// tiles and halo modes change only how the work is cut.
//
// A tiled fused task (Task::tile) runs tile by tile over the region of its primary tensor
// (task_primary_tensor): each tile is seeded on every written tensor of the primary's shape and
// propagated backwards through the task's ops (common/graph/iteration_space.h); written tensors of
// other shapes, and elements of written tensors that no tile reached, are computed afterwards
// from their own regions. With HaloMode::Recompute every tile computes what it needs from scratch;
// with HaloMode::Share an intermediate element is computed once (by the first tile that needs it,
// up to the bounding box of what is missing) and later tiles read it.
//
// Typical use in a test (equal to the unscheduled graph on random inputs):
//   const PlanComparison c = compare_plan_with_reference(g, plan, /*seed=*/1);
//   EXPECT_TRUE(c.passed) << c.str();
#include <cstdint>
#include <string>
#include <vector>

#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "common/plan/plan.h"

namespace dgs {

struct PlanRunStats {
  // Per op: the output elements its region evaluations computed (compute_op_region's count: halos
  // included, and the whole output each time for the ops region_eval computes whole).
  std::vector<int64_t> elements_computed;
  int64_t tasks = 0;  // tasks run
  int64_t tiles = 0;  // tiles run (a task without a tile counts one)
};

// Runs `plan` (checked with Plan::check first) on `inputs`: values of the graph's Input, Weight and
// Constant tensors (e.g. make_graph_feeds(g, {}, seed); Constants may be left out). Returns the
// values of the graph's outputs by tensor index. Tasks of a stage run in reverse order (any order
// is valid for a checked plan). Throws dgs::Error naming the task on any failure.
TensorValues run_plan(const Graph& g, const Plan& plan, const TensorValues& inputs,
                      PlanRunStats* stats = nullptr);

struct PlanComparison {
  bool passed = true;
  std::vector<std::string> failures;  // one line per graph output that differs
  int64_t outputs = 0;                // graph outputs compared
  PlanRunStats stats;                 // of the run_plan call
  std::string str() const;            // "3 outputs equal" or the failures, one per line
};

// Runs `plan` with run_plan and the unscheduled graph with run_graph on the same random inputs
// (make_graph_feeds(g, {}, seed)) and compares every graph output (compare_tensors, `tol`).
PlanComparison compare_plan_with_reference(const Graph& g, const Plan& plan, uint64_t seed,
                                           Tolerance tol = {});

}  // namespace dgs
