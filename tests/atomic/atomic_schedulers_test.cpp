// The Atomic Dataflow schedulers behind the Scheduler interface (reproductions/atomic/
// schedulers.h): registered, their plans checked by run_scheduler and priced by evaluate() to the
// same latency as the reproduction's own pricing path (run_ad, run_ls, partition_run), AD's plan
// equal to the graph under run_plan, and the machines and graphs they refuse, in one line.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/evaluate/evaluate.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware_spec.h"
#include "compare/scheduler_registry.h"
#include "models/zoo.h"
#include "reproductions/atomic/experiments/ad_runs.h"
#include "reproductions/atomic/experiments/partition_runs.h"
#include "reproductions/atomic/iterative_search.h"
#include "reproductions/atomic/paper_networks.h"
#include "reproductions/atomic/schedulers.h"
#include "tests/error_of.h"

namespace dgs {
namespace {

const Scheduler& scheduler(const SchedulerList& list, const std::string& name) {
  const Scheduler* s = find_scheduler(list, name);
  if (s == nullptr) throw Error("no scheduler " + name);
  return *s;
}

TEST(AtomicSchedulers, RegisteredForMeshAccelerators) {
  const SchedulerList mine = atomic_schedulers();
  std::vector<std::string> names;
  for (const auto& s : mine) {
    names.push_back(s->name());
    EXPECT_EQ(s->paper(), "atomic");
    EXPECT_EQ(s->hardware_kinds(), std::vector<std::string>{"dsa"});
    EXPECT_FALSE(s->description().empty());
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"atomic", "atomic.ls", "atomic.cnn_p", "atomic.il_pipe"}));
  const SchedulerList all = all_schedulers();
  for (const std::string& n : names) EXPECT_NE(find_scheduler(all, n), nullptr) << n;
  // AD's options: the seed and the search's extent, at the defaults every item runs.
  std::vector<std::string> options;
  for (const SchedulerOption& o : scheduler(mine, "atomic").options())
    options.push_back(o.name + "=" + o.default_value);
  EXPECT_EQ(options, (std::vector<std::string>{"seed=1", "budget_halvings=3", "target_doublings=7",
                                               "sa_iterations=1000", "even_split=1"}));
  for (const std::string n : {"atomic.ls", "atomic.cnn_p", "atomic.il_pipe"})
    EXPECT_TRUE(scheduler(mine, n).options().empty()) << n;
}

// Every scheduler through run_scheduler (Plan::check against the machine) and evaluate() gives
// exactly the latency the reproduction's own path gives for the same graph, config and seed
// (the items price the same plans with evaluate_dsa_plan on item_spec(config, KC-P)).
TEST(AtomicSchedulers, EvaluateEqualsTheReproductionsPricing) {
  const SchedulerList list = atomic_schedulers();
  const HardwareSpec hw = load_hardware("atomic_mesh");
  const DsaSpec spec = atomic::item_spec(*hw.dsa, DsaDataflow::KC);
  for (const int batch : {1, 2}) {
    const Graph g = build_zoo_model("squeezenet", {.batch = batch, .image_size = 32});
    const std::vector<atomic::Layer> layers = atomic::graph_layers(g);
    auto latency = [&](const std::string& name, const std::map<std::string, std::string>& o) {
      const ScheduleResult r = run_scheduler(scheduler(list, name), g, hw, o);
      EXPECT_EQ(r.plan.scheduler, name);
      const EvaluationResult e = evaluate(g, r.plan, hw, r.evaluation);
      EXPECT_EQ(e.tasks, r.plan.num_tasks()) << name;
      return e.latency_us;
    };
    if (batch == 1) {  // AD as Fig. 8 runs it; LS at both batches
      for (const uint64_t seed : {1, 2})
        EXPECT_DOUBLE_EQ(latency("atomic", {{"seed", std::to_string(seed)}}),
                         atomic::run_ad(g, spec, seed).ad_us)
            << "seed " << seed;
    }
    EXPECT_DOUBLE_EQ(latency("atomic.ls", {}), atomic::run_ls(g, spec, batch)) << batch;
    if (batch == 1) continue;  // the partition baselines pipeline the samples of a batch
    EXPECT_DOUBLE_EQ(latency("atomic.cnn_p", {}),
                     atomic::partition_run(g, atomic::cnnp_layout(g, layers, spec), spec, "CNN-P")
                         .result.latency_us);
    EXPECT_DOUBLE_EQ(
        latency("atomic.il_pipe", {}),
        atomic::partition_run(g, atomic::ilpipe_layout(g, layers, spec), spec, "IL-Pipe")
            .result.latency_us);
  }
}

