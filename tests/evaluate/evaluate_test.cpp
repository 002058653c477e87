// Tests of the evaluation dispatched on the hardware's kind (common/evaluate): the GPU kind gives
// the GPU model's numbers in the shared result type; a kind without a model is one line.
#include "common/evaluate/evaluate.h"

#include <gtest/gtest.h>

#include "tests/error_of.h"

#include <functional>

#include "common/evaluate/gpu_evaluation.h"
#include "common/evaluate/plan_target.h"
#include "common/util/error.h"
#include "models/zoo.h"

namespace dgs {
namespace {

Task task(TaskKind kind, std::vector<int> ops) {
  Task t;
  t.kind = kind;
  t.ops = std::move(ops);
  return t;
}

Plan sequential(const Graph& g) {
  Plan p;
  p.scheduler = "Sequential";
  p.graph = g.name;
  for (int op : g.topo_order()) p.stages.push_back(Stage{{task(TaskKind::Sequential, {op})}});
  return p;
}

// The Fig. 1.2 block of the zoo: convs a and d concurrently, then b and c, then the concat.
Plan concurrent(const Graph& g) {
  auto op = [&](const char* name) { return g.find_op(name); };
  Plan p;
  p.scheduler = "concurrent";
  p.graph = g.name;
  p.stages.push_back(Stage{{task(TaskKind::Sequential, {op("block.a.conv"), op("block.a.relu")}),
                            task(TaskKind::Sequential, {op("block.d.conv"), op("block.d.relu")})}});
  p.stages.push_back(Stage{{task(TaskKind::Sequential, {op("block.b.conv"), op("block.b.relu")}),
                            task(TaskKind::Sequential, {op("block.c.conv"), op("block.c.relu")})}});
  p.stages.push_back(Stage{{task(TaskKind::Sequential, {op("block.concat.concat")})}});
  return p;
}

void expect_result_equals_plan_evaluation(const EvaluationResult& r, const PlanEvaluation& e,
                                          const Plan& p) {
  EXPECT_EQ(r.hardware_kind, "gpu");
  EXPECT_EQ(r.hardware_name, "V100");
  EXPECT_EQ(r.evaluator, "GPU model");
  EXPECT_EQ(r.latency_us, e.latency_us);
  EXPECT_EQ(r.flops, e.flops);
  EXPECT_EQ(r.kernels, e.kernels);
  EXPECT_EQ(r.stages, static_cast<int64_t>(p.stages.size()));
  EXPECT_EQ(r.tasks, p.num_tasks());
  ASSERT_EQ(r.bytes_by_level.size(), 2u);  // the levels the GPU model counts, innermost first
  EXPECT_EQ(r.bytes_by_level[0].name, "l2");
  EXPECT_EQ(r.bytes_by_level[1].name, "dram");
  EXPECT_EQ(value_of(r.bytes_by_level, "l2"), e.l2_bytes);
  EXPECT_EQ(value_of(r.bytes_by_level, "dram"), e.dram_bytes);
  EXPECT_EQ(value_of(r.busy_us_by_unit, "sm"), e.sm_busy_us);
  EXPECT_EQ(value_of(r.busy_us_by_unit, "stream"), e.stream_busy_us);
  EXPECT_TRUE(r.energy_pj_by_component.empty());  // the GPU model has no energy
  EXPECT_EQ(value_of(r.details, "sync_us"), e.sync_us);
  EXPECT_EQ(value_of(r.details, "avg_active_warps_per_sm"), e.avg_active_warps_per_sm);
}

TEST(Evaluate, AGpuConfigGivesTheGpuModelsNumbers) {
  const Graph g = build_zoo_model("ios_fig1_2");
  const HardwareSpec hw = load_hardware("v100");
  for (const Plan& p : {sequential(g), concurrent(g)}) {
    p.check(g);
    const EvaluationResult r = evaluate(g, p, hw);
    const PlanEvaluation e = evaluate_plan(g, p, *hw.gpu);
    expect_result_equals_plan_evaluation(r, e, p);
    EXPECT_GT(r.latency_us, 0);
    // SMs are busy at most all of them all the time; the plan's streams at most their number
    // times the latency.
    EXPECT_GT(e.sm_busy_us, 0);
    EXPECT_LE(e.sm_busy_us, hw.gpu->sm_count * e.latency_us);
    EXPECT_LE(e.stream_busy_us, 2 * (e.latency_us - e.sync_us) * (1 + 1e-12));
  }
  // One stream per stage: the stream is busy until its stage's last kernel ends.
  const PlanEvaluation seq = evaluate_plan(g, sequential(g), *hw.gpu);
  EXPECT_DOUBLE_EQ(seq.stream_busy_us, seq.latency_us);
}

TEST(Evaluate, OptionsReachTheGpuModel) {
  const Graph g = build_zoo_model("ios_fig1_2");
  const HardwareSpec hw = load_hardware("v100");
  Plan p = concurrent(g);
  for (Stage& s : p.stages)
    for (Task& t : s.tasks) t.kind = TaskKind::Fused;
  EXPECT_NE(error_of([&] { evaluate(g, p, hw); }).find("no fused-kernel function"),
            std::string::npos);
  int calls = 0;
  EvaluationOptions options;
  options.gpu_fused_kernels = [&](const Graph& graph, const Task& t, const GpuSpec& spec) {
    ++calls;
    return kernels_for_op(graph, t.ops[0], spec);
  };
  const EvaluationResult r = evaluate(g, p, hw, options);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(r.kernels, 5);
  const PlanEvaluation e = evaluate_plan(g, p, *hw.gpu, options.gpu_fused_kernels);
  expect_result_equals_plan_evaluation(r, e, p);
  EXPECT_EQ(gpu_evaluation_result(e, p, *hw.gpu).latency_us, r.latency_us);
}

TEST(Evaluate, AKindWithoutAModelIsOneLine) {
  EXPECT_TRUE(has_evaluator("gpu"));
  EXPECT_TRUE(has_evaluator("dsa"));
  EXPECT_FALSE(has_evaluator("tpu"));
  EXPECT_EQ(evaluated_hardware_kinds(), (std::vector<std::string>{"gpu", "dsa"}));
  const Graph g = build_zoo_model("ios_fig1_2");
  HardwareSpec dsa;
  dsa.kind = "tpu";
  dsa.name = "mesh";
  dsa.file = "hw_configs/mesh.json";
  dsa.memory_levels = {"sram", "hbm"};
  dsa.units = {{"engine", 64}};
  const std::string expected =
      "hw_configs/mesh.json: no model evaluates hardware of kind 'tpu' yet (kinds with a model: "
      "gpu, dsa)";
  EXPECT_EQ(error_of([&] { evaluate(g, sequential(g), dsa); }), expected);
  EXPECT_EQ(error_of([&] { require_evaluator(dsa); }), expected);
  EXPECT_EQ(error_of([&] { require_evaluator(load_hardware("a100")); }), "<no error>");
  // A "gpu" description without its GpuSpec cannot be evaluated.
  HardwareSpec empty_gpu = dsa;
  empty_gpu.kind = "gpu";
  EXPECT_EQ(error_of([&] { evaluate(g, sequential(g), empty_gpu); }),
            "hw_configs/mesh.json: hardware of kind 'gpu' carries no GPU description");
}

// The plan is checked against the machine it is evaluated on: a memory level or unit the GPU
// does not have is refused in one line, and the GPU model refuses tasks that compute a region.
TEST(Evaluate, PlansAreCheckedAgainstTheHardware) {
  const HardwareSpec hw = load_hardware("v100");
  const PlanTarget t = plan_target(hw);
  EXPECT_EQ(t.memory_levels,
            (std::vector<std::string>{"register", "shared", "l2", "dram", "host"}));
  EXPECT_EQ(t.unit_extents.at(UnitKind::SmSet), std::vector<int>{80});
  EXPECT_EQ(t.unit_extents.count(UnitKind::Core), 0u);
  const Graph g = build_zoo_model("ios_fig1_2");
  Plan lb = sequential(g);
  lb.stages[0].tasks[0].scope[g.op(lb.stages[0].tasks[0].ops[0]).outputs[0]] = "lb";
  EXPECT_NE(error_of([&] { evaluate(g, lb, hw); }).find("memory level 'lb' does not exist on V100"),
            std::string::npos);
  Plan core = sequential(g);
  core.stages[0].tasks[0].placement.unit = UnitKind::Core;
  core.stages[0].tasks[0].placement.index = {0, 0};
  EXPECT_NE(error_of([&] { evaluate(g, core, hw); }).find("V100 has no unit of kind 'core'"),
            std::string::npos);
  Plan region = sequential(g);
  Task& first = region.stages[0].tasks[0];
  const int out = g.op(first.ops[0]).outputs[0];
  const Shape& s = g.tensor(out).shape;
  Task second = first;
  first.regions[out] = {{0, s[0]}, {0, s[1] / 2}, {0, s[2]}, {0, s[3]}};
  second.regions[out] = {{0, s[0]}, {s[1] / 2, s[1]}, {0, s[2]}, {0, s[3]}};
  region.stages[0].tasks.push_back(second);
  EXPECT_NE(
      error_of([&] { evaluate(g, region, hw); }).find("the GPU model prices whole operators only"),
      std::string::npos);
}

// The plan's execution options select the kernel rules: folded activations launch no kernel.
TEST(Evaluate, ThePlansExecutionOptionsSelectTheKernelRules) {
  const HardwareSpec hw = load_hardware("v100");
  const Graph g = build_zoo_model("ios_fig1_2");
  Plan p = sequential(g);
  const EvaluationResult plain = evaluate(g, p, hw);
  p.options.fold_activation = true;
  const EvaluationResult folded = evaluate(g, p, hw);
  EXPECT_EQ(plain.kernels - folded.kernels, 4);  // the four Relus after the four convolutions
  EXPECT_LT(folded.latency_us, plain.latency_us);
}

}  // namespace
}  // namespace dgs
