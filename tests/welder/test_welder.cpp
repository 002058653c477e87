// Tests of the Welder reproduction: the §2 traffic example, tile propagation on the shared
// iteration spaces, the transaction count, the variants on hand-checked two-operator graphs, the
// multi-output consistency check, and fused-group equality with the CPU reference executor.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/exec/executor.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware.h"
#include "models/builder.h"
#include "models/zoo.h"
#include "reproductions/welder/cost_model.h"
#include "reproductions/welder/scheduler.h"
#include "reproductions/welder/tile_graph.h"
#include "tests/json_schema_lite.h"

namespace dgs::welder {
namespace {

// The arch every Welder experiment schedules on by default: the paper's V100 (v100_pcie) costed
// by the suite's GPU model (arch.gpu set), not the cost model's built-in roofline constants.
const WelderArch& gpu_model_arch() {
  static const WelderArch a = arch_from_gpu(load_gpu_spec("v100_pcie"), false);
  return a;
}

TEST(WelderArchTest, TestsScheduleOnTheGpuModelAsTheExperimentsDo) {
  ASSERT_TRUE(gpu_model_arch().gpu.has_value());
  EXPECT_EQ(gpu_model_arch().name, load_gpu_spec("v100_pcie").name);
}

// §2: A [98304x64], B [64x128], C = A.B kept in shared memory, D = Softmax(C).
struct MatmulSoftmax {
  TileGraph g;
  int mm = -1, sm = -1;
  KernelGroup fused;
  MatmulSoftmax() {
    const int a = add_tensor(g, "A", {98304, 64}, false);
    const int b = add_tensor(g, "B", {64, 128}, true);
    mm = add_matmul(g, "matmul", a, b);
    sm = add_softmax(g, "softmax", g.ops[mm].output);
    g.tensors[g.ops[sm].output].graph_output = true;
    fused.ops = {mm, sm};
    fused.edges[{mm, sm}] = Conn::Shared;
  }
};

TEST(WelderTraffic, Section2ExampleFourRowTile) {
  MatmulSoftmax s;
  const TileConfig c = evaluate_tile(s.g, s.fused, gpu_model_arch(), {4, 128});
  ASSERT_TRUE(c.valid) << c.why;
  EXPECT_EQ(c.tile_bytes, 35840.0);  // (4*64 + 64*128 + 4*128) * 4
  EXPECT_EQ(c.grid, 24576);
  EXPECT_EQ(c.tile_bytes * static_cast<double>(c.grid), 840.0 * 1024 * 1024);
}

TEST(WelderTraffic, Section2ExampleSixteenRowTile) {
  MatmulSoftmax s;
  const TileConfig c = evaluate_tile(s.g, s.fused, gpu_model_arch(), {16, 128});
  ASSERT_TRUE(c.valid) << c.why;
  EXPECT_EQ(c.tile_bytes, 45056.0);
  EXPECT_EQ(c.grid, 6144);
  EXPECT_EQ(c.tile_bytes * static_cast<double>(c.grid), 264.0 * 1024 * 1024);
}

TEST(WelderTraffic, PartialSoftmaxRowIsNotAligned) {
  // A [16x64] tile of the softmax needs whole C rows: the matmul's tile grid differs.
  MatmulSoftmax s;
  const TileConfig c = evaluate_tile(s.g, s.fused, gpu_model_arch(), {16, 64});
  EXPECT_FALSE(c.valid);
  EXPECT_NE(c.why.find("aligned"), std::string::npos) << c.why;
}

TEST(WelderTraffic, SectorsCountUncoalescedRuns) {
  // A [4x3] region of a [100x100] FP32 tensor: 4 runs of 12 B, one 32-B sector each.
  EXPECT_EQ(sector_count({4, 3}, {100, 100}, 4, 32), 4.0);
  // A whole [4x100] block is one 1600-B run: 50 sectors.
  EXPECT_EQ(sector_count({4, 100}, {100, 100}, 4, 32), 50.0);
  // Reads are costed in 128-B transactions: a 12-B run costs 128 B.
  EXPECT_EQ(coalesced_bytes({4, 3}, {100, 100}, 4, 128), 4 * 128.0);
}

// A fully-connected layer at batch 1 (ResNet-50's fc: [1x2048] x [2048x1000]): a larger tile
// only reuses A, it recomputes nothing, so the base tile must not start at the full 1000 columns
// (that leaves one thread block for the whole layer).
TEST(WelderTiles, GemvBaseTileKeepsParallelism) {
  TileGraph g;
  const int a = add_tensor(g, "A", {1, 2048}, false);
  const int b = add_tensor(g, "B", {2048, 1000}, true);
  const int mm = add_matmul(g, "fc", a, b);
  g.tensors[g.ops[mm].output].graph_output = true;
  KernelGroup grp;
  grp.ops = {mm};
  const WelderArch arch = gpu_model_arch();
  const TileConfig one = evaluate_tile(g, grp, arch, {1, 1});
  const TileConfig full = evaluate_tile(g, grp, arch, {1, 1000});
  ASSERT_TRUE(one.valid) << one.why;
  ASSERT_TRUE(full.valid) << full.why;
  EXPECT_EQ(one.work_elems, 1000.0);  // each output element computed once
  EXPECT_EQ(full.work_elems, 1000.0);
  const GroupResult r = schedule_group(g, grp, arch, SearchLimits{});
  ASSERT_TRUE(r.valid) << r.why;
  EXPECT_GT(r.best.grid, 1);
}

TEST(WelderPropagation, ConvStrideTwoNeedsHalo) {
  ModelBuilder b("conv", DType::F32);
  int x = b.input("x", {1, 8, 32, 32});
  x = b.conv2d(x, 16, 3, 2, 1, 1, true, "conv");
  const TileGraph tg = build_tile_graph(b.finish({x}));
  ASSERT_EQ(tg.ops.size(), 1u);
  const auto r = input_region(tg, tg.ops[0], 0, {1, 4, 4, 4}, tg.ops[0].reduce);
  // (4-1)*2 + 3 = 9 rows and columns, all 8 input channels.
  EXPECT_EQ(r, (std::vector<int64_t>{1, 8, 9, 9}));
  const auto w = input_region(tg, tg.ops[0], 1, {1, 4, 4, 4}, tg.ops[0].reduce);
  EXPECT_EQ(w, (std::vector<int64_t>{4, 8, 3, 3}));
}

TEST(WelderPropagation, ConvMaxPoolReuseTile) {
  // Paper Fig. 4/§3.2: a [1x1xF] MaxPool output tile needs a [2x2xF] reuse tile of the Conv.
  ModelBuilder b("conv_pool", DType::F32);
  int x = b.input("x", {1, 4, 8, 8});
  x = b.relu(b.conv2d(x, 16, 3, 1, 1, 1, true, "conv"), "relu");
  x = b.max_pool2d(x, 2, 2, 0, false, "pool");
  const TileGraph tg = build_tile_graph(b.finish({x}));
  ASSERT_EQ(tg.ops.size(), 3u);
  KernelGroup k;
  k.ops = {0, 1, 2};
  k.edges[{0, 1}] = Conn::Register;
  k.edges[{1, 2}] = Conn::Shared;
  const auto pool_in = input_region(tg, tg.ops[2], 0, {1, 16, 1, 1}, tg.ops[2].reduce);
  EXPECT_EQ(pool_in, (std::vector<int64_t>{1, 16, 2, 2}));
  const TileConfig c = evaluate_tile(tg, k, gpu_model_arch(), {1, 16, 1, 1});
  ASSERT_TRUE(c.valid) << c.why;
  EXPECT_EQ(c.grid, 16);  // 4x4 pooled positions
}

TEST(WelderPropagation, InconsistentOutputsAreNotConnected) {
  // Two outputs of different shapes (a row reduction and the element-wise op beside it) cannot
  // share one output tile: the group is rejected.
  TileGraph g;
  const int x = add_tensor(g, "x", {64, 32}, false);
  const int e = add_elementwise(g, "exp", {x}, {64, 32});
  TileOp red;
  red.name = "rowsum";
  red.type = "ReduceSum";
  red.space = {64, 1};
  red.reduce = {32};
  TileInput ia;
  ia.tensor = g.ops[e].output;
  ia.dims = {AxisIndex{.terms = {IndexTerm{.axis = 0}}},
             AxisIndex{.terms = {IndexTerm{.axis = 0, .reduction = true}}}};
  red.inputs = {ia};
  red.output = add_tensor(g, "rowsum:0", {64, 1}, false);
  g.tensors[red.output].graph_input = false;
  const int r = g.add_op(red);
  const int e2 = add_elementwise(g, "neg", {g.ops[e].output}, {64, 32});
  g.tensors[g.ops[r].output].graph_output = true;
  g.tensors[g.ops[e2].output].graph_output = true;
  KernelGroup k;
  k.ops = {e, r, e2};
  const TileConfig c = evaluate_tile(g, k, gpu_model_arch(), {8, 32});
  EXPECT_FALSE(c.valid);
  EXPECT_NE(c.why.find("inconsistent"), std::string::npos) << c.why;
}

// The memo of custom regions (Reshape, Concat, ... answered by the shared iteration spaces)
// returns what input_region computes, on a first lookup and on a repeated one.
TEST(WelderPropagation, CustomRegionMemoEqualsInputRegion) {
  ZooOptions zo;
  zo.image_size = 64;
  const TileGraph tg = build_tile_graph(build_zoo_model("mobilevit_s", zo));
  CustomRegionMemo memo;
  std::mt19937 rng(7);
  int checked = 0;
  for (size_t o = 0; o < tg.ops.size(); ++o) {
    const TileOp& op = tg.ops[o];
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      if (!op.inputs[k].custom()) continue;
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<int64_t> tile(op.space.size());
        for (size_t d = 0; d < tile.size(); ++d)
          tile[d] = std::uniform_int_distribution<int64_t>(1, op.space[d] + 2)(rng);
        const auto want = input_region(tg, op, static_cast<int>(k), tile, op.reduce);
        for (int lookup = 0; lookup < 2; ++lookup) {
          const int64_t* got =
              memo.region(tg, static_cast<int>(o), static_cast<int>(k), tile.data());
          EXPECT_EQ(std::vector<int64_t>(got, got + want.size()), want)
              << op.name << " input " << k << " lookup " << lookup;
        }
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 20);
  EXPECT_LE(memo.size(), static_cast<size_t>(checked));
}

// A memo keyed by op index and tile belongs to one tile-graph: another graph is refused.
TEST(WelderPropagation, CustomRegionMemoRefusesASecondGraph) {
  ZooOptions zo;
  zo.image_size = 64;
  const TileGraph a = build_tile_graph(build_zoo_model("mobilevit_s", zo));
  const TileGraph b = build_tile_graph(build_zoo_model("mobilevit_s", zo));
  int op = -1, input = -1;
  for (size_t o = 0; o < a.ops.size() && op < 0; ++o)
    for (size_t k = 0; k < a.ops[o].inputs.size(); ++k)
      if (a.ops[o].inputs[k].custom()) {
        op = static_cast<int>(o);
        input = static_cast<int>(k);
        break;
      }
  ASSERT_GE(op, 0);
  const std::vector<int64_t> tile(a.ops[static_cast<size_t>(op)].space.size(), 1);
  CustomRegionMemo memo;
  EXPECT_NE(memo.region(a, op, input, tile.data()), nullptr);
  try {
    memo.region(b, op, input, tile.data());
    FAIL() << "a memo answered for a second tile-graph";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("second tile-graph"), std::string::npos) << e.what();
  }
}

// Sharing one memo between the variants of a model changes no schedule.
TEST(WelderSearch, SharedRegionMemoKeepsSchedules) {
  ZooOptions zo;
  zo.image_size = 64;
  const TileGraph tg = build_tile_graph(build_zoo_model("vit_s32", zo));
  CustomRegionMemo memo;
  for (Variant v : {Variant::Base, Variant::Welder}) {
    ScheduleOptions own;
    own.variant = v;
    ScheduleOptions shared = own;
    shared.regions = &memo;
    const Schedule a = schedule_graph(tg, gpu_model_arch(), own);
    const Schedule b = schedule_graph(tg, gpu_model_arch(), shared);
    ASSERT_EQ(a.groups.size(), b.groups.size()) << variant_name(v);
    for (size_t i = 0; i < a.groups.size(); ++i) {
      EXPECT_EQ(a.groups[i].group.ops, b.groups[i].group.ops);
      EXPECT_EQ(a.groups[i].result.best.tile, b.groups[i].result.best.tile);
      EXPECT_EQ(a.groups[i].result.best.latency_us, b.groups[i].result.best.latency_us);
    }
    EXPECT_EQ(a.metrics.transactions, b.metrics.transactions);
    EXPECT_EQ(a.tiles_visited, b.tiles_visited);
  }
  EXPECT_GT(memo.size(), 0u);
}

// Sharing the tile searches between the variants of a model (and the transaction-driven runs of
// Fig. 13) changes no schedule and no counter: each run still reports the sub-graphs it tiled,
// the candidates and the tiles of their searches, as if it had searched them itself.
TEST(WelderSearch, SharedSearchCacheKeepsSchedulesAndCounters) {
  ZooOptions zo;
  zo.image_size = 64;
  const TileGraph tg = build_tile_graph(build_zoo_model("mobilevit_s", zo));
  GroupSearchCache searches;
  size_t searched = 0;
  for (Variant v : {Variant::None, Variant::Base, Variant::Welder, Variant::AnsorLike}) {
    for (ConnectCost cc : {ConnectCost::Latency, ConnectCost::Transactions}) {
      ScheduleOptions own;
      own.variant = v;
      own.connect_cost = cc;
      ScheduleOptions shared = own;
      shared.searches = &searches;
      const Schedule a = schedule_graph(tg, gpu_model_arch(), own);
      const Schedule b = schedule_graph(tg, gpu_model_arch(), shared);
      ASSERT_EQ(a.groups.size(), b.groups.size()) << variant_name(v);
      for (size_t i = 0; i < a.groups.size(); ++i) {
        EXPECT_EQ(a.groups[i].group.ops, b.groups[i].group.ops);
        EXPECT_EQ(a.groups[i].group.edges, b.groups[i].group.edges);
        EXPECT_EQ(a.groups[i].result.best.tile, b.groups[i].result.best.tile);
        EXPECT_EQ(a.groups[i].result.best.latency_us, b.groups[i].result.best.latency_us);
        EXPECT_EQ(a.groups[i].result.best.sectors, b.groups[i].result.best.sectors);
      }
      EXPECT_EQ(a.metrics.latency_ms, b.metrics.latency_ms);
      EXPECT_EQ(a.metrics.transactions, b.metrics.transactions);
      EXPECT_EQ(a.subgraphs_tuned, b.subgraphs_tuned);
      EXPECT_EQ(a.candidates_costed, b.candidates_costed);
      EXPECT_EQ(a.tiles_visited, b.tiles_visited);
      // The run adds at most the signatures it tuned; the first one adds all of them.
      EXPECT_LE(searches.size(), searched + static_cast<size_t>(b.subgraphs_tuned));
      if (searched == 0) {
        EXPECT_EQ(searches.size(), static_cast<size_t>(b.subgraphs_tuned));
      }
      searched = searches.size();
    }
  }
  // The variants share sub-graphs (every variant tiles the operators alone): fewer searches than
  // the runs' tuned sub-graphs together.
  ScheduleOptions again;
  again.searches = &searches;
  const Schedule s = schedule_graph(tg, gpu_model_arch(), again);
  EXPECT_EQ(searches.size(), searched) << "a run met again searched again";
  EXPECT_GT(s.subgraphs_tuned, 0);
}

// A search cache keyed by signature belongs to one tile-graph and one set of search limits.
TEST(WelderSearch, SearchCacheRefusesASecondGraphOrOtherLimits) {
  const MatmulSoftmax a, b;
  GroupSearchCache searches;
  ScheduleOptions o;
  o.searches = &searches;
  schedule_graph(a.g, v100_arch(), o);
  EXPECT_GT(searches.size(), 0u);
  try {
    schedule_graph(b.g, v100_arch(), o);
    FAIL() << "a search cache answered for a second tile-graph";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("second tile-graph"), std::string::npos) << e.what();
  }
  o.limits.topk = 5;
  try {
    schedule_graph(a.g, v100_arch(), o);
    FAIL() << "a search cache answered for other search limits";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("search limits"), std::string::npos) << e.what();
  }
}

