// Plans: names, the JSON round trip (version 2, and version 1 files), and Plan::check's rules,
// each violation refused with one line naming it.
#include "common/plan/plan.h"

#include <gtest/gtest.h>

#include <functional>

#include "tests/error_of.h"
#include "tests/plan/plan_test_graphs.h"

namespace dgs {
namespace {

Plan fused_plan(const Graph& g) {
  Plan p;
  p.scheduler = "test";
  p.graph = g.name;
  Task t0;
  t0.ops = {g.find_op("a")};
  Task t1;
  t1.kind = TaskKind::Fused;
  t1.ops = {g.find_op("b"), g.find_op("c")};
  t1.kept[g.find_tensor("b:0")] = "shared";
  t1.tile = {1, 4};
  t1.placement = stream_placement(0);
  Task t2;
  t2.kind = TaskKind::Merged;
  t2.ops = {g.find_op("d")};
  t2.placement = stream_placement(1);
  p.stages.push_back(Stage{{t0}});
  p.stages.push_back(Stage{{t1, t2}});
  return p;
}

TEST(Plan, NamesRoundTrip) {
  for (TaskKind k : {TaskKind::Sequential, TaskKind::Merged, TaskKind::Fused})
    EXPECT_EQ(task_kind_from_name(task_kind_name(k)), k);
  for (UnitKind k : {UnitKind::None, UnitKind::Stream, UnitKind::SmSet, UnitKind::Cluster,
                     UnitKind::Core, UnitKind::Engine})
    EXPECT_EQ(unit_kind_from_name(unit_kind_name(k)), k);
  for (HaloMode m : {HaloMode::Recompute, HaloMode::Share})
    EXPECT_EQ(halo_mode_from_name(halo_mode_name(m)), m);
  EXPECT_EQ(accumulation_from_name(accumulation_name(Accumulation::Sum)), Accumulation::Sum);
  EXPECT_EQ(task_kind_name(TaskKind::Fused), "fused");
  EXPECT_EQ(unit_kind_name(UnitKind::SmSet), "sm_set");
  EXPECT_THROW(task_kind_from_name("parallel"), Error);
  EXPECT_THROW(unit_kind_from_name("warp"), Error);
  EXPECT_THROW(halo_mode_from_name("exchange"), Error);
}

TEST(Plan, JsonRoundTripKeepsEverything) {
  const Graph g = conv_relu_graph();
  Plan p;
  p.scheduler = "test";
  p.graph = g.name;
  p.options.fold_activation = true;
  p.options.tensor_cores = false;
  p.options.prefetch_across_stages = false;
  for (int half = 0; half < 2; ++half) {
    Task t;
    t.kind = TaskKind::Fused;
    t.ops = {g.find_op("conv"), g.find_op("relu")};
    t.regions[g.find_tensor("y")] = {{0, 1}, {0, 8}, {4 * half, 4 * half + 4}, {0, 8}};
    t.kept[g.find_tensor("conv:0")] = "register";
    t.scope[g.find_tensor("y")] = "gb";
    t.tile = {1, 8, 2, 4};
    t.halo = {HaloMode::Share, "l2"};
    t.placement.unit = UnitKind::Core;
    t.placement.index = {0, 4 * half};
    t.placement.count = 4;
    t.placement.binding = {1, 2, 2, 1};
    t.pinned = {g.find_tensor("w"), g.find_tensor("b")};
    t.buffer_bytes = half ? 98304 : 0;
    p.stages.push_back(Stage{{t}});
  }
  p.check(g);
  const std::string text = plan_to_json(p, g);
  EXPECT_NE(text.find("\"version\": 2"), std::string::npos) << text;
  const Plan q = plan_from_json(text, g, "mem");
  EXPECT_EQ(q.version, 2);
  EXPECT_EQ(q.scheduler, "test");
  EXPECT_EQ(q.options, p.options);
  ASSERT_EQ(q.stages.size(), 2u);
  const Task& t = q.stages[1].tasks.at(0);
  const Task& u = p.stages[1].tasks[0];
  EXPECT_EQ(t.kind, u.kind);
  EXPECT_EQ(t.ops, u.ops);
  EXPECT_EQ(t.regions, u.regions);
  EXPECT_EQ(t.kept, u.kept);
  EXPECT_EQ(t.scope, u.scope);
  EXPECT_EQ(t.tile, u.tile);
  EXPECT_EQ(t.halo, u.halo);
  EXPECT_EQ(t.placement, u.placement);
  EXPECT_EQ(t.pinned, u.pinned);
  EXPECT_EQ(t.buffer_bytes, 98304);
  EXPECT_NE(text.find("\"buffer_bytes\": 98304"), std::string::npos) << text;
  EXPECT_EQ(q.stages[0].tasks.at(0).buffer_bytes, 0);  // absent: the whole buffer
  EXPECT_EQ(plan_to_json(q, g), text);                 // byte-identical second round
}

TEST(Plan, JsonRoundTripKeepsReductionSplits) {
  const Graph g = conv_relu_graph();
  Plan p;
  Task a;
  a.ops = {g.find_op("conv")};
  a.reduction.range = {"c_in", {0, 2}};
  a.placement.unit = UnitKind::Engine;
  a.placement.index = {1, 0};
  Task b = a;
  b.reduction.range = {"c_in", {2, 4}};
  b.placement.index = {0, 1};
  Task r;
  r.ops = {g.find_op("relu")};
  p.stages = {Stage{{a, b}}, Stage{{r}}};
  p.check(g);
  const Plan q = plan_from_json(plan_to_json(p, g), g, "mem");
  EXPECT_EQ(q.stages[0].tasks[1].reduction, b.reduction);
  EXPECT_EQ(q.stages[0].tasks[1].placement, b.placement);
}

TEST(Plan, VersionOneFilesLoad) {
  const Graph g = chain_graph();
  const std::string v1 = R"({"scheduler": "old", "graph": "chain", "stages": [
    {"tasks": [{"kind": "sequential", "ops": ["a"], "placement": 0}]},
    {"tasks": [{"kind": "fused", "ops": ["b", "c"], "kept": {"b:0": "shared"}, "tile": [1, 4],
                "placement": 0, "params": {"latency_us": 3.5, "kernels": 1}},
               {"ops": ["d"], "placement": 1}]}]})";
  const Plan p = plan_from_json(v1, g, "v1.json");
  p.check(g);
  EXPECT_EQ(p.version, 1);
  EXPECT_EQ(p.stages[1].tasks[0].placement, stream_placement(0));
  EXPECT_EQ(p.stages[1].tasks[1].placement, stream_placement(1));
  EXPECT_EQ(p.stages[1].tasks[0].kept.at(g.find_tensor("b:0")), "shared");
  // Written back as version 2 with the same content (params were results: dropped).
  const std::string v2 = plan_to_json(p, g);
  EXPECT_EQ(v2.find("params"), std::string::npos) << v2;
  EXPECT_EQ(plan_to_json(plan_from_json(v2, g, "v2"), g), v2);
}

