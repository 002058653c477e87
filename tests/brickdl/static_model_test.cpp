// BrickDL's static analysis: the brick-size rule's exact choices (§3.3.3), the padded/memoized
// choice on ResNet-50's seven subgraphs (§4.4), data growth on a hand-computed 3-D chain, brick
// units, and the partition.
#include <gtest/gtest.h>

#include "models/zoo.h"
#include "reproductions/brickdl/experiments/workloads.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {
namespace {

TEST(BrickSize, PaperChoicesForTheProxies) {
  const BrickSizeChoice six = choose_brick_size({112, 112, 112});
  EXPECT_EQ(six.edge, 8);  // §4.5.1 uses 8^3
  EXPECT_DOUBLE_EQ(six.rho, 2744);
  EXPECT_FALSE(six.fallback);
  const BrickSizeChoice three = choose_brick_size({224, 224, 224});
  EXPECT_EQ(three.edge, 16);  // §4.5.2's best brick
  EXPECT_DOUBLE_EQ(three.rho, 2744);
  // The literal fallback rule (rho < B^n) flags it, although the paper runs it (notes §2.8).
  EXPECT_TRUE(three.fallback);
  // Proxies' zoo graphs: the subgraph input decides.
  const Graph p6 = build_zoo_model("brickdl_proxy6");
  EXPECT_EQ(choose_brick_size(subgraph_blocked_extents(p6, {0, 1, 2, 3})).edge, 8);
  // Tiny layers fall back to cuDNN: 32 x 7 x 7 gives rho(4) = 24.5 < 64.
  EXPECT_TRUE(choose_brick_size({32, 7, 7}).fallback);
  EXPECT_EQ(choose_brick_size({32, 7, 7}).edge, 4);
}

TEST(DataGrowth, ResNet50SubgraphsOneAndTwoPaddedThreeToSevenMemoized) {
  const Graph g = build_zoo_model("resnet50", {.batch = kDefaultBatch2d});
  const auto sgs = resnet50_subgraphs(g);
  ASSERT_EQ(sgs.size(), 7u);
  for (size_t i = 0; i < sgs.size(); ++i) {
    const BrickSizeChoice b = choose_brick_size(subgraph_blocked_extents(g, sgs[i].ops));
    EXPECT_FALSE(b.fallback) << sgs[i].name;
    const SubgraphAnalysis a = analyze_subgraph(g, sgs[i].ops, b.edge);
    EXPECT_EQ(a.choice, i < 2 ? MergeVariant::Padded : MergeVariant::Memoized)
        << sgs[i].name << " B " << b.edge << " delta " << a.delta_all;
  }
  // SG1 (stem, input 32 x 224 x 224) gets 8^3 bricks over (N, H, W); SG2 (56 x 56) 4^3.
  EXPECT_EQ(choose_brick_size(subgraph_blocked_extents(g, sgs[0].ops)).edge, 8);
  EXPECT_EQ(choose_brick_size(subgraph_blocked_extents(g, sgs[1].ops)).edge, 4);
}

TEST(DataGrowth, HandComputedThreeLayerChain) {
  // Three valid 3x3x3 convs (+ ReLU) on 30^3: outputs 28, 26, 24 = 3 bricks of 8 per dim. Per
  // dim, an output brick needs 10 of conv2's output, 12 of conv1's, 14 of the input.
  const Graph g = build_zoo_model("brickdl_proxy3", {.image_size = 30});
  std::vector<int> ops;
  for (int i = 0; i < g.num_ops(); ++i) ops.push_back(i);
  const SubgraphAnalysis a = analyze_subgraph(g, ops, 8);
  EXPECT_EQ(a.root_bricks, 27);
  const double in = 42.0 * 42 * 42, out = 2 * (36.0 * 36 * 36 + 30.0 * 30 * 30 + 24.0 * 24 * 24);
  const double in0 = 30.0 * 30 * 30, out0 = 2 * (28.0 * 28 * 28 + 26.0 * 26 * 26 + 24.0 * 24 * 24);
  EXPECT_NEAR(a.delta_in, in / in0 - 1, 1e-12);
  EXPECT_NEAR(a.delta_out, out / out0 - 1, 1e-12);
  EXPECT_NEAR(a.delta_all, (in + out) / (in0 + out0) - 1, 1e-12);
  EXPECT_EQ(a.choice, MergeVariant::Memoized);
  // Units: each conv with its ReLU; memoized bricks 4^3 + 4^3 + 3^3 (28 and 26 need 4 bricks).
  ASSERT_EQ(a.units.size(), 3u);
  EXPECT_EQ(a.units[0].ops.size(), 2u);
  EXPECT_EQ(a.memo_bricks, 64 + 64 + 27);
}

TEST(BrickUnits, BottleneckFoldsBnReluAndTheResidualAdd) {
  const Graph g = build_zoo_model("resnet50");
  const auto sg2 = resnet50_subgraphs(g)[1];  // layer1.0: projection + 3 convs
  const auto units = brick_units(g, sg2.ops);
  ASSERT_EQ(units.size(),
            4u);  // downsample conv+bn; conv1+bn+relu; conv2+bn+relu; conv3+bn+add+relu
  EXPECT_EQ(units[0].ops.size(), 2u);
  EXPECT_EQ(units[3].ops.size(), 4u);
  EXPECT_EQ(g.op(units[3].ops.back()).kind, OpKind::Relu);
}

TEST(Partition, EveryOpOnceAndTinyLayersOnCudnn) {
  const Graph g = build_zoo_model("resnet50", {.batch = kDefaultBatch2d});
  const auto parts = partition_graph(g, 40e6, 108);
  std::vector<int> seen(static_cast<size_t>(g.num_ops()), 0);
  int merged = 0;
  for (const Subgraph& s : parts) {
    for (int op : s.ops) ++seen[static_cast<size_t>(op)];
    merged += s.merged;
  }
  for (int c : seen) EXPECT_EQ(c, 1);
  EXPECT_GT(merged, 3);
  // The classifier (global pool, flatten, Gemm) runs on cuDNN, one layer each.
  EXPECT_FALSE(parts.back().merged);
  EXPECT_EQ(parts.back().ops.size(), 1u);
}

}  // namespace
}  // namespace dgs::brickdl
