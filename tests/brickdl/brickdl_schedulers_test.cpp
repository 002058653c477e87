// BrickDL's schedulers (reproductions/brickdl/schedulers.h) on the one road: run_scheduler checks
// their plans, evaluate() prices them with BrickDL's own fused-kernel model, and the latency is
// Fig. 7's own pricing (price_network) of the same schedule.
#include <gtest/gtest.h>

#include <cmath>

#include "common/evaluate/evaluate.h"
#include "common/exec/plan_exec.h"
#include "common/hw/hardware_spec.h"
#include "compare/scheduler_registry.h"
#include "models/zoo.h"
#include "reproductions/brickdl/brick_plan.h"
#include "reproductions/brickdl/network_model.h"
#include "reproductions/brickdl/schedulers.h"
#include "tests/error_of.h"

namespace dgs::brickdl {
namespace {

const Scheduler& scheduler(const SchedulerList& list, const std::string& name) {
  const Scheduler* s = find_scheduler(list, name);
  if (!s) throw Error("no scheduler " + name);
  return *s;
}

int memoized_parts(const NetworkSchedule& s) {
  int n = 0;
  for (const NetworkPart& p : s.parts)
    n += p.subgraph.merged && p.variant == MergeVariant::Memoized;
  return n;
}

TEST(BrickdlSchedulers, RegisteredOnceEachForGpus) {
  const SchedulerList all = all_schedulers();
  for (const std::string name : {"brickdl", "brickdl.cudnn"}) {
    const Scheduler& s = scheduler(all, name);
    EXPECT_EQ(s.paper(), "brickdl");
    EXPECT_EQ(s.hardware_kinds(), std::vector<std::string>{"gpu"});
  }
  EXPECT_EQ(brickdl_schedulers().size(), 2u);
}

// The paper's scheduler: the plan evaluate() prices is the schedule Fig. 7 prices, and the two
// latencies agree but for the launch of the stand-in kernel of each memoized subgraph's atomics
// (the GPU model has no serialised-atomics mechanism; brick_plan.h). Padded bricks have none.
// Not bit-equal: the same terms summed in another order (per stage vs per kind, the atomics'
// two counts at once), a few ULPs.
TEST(BrickdlSchedulers, EvaluateEqualsFig7PricingOfTheSameSchedule) {
  const Graph g = build_zoo_model("squeezenet");
  const HardwareSpec hw = load_hardware("a100");
  const SchedulerList list = brickdl_schedulers();
  for (const std::string variant : {"auto", "padded", "memoized"}) {
    const ScheduleResult r =
        run_scheduler(scheduler(list, "brickdl"), g, hw, {{"variant", variant}});
    const EvaluationResult e = evaluate(g, r.plan, hw, r.evaluation);
    const NetworkSchedule s = schedule_network(
        g, *hw.gpu,
        variant == "auto"
            ? std::nullopt
            : std::optional(variant == "padded" ? MergeVariant::Padded : MergeVariant::Memoized));
    ASSERT_GT(s.converted.size(), 0u);
    const double fig7 = price_network(g, s, *hw.gpu).brickdl.total_us;
    const double launches = memoized_parts(s) * hw.gpu->kernel_launch_us;
    EXPECT_NEAR(e.latency_us, fig7 + launches, 1e-9 * fig7) << variant;
    EXPECT_EQ(launches == 0.0, variant == "padded") << variant;
    EXPECT_NE(r.search.note.find("BrickDL's own analytic model"), std::string::npos);
  }
}

// The baseline: a cuDNN call per brick unit, priced exactly as Fig. 7's cuDNN row (bit-equal:
// one kernel per stage, simulated alone = estimate_kernel, summed in the same order); fewer kernels
// than the suite's `sequential`, which launches the element-wise ops on their own.
TEST(BrickdlSchedulers, CudnnBaselineEqualsFig7CudnnRow) {
  const HardwareSpec hw = load_hardware("a100");
  const SchedulerList list = brickdl_schedulers();
  for (const std::string model : {"squeezenet", "test_residual_block"}) {
    const Graph g = build_zoo_model(model);
    const ScheduleResult r = run_scheduler(scheduler(list, "brickdl.cudnn"), g, hw);
    const EvaluationResult e = evaluate(g, r.plan, hw, r.evaluation);
    const double fig7 = price_cudnn(g, g.topo_order(), *hw.gpu).total_us;
    EXPECT_DOUBLE_EQ(e.latency_us, fig7) << model;  // the same kernels, each alone on the GPU
    const auto seq = make_sequential_scheduler();
    const ScheduleResult q = run_scheduler(*seq, g, hw);
    EXPECT_LT(e.kernels, evaluate(g, q.plan, hw, q.evaluation).kernels) << model;
  }
}

// Both plans compute the graph: run_plan (bricks tile by tile, cuDNN units whole) equals the
// reference executor on random inputs.
TEST(BrickdlSchedulers, PlansRunToTheReference) {
  const Graph g = build_zoo_model("test_diamond");
  const HardwareSpec hw = load_hardware("a100");
  const SchedulerList list = brickdl_schedulers();
  for (const std::string name : {"brickdl", "brickdl.cudnn"}) {
    const ScheduleResult r = run_scheduler(scheduler(list, name), g, hw);
    const PlanComparison c = compare_plan_with_reference(g, r.plan, 7);
    EXPECT_TRUE(c.passed) << name << ": " << c.str();
    int fused = 0;  // brickdl: the bricks; brickdl.cudnn: conv3 + add + relu as one cuDNN call
    for (const Stage& st : r.plan.stages)
      for (const Task& t : st.tasks) fused += t.kind == TaskKind::Fused;
    EXPECT_GT(fused, 0) << name;
  }
  const NetworkSchedule s = schedule_network(g, *hw.gpu);
  EXPECT_GT(s.parts.size(), 0u);
  bool merged = false;
  for (const NetworkPart& p : s.parts) merged = merged || p.subgraph.merged;
  EXPECT_TRUE(merged) << "the diamond should have a merged subgraph";
}

TEST(BrickdlSchedulers, RefusalsAreOneLine) {
  const SchedulerList list = brickdl_schedulers();
  const Scheduler& b = scheduler(list, "brickdl");
  const Graph bert = build_zoo_model("bert_base", {.seq_len = 8});
  try {
    run_scheduler(b, bert, load_hardware("a100"));
    FAIL() << "brickdl scheduled a graph without convolutions";
  } catch (const SchedulerNotApplicable& n) {
    EXPECT_EQ(std::string(n.what()).rfind("brickdl: bert_base has no convolution or pooling", 0),
              0u)
        << n.what();
  }
  // brickdl.cudnn runs it (cuBLAS GEMMs with their bias/GELU/residual epilogues).
  const ScheduleResult r =
      run_scheduler(scheduler(list, "brickdl.cudnn"), bert, load_hardware("a100"));
  EXPECT_GT(evaluate(bert, r.plan, load_hardware("a100"), r.evaluation).latency_us, 0.0);

  const Graph g = build_zoo_model("test_diamond");
  try {
    run_scheduler(b, g, load_hardware("stcp920"));
    FAIL() << "brickdl ran on a DSA";
  } catch (const SchedulerNotApplicable& n) {
    EXPECT_EQ(std::string(n.what()), "brickdl: targets hardware of kind gpu, not dsa");
  }
  EXPECT_EQ(error_of([&] {
              run_scheduler(b, g, load_hardware("a100"), {{"variant", "tiled"}});
            }),
            "brickdl: option 'variant' expects auto, padded or memoized, got 'tiled'");
}

// BrickDL's fused-kernel model refuses a fused task it did not write, naming it.
TEST(BrickdlSchedulers, FusedKernelModelNamesATaskItCannotPrice) {
  const Graph g = build_zoo_model("test_diamond");
  const HardwareSpec hw = load_hardware("a100");
  Plan p;
  Task t;
  t.kind = TaskKind::Fused;
  t.ops = g.topo_order();  // several units, untiled
  p.stages.push_back({.tasks = {t}});
  EXPECT_EQ(error_of([&] { evaluate(g, p, hw, {.gpu_fused_kernels = brickdl_fused_kernels()}); }),
            "brickdl fused kernels: the untiled fused task of op '" + g.op(t.ops[0]).name +
                "' is not one brick unit (an op with the element-wise ops of its epilogue)");
}

}  // namespace
}  // namespace dgs::brickdl
