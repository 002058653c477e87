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
TEST(DsaLlbMapper, ReReadsAtTheLlbChangeTheBestTileAndTheTimelineChargesTheEstimate) {
  const Graph g = ladder_gemm(64, 128, 64);
  const DsaSpec llb = llb_test_core(true), blind = llb_test_core(false);
  Task t = ladder_task({}, UnitKind::Core);

  // Without the LLB every re-read costs DDR: the whole output as one tile, the reduction in
  // chunks, each operand read once.
  const std::vector<int64_t> once_tile = dsa_fitting_tile(g, t, blind, {0}, blind.local_bytes);
  EXPECT_EQ(once_tile, (std::vector<int64_t>{64, 64}));
  // With it, 16 x 16 tiles, rows inside columns, the reduction in chunks innermost: A is read
  // again per column tile and B per row tile (4 times each), from the LLB.
  t.tile = dsa_fitting_tile(g, t, llb, {0}, llb.local_bytes);
  ASSERT_EQ(t.tile, (std::vector<int64_t>{16, 16}));
  const DsaTaskDemand d = dsa_task_demand(g, t, llb, {0});
  EXPECT_EQ(d.loop_order, "R>0>1");
  EXPECT_EQ(d.reload, (std::vector<double>{4, 4}));

  // The timeline: DDR gives A, B and y once (16384 + 16384 + 8192), the LLB takes A and B once
  // on the way and gives the 3 x 16384 re-reads of each (32768 + 98304 bytes).
  const EvaluationResult r = price_alone(g, t, llb);
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "ddr"), 40960);
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "llb"), 131072);
  EXPECT_DOUBLE_EQ(value_of(r.energy_pj_by_component, "ddr"), 40960 * 8 * 20.0);
  EXPECT_DOUBLE_EQ(value_of(r.energy_pj_by_component, "llb"), 131072 * 8 * 0.5);
  // The mapper's estimate of the energy is what the timeline charges (MACs, registers, L1, LLB
  // and DDR).
  EXPECT_NEAR(d.nest_energy_pj / dynamic_energy_pj(r), 1, 1e-12);

  // The same tiles without the LLB: every re-read costs DDR, so the mapper keeps B over the row
  // tiles instead (rows inside columns, the reduction whole): A read 4 times, B once, DDR 40960
  // + 3 x 16384; its estimate is again what the timeline charges.
  const DsaTaskDemand d_blind = dsa_task_demand(g, t, blind, {0});
  EXPECT_EQ(d_blind.loop_order, "0>1");
  EXPECT_EQ(d_blind.reload, (std::vector<double>{4, 1}));
  const EvaluationResult r_blind = price_alone(g, t, blind);
  EXPECT_DOUBLE_EQ(value_of(r_blind.bytes_by_level, "ddr"), 40960 + 3 * 16384);
  EXPECT_NEAR(d_blind.nest_energy_pj / dynamic_energy_pj(r_blind), 1, 1e-12);

  // On the machine with the LLB the tile chosen seeing it runs faster than the one chosen
  // without (6268 against 7178 cycles) at a lower energy x cycles.
  Task once = t;
  once.tile = once_tile;
  const EvaluationResult r_once = price_alone(g, once, llb);
  EXPECT_LT(r.latency_us, r_once.latency_us);
  EXPECT_LT(r.latency_us * dynamic_energy_pj(r),
            r_once.latency_us * dynamic_energy_pj(r_once));
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

