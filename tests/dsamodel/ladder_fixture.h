#pragma once
// The one-engine fixture of the DSA model's hand-computed tests (ladder_test.cpp,
// task_estimate_test.cpp) and of the validation against ZigZag (validation_test.cpp): one engine of
// atomic_mesh (16 x 16 int8 PEs, 224 weight, 12 input and 24 partial-sum registers, 128 KiB SRAM
// behind a 64-bit port, 500 MHz) with its share of the HBM, a GEMM A [M, C] x B [C, N] -> y with B
// a weight, and the one-op task that runs it; and a plan of given stages, which the timeline's
// hand-computed tests of several tasks share (dsa_model_test.cpp, dram_read_timing_test.cpp).
#include <cstdint>
#include <utility>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"

namespace dgs {

// One engine of the mesh with `bytes_per_cycle` of DRAM (its share: 128 GB/s / 64 = 4 B/cycle).
inline DsaSpec ladder_engine(double bytes_per_cycle = 4) {
  const DsaSpec mesh = load_dsa_spec("atomic_mesh");
  DsaSpec e = dsa_with_mesh(mesh, 1, 1, mesh.matrix_tile_rows, mesh.matrix_tile_columns);
  e.dram_bandwidth_gbs = bytes_per_cycle * e.clock_mhz / 1e3;
  return e;
}

// A [m, c] (an input) x B [c, n] (a weight) -> y (the output), op 0.
inline Graph ladder_gemm(int64_t m, int64_t c, int64_t n) {
  Graph g;
  g.name = "gemm";
  const int a = g.add_input("A", {m, c});
  const int b = g.add_weight("B", {c, n});
  const int op = g.add_op(OpKind::MatMul, "mm", {a, b}, {}, 1, {"y"});
  g.mark_output(g.op(op).outputs[0]);
  return g;
}

// Op 0 as one fused task on unit [0, 0] of kind `unit`, tiled by `tile` (empty: untiled).
inline Task ladder_task(std::vector<int64_t> tile = {}, UnitKind unit = UnitKind::Engine) {
  Task t;
  t.kind = TaskKind::Fused;
  t.ops = {0};
  t.placement.unit = unit;
  t.placement.index = {0, 0};
  t.tile = std::move(tile);
  return t;
}

// A plan (scheduler "test") of these stages, in order.
inline Plan plan_of_stages(std::vector<std::vector<Task>> stages) {
  Plan p;
  p.scheduler = "test";
  for (auto& s : stages) p.stages.push_back(Stage{std::move(s)});
  return p;
}

}  // namespace dgs