// Fig. 7 keeps, per edge, the level whose kernels cost least: by modelled latency (the paper's
// rule) or, in the sensitivity study, by transactions. On the §2 MatMul->Softmax graph the two
// options are two kernels or one fused kernel; each rule must pick its own minimum.
TEST(WelderVariants, ConnectCostPicksTheCheaperLevel) {
  MatmulSoftmax s;
  const WelderArch arch = gpu_model_arch();
  KernelGroup mm, sm;
  mm.ops = {s.mm};
  sm.ops = {s.sm};
  const GroupResult rm = schedule_group(s.g, mm, arch, SearchLimits{});
  const GroupResult rs = schedule_group(s.g, sm, arch, SearchLimits{});
  const GroupResult rf = schedule_group(s.g, s.fused, arch, SearchLimits{});
  ASSERT_TRUE(rm.valid && rs.valid && rf.valid);
  ScheduleOptions o;
  o.variant = Variant::Welder;
  const Schedule by_latency = schedule_graph(s.g, arch, o);
  EXPECT_DOUBLE_EQ(by_latency.metrics.latency_ms * 1000,
                   std::min(rf.best.latency_us, rm.best.latency_us + rs.best.latency_us));
  o.connect_cost = ConnectCost::Transactions;
  const Schedule by_transactions = schedule_graph(s.g, arch, o);
  EXPECT_DOUBLE_EQ(by_transactions.metrics.transactions,
                   std::min(rf.best.sectors, rm.best.sectors + rs.best.sectors));
}

