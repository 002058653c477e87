// Merged execution on the CPU (padded and memoized bricks) against layer-by-layer execution on
// random inputs: 3-D proxies, strides, dilation, pooling, residual adds, batch bricks and bricks
// at boundaries (sizes not a multiple of B). Memoized: every brick computed exactly once, two
// compulsory atomics per brick, no conflicting atomic with one worker.
#include <gtest/gtest.h>

#include "common/exec/executor.h"
#include "common/exec/plan_exec.h"
#include "models/builder.h"
#include "models/zoo.h"
#include "reproductions/brickdl/brick_plan.h"
#include "reproductions/brickdl/merged_exec.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {
namespace {

// Inputs and weights of `g` (random, seeded) and the layer-by-layer reference of every tensor.
struct Reference {
  TensorValues feeds, all;
};
Reference reference(const Graph& g, uint64_t seed) {
  Reference r;
  r.all = run_graph(g, {}, seed);
  for (const auto& [t, v] : r.all)
    if (g.tensor(t).producer < 0) r.feeds[t] = v;
  return r;
}

std::vector<int> all_ops(const Graph& g) {
  return g.topo_order();
}

void expect_outputs_equal(const Graph& g, const TensorValues& got, const Reference& ref,
                          const std::string& what) {
  for (int t : g.output_tensors()) {
    ASSERT_TRUE(got.count(t)) << what << ": no value for " << g.tensor(t).name;
    const Comparison c = compare_tensors(got.at(t), ref.all.at(t));
    EXPECT_TRUE(c.passed) << what << " " << g.tensor(t).name << ": " << c.str();
  }
}

void check_memoized_counts(const MergedRunStats& st, const std::string& what) {
  EXPECT_EQ(st.bricks_computed, st.bricks) << what;  // every brick needed, computed
  EXPECT_EQ(st.bricks_computed_more_than_once, 0) << what;
  EXPECT_EQ(st.compulsory_atomics, 2 * st.bricks) << what;
  EXPECT_EQ(st.elements_computed, st.elements_needed) << what;  // no redundant compute
}

// conv 3x3 s1 -> BN -> ReLU -> conv 3x3 dilation 2 -> ReLU -> max-pool 3x3 s2 p1 -> conv 3x3
// stride 2 -> BN -> add (1x1 stride-2 projection of the pool output) -> ReLU.
Graph mixed_graph(int64_t batch, int64_t h, int64_t w) {
  ModelBuilder b("mixed", DType::F32);
  int x = b.input("data", {batch, 3, h, w});
  x = b.relu(b.batchnorm(b.conv2d(x, 8, 3, 1, 1, 1, true, "c1"), 1e-5, "bn1"), "r1");
  Conv2dSpec dil;
  dil.kernel = {3, 3};
  dil.pads = {2, 2, 2, 2};
  dil.dilations = {2, 2};
  x = b.relu(b.conv2d(x, 8, dil, "c2"), "r2");
  const int p = b.max_pool2d(x, 3, 2, 1, false, "pool");
  int y = b.batchnorm(b.conv2d(p, 6, 3, 2, 1, 1, false, "c3"), 1e-5, "bn3");
  const int proj = b.conv2d(p, 6, 1, 2, 0, 1, false, "proj");
  y = b.relu(b.add(y, proj, "add"), "r3");
  return b.finish({y});
}

TEST(MergedBricks, ThreeLayerProxyAtReducedSize) {
  // 13^3 -> 11^3 -> 9^3 -> 7^3, 64 channels; bricks of 4 (partial at every upper boundary).
  const Graph g = build_zoo_model("brickdl_proxy3", {.image_size = 13});
  const Reference ref = reference(g, 3);
  for (int threads : {1, 4}) {
    TensorValues padded = ref.feeds;
    const MergedRunStats ps = run_padded_bricks(g, all_ops(g), 4, padded, threads);
    expect_outputs_equal(g, padded, ref, "padded");
    EXPECT_EQ(ps.bricks, 8);                              // 2^3 output bricks of 7^3
    EXPECT_GT(ps.elements_computed, ps.elements_needed);  // the recomputed halos
    TensorValues memo = ref.feeds;
    const MergedRunStats ms = run_memoized_bricks(g, all_ops(g), 4, memo, threads);
    expect_outputs_equal(g, memo, ref, "memoized");
    EXPECT_EQ(ms.bricks, 27 + 27 + 8);  // 11^3 and 9^3: 3^3 bricks; 7^3: 2^3
    check_memoized_counts(ms, "proxy3 threads " + std::to_string(threads));
    if (threads == 1) {
      EXPECT_EQ(ms.conflicting_atomics, 0);
    }
  }
}

TEST(MergedBricks, StridesDilationPoolingResidualAddAndBatchBricks) {
  for (int64_t batch : {1, 3})
    for (int64_t edge : {2, 4, 8}) {
      const Graph g = mixed_graph(batch, 19, 23);
      const Reference ref = reference(g, 11);
      const std::string what = "batch " + std::to_string(batch) + " B " + std::to_string(edge);
      TensorValues padded = ref.feeds;
      run_padded_bricks(g, all_ops(g), edge, padded, 3);
      expect_outputs_equal(g, padded, ref, "padded " + what);
      TensorValues memo = ref.feeds;
      const MergedRunStats ms = run_memoized_bricks(g, all_ops(g), edge, memo, 3);
      expect_outputs_equal(g, memo, ref, "memoized " + what);
      check_memoized_counts(ms, what);
    }
}

TEST(MergedBricks, ResidualBlockWithIntermediateOutputsKept) {
  // A subgraph of the ResNet basic block test graph; the block's input comes from outside.
  const Graph g = build_zoo_model("test_residual_block");
  const Reference ref = reference(g, 5);
  TensorValues memo = ref.feeds;
  const MergedRunStats ms = run_memoized_bricks(g, all_ops(g), 8, memo, 4);
  expect_outputs_equal(g, memo, ref, "memoized residual block");
  check_memoized_counts(ms, "residual block");
  TensorValues padded = ref.feeds;
  run_padded_bricks(g, all_ops(g), 16, padded, 4);
  expect_outputs_equal(g, padded, ref, "padded residual block");
}

// Thread-count independence: the only threads of the suite are these workers (no executable
// starts any; Eigen is built without OpenMP). Each brick is computed by one worker with the same
// arithmetic whichever worker it is, so the outputs are bit-identical for any thread count; so
// are the brick, element and compulsory-atomic counts. Only conflicting atomics (lost CAS and
// polls) depend on the interleaving, and are 0 with one worker.
TEST(MergedBricks, OutputsAndCountsBitIdenticalForAnyThreadCount) {
  const Graph g = mixed_graph(2, 19, 23);
  const Reference ref = reference(g, 13);
  TensorValues padded1 = ref.feeds, memo1 = ref.feeds;
  const MergedRunStats p1 = run_padded_bricks(g, all_ops(g), 4, padded1, 1);
  const MergedRunStats m1 = run_memoized_bricks(g, all_ops(g), 4, memo1, 1);
  EXPECT_EQ(m1.conflicting_atomics, 0);
  for (int threads : {2, 3, 8}) {
    const std::string what = std::to_string(threads) + " threads";
    TensorValues padded = ref.feeds, memo = ref.feeds;
    const MergedRunStats p = run_padded_bricks(g, all_ops(g), 4, padded, threads);
    const MergedRunStats m = run_memoized_bricks(g, all_ops(g), 4, memo, threads);
    for (int t : g.output_tensors()) {
      ASSERT_TRUE(padded.count(t) && memo.count(t)) << what;
      EXPECT_EQ(padded.at(t).f, padded1.at(t).f) << what << ": padded " << g.tensor(t).name;
      EXPECT_EQ(memo.at(t).f, memo1.at(t).f) << what << ": memoized " << g.tensor(t).name;
    }
    EXPECT_EQ(p.bricks_computed, p1.bricks_computed) << what;
    EXPECT_EQ(p.elements_computed, p1.elements_computed) << what;
    EXPECT_EQ(m.bricks_computed, m1.bricks_computed) << what;
    EXPECT_EQ(m.compulsory_atomics, m1.compulsory_atomics) << what;
    EXPECT_EQ(m.elements_computed, m1.elements_computed) << what;
  }
}

TEST(MergedBricks, AsPlansCheckedByRunPlan) {
  // The six-layer proxy at 14^3, as 3+3 (padded, memoized) and as 2 merged + 2 cuDNN + 2 merged.
  const Graph g = build_zoo_model("brickdl_proxy6", {.image_size = 14});
  std::vector<int> first, second;
  for (int op : all_ops(g)) (op < 6 ? first : second).push_back(op);
  for (MergeVariant v : {MergeVariant::Padded, MergeVariant::Memoized}) {
    const Plan plan = brick_plan(g, {{first, true, v, 4}, {second, true, v, 4}});
    plan.check(g);
    const PlanComparison c = compare_plan_with_reference(g, plan, 7);
    EXPECT_TRUE(c.passed) << variant_name(v) << ": " << c.str();
  }
  const std::vector<int> a = {0, 1, 2, 3}, b = {4, 5, 6, 7}, c = {8, 9, 10, 11};
  const Plan mixed = brick_plan(
      g, {{a, true, MergeVariant::Memoized, 4}, {b, false}, {c, true, MergeVariant::Padded, 2}});
  mixed.check(g);
  EXPECT_TRUE(compare_plan_with_reference(g, mixed, 7).passed);
}

TEST(MergedBricks, MissingInputIsNamed) {
  const Graph g = build_zoo_model("brickdl_proxy3", {.image_size = 8});
  TensorValues none;
  try {
    run_memoized_bricks(g, all_ops(g), 4, none, 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "merged bricks: input 'data' of op 'conv1' has no value");
  }
}

}  // namespace
}  // namespace dgs::brickdl