TEST(Plan, CheckFindsMissingDuplicateAndOrderViolations) {
  const Graph g = chain_graph();
  expect_check_error(
      g,
      [&] {
        Plan p = fused_plan(g);
        p.stages[1].tasks.pop_back();  // drop d
        return p;
      }(),
      "'d' is in no stage");
  expect_check_error(
      g,
      [&] {
        Plan p = fused_plan(g);
        p.stages[0].tasks[0].ops.push_back(g.find_op("a"));
        return p;
      }(),
      "lists op 'a' twice");
  // b and its producer a in the same stage, different tasks.
  expect_check_error(
      g,
      [&] {
        Plan p = fused_plan(g);
        p.stages[0].tasks.push_back(p.stages[1].tasks[0]);
        p.stages[1].tasks.erase(p.stages[1].tasks.begin());
        return p;
      }(),
      "reads region [0:1,0:8] of 'a:0' before stage 0 task 0 writes");
  // c before b inside one task.
  expect_check_error(
      g,
      [&] {
        Plan p = fused_plan(g);
        std::swap(p.stages[1].tasks[0].ops[0], p.stages[1].tasks[0].ops[1]);
        return p;
      }(),
      "produces later in the same task");
  expect_check_error(
      g,
      [&] {
        Plan p = fused_plan(g);
        p.stages[0].tasks[0].ops = {99};
        return p;
      }(),
      "op index 99");
}

