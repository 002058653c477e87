// run_plan: plans executed region by region on the CPU reference executor equal the unscheduled
// graph on random inputs: split instances, halves with recomputed halos, partial sums over input
// channels, and a 3-D conv chain brick by brick (halos recomputed or shared). Malformed plans are
// refused with one line.
#include "common/exec/plan_exec.h"

#include <gtest/gtest.h>

#include <set>

#include "models/zoo.h"
#include "tests/plan/plan_test_graphs.h"

namespace dgs {
namespace {

Task task_of(TaskKind kind, std::vector<int> ops) {
  Task t;
  t.kind = kind;
  t.ops = std::move(ops);
  return t;
}

// The plan of one stage holding `tasks`, compared with the reference.
PlanComparison run_stage(const Graph& g, std::vector<Task> tasks, uint64_t seed) {
  Plan p;
  p.stages = {Stage{std::move(tasks)}};
  return compare_plan_with_reference(g, p, seed);
}

// The ops of `g` whose name starts with `prefix`, in topological order; `before` and `after`
// get the others on each side.
struct OpSplit {
  std::vector<int> before, part, after;
};
OpSplit split_ops(const Graph& g, const std::string& prefix) {
  OpSplit s;
  for (int op : g.topo_order()) {
    const bool in = g.op(op).name.rfind(prefix, 0) == 0;
    if (in) {
      s.part.push_back(op);
    } else {
      (s.part.empty() ? s.before : s.after).push_back(op);
    }
  }
  return s;
}

// before | the tasks of `middle` (one stage) | after.
Plan around(const OpSplit& s, std::vector<Task> middle) {
  Plan p;
  p.scheduler = "test";
  p.stages.push_back(Stage{{task_of(TaskKind::Sequential, s.before)}});
  p.stages.push_back(Stage{std::move(middle)});
  p.stages.push_back(Stage{{task_of(TaskKind::Sequential, s.after)}});
  return p;
}

Graph small_resnet50(int64_t batch) {
  ZooOptions o;
  o.batch = batch;
  o.image_size = 64;
  return build_zoo_model("resnet50", o);
}

// The one tensor of the part that ops after it read.
int part_output(const Graph& g, const OpSplit& s) {
  const std::set<int> part(s.part.begin(), s.part.end());
  std::set<int> out;
  for (int op : s.part)
    for (int t : g.op(op).outputs)
      for (int c : g.tensor(t).consumers)
        if (!part.count(c)) out.insert(t);
  EXPECT_EQ(out.size(), 1u);
  return *out.begin();
}

TEST(RunPlan, ResNet50StageSplitIntoFourBatchInstances) {
  const Graph g = small_resnet50(4);
  const OpSplit s = split_ops(g, "layer1.");
  const int y = part_output(g, s);
  const Shape& ys = g.tensor(y).shape;
  std::vector<Task> instances;
  for (int64_t n = 0; n < 4; ++n) {
    Task t = task_of(TaskKind::Fused, s.part);
    t.regions[y] = {{n, n + 1}, {0, ys[1]}, {0, ys[2]}, {0, ys[3]}};
    t.scope[y] = "gb";
    t.placement.unit = UnitKind::Core;
    t.placement.index = {0, 0};
    t.placement.count = 8;
    t.placement.binding = {1, 8, 1, 1};
    instances.push_back(t);
  }
  const PlanComparison c = compare_plan_with_reference(g, around(s, instances), 1);
  EXPECT_TRUE(c.passed) << c.str();
  // Batch instances recompute nothing: every op of the stage computed its output exactly once.
  for (int op : s.part)
    EXPECT_EQ(c.stats.elements_computed[op], g.tensor(g.op(op).outputs[0]).numel())
        << g.op(op).name;
}

TEST(RunPlan, ResNet50StageSplitIntoTwoHeightHalvesRecomputesHalos) {
  const Graph g = small_resnet50(1);
  const OpSplit s = split_ops(g, "layer1.");
  const int y = part_output(g, s);
  const Shape& ys = g.tensor(y).shape;
  std::vector<Task> halves;
  for (int64_t h = 0; h < 2; ++h) {
    Task t = task_of(TaskKind::Fused, s.part);
    t.regions[y] = {{0, 1}, {0, ys[1]}, {h * ys[2] / 2, (h + 1) * ys[2] / 2}, {0, ys[3]}};
    halves.push_back(t);
  }
  const PlanComparison c = compare_plan_with_reference(g, around(s, halves), 2);
  EXPECT_TRUE(c.passed) << c.str();
  // The 3x3 convolutions' halos are computed twice: more elements than the tensor has.
  const int conv2 = g.find_op("layer1.0.conv2");
  const int64_t n = g.tensor(g.op(conv2).outputs[0]).numel();
  EXPECT_GT(c.stats.elements_computed[conv2], n);
  EXPECT_LT(c.stats.elements_computed[conv2], 2 * n);
}

TEST(RunPlan, ConvSplitIntoFourInputChannelSlicesAddsPartialSums) {
  const Graph g = small_resnet50(1);
  const int conv = g.find_op("layer1.0.conv2");  // 64 -> 64, 3x3
  ASSERT_GE(conv, 0);
  OpSplit s;
  for (int op : g.topo_order()) {
    if (op == conv) {
      s.part.push_back(op);
    } else {
      (s.part.empty() ? s.before : s.after).push_back(op);
    }
  }
  std::vector<Task> slices;
  for (int64_t k = 0; k < 4; ++k) {
    Task t = task_of(TaskKind::Sequential, {conv});
    t.reduction.range = {"c_in", {16 * k, 16 * (k + 1)}};
    t.placement.unit = UnitKind::Engine;
    t.placement.index = {static_cast<int>(k), 0};
    slices.push_back(t);
  }
  const PlanComparison c = compare_plan_with_reference(g, around(s, slices), 3);
  EXPECT_TRUE(c.passed) << c.str();
  EXPECT_EQ(c.stats.elements_computed[conv], 4 * g.tensor(g.op(conv).outputs[0]).numel());
}

TEST(RunPlan, PartialSumsAlsoSplitOutputRegionsAndMatMuls) {
  // Gemm (with beta * C) and MatMul split over k and over output rows at once.
  Graph g;
  g.name = "mm";
  const int a = g.add_input("a", {6, 10});
  const int w = g.add_weight("w", {10, 4});
  const int c = g.add_weight("c", {4});
  const int gemm = g.add_op(OpKind::Gemm, "gemm", {a, w, c}, {{"beta", 0.5}});
  const int w2 = g.add_weight("w2", {4, 3});
  const int mm = g.add_op(OpKind::MatMul, "mm", {g.op(gemm).outputs[0], w2});
  g.mark_output(g.op(mm).outputs[0]);
  Plan p;
  Stage s0, s1;
  for (int64_t rows = 0; rows < 6; rows += 3) {
    for (const Interval k : {Interval{0, 7}, Interval{7, 10}}) {
      Task t = task_of(TaskKind::Sequential, {gemm});
      t.regions[g.op(gemm).outputs[0]] = {{rows, rows + 3}, {0, 4}};
      t.reduction.range = {"k", k};
      s0.tasks.push_back(t);
    }
  }
  for (const Interval k : {Interval{0, 1}, Interval{1, 4}}) {
    Task t = task_of(TaskKind::Sequential, {mm});
    t.reduction.range = {"k", k};
    s1.tasks.push_back(t);
  }
  p.stages = {s0, s1};
  const PlanComparison cmp = compare_plan_with_reference(g, p, 4);
  EXPECT_TRUE(cmp.passed) << cmp.str();
}

// x [1,4,16,16,16] -> conv 3^3 pad 1 -> relu -> conv 3^3 dilation 2 pad 2 -> add(relu) -> maxpool
// 3^3 stride 1 pad 1 -> y
Graph conv3d_chain() {
  Graph g;
  g.name = "conv3d_chain";
  const int x = g.add_input("x", {1, 4, 16, 16, 16});
  const int w1 = g.add_weight("w1", {8, 4, 3, 3, 3});
  const int b1 = g.add_weight("b1", {8});
  const int w2 = g.add_weight("w2", {8, 8, 3, 3, 3});
  const std::vector<int64_t> k3 = {3, 3, 3};
  const int c1 = g.add_op(OpKind::Conv, "conv1", {x, w1, b1},
                          {{"kernel_shape", k3}, {"pads", std::vector<int64_t>(6, 1)}});
  const int r1 = g.add_op(OpKind::Relu, "relu1", {g.op(c1).outputs[0]});
  const int c2 = g.add_op(OpKind::Conv, "conv2", {g.op(r1).outputs[0], w2},
                          {{"kernel_shape", k3},
                           {"pads", std::vector<int64_t>(6, 2)},
                           {"dilations", std::vector<int64_t>{2, 2, 2}}});
  const int add = g.add_op(OpKind::Add, "add", {g.op(c2).outputs[0], g.op(r1).outputs[0]});
  const int pool = g.add_op(OpKind::MaxPool, "pool", {g.op(add).outputs[0]},
                            {{"kernel_shape", k3}, {"pads", std::vector<int64_t>(6, 1)}}, 1, {"y"});
  g.mark_output(g.op(pool).outputs[0]);
  return g;
}

std::vector<int> all_ops(const Graph& g) {
  return g.topo_order();
}

TEST(RunPlan, ConvChain3dRunsBrickByBrickWithRecomputedHalos) {
  const Graph g = conv3d_chain();
  const int y = g.find_tensor("y");
  Plan p;
  Stage st;
  for (int64_t d = 0; d < 16; d += 8)
    for (int64_t h = 0; h < 16; h += 8)
      for (int64_t w = 0; w < 16; w += 8) {
        Task t = task_of(TaskKind::Fused, all_ops(g));
        t.regions[y] = {{0, 1}, {0, 8}, {d, d + 8}, {h, h + 8}, {w, w + 8}};
        t.kept[g.find_tensor("conv1:0")] = "register";
        st.tasks.push_back(t);
      }
  p.stages = {st};
  const PlanComparison c = compare_plan_with_reference(g, p, 5);
  EXPECT_TRUE(c.passed) << c.str();
  const int conv1 = g.find_op("conv1");
  // Each (corner) brick of the pool needs 9^3 of `add` (3^3 window, pad 1, clipped at the
  // border), so conv2 needs 9 + 2 (dilation 2, pad 2, clipped) = 11^3 of relu1: 8 channels x
  // 11^3 x 8 bricks.
  EXPECT_EQ(c.stats.elements_computed[conv1], 8 * 8 * 11 * 11 * 11);
}

TEST(RunPlan, ConvChain3dBricksShareHalosThroughL2ComputeEachElementOnce) {
  const Graph g = conv3d_chain();
  Plan p;
  Task t = task_of(TaskKind::Fused, all_ops(g));
  t.tile = {1, 8, 8, 8, 8};
  t.halo = {HaloMode::Share, "l2"};
  p.stages = {Stage{{t}}};
  const PlanComparison c = compare_plan_with_reference(g, p, 6);
  EXPECT_TRUE(c.passed) << c.str();
  EXPECT_EQ(c.stats.tiles, 8);
  for (int op : all_ops(g))  // memoized: every element of every op computed exactly once
    EXPECT_EQ(c.stats.elements_computed[op], g.tensor(g.op(op).outputs[0]).numel())
        << g.op(op).name;
  // The same tiles with recomputed halos compute conv1 more than once per element.
  p.stages[0].tasks[0].halo = {};
  const PlanComparison r = compare_plan_with_reference(g, p, 6);
  EXPECT_TRUE(r.passed) << r.str();
  EXPECT_GT(r.stats.elements_computed[g.find_op("conv1")],
            g.tensor(g.find_tensor("conv1:0")).numel());
}

TEST(RunPlan, StridedAndPooledBricksAtBordersEqualTheReference) {
  // Bricks of 5 (not dividing 16) through a stride-2 conv and a 2x2 pool with ceil_mode.
  Graph g;
  g.name = "strided";
  const int x = g.add_input("x", {2, 3, 17, 15});
  const int w = g.add_weight("w", {6, 3, 3, 3});
  const int c = g.add_op(OpKind::Conv, "conv", {x, w},
                         {{"kernel_shape", std::vector<int64_t>{3, 3}},
                          {"strides", std::vector<int64_t>{2, 2}},
                          {"auto_pad", std::string("SAME_UPPER")}});
  const int pool = g.add_op(OpKind::AveragePool, "pool", {g.op(c).outputs[0]},
                            {{"kernel_shape", std::vector<int64_t>{2, 2}},
                             {"strides", std::vector<int64_t>{2, 2}},
                             {"ceil_mode", int64_t{1}}});
  g.mark_output(g.op(pool).outputs[0]);
  Task t = task_of(TaskKind::Fused, {g.find_op("conv"), g.find_op("pool")});
  t.tile = {1, 6, 2, 3};
  const PlanComparison cmp = run_stage(g, {t}, 7);
  EXPECT_TRUE(cmp.passed) << cmp.str();
}

// A Concat inside tasks split along its axis: each region reads only one of the Concat's inputs,
// so the other input's op computes nothing in that task (regions, tiles recomputed, tiles shared).
TEST(RunPlan, ConcatSplitAlongItsAxisInsideFusedTasks) {
  Graph g;
  g.name = "concat";
  const int x = g.add_input("x", {1, 4, 6, 6});
  const int a = g.add_op(OpKind::Relu, "a", {x});
  const int b = g.add_op(OpKind::Sigmoid, "b", {x});
  const int c = g.add_op(OpKind::Concat, "c", {g.op(a).outputs[0], g.op(b).outputs[0]},
                         {{"axis", int64_t{1}}});
  const int y = g.add_op(OpKind::Neg, "y", {g.op(c).outputs[0]});
  g.mark_output(g.op(y).outputs[0]);
  const int out = g.op(y).outputs[0];
  std::vector<Task> halves;
  for (int64_t h = 0; h < 2; ++h) {
    Task t = task_of(TaskKind::Fused, {a, b, c, y});
    t.regions[out] = {{0, 1}, {4 * h, 4 * h + 4}, {0, 6}, {0, 6}};
    halves.push_back(t);
  }
  const PlanComparison r = run_stage(g, halves, 8);
  EXPECT_TRUE(r.passed) << r.str();
  EXPECT_EQ(r.stats.elements_computed[a], 4 * 36);  // relu only for the first half
  for (const HaloMode mode : {HaloMode::Recompute, HaloMode::Share}) {
    Task t = task_of(TaskKind::Fused, {a, b, c, y});
    t.tile = {1, 4, 6, 6};
    t.halo = {mode, mode == HaloMode::Share ? "l2" : ""};
    const PlanComparison c2 = run_stage(g, {t}, 8);
    EXPECT_TRUE(c2.passed) << c2.str();
  }
}

// Partial sums through run_plan add the bias once, also where a region's windows read padding only
// (a 1x1 conv with pads 2: rows 0-1 of the output see only padding: bias there).
TEST(RunPlan, PartialSumsAddTheBiasOnceEvenInPaddingOnlyRegions) {
  Graph g;
  g.name = "padded";
  const int x = g.add_input("x", {1, 4, 4, 4});
  const int w = g.add_weight("w", {3, 4, 1, 1});
  const int bias = g.add_weight("b", {3});
  const int conv = g.add_op(
      OpKind::Conv, "conv", {x, w, bias},
      {{"kernel_shape", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{2, 2, 2, 2}}});
  g.mark_output(g.op(conv).outputs[0]);
  const int out = g.op(conv).outputs[0];  // [1,3,8,8]
  Plan p;
  Stage st;
  for (const Interval rows : {Interval{0, 2}, Interval{2, 8}})
    for (const Interval k : {Interval{0, 2}, Interval{2, 4}}) {
      Task t = task_of(TaskKind::Sequential, {conv});
      t.regions[out] = {{0, 1}, {0, 3}, rows, {0, 8}};
      t.reduction.range = {"c_in", k};
      st.tasks.push_back(t);
    }
  p.stages = {st};
  const PlanComparison c = compare_plan_with_reference(g, p, 9);
  EXPECT_TRUE(c.passed) << c.str();
  // The conv_relu graph (3x3 with bias) split into input-channel halves, through run_plan.
  const Graph cr = conv_relu_graph();
  Plan halves;
  Stage s0;
  for (const Interval k : {Interval{0, 2}, Interval{2, 4}}) {
    Task t = task_of(TaskKind::Sequential, {cr.find_op("conv")});
    t.reduction.range = {"c_in", k};
    s0.tasks.push_back(t);
  }
  halves.stages = {s0, Stage{{task_of(TaskKind::Sequential, {cr.find_op("relu")})}}};
  const PlanComparison h = compare_plan_with_reference(cr, halves, 10);
  EXPECT_TRUE(h.passed) << h.str();
}

// Shared halos with tiles that do not divide the output: the missing part of a later tile's need
// is not a box, so its bounding box is computed again; values still equal the reference.
TEST(RunPlan, SharedHalosWithTilesThatDoNotDivideTheOutput) {
  const Graph g = conv3d_chain();
  Task t = task_of(TaskKind::Fused, all_ops(g));
  t.tile = {1, 8, 5, 7, 16};
  t.halo = {HaloMode::Share, "l2"};
  const PlanComparison c = run_stage(g, {t}, 12);
  EXPECT_TRUE(c.passed) << c.str();
  const int conv1 = g.find_op("conv1");
  const int64_t n = g.tensor(g.op(conv1).outputs[0]).numel();
  EXPECT_GE(c.stats.elements_computed[conv1], n);
  EXPECT_LT(c.stats.elements_computed[conv1], 2 * n);
}

void expect_run_error(const Graph& g, const Plan& p, const std::string& needle) {
  const TensorValues feeds = make_graph_feeds(g, {}, 1);
  try {
    run_plan(g, p, feeds);
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(RunPlan, MalformedPlansAreRefusedInOneLine) {
  const Graph g = conv_relu_graph();
  const int y = g.find_tensor("y");
  auto rows = [&](Interval a, Interval b, bool same_stage) {
    Plan p;
    Stage s;
    for (const Interval r : {a, b}) {
      Task t = task_of(TaskKind::Fused, {g.find_op("conv"), g.find_op("relu")});
      t.regions[y] = {{0, 1}, {0, 8}, r, {0, 8}};
      s.tasks.push_back(t);
      if (!same_stage) {
        p.stages.push_back(s);
        s.tasks.clear();
      }
    }
    if (same_stage) p.stages.push_back(s);
    return p;
  };
  expect_run_error(g, rows({0, 5}, {4, 8}, false), "overlaps region [0:1,0:8,0:5,0:8] of 'y'");
  expect_run_error(g, rows({0, 3}, {4, 8}, true), "64 of 512 elements of 'y'");
  // relu's task reads conv's output before the conv's task writes it (same stage).
  Plan early;
  early.stages = {Stage{{task_of(TaskKind::Sequential, {g.find_op("conv")}),
                         task_of(TaskKind::Sequential, {g.find_op("relu")})}}};
  expect_run_error(g, early, "reads region [0:1,0:8,0:8,0:8] of 'conv:0' before stage 0 task 0");
  // A level the hardware does not have.
  Plan lvl = rows({0, 4}, {4, 8}, true);
  lvl.stages[0].tasks[0].kept[g.find_tensor("conv:0")] = "lb";
  PlanTarget gpu;
  gpu.name = "V100";
  gpu.memory_levels = {"register", "shared", "l2", "dram", "host"};
  expect_check_error(g, lvl, "memory level 'lb' does not exist on V100", &gpu);
  // A task whose region is dropped writes its tensor whole, over the other task's half: refused
  // before anything runs.
  Plan gap = rows({0, 4}, {4, 8}, true);
  gap.stages[0].tasks[1].regions.clear();
  expect_run_error(g, gap, "overlaps");
}

}  // namespace
}  // namespace dgs
