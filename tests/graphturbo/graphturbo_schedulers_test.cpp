// GraphTurbo's schedulers behind the Scheduler interface (reproductions/graphturbo/schedulers.h):
// checked plans priced by evaluate(), the same latency as the experiments' own path
// (run_on_dsa), run_plan equal to the reference, the per-cluster graph of any batch, and the
// machines they refuse.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/dsamodel/task_estimate.h"
#include "common/evaluate/evaluate.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware_spec.h"
#include "compare/scheduler_registry.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/schedulers.h"
#include "tests/error_of.h"

namespace dgs::graphturbo {
namespace {

Graph zoo(const std::string& model, int64_t batch, int64_t image = 0, int64_t seq = 0) {
  ZooOptions o;
  o.batch = batch;
  o.image_size = image;
  o.seq_len = seq;
  return build_zoo_model(model, o);
}

void expect_same_values(const NamedValues& a, const NamedValues& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name) << what;
    EXPECT_DOUBLE_EQ(a[i].value, b[i].value) << what << ": " << a[i].name;
  }
}

const std::set<std::string> kNames = {"graphturbo",         "graphturbo.tvm",
                                      "graphturbo.astitch", "graphturbo.v1_llb",
                                      "graphturbo.v2_l1",   "graphturbo.v3_instances"};

TEST(GraphTurboSchedulers, AreRegisteredUnderThePaper) {
  const SchedulerList all = all_schedulers();
  std::set<std::string> names;
  for (const auto& s : graphturbo_schedulers()) {
    names.insert(s->name());
    EXPECT_EQ(s->paper(), "graphturbo");
    EXPECT_EQ(s->hardware_kinds(), std::vector<std::string>{"dsa"});
    EXPECT_NE(find_scheduler(all, s->name()), nullptr) << s->name();
  }
  EXPECT_EQ(names, kNames);
}

// The experiments' configuration (batch = clusters x 1 on the STCP920): every scheduler's plan,
// checked and priced by evaluate(), costs exactly what run_on_dsa (dsa_plan, Plan::check,
// evaluate_dsa_plan) reports for the same approach and batches per cluster.
TEST(GraphTurboSchedulers, PriceTheExperimentsPlansExactly) {
  const HardwareSpec hw = load_hardware("stcp920");
  const int64_t batch = hw.dsa->clusters;
  const Graph g = zoo("squeezenet", batch);
  const std::pair<const char*, Approach> runs[] = {
      {"graphturbo", Approach::GraphTurbo},
      {"graphturbo.tvm", Approach::Tvm},
      {"graphturbo.astitch", Approach::AStitch},
      {"graphturbo.v1_llb", Approach::V1Llb},
      {"graphturbo.v2_l1", Approach::V2L1},
      {"graphturbo.v3_instances", Approach::V3Instances}};
  const SchedulerList list = graphturbo_schedulers();
  for (const auto& [name, approach] : runs) {
    const ScheduleResult r = run_scheduler(*find_scheduler(list, name), g, hw);
    const EvaluationResult ev = evaluate(scheduled_graph(r, g), r.plan, hw, r.evaluation);
    const DsaRun paper = run_on_dsa("squeezenet", batch, approach, *hw.dsa, 1);
    EXPECT_DOUBLE_EQ(ev.latency_us, paper.result.latency_us) << name;
    expect_same_values(ev.bytes_by_level, paper.result.bytes_by_level, name);
    expect_same_values(ev.energy_pj_by_component, paper.result.energy_pj_by_component, name);
    EXPECT_EQ(ev.tasks, r.plan.num_tasks()) << name;
    EXPECT_NE(r.search.note.find("batch 4 over 4 of 4 clusters"), std::string::npos)
        << r.search.note;
  }
}

