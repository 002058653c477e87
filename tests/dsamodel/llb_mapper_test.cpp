// The mapper sees a global level between the local buffer and DRAM (STCP920's LLB): the re-reads
// a loop order makes are priced at that level, as the timeline stages them (buffer_nest.h,
// dsa_model.cpp "Staging"). Hand-computed on one core of STCP920 (1 cluster of 1 core: the
// cluster bus and DRAM are the core's alone), with 32 KiB of L1 and 8 B/cycle of DDR.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/dsa_task.h"
#include "tests/dsamodel/ladder_fixture.h"

namespace dgs {
namespace {

DsaSpec llb_test_core(bool llb) {
  DsaSpec s = load_dsa_spec("stcp920");
  s.clusters = 1;
  s.cores_per_cluster = 1;
  s.local_bytes = 32 * 1024;
  s.dram_bandwidth_gbs = 8;  // 8 B/cycle at 1 GHz
  if (!llb) s.global_level.clear();
  return s;
}

EvaluationResult price_alone(const Graph& g, const Task& t, const DsaSpec& s) {
  Plan p;
  p.scheduler = "test";
  p.stages.push_back(Stage{{t}});
  return evaluate_dsa_plan(g, p, s);
}

double dynamic_energy_pj(const EvaluationResult& r) {
  double e = 0;
  for (const auto& [name, pj] : r.energy_pj_by_component)
    if (name != "static") e += pj;
  return e;
}

// A [64, 128] x B [128, 64] (FP16): A 16384 bytes, B 16384, y 8192.
TEST(DsaLlbMapper, ReReadsAtTheLlbChangeTheBestTileAndTheTimelineChargesItsEstimatedEnergy) {
  const Graph g = ladder_gemm(64, 128, 64);
  const DsaSpec llb = llb_test_core(true), blind = llb_test_core(false);
  Task t = ladder_task({}, UnitKind::Core);

  // Without the LLB every re-read costs DDR: tiles of 4 rows, the row tiles inside the
  // reduction's 4 chunks ("0>R": the partial sums of every row tile stay), each operand read
  // once.
  const std::vector<int64_t> once_tile = dsa_fitting_tile(g, t, blind, {0}, blind.local_bytes);
  EXPECT_EQ(once_tile, (std::vector<int64_t>{4, 64}));
  Task once = t;
  once.tile = once_tile;
  const DsaTaskDemand d_once = dsa_task_demand(g, once, blind, {0});
  EXPECT_EQ(d_once.loop_order, "0>R");
  EXPECT_EQ(d_once.reload, (std::vector<double>{1, 1}));
  // With it, 4 x 16 tiles, rows inside the reduction chunks inside the columns: A is read again
  // per column tile (4 times), from the LLB, B once.
  t.tile = dsa_fitting_tile(g, t, llb, {0}, llb.local_bytes);
  ASSERT_EQ(t.tile, (std::vector<int64_t>{4, 16}));
  const DsaTaskDemand d = dsa_task_demand(g, t, llb, {0});
  EXPECT_EQ(d.loop_order, "0>R>1");
  EXPECT_EQ(d.reload, (std::vector<double>{4, 1}));

  // The timeline: DDR gives A, B and y once (16384 + 16384 + 8192), the LLB takes A and B once
  // on the way and gives the 3 x 16384 re-reads of A (32768 + 49152 bytes).
  const EvaluationResult r = price_alone(g, t, llb);
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "ddr"), 40960);
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "llb"), 81920);
  EXPECT_DOUBLE_EQ(value_of(r.energy_pj_by_component, "ddr"), 40960 * 8 * 20.0);
  EXPECT_DOUBLE_EQ(value_of(r.energy_pj_by_component, "llb"), 81920 * 8 * 0.5);
  // The mapper's estimate of the energy is what the timeline charges (MACs, registers, L1, LLB
  // and DDR).
  EXPECT_NEAR(d.nest_energy_pj / dynamic_energy_pj(r), 1, 1e-12);

  // The same tiles without the LLB: the same order, every re-read of A from DDR: 40960 +
  // 3 x 16384; its estimate is again what the timeline charges.
  const DsaTaskDemand d_blind = dsa_task_demand(g, t, blind, {0});
  EXPECT_EQ(d_blind.loop_order, "0>R>1");
  EXPECT_EQ(d_blind.reload, (std::vector<double>{4, 1}));
  const EvaluationResult r_blind = price_alone(g, t, blind);
  EXPECT_DOUBLE_EQ(value_of(r_blind.bytes_by_level, "ddr"), 40960 + 3 * 16384);
  EXPECT_NEAR(d_blind.nest_energy_pj / dynamic_energy_pj(r_blind), 1, 1e-12);

  // On the machine with the LLB the mapper prices the tile chosen seeing it at a lower energy x
  // cycles than the one chosen without (5390 against 5822 estimated cycles). (The timeline runs
  // it in 6204 cycles, the other in 5884: its staged re-reads take longer than the mapper's
  // estimate of them; not asserted.)
  const DsaTaskDemand d_once_llb = dsa_task_demand(g, once, llb, {0});
  EXPECT_LT(d.nest_cycles * d.nest_energy_pj, d_once_llb.nest_cycles * d_once_llb.nest_energy_pj);
  EXPECT_LT(d.nest_cycles, d_once_llb.nest_cycles);
}

// Where the task's inputs do not fit the LLB (all its units' needed bytes), the mapper prices
// re-reads at DDR as the timeline then charges them: with an LLB of one byte less than A and B
// together, the tile is the one chosen without an LLB.
TEST(DsaLlbMapper, InputsThatDoNotFitTheLlbAreReReadFromDdr) {
  const Graph g = ladder_gemm(64, 128, 64);
  DsaSpec small = llb_test_core(true);
  small.global_bytes = 32767;
  const Task t = ladder_task({}, UnitKind::Core);
  EXPECT_EQ(dsa_fitting_tile(g, t, small, {0}, small.local_bytes),
            dsa_fitting_tile(g, t, llb_test_core(false), {0}, small.local_bytes));
}

}  // namespace
}  // namespace dgs
