// GraphTurbo's scheduler: the exact checks of the paper (Fig. 6/7, §3.4, Fig. 10) and run_plan
// equality of its plans with the unscheduled graph.
#include <gtest/gtest.h>

#include <string>

#include "common/exec/plan_exec.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/grouping.h"
#include "reproductions/graphturbo/instances.h"

namespace dgs::graphturbo {
namespace {

GtParams stcp920_params() {
  GtParams p;
  p.split_capacity = static_cast<int64_t>(kSplitCapacityFractionOfLlb * double(p.llb_bytes));
  return p;
}

TEST(GraphTurboOrder, Algorithm3OnFig6GivesThePrintedOrder) {
  const InstanceDag d = fig6_instance_dag();
  std::vector<int> bfs;
  for (int i = 0; i < 15; ++i) bfs.push_back(i);
  std::string order;
  for (int i : algorithm3_order(d, bfs)) order += (order.empty() ? "" : " ") + d.labels[size_t(i)];
  EXPECT_EQ(order, "a8 a7 b4 a6 a5 b3 c2 a4 a3 b2 a2 a1 b1 c1 d1");
  // BFS keeps all eight stage-1 outputs live; the DFS order at most five outputs at once.
  EXPECT_EQ(peak_live_bytes(d, bfs), 9);
  EXPECT_EQ(peak_live_bytes(d, algorithm3_order(d, bfs)), 5);
}

TEST(GraphTurboBinding, PlainBindingOf2x256x28x28On8Cores) {
  EXPECT_EQ(plain_binding({2, 256, 28, 28}, 8), (std::vector<int64_t>{2, 4, 1, 1}));
  EXPECT_EQ(plain_binding({1, 256, 56, 56}, 8), (std::vector<int64_t>{1, 8, 1, 1}));
}

TEST(GraphTurboGrouping, BestSplitIsLexmaxOfOpsFactorDepth) {
  EXPECT_EQ(best_split({{3, 4, 0}, {5, 8, 1}, {5, 2, 2}}), (SplitTuple{5, 2, 2}));
  EXPECT_EQ(best_split({{5, 2, 1}, {5, 2, 0}}), (SplitTuple{5, 2, 0}));
}

TEST(GraphTurboGrouping, ResNet50GroupsIntoFourStagesSplit8421) {
  ZooOptions o;
  o.batch = 8;  // images per cluster
  const Graph g = build_zoo_model("resnet50", o);
  const Schedule s = schedule_graph(g, stcp920_params());
  ASSERT_EQ(s.grouping.subgraphs.size(), 4u);
  std::vector<int64_t> factors;
  for (const SubGraph& sg : s.grouping.subgraphs) factors.push_back(sg.best.factor);
  EXPECT_EQ(factors, (std::vector<int64_t>{8, 4, 2, 1}));
  // b3 (an instance of stage 2): 38 ops as the paper counts them, 13 convolutions, one kernel.
  const SubGraph& stage2 = s.grouping.subgraphs[1];
  EXPECT_EQ(paper_op_count(g, stage2.ops), 38);
  int convs = 0;
  for (int op : stage2.ops) convs += g.op(op).kind == OpKind::Conv;
  EXPECT_EQ(convs, 13);
  // 15 instances; redundant edges eliminated: every stage-2..4 instance reads two instances.
  ASSERT_EQ(s.instances.size(), 15u);
  for (size_t i = 8; i < 15; ++i) EXPECT_EQ(s.dag.producers[i].size(), 2u) << i;
  EXPECT_TRUE(s.dfs_chosen);
  EXPECT_LT(s.dfs_peak, s.bfs_peak);
  // One task per instance; every plan passes Plan::check.
  const Plan plan = schedule_plan(g, s);
  EXPECT_EQ(plan.num_tasks(), 15);
  plan.check(g);
}

TEST(GraphTurboPlan, InstancesConcatenatedGiveTheUnsplitResult) {
  ZooOptions o;
  o.batch = 4;
  o.image_size = 32;
  const Graph g = build_zoo_model("resnet50", o);
  GtParams p = stcp920_params();
  p.split_capacity = 96 * 1024;  // reduced size: small enough to split every stage
  const Schedule s = schedule_graph(g, p);
  EXPECT_GT(s.instances.size(), s.grouping.subgraphs.size());
  const PlanComparison c = compare_plan_with_reference(g, schedule_plan(g, s), 7);
  EXPECT_TRUE(c.passed) << c.str();
}

TEST(GraphTurboPlan, BertPlanMatchesTheReference) {
  ZooOptions o;
  o.batch = 2;
  o.seq_len = 16;
  const Graph g = build_zoo_model("bert_base", o);
  GtParams p = stcp920_params();
  p.split_capacity = 32 * 1024;
  const Schedule s = schedule_graph(g, p);
  EXPECT_GT(s.instances.size(), s.grouping.subgraphs.size());
  const PlanComparison c = compare_plan_with_reference(g, schedule_plan(g, s), 3);
  EXPECT_TRUE(c.passed) << c.str();
}

// One sentence of 64 tokens over a 48 KiB capacity: no batch split fits the [1, 64, 768] (96 KiB at
// FP16) and [1, 64, 3072] sub-graphs, so they split along the sequence (axis 1: the projections,
// GELU and LayerNorm treat tokens independently), never along the hidden axis that their matmuls
// and LayerNorms reduce; the plan still equals the reference.
TEST(GraphTurboPlan, WithOneSentenceSubGraphsSplitAlongTheSequence) {
  ZooOptions o;
  o.batch = 1;
  o.seq_len = 64;
  const Graph g = build_zoo_model("bert_base", o);
  GtParams p = stcp920_params();
  p.split_capacity = 48 * 1024;
  const Schedule s = schedule_graph(g, p);
  int along_sequence = 0;
  for (const SubGraph& sg : s.grouping.subgraphs) {
    const Shape& out = g.tensor(sg.output).shape;
    if (sg.best.factor == 1) continue;
    EXPECT_EQ(sg.best.dim, 1) << g.op(sg.ops.back()).name;
    EXPECT_EQ(out.at(1), 64) << g.op(sg.ops.back()).name;
    along_sequence += sg.best.dim == 1;
  }
  // Per layer: the key projection, the FFN's first half and its second half with LayerNorm (12
  // layers), and the embeddings.
  EXPECT_EQ(along_sequence, 3 * 12 + 1);
  const PlanComparison c = compare_plan_with_reference(g, schedule_plan(g, s), 5);
  EXPECT_TRUE(c.passed) << c.str();
}

}  // namespace
}  // namespace dgs::graphturbo