// The plans tile double-buffered with a tile that fits their share of L1 (dsa_plans.h):
// every tiled task of TVM's and GraphTurbo's plans maps within its buffer_bytes (kTileFractionOfL1
// of L1) without holding a tile once and stalling for its loads (buffer_nest.h), unless no axis
// of its tile can be halved.
TEST(GraphTurboSchedulers, TheirTilesFitTheirBudgetWithoutStalling) {
  const HardwareSpec hw = load_hardware("stcp920");
  const Graph g = zoo("squeezenet", hw.dsa->clusters);
  const SchedulerList list = graphturbo_schedulers();
  for (const char* name : {"graphturbo", "graphturbo.tvm"}) {
    const ScheduleResult r = run_scheduler(*find_scheduler(list, name), g, hw);
    const Graph sg = scheduled_graph(r, g);
    size_t tiled = 0;
    for (const Stage& st : r.plan.stages)
      for (const Task& t : st.tasks) {
        if (t.tile.empty()) continue;
        ++tiled;
        EXPECT_EQ(t.buffer_bytes,
                  static_cast<int64_t>(kTileFractionOfL1 * double(hw.dsa->local_bytes)));
        bool halvable = false;
        for (int64_t x : t.tile) halvable = halvable || x > 1;
        const DsaTaskEstimate e = dsa_task_estimate(sg, t, *hw.dsa);
        if (!halvable) continue;
        EXPECT_LE(e.working_set_bytes, t.buffer_bytes) << name;
        EXPECT_EQ(e.stall_cycles, 0) << name;
      }
    EXPECT_GT(tiled, 0u) << name;
  }
}

// A batch-1 graph runs on one cluster (gcd(1, 4) = 1) with GraphTurbo's instances split along
// other axes; the plan computes the unscheduled graph's outputs (run_plan on random inputs, the
// plan's graph with §3.5's Concat ops where it has them).
TEST(GraphTurboSchedulers, BatchOneRunsOnOneClusterAndMatchesTheReference) {
  const HardwareSpec hw = load_hardware("stcp920");
  const Graph g = zoo("squeezenet", 1, 64);
  const SchedulerList list = graphturbo_schedulers();
  for (const char* name : {"graphturbo", "graphturbo.tvm"}) {
    const ScheduleResult r = run_scheduler(*find_scheduler(list, name), g, hw);
    for (const Stage& st : r.plan.stages)
      for (const Task& t : st.tasks) ASSERT_EQ(t.placement.index.at(0), 0) << name;
    EXPECT_NE(r.search.note.find("batch 1 over 1 of 4 clusters"), std::string::npos)
        << r.search.note;
    const Graph& sg = scheduled_graph(r, g);
    EXPECT_GT(evaluate(sg, r.plan, hw, r.evaluation).latency_us, 0.0) << name;
    const PlanComparison c = compare_plan_with_reference(sg, r.plan, 5);
    EXPECT_TRUE(c.passed) << name << ": " << c.str();
  }
}

// ResNet-18 at 32x32, one image per cluster on all four clusters, Algorithm 1's capacity 4 KiB
// (through the option): GraphTurbo's plan adds §3.5's Concat ops (ScheduleResult::graph, which
// run_scheduler checks the plan against) and computes the unscheduled graph's outputs.
TEST(GraphTurboSchedulers, ConcatOpsTravelWithThePlanAndKeepTheOutputs) {
  const HardwareSpec hw = load_hardware("stcp920");
  const Graph g = zoo("resnet18", hw.dsa->clusters, 32);
  const double fraction = 4.0 * 1024 / double(hw.dsa->global_bytes);
  const ScheduleResult r =
      run_scheduler(*find_scheduler(graphturbo_schedulers(), "graphturbo"), g, hw,
                    {{"split_capacity_fraction", std::to_string(fraction)}});
  EXPECT_NE(r.search.note.find(" 5 concatenations"), std::string::npos) << r.search.note;
  ASSERT_TRUE(r.graph.has_value());
  // The added ops are Concat ops (one per tensor and consumer sub-graph), after g's.
  ASSERT_GT(r.graph->num_ops(), g.num_ops());
  for (int op = 0; op < r.graph->num_ops(); ++op)
    EXPECT_EQ(r.graph->op(op).kind == OpKind::Concat,
              op >= g.num_ops() || g.op(op).kind == OpKind::Concat)
        << r.graph->op(op).name;
  for (int y : g.output_tensors()) EXPECT_GE(r.graph->find_tensor(g.tensor(y).name), 0);
  EXPECT_THROW(evaluate(g, r.plan, hw), Error);  // the plan names ops g does not have
  EXPECT_GT(evaluate(*r.graph, r.plan, hw).latency_us, 0.0);
  const PlanComparison c = compare_plan_with_reference(*r.graph, r.plan, 9);
  EXPECT_TRUE(c.passed) << c.str();
}

