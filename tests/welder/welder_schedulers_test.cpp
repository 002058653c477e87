// Welder's schedulers behind the Scheduler interface (reproductions/welder/schedulers.h): their
// registration, checked plans priced by evaluate() at the latency Welder's own schedule reports,
// the CPU reference on the paper's scheduler's plan, and the one-line refusals.
#include <gtest/gtest.h>

#include <set>

#include "common/evaluate/evaluate.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware_spec.h"
#include "compare/scheduler_registry.h"
#include "models/zoo.h"
#include "reproductions/welder/experiments/experiments.h"
#include "reproductions/welder/schedulers.h"
#include "tests/error_of.h"

namespace dgs::welder {
namespace {

// SqueezeNet at 64x64: every kind of kernel Welder forms on a CNN, in a test that stays fast
// under the sanitizers.
Graph small_squeezenet(DType dtype = DType::F32) {
  ZooOptions zo;
  zo.image_size = 64;
  zo.dtype = dtype;
  return build_zoo_model("squeezenet", zo);
}

const std::vector<std::pair<std::string, Variant>> kVariants = {
    {"welder", Variant::Welder},
    {"welder.base", Variant::Base},
    {"welder.none", Variant::None},
    {"welder.ansor", Variant::AnsorLike}};

TEST(WelderSchedulers, AreRegisteredOncePerPlanVariant) {
  const SchedulerList mine = welder_schedulers();
  ASSERT_EQ(mine.size(), kVariants.size());
  const SchedulerList all = all_schedulers();
  for (size_t i = 0; i < mine.size(); ++i) {
    EXPECT_EQ(mine[i]->name(), kVariants[i].first);
    EXPECT_EQ(scheduler_name(kVariants[i].second), kVariants[i].first);
    EXPECT_EQ(mine[i]->paper(), "welder");
    EXPECT_EQ(mine[i]->hardware_kinds(), std::vector<std::string>{"gpu"});
    EXPECT_NE(find_scheduler(all, mine[i]->name()), nullptr) << mine[i]->name();
    std::set<std::string> options;
    for (const SchedulerOption& o : mine[i]->options()) options.insert(o.name);
    EXPECT_TRUE(options.count("topk") && options.count("max_visits")) << mine[i]->name();
  }
}

// The reproduction's own path: the tile-graph scheduled by schedule_graph on the arch of the
// GPU (as repro_welder's experiments do), its latency the sum of its kernels' profiled latencies.
Schedule own_schedule(const Graph& g, const HardwareSpec& hw, Variant v, bool tc) {
  ScheduleOptions o;
  o.variant = v;
  return schedule_graph(build_tile_graph(g), arch_from_gpu(*hw.gpu, tc), o);
}

// Every scheduler through run_scheduler + evaluate gives a checked plan of one stage per kernel
// whose latency is Welder's own: evaluate() simulates each one-kernel stage (simulate_stage) with
// the kernel Welder profiled, whose closed form (estimate_kernel) is Welder's profile; the two
// agree to rounding (block_simulation.h), and single-kernel stages pay no synchronisation and get
// no L2 residency (it acts within a stream of one stage only).
void expect_same_latency_as_welder(const Graph& g, const HardwareSpec& hw, bool tc) {
  const SchedulerList list = welder_schedulers();
  for (size_t i = 0; i < list.size(); ++i) {
    const Scheduler& s = *list[i];
    const ScheduleResult r = run_scheduler(s, g, hw);
    ASSERT_TRUE(r.evaluation.gpu_fused_kernels) << s.name();
    EXPECT_NE(r.search.note.find("reproductions/welder/cost_model.cpp"), std::string::npos);
    const EvaluationResult ev = evaluate(g, r.plan, hw, r.evaluation);
    const Schedule own = own_schedule(g, hw, kVariants[i].second, tc);
    EXPECT_EQ(r.search.states, own.tiles_visited) << s.name();
    EXPECT_EQ(r.search.candidates, own.candidates_costed) << s.name();
    EXPECT_EQ(ev.kernels, own.metrics.kernels) << s.name();
    EXPECT_EQ(ev.stages, static_cast<int64_t>(r.plan.stages.size())) << s.name();
    double own_us = 0;  // the kernels' profiled latencies in stage order, as evaluate() adds them
    for (const ScheduledGroup& sg : own.groups)
      if (sg.result.launches) own_us += sg.result.best.latency_us;
    EXPECT_DOUBLE_EQ(ev.latency_us, own_us) << s.name() << " on " << hw.name;
    // What repro_welder reports (PlanMetrics::latency_ms, summed in ms).
    EXPECT_NEAR(ev.latency_us, own.metrics.latency_ms * 1000.0, 1e-12 * ev.latency_us)
        << s.name() << " on " << hw.name;
  }
}

TEST(WelderSchedulers, EvaluatePricesThePlansAtWeldersOwnLatency) {
  const Graph g = small_squeezenet();
  expect_same_latency_as_welder(g, load_hardware("a100"), false);
  expect_same_latency_as_welder(g, load_hardware("v100_pcie"), false);
}

// What repro_welder's items report as a latency (evaluated_latency_ms: Welder's plan through
// evaluate()) is Welder's own sum to rounding, for every variant; an architecture without a GPU
// config has nothing to evaluate on.
TEST(WelderSchedulers, ItemsLatencyIsEvaluatesAndWeldersOwnToRounding) {
  const HardwareSpec hw = load_hardware("a100");
  const TileGraph tg = build_tile_graph(small_squeezenet());
  const WelderArch arch = arch_from_gpu(*hw.gpu, false);
  for (const auto& [name, v] : kVariants) {
    ScheduleOptions o;
    o.variant = v;
    const Schedule s = schedule_graph(tg, arch, o);
    const double ms = evaluated_latency_ms(tg, s, arch);
    EXPECT_NEAR(ms, s.metrics.latency_ms, 1e-12 * ms) << name;
  }
  const Schedule s = schedule_graph(tg, arch, ScheduleOptions{});
  EXPECT_NE(error_of([&] {
              evaluated_latency_ms(tg, s, v100_arch());
            }).find("has no GPU config to evaluate plans on"),
            std::string::npos);
}

TEST(WelderSchedulers, Fp16GraphsUseTensorCoresUnlessTurnedOff) {
  const Graph g = small_squeezenet(DType::F16);
  const HardwareSpec hw = load_hardware("a100");
  expect_same_latency_as_welder(g, hw, true);
  const auto welder = std::move(welder_schedulers().front());
  const ScheduleResult on = run_scheduler(*welder, g, hw);
  const ScheduleResult off = run_scheduler(*welder, g, hw, {{"tensor_cores", "false"}});
  EXPECT_NE(on.search.note.find("FP16 tensor cores"), std::string::npos);
  EXPECT_EQ(off.search.note.find("FP16 tensor cores"), std::string::npos);
  const double off_us = evaluate(g, off.plan, hw, off.evaluation).latency_us;
  EXPECT_NEAR(off_us, own_schedule(g, hw, Variant::Welder, false).metrics.latency_ms * 1000.0,
              1e-12 * off_us);
  EXPECT_LT(evaluate(g, on.plan, hw, on.evaluation).latency_us, off_us);
}

// The paper's scheduler's plan (fused tasks run tile by tile at Welder's tiles) computes what the
// unscheduled graph computes.
TEST(WelderSchedulers, WelderPlanMatchesTheCpuReference) {
  ZooOptions zo;
  zo.image_size = 32;
  const Graph g = build_zoo_model("squeezenet", zo);
  const auto welder = std::move(welder_schedulers().front());
  const ScheduleResult r = run_scheduler(*welder, g, load_hardware("a100"));
  size_t fused = 0;
  for (const Stage& st : r.plan.stages) fused += st.tasks.at(0).ops.size() > 1;
  EXPECT_GE(fused, 4u);
  const PlanComparison c = compare_plan_with_reference(g, r.plan, 7, kNetworkTolerance);
  EXPECT_TRUE(c.passed) << c.str();
}

TEST(WelderSchedulers, RefusalsAreOneLine) {
  const Graph g = small_squeezenet();
  const SchedulerList list = welder_schedulers();
  const Scheduler& welder = *list.front();
  try {
    run_scheduler(welder, g, load_hardware("stcp920"));
    FAIL() << "Welder ran on a DSA";
  } catch (const SchedulerNotApplicable& e) {
    EXPECT_EQ(std::string(e.what()), "welder: targets hardware of kind gpu, not dsa");
  }
  const HardwareSpec a100 = load_hardware("a100");
  EXPECT_EQ(error_of([&] {
              run_scheduler(welder, g, a100, {{"connect_cost", "bytes"}});
            }),
            "welder: option 'connect_cost' expects latency or transactions, got 'bytes'");
  EXPECT_EQ(error_of([&] {
              run_scheduler(welder, g, a100, {{"topk", "0"}});
            }),
            "welder: option 'topk' expects 1..1000000, got 0");
  EXPECT_EQ(error_of([&] {
              run_scheduler(*list.back(), g, a100, {{"connect_cost", "latency"}});
            }),
            "welder.ansor: unknown option 'connect_cost' (options: topk, max_visits, "
            "tensor_cores)");
  // The fused kernels are Welder's: a fused task that is not one of its plan's is refused.
  const ScheduleResult r = run_scheduler(welder, g, a100);
  size_t i = 0;
  while (i + 1 < r.plan.stages.size() && r.plan.stages[i].tasks.at(0).ops.size() == 1) ++i;
  Task task = r.plan.stages.at(i).tasks.at(0);
  ASSERT_GT(task.ops.size(), 1u);
  const std::string first_op = g.op(task.ops[0]).name;
  task.ops.pop_back();
  const std::string e = error_of([&] { r.evaluation.gpu_fused_kernels(g, task, *a100.gpu); });
  EXPECT_EQ(e, "welder: the fused task of op '" + first_op +
                   "' is not a task of Welder's plan (its kernels come from Welder's schedule)");
}

}  // namespace
}  // namespace dgs::welder