// Hand-checked two-operator graph: C = A.B, D = Relu(C), A [4096x64], B [64x64].
struct MatmulRelu {
  TileGraph g;
  int mm = -1, relu = -1;
  MatmulRelu() {
    const int a = add_tensor(g, "A", {4096, 64}, false);
    const int b = add_tensor(g, "B", {64, 64}, true);
    mm = add_matmul(g, "matmul", a, b);
    relu = add_elementwise(g, "relu", {g.ops[mm].output}, {4096, 64});
    g.tensors[g.ops[relu].output].graph_output = true;
  }
};

double expected_sectors(const TileGraph& g, const std::vector<int64_t>& t, bool fused) {
  // Per tile: A [t0 x 64] (one run of t0*256 B), B [64x64] whole, output [t0 x t1].
  const double a = sector_count({t[0], 64}, {4096, 64}, 4, 32);
  const double b = sector_count({64, t[1]}, {64, 64}, 4, 32);
  const double o = sector_count({t[0], t[1]}, {4096, 64}, 4, 32);
  const double tiles = static_cast<double>((4096 / t[0]) * (64 / t[1]));
  (void)g;
  return tiles * (a + b + o) + (fused ? 0.0 : 0.0);
}

TEST(WelderVariants, TwoOperatorMetrics) {
  MatmulRelu m;
  const WelderArch arch = gpu_model_arch();
  const double c_mib = 4096.0 * 64 * 4 / (1024 * 1024);  // 1 MiB each for C and D
  for (Variant v : {Variant::None, Variant::Base, Variant::Welder, Variant::AnsorLike}) {
    ScheduleOptions o;
    o.variant = v;
    const Schedule s = schedule_graph(m.g, arch, o);
    if (v == Variant::None) {
      EXPECT_EQ(s.metrics.kernels, 2);
      EXPECT_DOUBLE_EQ(s.metrics.irs_mib, 2 * c_mib);  // C and D written
    } else {
      EXPECT_EQ(s.metrics.kernels, 1) << variant_name(v);
      EXPECT_DOUBLE_EQ(s.metrics.irs_mib, c_mib) << variant_name(v);  // only D
      ASSERT_EQ(s.groups.size(), 1u);
      const auto& e = s.groups[0].group.edges;
      ASSERT_EQ(e.count({m.mm, m.relu}), 1u);
      EXPECT_EQ(e.at({m.mm, m.relu}), Conn::Register) << variant_name(v);
      // Transactions: A and B tiles read, D tiles written, per tile, times the number of tiles.
      EXPECT_DOUBLE_EQ(s.metrics.transactions,
                       expected_sectors(m.g, s.groups[0].result.best.tile, true));
    }
  }
}

