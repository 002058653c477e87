// The stage executor on a GPU against the CPU reference executor, on random inputs: an
// Inception-like block under a sequential plan, an IOS plan with a merged stage (1x1 and 3x3
// convolutions sharing an input, kernels zero-padded) and concurrent stages, and a graph with
// every other operator the executor runs. The graphs and their CPU references are built first
// (so the fixtures are exercised everywhere); the GPU part skips without a GPU.
#include "common/cuda/stage_executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/cuda/kernel_testbed.h"
#include "common/exec/executor.h"
#include "tests/cuda/gpu_test_util.h"

namespace dgs {
namespace {

using testing::add;
using testing::conv;

constexpr uint64_t kSeed = 7;
// Short timing protocol: the tests check what is measured, not how fast.
const gpu::TimingProtocol kQuickTiming{1, 2, 3};

// The executor's options of these tests: the suite's seed and the short timing protocol.
gpu::StageExecutorOptions quick_options() {
  gpu::StageExecutorOptions o;
  o.seed = kSeed;
  o.timing = kQuickTiming;
  return o;
}

// x -> {1x1} | {1x1 -> 3x3} | {3x3} | {maxpool 3x3 -> 1x1}, each conv followed by a Relu, concat.
Graph inception_block() {
  Graph g;
  g.name = "inception_like";
  const int x = g.add_input("x", {1, 16, 17, 17});
  const int b1 = add(g, OpKind::Relu, "b1_relu", {conv(g, "b1_conv", x, 8, 1, 0)});
  const int b2a = add(g, OpKind::Relu, "b2a_relu", {conv(g, "b2a_conv", x, 6, 1, 0)});
  const int b2 = add(g, OpKind::Relu, "b2_relu", {conv(g, "b2_conv", b2a, 8, 3, 1)});
  const int b3 = add(g, OpKind::Relu, "b3_relu", {conv(g, "b3_conv", x, 8, 3, 1)});
  const int p = add(g, OpKind::MaxPool, "b4_pool", {x},
                    Attributes({{"kernel_shape", std::vector<int64_t>{3, 3}},
                                {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                {"strides", std::vector<int64_t>{1, 1}}}));
  const int b4 = add(g, OpKind::Relu, "b4_relu", {conv(g, "b4_conv", p, 8, 1, 0)});
  g.mark_output(
      add(g, OpKind::Concat, "concat", {b1, b2, b3, b4}, Attributes({{"axis", int64_t{1}}})));
  return g;
}

Task task(const Graph& g, TaskKind kind, const std::vector<std::string>& ops) {
  Task t;
  t.kind = kind;
  for (const std::string& n : ops) {
    const int o = g.find_op(n);
    EXPECT_GE(o, 0) << n;
    t.ops.push_back(o);
  }
  return t;
}

Plan sequential_plan(const Graph& g) {
  Plan p;
  p.scheduler = "Sequential";
  p.graph = g.name;
  for (int o : g.topo_order()) {
    Task t;
    t.ops = {o};
    p.stages.push_back(Stage{{t}});
  }
  return p;
}

// IOS-style: a merged stage (with ReLUs fused into the merged conv) beside a concurrent group.
Plan ios_plan(const Graph& g) {
  Plan p;
  p.scheduler = "IOS-Both";
  p.graph = g.name;
  p.stages.push_back(
      Stage{{task(g, TaskKind::Merged,
                  {"b1_conv", "b2a_conv", "b3_conv", "b1_relu", "b2a_relu", "b3_relu"}),
             task(g, TaskKind::Sequential, {"b4_pool", "b4_conv", "b4_relu"})}});
  p.stages.push_back(Stage{{task(g, TaskKind::Sequential, {"b2_conv", "b2_relu"})}});
  p.stages.push_back(Stage{{task(g, TaskKind::Sequential, {"concat"})}});
  return p;
}

// A merged stage without the ReLUs (the output is split into the convs' own tensors), then a
// four-stream stage.
Plan merge_then_wide_plan(const Graph& g) {
  Plan p;
  p.scheduler = "merge-then-wide";
  p.graph = g.name;
  p.stages.push_back(Stage{{task(g, TaskKind::Merged, {"b1_conv", "b2a_conv", "b3_conv"})}});
  p.stages.push_back(Stage{{task(g, TaskKind::Sequential, {"b1_relu"}),
                            task(g, TaskKind::Sequential, {"b2a_relu", "b2_conv", "b2_relu"}),
                            task(g, TaskKind::Sequential, {"b3_relu"}),
                            task(g, TaskKind::Sequential, {"b4_pool", "b4_conv", "b4_relu"})}});
  p.stages.push_back(Stage{{task(g, TaskKind::Sequential, {"concat"})}});
  return p;
}

void expect_outputs_match(gpu::StageExecutor& ex, const Graph& g, const TensorValues& ref,
                          const std::string& what) {
  for (const auto& [t, got] : ex.outputs()) {
    const Comparison c = compare_tensors(got, ref.at(t), gpu::kGpuTolerance);
    EXPECT_TRUE(c.passed) << what << ": output '" << g.tensor(t).name << "': " << c.str();
  }
}

TEST(StageExecutor, PlansOfAnInceptionBlockMatchTheCpuReference) {
  const Graph g = inception_block();
  const TensorValues ref = run_graph(g, {}, kSeed);
  const Plan seq = sequential_plan(g), ios = ios_plan(g), wide = merge_then_wide_plan(g);
  seq.check(g);
  ios.check(g);
  wide.check(g);
  DGS_REQUIRE_GPU();
  gpu::StageExecutor ex(g, quick_options());
  for (const Plan* p : {&seq, &ios, &wide}) {
    ex.poison_activations();  // a result left by the previous plan cannot pass
    ex.run(*p);
    expect_outputs_match(ex, g, ref, p->scheduler);
  }
}

TEST(StageExecutor, MeasuresEveryStageAndMergingLaunchesFewerKernels) {
  const Graph g = inception_block();
  DGS_REQUIRE_GPU();
  gpu::StageExecutor ex(g, quick_options());
  const Plan seq = sequential_plan(g), ios = ios_plan(g);
  const gpu::PlanLatency ls = ex.measure(seq);
  const gpu::PlanLatency li = ex.measure(ios);
  ASSERT_EQ(ls.stage_ms.size(), seq.stages.size());
  ASSERT_EQ(li.stage_ms.size(), ios.stages.size());
  for (double ms : li.stage_ms) EXPECT_GT(ms, 0.0);
  EXPECT_GT(li.network_ms, 0.0);
  EXPECT_EQ(li.network.samples_ms.size(), static_cast<size_t>(kQuickTiming.repeats));
  // Sequential: 5 x (conv + bias add) + 5 ReLUs + pool + 4 concat copies = 20 calls. IOS plan:
  // merged conv with fused bias+ReLU + 3 split copies + pool + 2 fused conv+bias+ReLU + 4 concat
  // copies = 11 (up to 17 where cuDNN refuses the fused call for the algorithm it found).
  EXPECT_EQ(ls.kernel_calls, 20);
  EXPECT_LT(li.kernel_calls, ls.kernel_calls);
}

// conv_algorithm's `fused` says whether the fused Conv+bias+ReLU call ran, not whether cuDNN
// would accept it: under the sequential plan every ReLU is its own task, so no convolution ran
// fused (gpu_validate's rows name the call from it; on the H200 run of 2026-11-29 every row said
// "fused", ReLU-free convolutions included, because it reported the acceptance).
TEST(StageExecutor, ConvolutionsWhoseReluRunsApartAreNotReportedFused) {
  const Graph g = inception_block();
  DGS_REQUIRE_GPU();
  gpu::StageExecutor ex(g, quick_options());
  ex.run(sequential_plan(g));
  int convs = 0;
  for (int op = 0; op < g.num_ops(); ++op) {
    if (g.op(op).kind != OpKind::Conv) continue;
    bool fused = true;
    EXPECT_GE(ex.conv_algorithm(op, &fused), 0) << g.op(op).name;
    EXPECT_FALSE(fused) << g.op(op).name;
    ++convs;
  }
  EXPECT_EQ(convs, 5);
}

TEST(StageExecutor, MeasuredStageCostMeasuresEachDistinctStageOnce) {
  const Graph g = inception_block();
  DGS_REQUIRE_GPU();
  gpu::StageExecutorOptions o;
  o.timing = kQuickTiming;
  gpu::MeasuredStageCost cost(g, o);
  using S = gpu::MeasuredStageCost::Strategy;
  const int c1 = g.find_op("b1_conv"), r1 = g.find_op("b1_relu"), c3 = g.find_op("b3_conv"),
            r3 = g.find_op("b3_relu"), pool = g.find_op("b4_pool");
  const double concurrent = cost.stage_latency_ms({{c1, r1}, {pool}}, S::Concurrent);
  const double merged = cost.stage_latency_ms({{c1, r1}, {c3, r3}}, S::Merge);
  EXPECT_GT(concurrent, 0.0);
  EXPECT_GT(merged, 0.0);
  EXPECT_EQ(cost.measurements(), 2);
  EXPECT_EQ(cost.stage_latency_ms({{c1, r1}, {pool}}, S::Concurrent), concurrent);  // cached
  EXPECT_EQ(cost.measurements(), 2);
}

TEST(StageExecutor, RefusesAMergeOfConvolutionsWithDifferentInputs) {
  const Graph g = inception_block();
  DGS_REQUIRE_GPU();
  gpu::StageExecutor ex(g);
  Plan p = sequential_plan(g);
  // Replace the stages of b1_conv and b2_conv by one merged task: different inputs.
  Plan bad;
  bad.graph = g.name;
  bad.stages.push_back(Stage{{task(g, TaskKind::Sequential, {"b2a_conv", "b2a_relu"})}});
  bad.stages.push_back(Stage{{task(g, TaskKind::Merged, {"b1_conv", "b2_conv"})}});
  for (const Stage& s : p.stages) {
    const std::string n = g.op(s.tasks[0].ops[0]).name;
    if (n != "b2a_conv" && n != "b2a_relu" && n != "b1_conv" && n != "b2_conv") {
      bad.stages.push_back(s);
    }
  }
  try {
    ex.run(bad);
    FAIL() << "a merge of convolutions with different inputs ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("share their input"), std::string::npos) << e.what();
  }
}

// Every other operator kind the executor implements, in one graph, run sequentially.
struct OpsGraph {
  Graph g;
  int var = -1;  // the batch-norm variance (must be positive)
};

OpsGraph ops_graph() {
  OpsGraph r;
  Graph& g = r.g;
  g.name = "ops";
  const int x = g.add_input("x", {2, 8, 10, 10});
  const int c1 = conv(g, "grouped_conv", x, 8, 3, 1, 1, true, 4);
  r.var = g.add_weight("bn.var", {8});
  const int bn = add(g, OpKind::BatchNormalization, "bn",
                     {c1, g.add_weight("bn.scale", {8}), g.add_weight("bn.b", {8}),
                      g.add_weight("bn.mean", {8}), r.var});
  const int sg = add(g, OpKind::Sigmoid, "sigmoid", {bn});
  // SAME_UPPER with stride 2 on 10: total padding 1, all at the end (asymmetric: pre-padded).
  const int c2 = add(g, OpKind::Conv, "same_conv", {sg, g.add_weight("same_conv.w", {12, 8, 3, 3})},
                     Attributes({{"auto_pad", std::string("SAME_UPPER")},
                                 {"strides", std::vector<int64_t>{2, 2}}}));
  // Ceil mode: 3 outputs where cuDNN's floor gives 2 (the suite's pooling kernel).
  const int ap = add(g, OpKind::AveragePool, "ceil_pool", {c2},
                     Attributes({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                 {"strides", std::vector<int64_t>{2, 2}},
                                 {"ceil_mode", int64_t{1}}}));
  const int a = add(g, OpKind::Add, "add_bcast", {ap, g.add_weight("chan_bias", {12, 1, 1})});
  const int lr = add(g, OpKind::LeakyRelu, "leaky", {a}, Attributes({{"alpha", 0.1}}));
  const int sl = add(g, OpKind::Slice, "slice",
                     {lr, g.add_constant_ints("sl.starts", {1}),
                      g.add_constant_ints("sl.ends", {3}), g.add_constant_ints("sl.axes", {3})});
  const int tr = add(g, OpKind::Transpose, "transpose", {sl},
                     Attributes({{"perm", std::vector<int64_t>{0, 2, 3, 1}}}));
  const int pd =
      add(g, OpKind::Pad, "pad", {tr, g.add_constant_ints("pad.pads", {0, 0, 0, 1, 0, 0, 0, 2})});
  const int fl = add(g, OpKind::Flatten, "flatten", {pd}, Attributes({{"axis", int64_t{1}}}));
  const int64_t feat = g.tensor(fl).shape[1];
  const int gm = add(g, OpKind::Gemm, "gemm",
                     {fl, g.add_weight("gemm.w", {10, feat}), g.add_weight("gemm.b", {10})},
                     Attributes({{"transB", int64_t{1}}}));
  g.mark_output(add(g, OpKind::Softmax, "softmax", {gm}, Attributes({{"axis", int64_t{1}}})));
  // Second branch: global pool, reshape, batched MatMul, Clip, Split, Mul, Max.
  const int gap = add(g, OpKind::GlobalAveragePool, "gap", {c2});
  const int rs =
      add(g, OpKind::Reshape, "reshape", {gap, g.add_constant_ints("rs.shape", {2, 3, 4})});
  const int mm = add(g, OpKind::MatMul, "matmul", {rs, g.add_weight("mm.w", {2, 4, 5})});
  const int cl = add(g, OpKind::Clip, "clip",
                     {mm, g.add_constant_floats("clip.min", {}, {-0.5f}),
                      g.add_constant_floats("clip.max", {}, {0.5f})});
  const int sp = g.add_op(OpKind::Split, "split", {cl, g.add_constant_ints("split.sizes", {2, 3})},
                          Attributes({{"axis", int64_t{2}}}), 2);
  const int s0 = g.op(sp).outputs[0], s1 = g.op(sp).outputs[1];
  g.mark_output(add(g, OpKind::Mul, "mul", {s0, s0}));
  g.mark_output(add(g, OpKind::Max, "max", {s1, g.add_weight("max.w", {1, 3})}));
  return r;
}

// max_streams bounds the widest stage: the four-task stage of merge_then_wide_plan is refused
// with three contexts, in one line naming the limit, and runs with four.
TEST(StageExecutor, AStageWiderThanMaxStreamsIsRefused) {
  const Graph g = inception_block();
  const Plan wide = merge_then_wide_plan(g);
  wide.check(g);
  DGS_REQUIRE_GPU();
  gpu::StageExecutorOptions o;
  o.seed = kSeed;
  o.max_streams = 3;
  gpu::StageExecutor narrow(g, o);
  try {
    narrow.run(wide);
    FAIL() << "a four-task stage ran on three streams";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("max_streams 3"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  o.max_streams = 4;
  gpu::StageExecutor enough(g, o);
  enough.run(wide);
  expect_outputs_match(enough, g, run_graph(g, {}, kSeed), "four streams");
}

TEST(StageExecutor, EveryOperatorKindMatchesTheCpuReference) {
  const OpsGraph og = ops_graph();
  const Graph& g = og.g;
  TensorData var = random_tensor({8}, DType::F32, 99);
  for (float& v : var.f) v = std::fabs(v) + 0.5f;
  const TensorValues ref = run_graph(g, {{og.var, var}}, kSeed);
  ASSERT_EQ(g.output_tensors().size(), 3u);
  DGS_REQUIRE_GPU();
  gpu::StageExecutorOptions o;
  o.seed = kSeed;
  gpu::StageExecutor ex(g, o);
  ex.set_tensor(og.var, var);
  ex.run(sequential_plan(g));
  expect_outputs_match(ex, g, ref, "sequential");
}

// The run-time attention-mask operators (Equal, Not, IsNaN, And, Where, GatherND), with bool
// tensors on the device: keep = Not(Equal(Relu(x), 0)) And Not(IsNaN(Sqrt(y))), i.e. x > 0 and
// y >= 0 (both about half the elements); out = Where(keep, x, y); rows = GatherND(out, [[1, 0],
// [0, 2], [-1, -1]]).
Graph mask_ops_graph() {
  Graph g;
  g.name = "mask_ops";
  const int x = g.add_input("x", {2, 3, 4});
  const int y = g.add_input("y", {2, 3, 4});
  const int zero = g.add_constant_floats("zero", {}, {0.0f});
  const int pos = add(g, OpKind::Relu, "relu", {x});
  const int is_zero = add(g, OpKind::Equal, "is_zero", {pos, zero});
  const int x_pos = add(g, OpKind::Not, "x_pos", {is_zero});
  const int nan = add(g, OpKind::IsNaN, "nan", {add(g, OpKind::Sqrt, "sqrt", {y})});
  const int keep = add(g, OpKind::And, "keep", {x_pos, add(g, OpKind::Not, "y_ok", {nan})});
  const int out = add(g, OpKind::Where, "select", {keep, x, y});
  const int idx = g.add_tensor(Tensor{
      "rows_idx", {3, 2}, DType::I64, TensorRole::Constant, -1, {}, {1, 0, 0, 2, -1, -1}, {}});
  g.mark_output(keep);
  g.mark_output(out);
  g.mark_output(add(g, OpKind::GatherND, "rows", {out, idx}));
  return g;
}

TEST(StageExecutor, MaskOperatorsMatchTheCpuReference) {
  const Graph g = mask_ops_graph();
  const TensorValues ref = run_graph(g, {}, kSeed);
  ASSERT_EQ(ref.at(g.output_tensors()[0]).dtype, DType::Bool);
  int64_t kept = 0;
  for (int64_t v : ref.at(g.output_tensors()[0]).i) kept += v;
  EXPECT_GT(kept, 0);  // both branches of the Where are taken
  EXPECT_LT(kept, 24);
  EXPECT_EQ(ref.at(g.output_tensors()[2]).shape, (Shape{3, 4}));
  DGS_REQUIRE_GPU();
  gpu::StageExecutorOptions o;
  o.seed = kSeed;
  gpu::StageExecutor ex(g, o);
  ex.run(sequential_plan(g));
  const TensorData keep = ex.get_tensor(g.output_tensors()[0]);
  EXPECT_EQ(keep.dtype, DType::Bool);
  EXPECT_EQ(keep.i, ref.at(g.output_tensors()[0]).i);
  expect_outputs_match(ex, g, ref, "sequential");
}

TEST(StageExecutor, RefusesAnInt64InputOfAMaskOperator) {
  Graph g;
  g.name = "int_mask";
  const int ids = g.add_input("ids", {2, 4}, DType::I64);
  const int zero = g.add_constant_ints("zero", {0});
  g.mark_output(add(g, OpKind::Equal, "is_pad", {ids, zero}));
  DGS_REQUIRE_GPU();
  EXPECT_THROW(gpu::StageExecutor(g, gpu::StageExecutorOptions{}), Error);
}

}  // namespace
}  // namespace dgs
