// The DSA model's public task estimate (task_estimate.h), which schedulers size tasks by: the
// same working set and cycles as the model's own demand, the loads hand-counted, and a placement
// the machine lacks refused.
#include <gtest/gtest.h>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/task_estimate.h"
#include "common/util/error.h"

namespace dgs {
namespace {

// One engine of atomic_mesh (16 x 16 int8 PEs, 128 KiB SRAM), as in the ladder test.
DsaSpec estimate_engine() {
  const DsaSpec mesh = load_dsa_spec("atomic_mesh");
  return dsa_with_mesh(mesh, 1, 1, mesh.matrix_tile_rows, mesh.matrix_tile_columns);
}

// A [m, c] x B [c, n] -> y.
Graph estimate_gemm(int64_t m, int64_t c, int64_t n) {
  Graph g;
  g.name = "gemm";
  const int a = g.add_input("A", {m, c});
  const int b = g.add_weight("B", {c, n});
  const int op = g.add_op(OpKind::MatMul, "mm", {a, b}, {}, 1, {"y"});
  g.mark_output(g.op(op).outputs[0]);
  return g;
}

Task estimate_task(UnitKind unit, std::vector<int64_t> tile = {}) {
  Task t;
  t.kind = TaskKind::Fused;
  t.ops = {0};
  t.placement.unit = unit;
  t.placement.index = {0, 0};
  t.tile = std::move(tile);
  return t;
}

// 256 x 256 x 128 fits the buffer untiled: A and B are loaded once (65536 + 32768 elements), the
// working set is the whole 128 KiB, and the cycles are the demand's.
TEST(DsaTaskEstimate, AGemmThatFitsLoadsEachInputOnce) {
  const DsaSpec spec = estimate_engine();
  const Graph g = estimate_gemm(256, 256, 128);
  const Task t = estimate_task(UnitKind::Engine);
  const DsaTaskEstimate e = dsa_task_estimate(g, t, spec);
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, {0});
  EXPECT_EQ(e.working_set_bytes, 131072);
  EXPECT_EQ(e.working_set_bytes, d.working_set_bytes);
  EXPECT_DOUBLE_EQ(e.compute_cycles, d.compute_cycles());
  EXPECT_GT(e.compute_cycles, 32768);  // the array's steps at least
  EXPECT_DOUBLE_EQ(e.loaded_elements, 65536 + 32768);
}

// Tiled, the working set shrinks and what the loop nest loads again shows in the loads.
TEST(DsaTaskEstimate, TilingShrinksTheWorkingSetAndCanOnlyAddLoads) {
  const DsaSpec spec = estimate_engine();
  const Graph g = estimate_gemm(512, 256, 256);
  const DsaTaskEstimate whole = dsa_task_estimate(g, estimate_task(UnitKind::Engine), spec);
  const DsaTaskEstimate tiled =
      dsa_task_estimate(g, estimate_task(UnitKind::Engine, {64, 64}), spec);
  EXPECT_LT(tiled.working_set_bytes, whole.working_set_bytes);
  EXPECT_GE(tiled.loaded_elements, whole.loaded_elements);
  EXPECT_GE(whole.loaded_elements, 512 * 256 + 256 * 256);
}

TEST(DsaTaskEstimate, APlacementTheMachineLacksIsRefused) {
  const DsaSpec spec = estimate_engine();
  const Graph g = estimate_gemm(64, 64, 64);
  EXPECT_THROW(dsa_task_estimate(g, estimate_task(UnitKind::Core), spec), Error);
}

}  // namespace
}  // namespace dgs