TEST(WelderVariants, SoftmaxNeedsSharedMemory) {
  // Softmax is a reduction: the register level cannot connect it to the matmul; the shared
  // level can (the §2 pattern). Welder-base: 2 kernels; Welder: 1 kernel with C in shared memory.
  TileGraph g;
  const int a = add_tensor(g, "A", {8192, 64}, false);
  const int b = add_tensor(g, "B", {64, 128}, true);
  const int mm = add_matmul(g, "matmul", a, b);
  const int sm = add_softmax(g, "softmax", g.ops[mm].output);
  g.tensors[g.ops[sm].output].graph_output = true;
  const WelderArch arch = gpu_model_arch();
  ScheduleOptions o;
  o.variant = Variant::Base;
  EXPECT_EQ(schedule_graph(g, arch, o).metrics.kernels, 2);
  o.variant = Variant::Welder;
  const Schedule s = schedule_graph(g, arch, o);
  ASSERT_EQ(s.metrics.kernels, 1);
  EXPECT_EQ(s.groups[0].group.edges.at({mm, sm}), Conn::Shared);
  EXPECT_EQ(s.groups[0].result.best.tile.back(), 128);  // whole softmax rows
  EXPECT_LE(s.groups[0].result.best.smem, arch.smem_per_block);
}