namespace dgs::graphturbo {
namespace {

TEST(GraphTurboDsa, TvmKeepsAtMostFourBert128BatchesPerCluster) {
  const DsaSpec spec = load_dsa_spec("stcp920");
  ZooOptions o;
  o.seq_len = 128;
  EXPECT_EQ(tvm_batches_per_cluster(build_zoo_model("bert_base", o), spec), 4);
  EXPECT_EQ(tvm_batches_per_cluster(build_zoo_model("resnet50"), spec), 2);
}

TEST(GraphTurboDsa, ResNet50RunsOnTheModelWithEachApproach) {
  const DsaSpec spec = load_dsa_spec("stcp920");
  for (Approach a : {Approach::Tvm, Approach::AStitch, Approach::GraphTurbo}) {
    const DsaRun r = run_on_dsa("resnet50", 64, a, spec);
    EXPECT_GT(r.throughput, 0);
    if (a == Approach::Tvm) {
      EXPECT_EQ(r.ddr_tensors, r.kernels);  // every layer output to DDR
      EXPECT_EQ(r.l1_tensors + r.llb_tensors, 0);
    }
  }
}

}  // namespace
}  // namespace dgs::graphturbo

namespace dgs::graphturbo {
namespace {

// GraphTurbo's batches per cluster by the paper's autotuning (§5.1): the even share and its
// halvings while they divide it, at most kAutotuneHalvings, the fastest kept (ties: the larger).
TEST(GraphTurboAutotune, CandidatesAreTheShareAndItsHalvings) {
  EXPECT_EQ(autotune_candidates(16), (std::vector<int64_t>{16, 8, 4}));
  EXPECT_EQ(autotune_candidates(2), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(autotune_candidates(6), (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(autotune_candidates(3), (std::vector<int64_t>{3}));
  EXPECT_EQ(autotune_candidates(0), (std::vector<int64_t>{1}));
}

TEST(GraphTurboAutotune, KeepsTheFastestCandidateNotTheEvenShare) {
  // A machine on which a loop of smaller batches is faster: the choice differs from the share.
  const auto loop_faster = [](int64_t b) { return b == 4 ? 120.0 : 100.0 + double(b); };
  EXPECT_EQ(autotune_batches_per_cluster(16, loop_faster), 4);
  const auto larger_faster = [](int64_t b) { return double(b); };
  EXPECT_EQ(autotune_batches_per_cluster(16, larger_faster), 16);
  const auto tie = [](int64_t) { return 1.0; };
  EXPECT_EQ(autotune_batches_per_cluster(16, tie), 16);
}

TEST(GraphTurboAutotune, RunOnDsaKeepsTheFastestOfItsCandidateRuns) {
  const DsaSpec spec = load_dsa_spec("stcp920");
  const DsaRun tuned = run_on_dsa("bert_base", 8, Approach::GraphTurbo, spec, 0, 128);
  ASSERT_EQ(tuned.autotuned.size(), 2u);  // 2 per cluster, or 1 in two iterations
  double best = 0;
  int64_t best_b = 0;
  for (int64_t b : {2, 1}) {
    const DsaRun r = run_on_dsa("bert_base", 8, Approach::GraphTurbo, spec, b, 128);
    EXPECT_TRUE(r.autotuned.empty());  // given, not tuned
    if (r.throughput > best) best = r.throughput, best_b = b;
  }
  EXPECT_EQ(tuned.batches_per_cluster, best_b);
  EXPECT_DOUBLE_EQ(tuned.throughput, best);
  EXPECT_EQ(tuned.iterations, 8 / (4 * best_b));
}

}  // namespace
}  // namespace dgs::graphturbo