// One cluster's share of a graph of any batch is the same model built at the smaller batch (the
// experiments build both with the zoo): BERT's Reshape targets name the batch.
TEST(GraphTurboSchedulers, PerClusterGraphEqualsTheModelAtTheSmallerBatch) {
  for (const auto& [model, image, seq] :
       {std::tuple<const char*, int64_t, int64_t>{"bert_base", 0, 16}, {"resnet50", 32, 0}}) {
    const Graph whole = zoo(model, 8, image, seq);
    const Graph quarter = zoo(model, 2, image, seq);
    EXPECT_EQ(graph_batch(whole), 8);
    std::string why;
    const std::optional<Graph> share = per_cluster_graph(whole, 4, &why);
    ASSERT_TRUE(share.has_value()) << model << ": " << why;
    ASSERT_EQ(share->num_tensors(), quarter.num_tensors());
    for (int t = 0; t < quarter.num_tensors(); ++t) {
      EXPECT_EQ(share->tensor(t).shape, quarter.tensor(t).shape) << quarter.tensor(t).name;
      EXPECT_EQ(share->tensor(t).int_data, quarter.tensor(t).int_data) << quarter.tensor(t).name;
    }
  }
  // A Reshape that folds the batch into another axis cannot be split: refused with the tensor.
  Graph g;
  g.name = "folds";
  const int x = g.add_input("x", {4, 8});
  const int s = g.add_constant_ints("s", {32});
  const int y = g.op(g.add_op(OpKind::Reshape, "flat", {x, s})).outputs[0];
  g.mark_output(y);
  std::string why;
  EXPECT_FALSE(per_cluster_graph(g, 2, &why).has_value());
  EXPECT_NE(why.find("does not infer"), std::string::npos) << why;
}

// Machines they do not target, with the reason: a mesh of engines, a GPU.
TEST(GraphTurboSchedulers, RefuseAMeshAndAGpu) {
  const Graph g = zoo("squeezenet", 1, 32);
  const auto list = graphturbo_schedulers();
  const Scheduler& gt = *find_scheduler(list, "graphturbo");
  EXPECT_EQ(gt.cannot_target(load_hardware("a100")), "targets hardware of kind dsa, not gpu");
  const HardwareSpec mesh = load_hardware("atomic_mesh");
  try {
    run_scheduler(gt, g, mesh);
    FAIL() << "GraphTurbo ran on a mesh";
  } catch (const SchedulerNotApplicable& e) {
    EXPECT_EQ(std::string(e.what()),
              "graphturbo: targets a DSA of clusters of cores (§2.1: the batch split over "
              "clusters, each cluster's instances on its cores); " +
                  mesh.dsa->name + " is a mesh of engines");
  }
  EXPECT_EQ(error_of([&] {
              run_scheduler(gt, g, load_hardware("stcp920"), {{"rounds", "3"}});
            }),
            "graphturbo: unknown option 'rounds' (options: split_capacity_fraction, "
            "halo_fit_rule)");
}

}  // namespace
}  // namespace dgs::graphturbo