TEST(Plan, CheckRequiresRegionsToTileEachWrittenTensor) {
  const Graph g = conv_relu_graph();
  const int y = g.find_tensor("y");
  auto halves = [&](int64_t split0, int64_t split1) {
    Plan p;
    for (const Interval rows : {Interval{0, split0}, Interval{split1, 8}}) {
      Task t;
      t.kind = TaskKind::Fused;
      t.ops = {g.find_op("conv"), g.find_op("relu")};
      t.regions[y] = {{0, 1}, {0, 8}, rows, {0, 8}};
      p.stages.push_back(Stage{{t}});
    }
    return p;
  };
  halves(4, 4).check(g);
  expect_check_error(g, halves(5, 4),
                     "region [0:1,0:8,4:8,0:8] of 'y' (op 'relu', stage 1 task 0) overlaps region "
                     "[0:1,0:8,0:5,0:8] of 'y' (op 'relu', stage 0 task 0)");
  expect_check_error(g, halves(3, 4),
                     "64 of 512 elements of 'y' (op 'relu') are written by no task, e.g. "
                     "[0:1,0:8,3:4,0:8]");
  Plan bad = halves(4, 4);
  bad.stages[0].tasks[0].regions[y] = {{0, 1}, {0, 8}, {0, 9}, {0, 8}};
  expect_check_error(g, bad, "does not fit its shape [1,8,8,8]");
}

// Of two groups of partial sums that both fail, the one whose region comes first (by its
// intervals' bounds, axis by axis) is named, wherever the plan lists it.
TEST(Plan, CheckNamesTheFailingPartialSumGroupOfTheLeastRegionFirst) {
  const Graph g = conv_relu_graph();
  const int y = g.op(g.find_op("conv")).outputs[0];
  Stage s;
  for (const auto& [c, r] : std::vector<std::pair<Interval, Interval>>{
           {{4, 8}, {0, 1}}, {{4, 8}, {2, 4}}, {{0, 4}, {0, 2}}, {{0, 4}, {1, 4}}}) {
    Task t;
    t.ops = {g.find_op("conv")};
    t.regions[y] = {{0, 1}, c, {0, 8}, {0, 8}};
    t.reduction.range = {"c_in", r};
    s.tasks.push_back(t);
  }
  Task relu;
  relu.ops = {g.find_op("relu")};
  Plan p;
  p.scheduler = "groups";
  p.stages = {s, Stage{{relu}}};
  EXPECT_EQ(error_of([&] { p.check(g); }),
            "plan 'groups' of graph 'conv_relu': region [0:1,0:4,0:8,0:8] of '" + g.tensor(y).name +
                "' (op 'conv', stage 0 task 3): partial sums over 'c_in' overlap at 1; expected "
                "ranges that partition [0:4)");
  // Without the overlap, the other group's gap.
  p.stages[0].tasks[3].reduction.range.range = {2, 4};
  EXPECT_EQ(error_of([&] { p.check(g); }),
            "plan 'groups' of graph 'conv_relu': region [0:1,4:8,0:8,0:8] of '" + g.tensor(y).name +
                "' (op 'conv', stage 0 task 1): partial sums over 'c_in' leave a gap at 1; "
                "expected ranges that partition [0:4)");
}