TEST(WelderVariants, PlanHasOneStagePerGroup) {
  ModelBuilder b("mlp", DType::F32);
  int x = b.input("x", {256, 64});
  x = b.relu(b.linear(x, 64, false, "fc0"), "relu0");
  x = b.linear(x, 3, false, "fc1");
  const Graph gr = b.finish({x});
  const TileGraph tg = build_tile_graph(gr);
  ScheduleOptions o;
  o.variant = Variant::Welder;
  const Schedule s = schedule_graph(tg, gpu_model_arch(), o);
  const Plan p = to_plan(s, tg, gr.name);
  p.check(gr);
  EXPECT_EQ(p.stages.size(), s.groups.size());
  EXPECT_EQ(s.metrics.kernels, 1);  // Dot Relu Dot: one kernel (Table 4's NeRF pattern)
}

// Fused-plan equality: Welder's whole plan of a network (every kernel a fused task computed tile
// by tile at its chosen tile, halos recomputed) run by run_plan equals the unfused graph on random
// inputs (within kNetworkTolerance: tens of layers evaluated tile by tile); the plan holds at
// least `min_fused` multi-operator kernels.
void check_fused_groups(const std::string& model, const ZooOptions& zo, size_t min_fused) {
  const Graph g = build_zoo_model(model, zo);
  const TileGraph tg = build_tile_graph(g);
  ScheduleOptions o;
  o.variant = Variant::Welder;
  const Schedule s = schedule_graph(tg, gpu_model_arch(), o);
  const Plan plan = to_plan(s, tg, g.name);
  size_t fused = 0;
  for (const Stage& st : plan.stages)
    for (const Task& t : st.tasks) fused += t.kind == TaskKind::Fused && t.ops.size() > 1;
  EXPECT_GE(fused, min_fused) << model;
  const PlanComparison c = compare_plan_with_reference(g, plan, /*seed=*/7, kNetworkTolerance);
  EXPECT_TRUE(c.passed) << model << ": " << c.str();
  EXPECT_GT(c.stats.tiles, static_cast<int64_t>(plan.num_tasks())) << "tasks ran tile by tile";
}

