// The sub-graph of a set of ops (common/graph/subgraph.h) and a plan's first stages as a plan of
// it (common/plan/plan_prefix.h).
#include "common/plan/plan_prefix.h"

#include <gtest/gtest.h>

#include "common/dsamodel/dsa_model.h"
#include "common/evaluate/evaluate.h"
#include "common/hw/hardware_spec.h"
#include "plan_test_graphs.h"
#include "tests/error_of.h"

namespace dgs {
namespace {

Task one_op(int op) {
  Task t;
  t.ops = {op};
  return t;
}

// chain_graph's ops a, b, d, c, one stage each.
Plan one_op_per_stage(const Graph& g) {
  Plan p;
  p.graph = g.name;
  for (const char* n : {"a", "b", "d", "c"}) p.stages.push_back({.tasks = {one_op(g.find_op(n))}});
  return p;
}

TEST(InducedSubgraph, BoundaryTensorsBecomeInputsAndOutputs) {
  const Graph g = chain_graph();
  const InducedSubgraph s = induced_subgraph(g, {g.find_op("b"), g.find_op("c")});
  ASSERT_EQ(s.graph.num_ops(), 2);
  validate(s.graph);
  // a's output, produced outside, is an input; c's output stays an output; b's is internal.
  EXPECT_EQ(s.graph.tensor(s.tensor_index[size_t(g.find_tensor("a:0"))]).role, TensorRole::Input);
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("b:0")).role, TensorRole::Activation);
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("c:0")).role, TensorRole::Output);
  EXPECT_EQ(s.op_index[size_t(g.find_op("a"))], -1);
  EXPECT_EQ(s.op_index[size_t(g.find_op("b"))], 0);
  EXPECT_EQ(s.op_index[size_t(g.find_op("c"))], 1);
  EXPECT_EQ(s.tensor_index[size_t(g.find_tensor("d:0"))], -1);
}

TEST(InducedSubgraph, ATensorReadOutsideIsAnOutputAndWeightsStayWeights) {
  const Graph g = conv_relu_graph();
  const InducedSubgraph s = induced_subgraph(g, {g.find_op("conv")});
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("w")).role, TensorRole::Weight);
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("conv:0")).role, TensorRole::Output);
  EXPECT_EQ(s.graph.tensor(s.graph.find_tensor("x")).role, TensorRole::Input);
}

TEST(InducedSubgraph, BadOpListsAreOneLine) {
  const Graph g = chain_graph();
  EXPECT_EQ(error_of([&] {
              induced_subgraph(g, {0, 0});
            }),
            "graph 'chain': sub-graph lists op 'a' twice");
  EXPECT_EQ(error_of([&] { induced_subgraph(g, {7}); }),
            "graph 'chain': sub-graph op index 7 does not exist");
}

TEST(PlanPrefix, TheFirstStagesAreAPlanOfTheirSubgraph) {
  const Graph g = chain_graph();
  const Plan p = one_op_per_stage(g);
  const PlanPrefix pre = plan_prefix(g, p, 2);  // a, b
  EXPECT_TRUE(pre.whole_ops);
  ASSERT_EQ(pre.plan.stages.size(), 2u);
  EXPECT_EQ(pre.sub.graph.num_ops(), 2);
  // a's output is read by d and b's by c, later: both are outputs the prefix writes.
  EXPECT_EQ(pre.sub.graph.tensor(pre.sub.graph.find_tensor("a:0")).role, TensorRole::Output);
  EXPECT_EQ(pre.sub.graph.tensor(pre.sub.graph.find_tensor("b:0")).role, TensorRole::Output);
  EXPECT_EQ(pre.sub.graph.op(pre.plan.stages[1].tasks[0].ops[0]).name, "b");
  EXPECT_NO_THROW(pre.plan.check(pre.sub.graph));
  EXPECT_EQ(error_of([&] { plan_prefix(g, p, 5); }),
            "plan of 'chain': a prefix of 5 stages, but the plan has 4");
}

TEST(PlanPrefix, AnOpSplitAcrossTheCutIsNotWhole) {
  const Graph g = chain_graph();
  Plan p = one_op_per_stage(g);
  const int a = g.find_op("a"), a0 = g.find_tensor("a:0");
  Task lo = one_op(a), hi = one_op(a);
  lo.regions[a0] = Region{{0, 1}, {0, 4}};
  hi.regions[a0] = Region{{0, 1}, {4, 8}};
  p.stages[0] = {.tasks = {lo}};
  p.stages.insert(p.stages.begin() + 1, Stage{.tasks = {hi}});
  EXPECT_NO_THROW(p.check(g));
  EXPECT_FALSE(plan_prefix(g, p, 1).whole_ops);  // half of a:0 is written later
  EXPECT_TRUE(plan_prefix(g, p, 2).whole_ops);
}

// Priced by evaluate() on the sub-graph, a prefix costs what the DSA model gives for the same
// stages on the whole graph (the totals Fig. 17 of GraphTurbo takes differences of).
TEST(PlanPrefix, EvaluatedOnItsSubgraphItCostsWhatItCostsInTheWholeGraph) {
  const Graph g = chain_graph();
  const Plan p = one_op_per_stage(g);
  const HardwareSpec hw = load_hardware("stcp920");
  for (size_t n = 1; n <= p.stages.size(); ++n) {
    const PlanPrefix pre = plan_prefix(g, p, n);
    Plan cut = p;
    cut.stages.resize(n);
    const EvaluationResult a = evaluate(pre.sub.graph, pre.plan, hw);
    const EvaluationResult b = evaluate_dsa_plan(g, cut, *hw.dsa);
    EXPECT_EQ(a.latency_us, b.latency_us) << n;
    EXPECT_EQ(value_of(a.busy_us_by_unit, "vector"), value_of(b.busy_us_by_unit, "vector")) << n;
  }
}

}  // namespace
}  // namespace dgs