TEST(Plan, CheckAcceptsPartialSumsThatPartitionTheAxisOnly) {
  const Graph g = conv_relu_graph();
  auto split = [&](std::vector<Interval> ranges) {
    Plan p;
    Stage s;
    for (const Interval& r : ranges) {
      Task t;
      t.ops = {g.find_op("conv")};
      t.reduction.range = {"c_in", r};
      s.tasks.push_back(t);
    }
    Task relu;
    relu.ops = {g.find_op("relu")};
    p.stages = {s, Stage{{relu}}};
    return p;
  };
  split({{0, 1}, {1, 3}, {3, 4}}).check(g);
  expect_check_error(g, split({{0, 2}, {1, 4}}), "partial sums over 'c_in' overlap at 1");
  expect_check_error(g, split({{0, 1}, {2, 4}}), "partial sums over 'c_in' leave a gap at 1");
  expect_check_error(g, split({{0, 1}, {1, 3}}), "partial sums over 'c_in' stop at 3");
  expect_check_error(g, split({{0, 2}, {2, 5}}), "reduction range [2:5) of 'c_in'");
  Plan wrong_axis = split({{0, 4}});
  wrong_axis.stages[0].tasks[0].reduction.range.axis = "k";
  expect_check_error(g, wrong_axis, "is split over reduction axis 'k'; expected 'c_in'");
  Plan relu_split = split({{0, 4}});
  relu_split.stages[1].tasks[0].reduction.range = {"c_in", {0, 4}};
  expect_check_error(g, relu_split, "has no reduction that partial sums can split");
  Plan two_ops = split({{0, 4}});
  two_ops.stages[0].tasks[0].ops.push_back(g.find_op("relu"));
  two_ops.stages.pop_back();
  expect_check_error(g, two_ops, "splits a reduction but holds 2 ops");
  // A reader in the same stage as the partial sums.
  Plan early = split({{0, 2}, {2, 4}});
  early.stages[0].tasks.push_back(early.stages[1].tasks[0]);
  early.stages.pop_back();
  expect_check_error(g, early, "reads region [0:1,0:8,0:8,0:8] of 'conv:0' before stage 0");
}

// Reads are checked op by op: a task whose two Slices read the two written ends of a tensor is
// valid although the bounding box of its reads covers the middle, written later.
TEST(Plan, ReadsAreCheckedPerReadingOp) {
  Graph g;
  g.name = "ends";
  const int x = g.add_input("x", {1, 8});
  const int a = g.add_op(OpKind::Relu, "a", {x});
  const int ta = g.op(a).outputs[0];
  auto slice = [&](const char* name, int64_t lo, int64_t hi) {
    const std::string n(name);
    return g.add_op(
        OpKind::Slice, n,
        {ta, g.add_constant_ints(n + ".starts", {lo}), g.add_constant_ints(n + ".ends", {hi}),
         g.add_constant_ints(n + ".axes", {1})});
  };
  const int s0 = slice("s0", 0, 2), s1 = slice("s1", 6, 8);
  const int add = g.add_op(OpKind::Add, "add", {g.op(s0).outputs[0], g.op(s1).outputs[0]});
  const int m = g.add_op(OpKind::Neg, "m", {ta});
  g.mark_output(g.op(add).outputs[0]);
  g.mark_output(g.op(m).outputs[0]);
  auto part = [&](int64_t lo, int64_t hi) {
    Task t;
    t.ops = {a};
    t.regions[ta] = {{0, 1}, {lo, hi}};
    return t;
  };
  Task ends, neg;
  ends.kind = TaskKind::Fused;
  ends.ops = {s0, s1, add};
  neg.ops = {m};
  Plan p;
  p.stages = {Stage{{part(0, 2), part(6, 8)}}, Stage{{part(2, 6), ends}}, Stage{{neg}}};
  p.check(g);
  // The same task also reading the middle (the Neg moved into it) is refused, naming the Neg.
  p.stages[1].tasks[1].ops.push_back(m);
  p.stages.pop_back();
  expect_check_error(g, p,
                     "op 'm' (stage 1 task 1) reads region [0:1,0:8] of 'a:0' before stage 1 "
                     "task 0 writes [0:1,2:6]");
}

