// §3.5's concatenation, copy and redistribution operators in GraphTurbo's DSA plans: exact counts
// on the Fig. 6 split, and run_plan of the plans (with their Concat ops) equal to the unscheduled
// graph on random inputs.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/exec/executor.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"

namespace dgs::graphturbo {
namespace {

struct Built {
  Graph unscheduled;
  DsaPlan plan;
  DsaRun counts;
};

// `model` at `per_cluster` items per cluster on the STCP920 (4 clusters), GraphTurbo's plan with
// Algorithm 1's capacity `capacity` (bytes).
Built build(const std::string& model, ZooOptions o, int64_t per_cluster, int64_t capacity) {
  const DsaSpec spec = load_dsa_spec("stcp920");
  o.batch = per_cluster;
  const Graph one = build_zoo_model(model, o);
  o.batch = per_cluster * spec.clusters;
  Built b;
  b.unscheduled = build_zoo_model(model, o);
  GtParams p = stcp920_gt_params(spec);
  p.split_capacity = capacity;
  b.plan = dsa_plan(b.unscheduled, &one, Approach::GraphTurbo, spec, &b.counts, &p);
  b.plan.plan.check(b.plan.graph);
  return b;
}

int concat_ops(const Graph& g) {
  int n = 0;
  for (const Op& op : g.ops()) n += op.kind == OpKind::Concat;
  return n;
}

// ResNet-50 at 32x32 with 8 images per cluster and the capacity scaled with the activations
// (2 MiB x (32/224)^2 = 42.8 KiB): Fig. 6's 8/4/2/1 instances. Every stage-2..4 instance reads
// two producer instances (b_j <- a_{2j-1}, a_{2j}; c_k <- b_{2k-1}, b_{2k}; d1 <- c1, c2): 7
// concatenations of 2 pieces per cluster, one Concat op per stage boundary (3). Algorithm 4's
// plain bindings of the instance outputs are (1,8,1,1), (2,4,1,1), (4,2,1,1) and (8,1,1,1), so
// every piece changes binding: with both ends in L1 it is a redistribution, else a copy.
TEST(GraphTurboMovement, Fig6SplitConcatenatesTwoInstancesPerConsumer) {
  ZooOptions o;
  o.image_size = 32;
  const Built b = build("resnet50", o, 8, 42 * 1024);
  EXPECT_EQ(concat_ops(b.plan.graph), 3);
  const MovementCounts& m = b.counts.movement;
  EXPECT_EQ(m.concats, 7);
  EXPECT_EQ(m.pieces, 14);
  EXPECT_EQ(m.in_place, 0);
  EXPECT_EQ(m.copies + m.redistributions, 14);
  EXPECT_GE(m.redistributions, 7);
  std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, int> changes;
  for (const MovementPiece& p : b.plan.movement)
    if (p.cluster == 0) ++changes[{p.source_binding, p.inferred_binding}];
  using B = std::vector<int64_t>;
  const std::map<std::pair<B, B>, int> expected{{{B{1, 8, 1, 1}, B{2, 4, 1, 1}}, 8},
                                                {{B{2, 4, 1, 1}, B{4, 2, 1, 1}}, 4},
                                                {{B{4, 2, 1, 1}, B{8, 1, 1, 1}}, 2}};
  EXPECT_EQ(changes, expected);
  // §3.5: a redistribution resets the tuple to the smaller factor along each dimension.
  const std::map<B, B> reset{{B{1, 8, 1, 1}, B{1, 4, 1, 1}},
                             {B{2, 4, 1, 1}, B{2, 2, 1, 1}},
                             {B{4, 2, 1, 1}, B{4, 1, 1, 1}}};
  int redistributions = 0;
  for (const MovementPiece& p : b.plan.movement) {
    if (p.cluster != 0) continue;
    if (piece_kind(b.plan.plan, p, "l1") == PieceKind::Redistribution) {
      ++redistributions;
      EXPECT_EQ(p.binding, reset.at(p.source_binding));
    } else {
      EXPECT_EQ(p.binding, p.source_binding);
    }
  }
  EXPECT_EQ(redistributions, m.redistributions);
}

TEST(GraphTurboMovement, RedistributionTakesTheSmallerFactorPerDimension) {
  using B = std::vector<int64_t>;
  EXPECT_EQ(redistribution_binding(B{2, 4, 1, 1}, B{4, 2, 1, 1}), (B{2, 2, 1, 1}));
  EXPECT_EQ(redistribution_binding(B{1, 8, 1, 1}, B{8, 1, 1, 1}), (B{1, 1, 1, 1}));
  try {
    redistribution_binding(B{2, 4}, B{2, 4, 1});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "GraphTurbo §3.5: a redistribution between bindings of rank 2 and 3");
  }
}

void expect_equal_to_unscheduled(const Built& b, uint64_t seed) {
  const TensorValues ref = run_graph(b.unscheduled, {}, seed);
  const TensorValues got =
      run_plan(b.plan.graph, b.plan.plan, make_graph_feeds(b.plan.graph, {}, seed));
  ASSERT_FALSE(b.unscheduled.output_tensors().empty());
  for (int y : b.unscheduled.output_tensors()) {
    const int y2 = b.plan.graph.find_tensor(b.unscheduled.tensor(y).name);
    ASSERT_TRUE(got.count(y2)) << b.unscheduled.tensor(y).name;
    const Comparison c = compare_tensors(got.at(y2), ref.at(y), kNetworkTolerance);
    EXPECT_TRUE(c.passed) << b.unscheduled.tensor(y).name << ": " << c.str();
  }
}

TEST(GraphTurboMovement, RunPlanOfResNet50WithConcatOpsEqualsTheUnscheduledGraph) {
  ZooOptions o;
  o.image_size = 32;
  const Built b = build("resnet50", o, 8, 42 * 1024);
  expect_equal_to_unscheduled(b, 11);
}

// A transformer (ViT-S/32 at 64x64: four patches and the class token, two images per cluster):
// its concatenations are read by one task each (x' an intermediate, computed per tile).
TEST(GraphTurboMovement, RunPlanOfVitWithConcatOpsEqualsTheUnscheduledGraph) {
  ZooOptions o;
  o.image_size = 64;
  const Built b = build("vit_s32", o, 2, 8 * 1024);
  EXPECT_GT(concat_ops(b.plan.graph), 0);
  EXPECT_EQ(b.counts.movement.concats, 12);
  for (const MovementPiece& p : b.plan.movement) EXPECT_TRUE(p.kept);
  expect_equal_to_unscheduled(b, 13);
}

// ResNet-18 at 128x128 on an STCP920 with 96 KiB of L1 per core, Algorithm 1's capacity 96 KiB,
// one image per cluster: maxpool + layer1 split along the rows recomputes halos in one kernel that
// holds all four 3x3 convs' weights on every core (288 KiB at FP16, 576 KiB double-buffered); the
// DSA model refuses that L1 overflow. GtParams::recompute_fits (halo_steps_fit) refuses the split
// instead.
DsaSpec stcp920_with_96k_l1() {
  return dsa_with_local_bytes(load_dsa_spec("stcp920"), 96 * 1024);
}

Built build_resnet18(int64_t image, int64_t per_cluster, int64_t capacity, bool halo_rule) {
  const DsaSpec spec = stcp920_with_96k_l1();
  ZooOptions o;
  o.image_size = image;
  o.batch = per_cluster;
  const Graph one = build_zoo_model("resnet18", o);
  o.batch = per_cluster * spec.clusters;
  Built b;
  b.unscheduled = build_zoo_model("resnet18", o);
  GtParams p = stcp920_gt_params(spec);
  p.split_capacity = capacity;
  if (!halo_rule) p.recompute_fits = nullptr;
  b.plan = dsa_plan(b.unscheduled, &one, Approach::GraphTurbo, spec, &b.counts, &p);
  b.plan.plan.check(b.plan.graph);
  return b;
}

TEST(GraphTurboMovement, ResNet18At128PxWith96KiBL1RefusesTheHaloSplitThatOverflowsL1) {
  const DsaSpec spec = stcp920_with_96k_l1();
  const Built without = build_resnet18(128, 1, 96 * 1024, false);
  EXPECT_THROW(evaluate_dsa_plan(without.plan.graph, without.plan.plan, spec), Error);
  const Built b = build_resnet18(128, 1, 96 * 1024, true);
  EXPECT_NO_THROW(evaluate_dsa_plan(b.plan.graph, b.plan.plan, spec));
}

// The same rule on a reduced size (64x64, capacity 16 KiB: it refuses a halo split there too, so
// the plan differs from the one without it), with run_plan equal to the unscheduled graph.
TEST(GraphTurboMovement, RunPlanOfResNet18WithHaloKernelsThatFitEqualsTheUnscheduledGraph) {
  const Built without = build_resnet18(64, 1, 16 * 1024, false);
  const Built b = build_resnet18(64, 1, 16 * 1024, true);
  EXPECT_NE(b.counts.movement.concats, without.counts.movement.concats);
  EXPECT_NO_THROW(evaluate_dsa_plan(b.plan.graph, b.plan.plan, stcp920_with_96k_l1()));
  expect_equal_to_unscheduled(b, 17);
}

// Two images per cluster: maxpool's sub-graph splits along channels (4 instances of the whole
// batch), its consumer along the batch (2 instances). The first consumer instance concatenates
// the four pieces whole; the second reads that x' and has no Concat of its own (the scheduler
// refused the plan before: "the pieces ... are not one box").
TEST(GraphTurboMovement, ResNet18ChannelPiecesAreConcatenatedOnceForTwoBatchInstances) {
  const Built b = build_resnet18(128, 2, 96 * 1024, true);
  EXPECT_NO_THROW(evaluate_dsa_plan(b.plan.graph, b.plan.plan, stcp920_with_96k_l1()));
  const Built r = build_resnet18(64, 2, 16 * 1024, true);
  for (const Built* x : {&b, &r}) {
    std::set<int> instances;
    int pieces = 0;
    for (const MovementPiece& p : x->plan.movement)
      if (p.cluster == 0 && x->plan.graph.tensor(p.tensor).name == "maxpool:0") {
        ++pieces;
        instances.insert(p.instance);
        EXPECT_FALSE(p.kept);
      }
    EXPECT_EQ(pieces, 4);
    EXPECT_EQ(instances.size(), 1u);
  }
  expect_equal_to_unscheduled(r, 19);
}

}  // namespace
}  // namespace dgs::graphturbo