// A smaller search than the items' (one budget, no doublings, no even split: the SA's atoms
// alone) is the iterative search with those options.
TEST(AtomicSchedulers, SearchOptionsReachTheIterativeSearch) {
  const SchedulerList list = atomic_schedulers();
  const HardwareSpec hw = load_hardware("atomic_mesh");
  const Graph g = build_zoo_model("squeezenet", {.batch = 1, .image_size = 32});
  const ScheduleResult r = run_scheduler(scheduler(list, "atomic"), g, hw,
                                         {{"budget_halvings", "0"},
                                          {"target_doublings", "0"},
                                          {"sa_iterations", "50"},
                                          {"even_split", "0"}});
  atomic::IterativeSearchOptions o;
  o.budget_halvings = 0;
  o.target_doublings = 0;
  o.anneal.iterations = 50;
  o.even_split = false;
  const atomic::IterativeSearch s = atomic::iterative_atomic_search(g, *hw.dsa, 1, o);
  EXPECT_EQ(r.search.candidates, 1);
  EXPECT_EQ(r.search.states, s.sa_evaluations);
  EXPECT_GT(r.search.states, 0);
  EXPECT_LE(r.search.states, 51);
  EXPECT_DOUBLE_EQ(evaluate(g, r.plan, hw).latency_us, s.result.latency_us);
  EXPECT_EQ(error_of([&] {
              run_scheduler(scheduler(list, "atomic"), g, hw, {{"sa_iterations", "0"}});
            }),
            "atomic: option 'sa_iterations' expects 1..2147483647, got 0");
}

// AD's search reports what it did, and its plan computes the graph: the default search's (here
// it keeps LS's even split) and, with Algorithm 1's atom sets only, one whose atoms are in part
// input-channel slices whose partial sums are added, some outputs kept on chip; so do the
// baselines'.
TEST(AtomicSchedulers, PlansEqualTheGraph) {
  const SchedulerList list = atomic_schedulers();
  const Graph g = build_zoo_model("test_residual_block", {.batch = 1, .image_size = 8});
  const ScheduleResult d =
      run_scheduler(scheduler(list, "atomic"), g, load_hardware("atomic_mesh"));
  const PlanComparison cd = compare_plan_with_reference(g, d.plan, 3);
  EXPECT_TRUE(cd.passed) << cd.str();
  const ScheduleResult r = run_scheduler(scheduler(list, "atomic"), g, load_hardware("atomic_mesh"),
                                         {{"even_split", "0"}});
  EXPECT_GT(r.search.candidates, 0);
  EXPECT_GT(r.search.states, 0);
  EXPECT_NE(r.search.note.find("iterative search (Fig. 4b)"), std::string::npos) << r.search.note;
  int64_t on_chip = 0, sliced = 0;
  for (const Stage& st : r.plan.stages)
    for (const Task& t : st.tasks) {
      on_chip += t.scope.empty() ? 0 : 1;
      sliced += t.reduction.active() ? 1 : 0;
    }
  EXPECT_GT(on_chip, 0);
  EXPECT_GT(sliced, 0);
  const PlanComparison c = compare_plan_with_reference(g, r.plan, 3);
  EXPECT_TRUE(c.passed) << c.str();
  for (const std::string name : {"atomic.ls", "atomic.cnn_p", "atomic.il_pipe"}) {
    const ScheduleResult b = run_scheduler(scheduler(list, name), g, load_hardware("atomic_mesh"));
    const PlanComparison cb = compare_plan_with_reference(g, b.plan, 3);
    EXPECT_TRUE(cb.passed) << name << ": " << cb.str();
  }
}

TEST(AtomicSchedulers, RefusesMachinesWithoutAMeshAndLayersThatDoNotFit) {
  const SchedulerList list = atomic_schedulers();
  const HardwareSpec clusters = load_hardware("stcp920");
  const HardwareSpec gpu = load_hardware("a100");
  for (const auto& s : list) {
    EXPECT_EQ(s->cannot_target(clusters).value_or(""),
              "targets a DSA whose engines form a 2-D mesh (topology \"mesh\": atoms placed on "
              "mesh engines, communication in mesh hops); STCP920 has topology \"clusters\"")
        << s->name();
    EXPECT_EQ(s->cannot_target(gpu).value_or(""), "targets hardware of kind dsa, not gpu");
    EXPECT_EQ(s->cannot_target(load_hardware("atomic_mesh")), std::nullopt);
  }
  try {
    run_scheduler(scheduler(list, "atomic.ls"), build_zoo_model("squeezenet", {.image_size = 32}),
                  clusters);
    FAIL() << "atomic.ls ran on a machine without a mesh";
  } catch (const SchedulerNotApplicable& e) {
    EXPECT_EQ(std::string(e.what()).rfind("atomic.ls: targets a DSA whose engines form", 0), 0u)
        << e.what();
  }
  // BERT's layers have [N, S, H] outputs, which the method does not cut into atoms: the first
  // matrix product, whole on one engine, needs its 768 x 768 weights in a 128 KiB buffer.
  const Graph bert = build_zoo_model("bert_base", {.batch = 1, .seq_len = 8});
  for (const auto& s : list) {
    try {
      run_scheduler(*s, bert, load_hardware("atomic_mesh"));
      FAIL() << s->name() << " scheduled BERT";
    } catch (const SchedulerNotApplicable& e) {
      EXPECT_EQ(std::string(e.what()),
                s->name() +
                    ": encoder.layer.0.attention.query (MatMul, output [1,8,768]) is not cut into "
                    "atoms (the method cuts [N,C,H,W] and [N,C] outputs, the paper's CNN layers), "
                    "and whole it needs 602112 bytes of an engine's 131072-byte sram");
    }
  }
  const Graph g = build_zoo_model("test_diamond", {.batch = 1, .image_size = 8});
  EXPECT_EQ(
      error_of([&] {
        run_scheduler(scheduler(list, "atomic"), g, load_hardware("atomic_mesh"), {{"seed", "-1"}});
      }),
      "atomic: option 'seed' expects 0..9223372036854775807, got -1");
}

}  // namespace
}  // namespace dgs
