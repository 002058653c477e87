// The Scheduler interface (common/scheduler/scheduler.h) and the registry (compare/): typed
// options, run_scheduler's checks, and the suite's baseline on both kinds of hardware.
#include <gtest/gtest.h>

#include <set>

#include "common/evaluate/evaluate.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware_spec.h"
#include "compare/scheduler_registry.h"
#include "models/zoo.h"
#include "tests/error_of.h"

namespace dgs {
namespace {

const std::vector<SchedulerOption> kOptions = {
    {"rounds", SchedulerOption::Type::Int, "8", "search rounds"},
    {"alpha", SchedulerOption::Type::Double, "0.5", "weight"},
    {"greedy", SchedulerOption::Type::Bool, "false", "greedy search"},
    {"order", SchedulerOption::Type::String, "bfs", "visit order"}};

TEST(SchedulerOptions, DefaultsAndGivenValuesAreTyped) {
  const SchedulerOptionValues v("x", kOptions, {{"rounds", "3"}, {"greedy", "true"}});
  EXPECT_EQ(v.get_int("rounds"), 3);
  EXPECT_DOUBLE_EQ(v.get_double("alpha"), 0.5);
  EXPECT_TRUE(v.get_bool("greedy"));
  EXPECT_EQ(v.get_string("order"), "bfs");
  EXPECT_EQ(v.str(), "alpha=0.5 greedy=true order=bfs rounds=3");
}

TEST(SchedulerOptions, BadValuesAndUnknownNamesAreOneLine) {
  EXPECT_EQ(error_of([] {
              SchedulerOptionValues("ios", kOptions, {{"round", "3"}});
            }),
            "ios: unknown option 'round' (options: rounds, alpha, greedy, order)");
  EXPECT_EQ(error_of([] {
              SchedulerOptionValues("ios", kOptions, {{"rounds", "3x"}});
            }),
            "ios: option 'rounds' expects an int, got '3x'");
  EXPECT_EQ(error_of([] {
              SchedulerOptionValues("ios", kOptions, {{"greedy", "yes"}});
            }),
            "ios: option 'greedy' expects a bool, got 'yes'");
  EXPECT_EQ(error_of([] {
              SchedulerOptionValues("s", {}, {{"a", "1"}});
            }),
            "s: unknown option 'a' (options: none)");
}

TEST(SchedulerRegistry, NamesAreUniqueAndTheBaselineComesFirst) {
  const SchedulerList list = all_schedulers();
  ASSERT_FALSE(list.empty());
  EXPECT_EQ(list.front()->name(), "sequential");
  std::set<std::string> names;
  for (const auto& s : list) {
    EXPECT_TRUE(names.insert(s->name()).second) << s->name();
    EXPECT_FALSE(s->hardware_kinds().empty()) << s->name();
    EXPECT_FALSE(s->description().empty()) << s->name();
  }
  EXPECT_NE(find_scheduler(list, "sequential"), nullptr);
  EXPECT_EQ(find_scheduler(list, "no_such"), nullptr);
}

// A scheduler that writes a plan leaving op 0 out: run_scheduler refuses it in one line.
class DropsAnOp final : public Scheduler {
 public:
  std::string name() const override { return "drops"; }
  std::string paper() const override { return "test"; }
  std::string description() const override { return "leaves op 0 out"; }
  std::vector<std::string> hardware_kinds() const override { return {"gpu"}; }
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues&) const override {
    ScheduleResult r;
    r.plan = sequential_plan(g, hw);
    r.plan.stages.erase(r.plan.stages.begin());
    return r;
  }
};

TEST(RunScheduler, ChecksThePlanAndTheHardwareKind) {
  const Graph g = build_zoo_model("squeezenet");
  const DropsAnOp drops;
  const std::string e = error_of([&] { run_scheduler(drops, g, load_hardware("v100")); });
  EXPECT_EQ(e.rfind("drops: invalid plan: ", 0), 0u) << e;
  try {
    run_scheduler(drops, g, load_hardware("stcp920"));
    FAIL() << "a GPU-only scheduler ran on a DSA";
  } catch (const SchedulerNotApplicable& n) {
    EXPECT_EQ(std::string(n.what()), "drops: targets hardware of kind gpu, not dsa");
  }
  EXPECT_EQ(error_of([&] {
              run_scheduler(drops, g, load_hardware("v100"), {{"x", "1"}});
            }),
            "drops: unknown option 'x' (options: none)");
}

// The baseline on both kinds: a checked plan of one stage per op (GPU) that evaluate() prices,
// and that the CPU reference runs to the unscheduled graph's outputs.
TEST(RunScheduler, SequentialBaselineOnAGpuAndADsa) {
  const Graph g = build_zoo_model("squeezenet");
  const auto seq = make_sequential_scheduler();
  for (const std::string hw_name : {"a100", "stcp920", "atomic_mesh"}) {
    const HardwareSpec hw = load_hardware(hw_name);
    const ScheduleResult r = run_scheduler(*seq, g, hw);
    EXPECT_EQ(r.plan.graph, g.name);
    EXPECT_GE(r.search.seconds, 0.0);
    if (hw.kind == "gpu") {
      EXPECT_EQ(r.plan.stages.size(), g.topo_order().size());
    }
    const EvaluationResult ev = evaluate(g, r.plan, hw, r.evaluation);
    EXPECT_GT(ev.latency_us, 0.0) << hw_name;
    EXPECT_EQ(ev.tasks, r.plan.num_tasks()) << hw_name;
  }
  // The CPU reference runs the plan tile by tile. Since the DSA model's tile search the 224 x 224
  // plan's tiles are smaller and the run took 30 s (12 min under ASan). At 64 x 64 the plan has
  // the same 80 operators in 80 stages and 2496 tasks, every one tiled, as at 128 x 128, in
  // 0.95 million tiles instead of 4.0 million (at 128 x 128 this test took 4.6 min under ASan).
  const Graph small = build_zoo_model("squeezenet", {.image_size = 64});
  const ScheduleResult r = run_scheduler(*seq, small, load_hardware("stcp920"));
  int64_t tiled_tasks = 0;
  for (const Stage& s : r.plan.stages)
    for (const Task& t : s.tasks) tiled_tasks += t.tile.empty() ? 0 : 1;
  const PlanComparison c = compare_plan_with_reference(small, r.plan, 7);
  EXPECT_TRUE(c.passed) << c.str();
  EXPECT_EQ(r.plan.stages.size(), small.topo_order().size());
  EXPECT_EQ(c.stats.tasks, r.plan.num_tasks());
  EXPECT_EQ(tiled_tasks, c.stats.tasks);  // every task runs tile by tile
  EXPECT_GT(c.stats.tiles, 10 * c.stats.tasks);
}

}  // namespace
}  // namespace dgs