TEST(Plan, CheckValidatesLevelsPlacementsAndTiles) {
  const Graph g = chain_graph();
  PlanTarget gpu;
  gpu.name = "GPU";
  gpu.memory_levels = {"register", "shared", "l2", "dram", "host"};
  gpu.unit_extents[UnitKind::Stream] = {4};
  Plan ok = fused_plan(g);
  ok.check(g, &gpu);
  Plan level = fused_plan(g);
  level.stages[1].tasks[0].kept[g.find_tensor("b:0")] = "lb";
  level.check(g);  // a name: fine without hardware
  expect_check_error(g, level, "stage 1 task 0 kept.b:0: memory level 'lb' does not exist on GPU",
                     &gpu);
  Plan scope = fused_plan(g);
  scope.stages[1].tasks[0].scope[g.find_tensor("c:0")] = "L2";
  expect_check_error(g, scope,
                     "stage 1 task 0 scope.c:0: memory level 'L2' is not a name (lower-case "
                     "letters, digits, '_')");
  Plan kept_written = fused_plan(g);
  kept_written.stages[1].tasks[0].kept[g.find_tensor("c:0")] = "shared";
  expect_check_error(g, kept_written, "keeps 'c:0' inside the task, but the task writes it");
  Plan unit = fused_plan(g);
  unit.stages[1].tasks[1].placement.unit = UnitKind::Engine;
  unit.stages[1].tasks[1].placement.index = {0, 0};
  expect_check_error(g, unit, "GPU has no unit of kind 'engine'", &gpu);
  Plan far = fused_plan(g);
  far.stages[1].tasks[1].placement = stream_placement(4);
  expect_check_error(
      g, far, "stage 1 task 1 placement uses stream coordinate 4 of axis 0; GPU has 4", &gpu);
  Plan binding = fused_plan(g);
  binding.stages[1].tasks[0].placement.count = 4;
  binding.stages[1].tasks[0].placement.binding = {1, 2};
  expect_check_error(g, binding, "binding multiplies to 2 units but count is 4");
  Plan tile = fused_plan(g);
  tile.stages[1].tasks[0].tile = {1, 4, 1};
  expect_check_error(g, tile, "tile has 3 entries");
  tile.stages[1].tasks[0].tile = {1, 0};
  expect_check_error(g, tile, "tile size 0 in axis 1; expected a positive size");
  Plan halo = fused_plan(g);
  halo.stages[1].tasks[0].halo.mode = HaloMode::Share;
  expect_check_error(g, halo, "halo.level: memory level '' is not a name");
}

// Every structural rule of Plan::check, one violation each, refused in one line.
TEST(Plan, CheckRefusesEachStructuralViolation) {
  const Graph g = conv_relu_graph();
  const int conv = g.find_op("conv"), relu = g.find_op("relu");
  const int y = g.find_tensor("y"), c0 = g.find_tensor("conv:0"), x = g.find_tensor("x");
  const int w = g.find_tensor("w");
  auto plan = [&](const std::function<void(Task&)>& edit) {
    Task t;
    t.kind = TaskKind::Fused;
    t.ops = {conv, relu};
    edit(t);
    Plan p;
    p.stages = {Stage{{t}}};
    return p;
  };
  plan([](Task&) {}).check(g);
  const std::vector<std::pair<std::function<void(Task&)>, std::string>> cases = {
      {[](Task& t) { t.ops.clear(); }, "stage 0 task 0 has no ops"},
      {[&](Task& t) {
         t.regions[x] = {{0, 1}, {0, 4}, {0, 8}, {0, 8}};
       },
       "gives a region of 'x', which no op of the task produces"},
      {[&](Task& t) { t.kept[x] = "shared"; }, "keeps 'x', which no op of the task produces"},
      {[&](Task& t) { t.scope[c0] = "l2"; },
       "gives a buffer scope to 'conv:0', which the task does not write"},
      {[](Task& t) { t.halo.level = "l2"; }, "halo mode 'recompute' names level 'l2'"},
      {[](Task& t) { t.placement.index = {0}; }, "has an index, count or binding but no unit"},
      {[](Task& t) { t.placement.unit = UnitKind::Stream; }, "placement has no index"},
      {[](Task& t) {
         t.placement.unit = UnitKind::Core;
         t.placement.index = {0, -1};
       },
       "placement has a negative index"},
      {[](Task& t) {
         t.placement.unit = UnitKind::Core;
         t.placement.index = {0, 0};
         t.placement.count = 2;
         t.placement.binding = {1, 2};
       },
       "binding has 2 entries; expected one per axis of [1,8,8,8]"},
      {[](Task& t) {
         t.placement.unit = UnitKind::Core;
         t.placement.index = {0, 0};
         t.placement.binding = {1, 0, 1, 1};
       },
       "binding has an entry below 1"},
      {[&](Task& t) {
         t.regions[y] = {{0, 1}, {0, 8}, {4, 4}, {0, 8}};
       },
       "region [0:1,0:8,4:4,0:8] of 'y' is empty or does not fit"},
      {[&](Task& t) { t.pinned = {x}; },
       "pins 'x', which is not a weight or constant; expected a parameter the task reads"},
      {[&](Task& t) {
         t.placement.unit = UnitKind::Core;
         t.placement.index = {0, 0};
         t.pinned = {w, w};
       },
       "pins 'w' twice"},
      {[&](Task& t) { t.pinned = {w}; }, "pins 'w' but is not placed on a unit"},
      {[&](Task& t) { t.pinned = {99}; }, "pinned names tensor index 99"},
      {[](Task& t) { t.buffer_bytes = -4096; },
       "has buffer_bytes -4096; expected 0 (the whole local buffer) or a positive byte count"},
  };
  for (const auto& [edit, needle] : cases) expect_check_error(g, plan(edit), needle);
}

