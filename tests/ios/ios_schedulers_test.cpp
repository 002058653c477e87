// IOS's schedulers behind the Scheduler interface (reproductions/ios/schedulers.h): registered,
// checked plans priced by evaluate() at exactly the latency of the reproduction's own path
// (the schedules repro_ios reports, priced by evaluate_schedule), options that reach the search,
// plans equal to the network on the CPU reference, and refusals in one line.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common/evaluate/evaluate.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware_spec.h"
#include "compare/scheduler_registry.h"
#include "models/builder.h"
#include "models/zoo.h"
#include "reproductions/ios/experiments/runs.h"
#include "reproductions/ios/schedulers.h"
#include "tests/error_of.h"

namespace dgs::ios {
namespace {

const std::vector<std::string> kNames = {"ios", "ios.merge", "ios.parallel", "ios.greedy",
                                         "ios.sequential"};

TEST(IosSchedulers, RegisteredOnceEachForGpusOnly) {
  const SchedulerList all = all_schedulers();
  for (const std::string& name : kNames) {
    const Scheduler* s = find_scheduler(all, name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->paper(), "ios") << name;
    EXPECT_EQ(s->hardware_kinds(), std::vector<std::string>{"gpu"}) << name;
  }
  EXPECT_EQ(ios_schedulers().size(), kNames.size());
}

// The one road: each scheduler's plan, checked by run_scheduler and priced by evaluate(), costs
// exactly what the reproduction's own path gives for the same schedule (fresh_search /
// greedy_schedule / sequential_schedule with the defaults repro_ios uses, priced by
// evaluate_schedule with the GPU spec read as repro_ios reads it); the search reports the DP's
// states. SqueezeNet at batch 1 on the thesis' V100 and on an A100.
TEST(IosSchedulers, EvaluateGivesTheReproductionsOwnLatency) {
  const Graph g = build_zoo_model("squeezenet");
  const Network net = make_network(g, default_part_rule("squeezenet"));
  const SchedulerList list = ios_schedulers();
  for (const std::string hw_name : {"v100", "a100"}) {
    const HardwareSpec hw = load_hardware(hw_name);
    const GpuSpec spec = load_gpu_spec(hw_name);
    std::map<std::string, SearchResult> own;
    own["ios"] = fresh_search(net, spec, StrategySet::Both, Pruning{});
    own["ios.merge"] = fresh_search(net, spec, StrategySet::Merge, Pruning{});
    own["ios.parallel"] = fresh_search(net, spec, StrategySet::Parallel, Pruning{});
    own["ios.greedy"].schedule = greedy_schedule(net);
    own["ios.sequential"].schedule = sequential_schedule(net);
    for (const auto& s : list) {
      SCOPED_TRACE(s->name() + " on " + hw_name);
      const ScheduleResult r = run_scheduler(*s, g, hw);
      const EvaluationResult ev = evaluate(g, r.plan, hw, r.evaluation);
      const SearchResult& o = own.at(s->name());
      EXPECT_EQ(r.plan.stages.size(), o.schedule.stages.size());
      EXPECT_EQ(r.plan.options, to_plan(net, o.schedule).options);
      EXPECT_TRUE(r.plan.options.fold_activation);  // IOS's kernel options travel in the plan
      EXPECT_EQ(ev.tasks, r.plan.num_tasks());
      EXPECT_DOUBLE_EQ(ev.latency_us,
                       evaluate_schedule(net, o.schedule, gpu_hardware_spec(spec)).latency_us);
      EXPECT_EQ(r.search.states, static_cast<int64_t>(o.stats.states));
      EXPECT_EQ(r.search.candidates, static_cast<int64_t>(o.stats.stages_costed));
      EXPECT_GE(r.search.seconds, 0.0);
    }
  }
}

// IOS's Sequential is not the suite's `sequential`: it folds each Conv's Relu into the Conv's
// kernel (one task per schedule unit), so it is faster than the suite's baseline on a CNN.
TEST(IosSchedulers, IosSequentialDiffersFromTheSuitesBaselineByItsKernelOptions) {
  const Graph g = build_zoo_model("squeezenet");
  const HardwareSpec hw = load_hardware("a100");
  const SchedulerList list = ios_schedulers();
  const ScheduleResult ios_seq = run_scheduler(*find_scheduler(list, "ios.sequential"), g, hw);
  const ScheduleResult suite_seq = run_scheduler(*make_sequential_scheduler(), g, hw);
  EXPECT_TRUE(ios_seq.plan.options.fold_activation);
  EXPECT_FALSE(suite_seq.plan.options.fold_activation);
  EXPECT_LT(ios_seq.plan.stages.size(), suite_seq.plan.stages.size());
  EXPECT_LT(evaluate(g, ios_seq.plan, hw).latency_us, evaluate(g, suite_seq.plan, hw).latency_us);
}

// The options reach the search: the pruning r, s and Greedy's max_streams give the schedules of
// the reproduction's functions called with them.
TEST(IosSchedulers, OptionsAreTheReproductionsParameters) {
  const Graph g = build_zoo_model("squeezenet");
  const Network net = make_network(g, default_part_rule("squeezenet"));
  const HardwareSpec hw = load_hardware("v100");
  const SchedulerList list = ios_schedulers();
  const ScheduleResult narrow =
      run_scheduler(*find_scheduler(list, "ios"), g, hw, {{"r", "1"}, {"s", "2"}});
  const SearchResult own = fresh_search(net, *hw.gpu, StrategySet::Both, Pruning{1, 2});
  EXPECT_DOUBLE_EQ(evaluate(g, narrow.plan, hw).latency_us,
                   evaluate_schedule(net, own.schedule, hw).latency_us);
  EXPECT_EQ(narrow.search.states, static_cast<int64_t>(own.stats.states));
  EXPECT_NE(narrow.search.note.find("pruning r=1 s=2"), std::string::npos) << narrow.search.note;
  const ScheduleResult two =
      run_scheduler(*find_scheduler(list, "ios.greedy"), g, hw, {{"max_streams", "2"}});
  EXPECT_EQ(two.plan.stages.size(), greedy_schedule(net, 2).stages.size());
  for (const Stage& st : two.plan.stages) EXPECT_LE(st.tasks.size(), 2u);
}

// IOS's searched plans compute what the unscheduled network computes (CPU reference, random
// inputs): IOS-Both's (merged convolutions: at 64x64 its stages are merges and single units) and
// IOS-Parallel's (concurrent groups on streams), SqueezeNet at 64x64.
TEST(IosSchedulers, IosPlansRunOnTheReferenceEqualToTheNetwork) {
  ZooOptions zo;
  zo.image_size = 64;
  const Graph g = build_zoo_model("squeezenet", zo);
  const SchedulerList list = ios_schedulers();
  int merged = 0, concurrent = 0;
  for (const std::string name : {"ios", "ios.parallel"}) {
    const ScheduleResult r = run_scheduler(*find_scheduler(list, name), g, load_hardware("v100"));
    for (const Stage& st : r.plan.stages) {
      merged += st.tasks.size() == 1 && st.tasks[0].kind == TaskKind::Merged;
      concurrent += st.tasks.size() > 1;
    }
    const PlanComparison c = compare_plan_with_reference(g, r.plan, 13);
    EXPECT_TRUE(c.passed) << name << ": " << c.str();
  }
  EXPECT_GT(merged, 0);
  EXPECT_GT(concurrent, 0);
}

// A network with a part whose DP needs more transitions than max_transitions is not applicable,
// counted before the search: the thesis' four-convolution graph (Fig. 1.2) is one part of 5 units
// whose IOS-Both DP (r = 3, s = 8) enumerates 76 transitions. (A part over the DP's state budget,
// kIosMaxSearchStates, is refused the same way; reaching 400,000 states takes seconds.)
TEST(IosSchedulers, APartOverTheTransitionBudgetIsNotApplicable) {
  const Graph g = build_zoo_model("ios_fig1_2");
  const Network net = make_network(g, default_part_rule("ios_fig1_2"));
  ASSERT_EQ(net.parts.size(), 1u);
  EXPECT_EQ(count_part(part_dag(net, net.parts[0]), StrategySet::Both, Pruning{}).transitions, 76u);
  const SchedulerList list = ios_schedulers();
  const Scheduler& ios = *find_scheduler(list, "ios");
  const HardwareSpec hw = load_hardware("v100");
  EXPECT_NO_THROW(run_scheduler(ios, g, hw, {{"max_transitions", "76"}}));
  try {
    run_scheduler(ios, g, hw, {{"max_transitions", "75"}});
    ADD_FAILURE() << "no SchedulerNotApplicable";
  } catch (const SchedulerNotApplicable& e) {
    EXPECT_EQ(std::string(e.what()), "ios: block '" + net.parts[0].block +
                                         "' (part 0, 5 units, width 3) needs more than 75 DP "
                                         "transitions (option max_transitions); a smaller "
                                         "max_part_size splits it, smaller r and s prune its "
                                         "transitions");
  }
}

// Refusals: an accelerator is not a target (SchedulerNotApplicable with the reason); bad option
// values are one line each.
TEST(IosSchedulers, RefusalsAreOneLine) {
  const SchedulerList list = ios_schedulers();
  const Scheduler& ios = *find_scheduler(list, "ios");
  const Graph g = build_zoo_model("squeezenet");
  EXPECT_EQ(ios.cannot_target(load_hardware("atomic_mesh")),
            std::optional<std::string>("targets hardware of kind gpu, not dsa"));
  try {
    run_scheduler(ios, g, load_hardware("stcp920"));
    ADD_FAILURE() << "IOS scheduled a DSA";
  } catch (const SchedulerNotApplicable& e) {
    EXPECT_STREQ(e.what(), "ios: targets hardware of kind gpu, not dsa");
  }
  const HardwareSpec a100 = load_hardware("a100");
  EXPECT_EQ(error_of([&] {
              run_scheduler(ios, g, a100, {{"max_part_size", "65"}});
            }),
            "ios: option 'max_part_size' expects 1..64, got 65");
  EXPECT_EQ(error_of([&] {
              run_scheduler(ios, g, a100, {{"r", "-1"}});
            }),
            "ios: option 'r' expects 0..64 (0: no limit), got -1");
  EXPECT_EQ(error_of([&] {
              run_scheduler(ios, g, a100, {{"partition", "cells"}});
            }),
            "ios: option 'partition' expects auto, blocks or name_prefix, got 'cells'");
  EXPECT_EQ(error_of([&] {
              run_scheduler(*find_scheduler(list, "ios.greedy"), g, a100, {{"max_streams", "0"}});
            }),
            "ios.greedy: option 'max_streams' expects 1..64, got 0");
}

}  // namespace
}  // namespace dgs::ios