// The plans Welder writes are valid documents of the plan format (common/plan/plan.schema.json).
TEST(WelderVariants, PlansValidateAgainstThePlanSchema) {
  ZooOptions zo;
  zo.image_size = 64;
  const Graph g = build_zoo_model("vit_s32", zo);
  const TileGraph tg = build_tile_graph(g);
  ScheduleOptions o;
  o.variant = Variant::Welder;
  const Schedule s = schedule_graph(tg, gpu_model_arch(), o);
  EXPECT_EQ(testing::plan_schema().validate(
                nlohmann::json::parse(plan_to_json(to_plan(s, tg, g.name), g))),
            "");
}

TEST(WelderFusedExecution, NafnetGroupsMatchReference) {
  ZooOptions zo;
  zo.image_size = 16;
  check_fused_groups("nafnet", zo, 6);
}

TEST(WelderFusedExecution, VitGroupsMatchReference) {
  ZooOptions zo;
  zo.image_size = 64;
  check_fused_groups("vit_s32", zo, 6);
}

TEST(WelderFusedExecution, MobileVitGroupsMatchReference) {
  ZooOptions zo;
  zo.image_size = 64;
  check_fused_groups("mobilevit_s", zo, 4);
}

int64_t weight_count(const Graph& g) {
  int64_t n = 0;
  for (int t : g.weight_tensors()) n += numel(g.tensor(t).shape);
  return n;
}

// The three Table 2 networks built from their papers' configurations have the parameter counts
// their papers publish: MobileViT-S 5.6 M (MobileViT, ICLR'22, Table 1), Restormer 26.13 M
// (Restormer, CVPR'22, Table 9), BSRN x4 352 K (BSRN, CVPRW'22, Table 5).
TEST(WelderZoo, Table2ModelsHavePublishedParameterCounts) {
  EXPECT_EQ(
      std::llround(static_cast<double>(weight_count(build_zoo_model("mobilevit_s", {}))) / 1e5),
      56);
  EXPECT_EQ(std::llround(static_cast<double>(weight_count(build_zoo_model("restormer", {}))) / 1e4),
            2613);
  EXPECT_EQ(std::llround(static_cast<double>(weight_count(build_zoo_model("bsrn", {}))) / 1e3),
            352);
}

}  // namespace
}  // namespace dgs::welder
