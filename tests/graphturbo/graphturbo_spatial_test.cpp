// Algorithm 1 along a spatial axis with recomputed halos (§3.1's cost model): where no batch split
// fits, a conv chain splits along its height while the recomputed FLOPs stay within
// kRecomputeThreshold; its plans equal the unscheduled graph through run_plan.
#include <gtest/gtest.h>

#include "common/dsamodel/dsa_model.h"
#include "common/exec/executor.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/grouping.h"
#include "reproductions/graphturbo/instances.h"

namespace dgs::graphturbo {
namespace {

// ResNet-50, one image per cluster, capacity 1 MiB: the stem and stage 1's first blocks do not
// fit in one instance (the stem's [1,64,112,112] is 1.5 MiB at FP16) and the batch has one
// image, so they split along the height (axis 2) in two, recomputing the halo rows of the 3x3
// and 7x7 convs and the max pool: a few percent of their FLOPs, within the threshold.
TEST(GraphTurboSpatial, OneImagePerClusterSplitsTheStemAlongTheHeight) {
  const DsaSpec spec = load_dsa_spec("stcp920");
  ZooOptions o;
  o.batch = 1;
  const Graph g = build_zoo_model("resnet50", o);
  GtParams p = stcp920_gt_params(spec);
  p.split_capacity = 1 << 20;
  const Schedule s = schedule_graph(g, p);
  int recomputing = 0;
  for (const SubGraph& sg : s.grouping.subgraphs) {
    if (!sg.recomputes) continue;
    ++recomputing;
    EXPECT_EQ(sg.best.dim, 2);
    EXPECT_EQ(sg.best.factor, 2);
    EXPECT_GT(sg.recomputed_fraction, 0.0);
    EXPECT_LE(sg.recomputed_fraction, kRecomputeThreshold);
    EXPECT_EQ(g.op(sg.ops.front()).name, "conv1");
  }
  EXPECT_EQ(recomputing, 1);
}

// MobileNet V2 at 96x96, one image per cluster, capacity 128 KiB: two sub-graphs split along the
// height (4 and 2 instances); the DSA plan (per-layer steps, a layer that needs another
// instance's rows fused with the steps that write them) and the one-cluster plan (one task per
// instance) both equal the unscheduled graph.
TEST(GraphTurboSpatial, RunPlanOfHaloSplitsEqualsTheUnscheduledGraph) {
  const DsaSpec spec = load_dsa_spec("stcp920");
  ZooOptions o;
  o.image_size = 96;
  o.batch = 1;
  const Graph one = build_zoo_model("mobilenet_v2", o);
  o.batch = spec.clusters;
  const Graph g = build_zoo_model("mobilenet_v2", o);
  GtParams p = stcp920_gt_params(spec);
  p.split_capacity = 128 * 1024;
  const Schedule s = schedule_graph(one, p);
  int recomputing = 0;
  for (const SubGraph& sg : s.grouping.subgraphs) recomputing += sg.recomputes;
  EXPECT_EQ(recomputing, 2);
  const PlanComparison c1 = compare_plan_with_reference(one, schedule_plan(one, s), 21);
  EXPECT_TRUE(c1.passed) << c1.str();
  DsaRun counts;
  const DsaPlan d = dsa_plan(g, &one, Approach::GraphTurbo, spec, &counts, &p);
  EXPECT_GT(counts.movement.concats, 0);
  const TensorValues ref = run_graph(g, {}, 22);
  const TensorValues got = run_plan(d.graph, d.plan, make_graph_feeds(d.graph, {}, 22));
  for (int y : g.output_tensors()) {
    const int y2 = d.graph.find_tensor(g.tensor(y).name);
    ASSERT_TRUE(got.count(y2));
    const Comparison c = compare_tensors(got.at(y2), ref.at(y), kNetworkTolerance);
    EXPECT_TRUE(c.passed) << c.str();
  }
}

// DenseNet-121 at 128x128, two images per cluster: halo_steps_fit refuses splitting {layer1's 3x3
// conv, the block's Concat} along the channels into `factor`, and with Algorithm 1's capacity
// `capacity` the whole DSA plan checks and evaluates.
void expect_densenet_layer1_split_refused(int64_t factor, int64_t capacity) {
  const DsaSpec spec = load_dsa_spec("stcp920");
  ZooOptions o;
  o.image_size = 128;
  o.batch = 2;
  const Graph one = build_zoo_model("densenet121", o);
  const std::vector<int> ops = {one.find_op("features.denseblock1.layer1.2.conv"),
                                one.find_op("features.denseblock1.layer1.concat")};
  EXPECT_FALSE(halo_steps_fit(one, ops, 1, factor, spec));
  o.batch = 2 * spec.clusters;
  const Graph g = build_zoo_model("densenet121", o);
  GtParams p = stcp920_gt_params(spec);
  p.split_capacity = capacity;
  DsaRun counts;
  const DsaPlan d = dsa_plan(g, &one, Approach::GraphTurbo, spec, &counts, &p);
  EXPECT_NO_THROW(d.plan.check(d.graph));
  EXPECT_NO_THROW(evaluate_dsa_plan(d.graph, d.plan, spec));
}

// DenseNet-121 at 128x128, two images per cluster, capacity 32 KiB: {layer1's 3x3 conv (32
// channels), the block's Concat (96 channels)} split along the channels in 12 recomputes, and the
// conv's 32 channels do not divide by 12, so the DSA plans would run that step whole, once,
// writing the Concat's channels again beside the instances' slices (and §3.5 refused the
// overlapping pieces). halo_steps_fit refuses the split; the plan evaluates.
TEST(GraphTurboSpatial, SplitWhoseStepsDoNotDivideIsRefused) {
  expect_densenet_layer1_split_refused(12, 32 * 1024);
}

// The same sub-graph at capacity 96 KiB splits in 4: the conv's 8-channel slices divide, but the
// instances whose Concat channels come from the pool (0-47) run the conv and the Concat as two
// steps, the others (48-95) read other instances' conv channels and merge them into one step where
// the conv output is kept, never written: 16 of its 32 channels were written by no task
// (Plan::check refused). Instances must run the same steps; the plan checks and evaluates.
TEST(GraphTurboSpatial, SplitWhoseInstancesRunDifferentStepsIsRefused) {
  expect_densenet_layer1_split_refused(4, 96 * 1024);
}

}  // namespace
}  // namespace dgs::graphturbo
