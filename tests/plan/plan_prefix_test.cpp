// A plan's first stages checked and priced on the whole graph: check_plan_prefix
// (common/plan/plan_check.h) and evaluate_prefix (common/evaluate/evaluate_prefix.h).
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/evaluate/evaluate_prefix.h"
#include "common/hw/hardware_spec.h"
#include "common/plan/plan_check.h"
#include "plan_test_graphs.h"
#include "tests/error_of.h"

namespace dgs {
namespace {

Task prefix_task(int op) {
  Task t;
  t.ops = {op};
  return t;
}

// chain_graph's ops a, b, d, c, one stage each.
Plan one_op_per_stage(const Graph& g) {
  Plan p;
  p.scheduler = "test";
  p.graph = g.name;
  for (const char* n : {"a", "b", "d", "c"})
    p.stages.push_back({.tasks = {prefix_task(g.find_op(n))}});
  return p;
}

// one_op_per_stage with a's output written in two halves, in stages 0 and 1.
Plan a_in_halves(const Graph& g) {
  Plan p = one_op_per_stage(g);
  const int a = g.find_op("a"), a0 = g.find_tensor("a:0");
  Task lo = prefix_task(a), hi = prefix_task(a);
  lo.regions[a0] = Region{{0, 1}, {0, 4}};
  hi.regions[a0] = Region{{0, 1}, {4, 8}};
  p.stages[0] = {.tasks = {lo}};
  p.stages.insert(p.stages.begin() + 1, Stage{.tasks = {hi}});
  return p;
}

Plan first(const Plan& p, size_t n) {
  Plan q = p;
  q.stages.resize(n);
  return q;
}

TEST(PlanPrefix, EveryPrefixOfAValidPlanPasses) {
  const Graph g = chain_graph();
  const Plan p = one_op_per_stage(g);
  for (size_t n = 0; n <= p.stages.size(); ++n)
    EXPECT_NO_THROW(check_plan_prefix(g, first(p, n))) << n;
  // Plan::check asks for every op: the first two stages are not a plan of the graph.
  EXPECT_EQ(error_of([&] { first(p, 2).check(g); }),
            "plan 'test' of graph 'chain': op 'c' is in no stage; expected every op in at least "
            "one task");
}

TEST(PlanPrefix, APrefixMayEndInsideTheRegionsOfAnOp) {
  const Graph g = chain_graph();
  const Plan p = a_in_halves(g);
  EXPECT_NO_THROW(p.check(g));
  EXPECT_NO_THROW(check_plan_prefix(g, first(p, 1)));  // half of a:0 is written later
  EXPECT_EQ(error_of([&] { first(p, 1).check(g); }),
            "plan 'test' of graph 'chain': op 'b' is in no stage; expected every op in at least "
            "one task");
}

TEST(PlanPrefix, AReadOfWhatNoEarlierStageWritesIsOneLine) {
  const Graph g = chain_graph();
  // b reads all of a:0 while only its first half is written (the second half comes later).
  Plan p = a_in_halves(g);
  std::swap(p.stages[1], p.stages[2]);
  EXPECT_EQ(error_of([&] { check_plan_prefix(g, first(p, 2)); }),
            "plan 'test' of graph 'chain' (a prefix): op 'b' (stage 1 task 0) reads region "
            "[0:1,0:8] of 'a:0', of which 4 of 8 elements no earlier stage writes; expected its "
            "producers in an earlier stage");
  // b before any task of a.
  Plan q = one_op_per_stage(g);
  std::swap(q.stages[0], q.stages[1]);
  EXPECT_EQ(error_of([&] { check_plan_prefix(g, first(q, 1)); }),
            "plan 'test' of graph 'chain' (a prefix): op 'b' (stage 0 task 0) reads 'a:0', which "
            "no task writes");
}

TEST(PlanPrefix, TheOtherRulesStillHold) {
  const Graph g = chain_graph();
  Plan p = a_in_halves(g);
  p.stages[1].tasks[0].regions.begin()->second = Region{{0, 1}, {2, 6}};  // overlaps [0:4)
  EXPECT_EQ(error_of([&] { check_plan_prefix(g, first(p, 2)); }),
            "plan 'test' of graph 'chain' (a prefix): region [0:1,2:6] of 'a:0' (op 'a', stage 1 "
            "task 0) overlaps region [0:1,0:4] of 'a:0' (op 'a', stage 0 task 0); expected every "
            "element written exactly once");
  Plan q = one_op_per_stage(g);
  q.stages[0].tasks[0].kept[g.find_tensor("a:0")] = "lb";
  EXPECT_NE(error_of([&] { check_plan_prefix(g, first(q, 1)); }).find("keeps 'a:0' inside"),
            std::string::npos);
}

// A prefix that ends between the partial sums of one region would leave a value that is not final:
// refused, while a cut after the group passes.
TEST(PlanPrefix, ACutInsideAPartialSumGroupIsRefused) {
  const Graph g = conv_relu_graph();
  Plan p;
  p.scheduler = "test";
  for (const Interval& r : {Interval{0, 2}, Interval{2, 4}}) {
    Task t = prefix_task(g.find_op("conv"));
    t.reduction.range = {"c_in", r};
    p.stages.push_back({.tasks = {t}});
  }
  p.stages.push_back({.tasks = {prefix_task(g.find_op("relu"))}});
  EXPECT_NO_THROW(p.check(g));
  EXPECT_NE(error_of([&] {
              check_plan_prefix(g, first(p, 1));
            }).find("partial sums over 'c_in' stop at 2"),
            std::string::npos);
  EXPECT_NO_THROW(check_plan_prefix(g, first(p, 2)));
  EXPECT_NO_THROW(check_plan_prefix(g, p));
}

// Through evaluate_prefix, a prefix is checked against the hardware and costs what the model
// gives for the same stages; with every stage it is evaluate().
TEST(EvaluatePrefix, CostsWhatTheModelGivesAndAllStagesAreEvaluate) {
  const Graph g = chain_graph();
  const HardwareSpec dsa = load_hardware("stcp920");
  // The GPU model prices whole operators only: the plan of whole ops on both kinds.
  const HardwareSpec v100 = load_hardware("v100");
  for (const auto& [p, kinds] : std::vector<std::pair<Plan, std::vector<HardwareSpec>>>{
           {one_op_per_stage(g), {dsa, v100}}, {a_in_halves(g), {dsa}}}) {
    for (size_t n = 1; n <= p.stages.size(); ++n) {
      const EvaluationResult a = evaluate_prefix(g, p, n, dsa);
      const EvaluationResult b = evaluate_dsa_plan(g, first(p, n), *dsa.dsa);
      EXPECT_EQ(a.latency_us, b.latency_us) << n;
      EXPECT_EQ(value_of(a.busy_us_by_unit, "vector"), value_of(b.busy_us_by_unit, "vector")) << n;
    }
    for (const HardwareSpec& hw : kinds) {
      const EvaluationResult a = evaluate_prefix(g, p, p.stages.size(), hw);
      const EvaluationResult b = evaluate(g, p, hw);
      EXPECT_EQ(a.latency_us, b.latency_us) << hw.name;
      EXPECT_EQ(a.busy_us_by_unit.size(), b.busy_us_by_unit.size()) << hw.name;
      for (size_t i = 0; i < a.busy_us_by_unit.size(); ++i)
        EXPECT_EQ(a.busy_us_by_unit[i].value, b.busy_us_by_unit[i].value) << hw.name;
      EXPECT_EQ(a.bytes_by_level.size(), b.bytes_by_level.size()) << hw.name;
      for (size_t i = 0; i < a.bytes_by_level.size(); ++i)
        EXPECT_EQ(a.bytes_by_level[i].value, b.bytes_by_level[i].value) << hw.name;
    }
  }
}

TEST(EvaluatePrefix, AnInvalidPrefixIsRefusedInOneLine) {
  const Graph g = chain_graph();
  const HardwareSpec hw = load_hardware("stcp920");
  Plan p = a_in_halves(g);
  std::swap(p.stages[1], p.stages[2]);
  EXPECT_NE(error_of([&] { evaluate_prefix(g, p, 2, hw); })
                .find("reads region [0:1,0:8] of 'a:0', of which 4 of 8 elements no earlier "
                      "stage writes"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { evaluate_prefix(g, p, 6, hw); }),
            "plan 'test' of graph 'chain': a prefix of 6 stages, but the plan has 5");
  Plan q = one_op_per_stage(g);
  q.stages[0].tasks[0].placement = stream_placement(0);
  EXPECT_NE(error_of([&] { evaluate_prefix(g, q, 1, hw); }).find("has no unit of kind 'stream'"),
            std::string::npos);
}

}  // namespace
}  // namespace dgs