TEST(Plan, BadJsonGivesOneLineNamingTheField) {
  const Graph g = chain_graph();
  auto message = [&](const std::string& text) {
    try {
      plan_from_json(text, g, "plan.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{", "plan.json: not valid JSON"},
      {R"({"stages": 3})", "stages"},
      {R"({"stages": [{"tasks": [{"ops": ["zz"]}]}]})", "stages[0].tasks[0].ops: unknown op 'zz'"},
      {R"({"stages": [{"tasks": [{"kind": "parallel", "ops": ["a"]}]}]})",
       "stages[0].tasks[0].kind"},
      {R"({"version": 3, "stages": []})", "version: format version 3 is not known"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "params": {}}]}]})",
       "stages[0].tasks[0]: unknown key 'params'"},
      {R"({"version": 2, "stage": []})", "top level: unknown key 'stage'"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "regions": {"a:0": [[0, 1, 2]]}}]}]})",
       "stages[0].tasks[0].regions.a:0: not a pair"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "placement": {"index": [0]}}]}]})",
       "stages[0].tasks[0].placement: no unit"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "placement": {"unit": "warp"}}]}]})",
       "placement.unit: unknown unit kind 'warp'; expected one of none, stream, sm_set, cluster, "
       "core, engine"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "halo": {"mode": "swap"}}]}]})",
       "unknown halo mode 'swap'"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "reduction": {"axis": "k"}}]}]})",
       "reduction: missing axis or range"},
      {R"({"version": 2, "options": {"fold_activation": 1}, "stages": []})",
       "options.fold_activation: not a boolean"},
      {R"({"stages": [{"tasks": [{"ops": ["a"], "regions": {}}]}]})",
       "stages[0].tasks[0]: key 'regions' is format version 2 but the file has no version; "
       "expected \"version\": 2 at the top level"},
      {R"({"stages": [{"tasks": [{"ops": ["a"], "placement": {"unit": "stream"}}]}]})",
       "stages[0].tasks[0].placement: an object is format version 2"},
      {R"({"options": {}, "stages": []})", "options: format version 2 but the file has no version"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "pinned": "x"}]}]})",
       "stages[0].tasks[0].pinned: not an array; expected an array of tensor names"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "pinned": ["zz"]}]}]})",
       "stages[0].tasks[0].pinned: unknown tensor 'zz'"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "pinned": [3]}]}]})",
       "stages[0].tasks[0].pinned: not a string"},
      {R"({"stages": [{"tasks": [{"ops": ["a"], "pinned": ["x"]}]}]})",
       "key 'pinned' is format version 2 but the file has no version"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "buffer_bytes": -1}]}]})",
       "stages[0].tasks[0].buffer_bytes: not a non-negative integer; expected the bytes of each "
       "unit's local buffer the task is mapped within (0: all of it)"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "buffer_bytes": 1.5}]}]})",
       "stages[0].tasks[0].buffer_bytes: not a non-negative integer"},
      {R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"], "buffer_bytes": "64k"}]}]})",
       "stages[0].tasks[0].buffer_bytes: not a non-negative integer"},
  };
  for (const auto& [text, needle] : cases) {
    const std::string m = message(text);
    EXPECT_NE(m.find(needle), std::string::npos) << text << " -> " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace dgs
