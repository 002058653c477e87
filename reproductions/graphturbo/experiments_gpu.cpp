// Table 5 and Fig. 18: ResNet18-Tailor (tailor.h) on the A100, model mode (the GPU model's public
// entry points). Three schedules: TVM wrapping CUTLASS per layer (one kernel per conv+ReLU layer),
// CUTLASS two-conv fusion (four back-to-back kernels, the intermediate kept on chip), and
// GraphTurbo's (the first two fused sub-graphs split into two batch instances, run instance by
// instance so that an instance's output stays in L2 for the next sub-graph's instance).
#include <algorithm>

#include "common/gpumodel/kernel_rules.h"
#include "common/gpumodel/plan_evaluation.h"
#include "common/report/report.h"
#include "reproductions/graphturbo/experiments.h"
#include "reproductions/graphturbo/measured_table5.h"
#include "reproductions/graphturbo/tailor.h"

namespace dgs::graphturbo {

namespace {

constexpr int kGpuInstances = 2;  // Fig. 18c

Graph tailor_f16(int64_t batch) {
  return resnet18_tailor(batch, DType::F16);
}

std::vector<int> convs_of(const Graph& g, const std::vector<int>& ops) {
  std::vector<int> out;
  for (int op : ops)
    if (g.op(op).kind == OpKind::Conv) out.push_back(op);
  return out;
}

double tensor_bytes(const Graph& g, int t) {
  return double(g.tensor(t).numel()) * dtype_size(g.tensor(t).dtype);
}

// conv A -> conv B back to back: one kernel; the intermediate never reaches L2 or DRAM.
KernelLaunch b2b_kernel(const Graph& g, int a, int b, const GpuSpec& spec, const KernelOptions& o) {
  const KernelLaunch ka = kernels_for_op(g, a, spec, o).at(0);
  const KernelLaunch kb = kernels_for_op(g, b, spec, o).at(0);
  const double inter = tensor_bytes(g, g.op(a).outputs[0]);
  KernelLaunch k = ka;
  k.name = "b2b:" + g.op(a).name + "+" + g.op(b).name;
  k.flops = ka.flops + kb.flops;
  k.dram_bytes = std::max(0.0, ka.dram_bytes + kb.dram_bytes - 2 * inter);
  k.l2_bytes = std::max(k.dram_bytes, ka.l2_bytes + kb.l2_bytes - 2 * inter);
  k.registers_per_thread = std::max(ka.registers_per_thread, kb.registers_per_thread);
  k.shared_bytes_per_block = std::max(ka.shared_bytes_per_block, kb.shared_bytes_per_block);
  k.ops = {a, b};
  return k;
}

KernelLaunch instance_of(KernelLaunch k, int i) {
  k.name += ":instance" + std::to_string(i + 1);
  k.grid_blocks = (k.grid_blocks + kGpuInstances - 1) / kGpuInstances;
  k.flops /= kGpuInstances;
  k.dram_bytes /= kGpuInstances;
  k.l2_bytes /= kGpuInstances;
  return k;
}

// The kernels of a Fused task: two convs = one back-to-back kernel; four convs = GraphTurbo's
// two split sub-graphs, instance by instance, the first sub-graph's instance output read by the
// second from L2 (up to the L2's size: 12.8 MB per instance at batch 64 fits the A100's 40 MB; at
// larger batches only an L2's worth is saved).
std::vector<KernelLaunch> fused_kernels(const Graph& g, const Task& t, const GpuSpec& spec) {
  KernelOptions o;
  o.fold_activation = true;
  const std::vector<int> c = convs_of(g, t.ops);
  if (c.size() == 2) return {b2b_kernel(g, c[0], c[1], spec, o)};
  if (c.size() != 4) throw Error("table5: a fused task holds 2 or 4 convolutions");
  const KernelLaunch first = b2b_kernel(g, c[0], c[1], spec, o);
  const KernelLaunch second = b2b_kernel(g, c[2], c[3], spec, o);
  // The part of an instance output that L2 holds for the next instance (all of it when it fits).
  const double mid =
      std::min(tensor_bytes(g, g.op(c[1]).outputs[0]) / kGpuInstances, double(spec.l2_bytes));
  std::vector<KernelLaunch> out;
  for (int i = 0; i < kGpuInstances; ++i) {
    KernelLaunch a = instance_of(first, i), b = instance_of(second, i);
    a.dram_bytes -= mid;  // written to L2, read by b from there
    b.dram_bytes -= mid;
    out.push_back(a);
    out.push_back(b);
  }
  return out;
}

enum class GpuSchedule { Tvm, CutlassFusion, GraphTurbo };

Plan gpu_plan(const Graph& g, GpuSchedule s) {
  Plan p;
  p.graph = g.name;
  p.options.fold_activation = true;
  const std::vector<int> order = g.topo_order();  // conv, relu, conv, relu, ...
  const size_t layers = order.size() / 2;
  auto ops_of = [&](size_t first_layer, size_t count) {
    return std::vector<int>(order.begin() + long(2 * first_layer),
                            order.begin() + long(2 * (first_layer + count)));
  };
  auto add = [&](TaskKind kind, std::vector<int> ops) {
    Task t;
    t.kind = kind;
    t.ops = std::move(ops);
    Stage st;
    st.tasks.push_back(std::move(t));
    p.stages.push_back(std::move(st));
  };
  if (s == GpuSchedule::Tvm) {
    p.scheduler = "TVM + CUTLASS per layer";
    for (size_t l = 0; l < layers; ++l) add(TaskKind::Sequential, ops_of(l, 1));
  } else if (s == GpuSchedule::CutlassFusion) {
    p.scheduler = "CUTLASS two-conv fusion";
    for (size_t l = 0; l < layers; l += 2) add(TaskKind::Fused, ops_of(l, 2));
  } else {
    p.scheduler = "GraphTurbo (first two sub-graphs in two instances)";
    add(TaskKind::Fused, ops_of(0, 4));
    for (size_t l = 4; l < layers; l += 2) add(TaskKind::Fused, ops_of(l, 2));
  }
  return p;
}

}  // namespace

void run_table5(ExperimentContext& ctx) {
  if (ctx.options().mode == RunMode::Measured) return run_table5_measured(ctx);
  const GpuSpec& gpu = ctx.gpu();
  ctx.note(
      "ResNet18-Tailor (shapes not in the paper; named defaults): 4 stages of conv3x3+ReLU -> "
      "conv1x1+ReLU, channels 64/128/256/512, 56x56 input after the excluded stem, stride 2 in "
      "stages 2-4, FP16 on tensor cores; ReLU in the conv epilogue");
  ctx.note(
      "GPU model (" + gpu.name +
      "): a back-to-back kernel costs both convs' FLOPs and their DRAM traffic minus the "
      "intermediate's write and read; GraphTurbo's instances (kGpuInstances = 2) halve the grid "
      "and keep the first sub-graph's instance output in L2 for the second (at most the L2's "
      "size of it)");
  const PaperData pd = ctx.paper_data("table5.csv");
  Table t({"batch", "tvm_ms", "paper_tvm_ms", "cutlass_fusion_ms", "paper_cutlass_fusion_ms",
           "graph_scheduling_ms", "paper_graph_scheduling_ms", "speedup_over_tvm",
           "paper_speedup_over_tvm", "speedup_over_cutlass", "paper_speedup_over_cutlass"});
  std::vector<Claim> claims;
  double sum_tvm = 0, sum_cut = 0;
  const int64_t batches[] = {64, 128, 256, 512};
  for (int64_t batch : batches) {
    const Graph g = tailor_f16(batch);
    double ms[3];
    const GpuSchedule kinds[] = {GpuSchedule::Tvm, GpuSchedule::CutlassFusion,
                                 GpuSchedule::GraphTurbo};
    for (int i = 0; i < 3; ++i) {
      const Plan p = gpu_plan(g, kinds[i]);
      p.check(g);
      ms[i] = evaluate_plan(g, p, gpu, fused_kernels).latency_us / 1000;
    }
    const std::vector<std::pair<std::string, std::string>> key = {{"batch", std::to_string(batch)}};
    t.add_row({batch, ms[0], pd.cell(key, "tvm_ms"), ms[1], pd.cell(key, "cutlass_fusion_ms"),
               ms[2], pd.cell(key, "graph_scheduling_ms"), ms[0] / ms[2],
               pd.cell(key, "speedup_over_tvm"), ms[1] / ms[2],
               pd.cell(key, "speedup_over_cutlass")});
    sum_tvm += ms[0] / ms[2];
    sum_cut += ms[1] / ms[2];
    claims.push_back({"batch " + std::to_string(batch) + ": graph scheduling time", pd.source(key),
                      *pd.value(key, "graph_scheduling_ms"), ms[2], ClaimKind::Time, "ms"});
  }
  const std::vector<std::pair<std::string, std::string>> avg = {{"batch", "average"}};
  t.add_row({"average", Missing{}, Missing{}, Missing{}, Missing{}, Missing{}, Missing{},
             sum_tvm / 4, pd.cell(avg, "speedup_over_tvm"), sum_cut / 4,
             pd.cell(avg, "speedup_over_cutlass")});
  claims.push_back({"mean speedup over TVM (CUTLASS per layer)", pd.source(avg),
                    *pd.value(avg, "speedup_over_tvm"), sum_tvm / 4, ClaimKind::Ratio, "x"});
  claims.push_back({"mean speedup over CUTLASS two-conv fusion", pd.source(avg),
                    *pd.value(avg, "speedup_over_cutlass"), sum_cut / 4, ClaimKind::Ratio, "x"});
  ctx.emit_table("Table 5 - Execution time in milliseconds on A100 (GPU model)", t);
  ctx.emit_claims(claims);
}

void run_fig18(ExperimentContext& ctx) {
  const GpuSpec& gpu = ctx.gpu();
  const Graph g = tailor_f16(64);
  // The split recomputed by the scheduler (Algorithm 1 + Eq. 1 on CUTLASS's two-conv sub-graphs).
  const TailorSplit split = tailor_algorithm1_split(64, gpu);
  const TailorNetwork recomputed = tailor_instances(64, DType::F16, split.factors);
  std::string factors;
  for (int64_t f : split.factors) factors += (factors.empty() ? "" : "/") + std::to_string(f);
  ctx.note(
      "schedules 1-3 are Table 5's (model mode; GraphTurbo's the paper's split of Fig. 18c, 2 "
      "sub-graphs in 2 instances); schedule 4 is GraphTurbo's split recomputed at batch 64: "
      "Algorithm 1 and Eq. 1 on each two-conv sub-graph (CUTLASS refuses 3+ convs: no merges), "
      "the A100's L2 in the LLB's part, capacity kSplitCapacityFractionOfLlb (" +
      std::to_string(kSplitCapacityFractionOfLlb) + ") x L2 = " +
      std::to_string(split.params.split_capacity) + " bytes, FP16: instances per sub-graph " +
      factors + ", ordered by " + (recomputed.algorithm3_order ? "Algorithm 3" : "BFS") + ", " +
      std::to_string(recomputed.inserted_ops) + " inserted Slice/Concat ops (§3.5)");
  Table t({"schedule", "order", "kernel"});
  BarChart chart{.title = "Fig. 18 - kernels per schedule (ResNet18-Tailor)",
                 .y_label = "kernels",
                 .categories = {},
                 .series = {{"ours", {}}},
                 .x_label = "schedule"};
  int64_t subgraphs[3] = {0, 0, 0};
  const GpuSchedule kinds[] = {GpuSchedule::Tvm, GpuSchedule::CutlassFusion,
                               GpuSchedule::GraphTurbo};
  for (int i = 0; i < 3; ++i) {
    const Plan p = gpu_plan(g, kinds[i]);
    int64_t n = 0;
    for (const Stage& st : p.stages)
      for (const auto& stream : stage_streams(g, st, gpu, fused_kernels, kernel_options(p.options)))
        for (const KernelLaunch& k : stream) t.add_row({p.scheduler, ++n, k.name});
    subgraphs[i] = static_cast<int64_t>(p.stages.size());
    chart.categories.push_back(p.scheduler);
    chart.series[0].values.push_back(double(n));
  }
  const std::string label = "GraphTurbo (Algorithm 1 split " + factors + ")";
  for (size_t k = 0; k < recomputed.kernel_names.size(); ++k)
    t.add_row({label, int64_t(k + 1), recomputed.kernel_names[k]});
  chart.categories.push_back(label);
  chart.series[0].values.push_back(double(recomputed.kernels.size()));
  ctx.emit_table("Fig. 18 - schedule orders of ResNet18-Tailor", t);
  ctx.emit_svg(bar_chart_svg(chart));
  const PaperData pd = ctx.paper_data("fig18.csv");
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  std::vector<int64_t> split_factors;
  for (int64_t f : split.factors)
    if (f > 1) split_factors.push_back(f);
  std::vector<Claim> claims = {
      {"CUTLASS fusion: sub-graphs", src("cutlass_fusion_subgraphs"), q("cutlass_fusion_subgraphs"),
       double(subgraphs[1]), ClaimKind::Count, "", "",
       "the schedule is built as the paper describes it"},
      {"GraphTurbo: sub-graphs split into instances (Algorithm 1, batch 64)",
       src("graphturbo_split_subgraphs"), q("graphturbo_split_subgraphs"),
       double(split_factors.size()), ClaimKind::Count, ""}};
  for (size_t i = 0; i < split_factors.size(); ++i)
    claims.push_back({"GraphTurbo: instances of split sub-graph " + std::to_string(i + 1) +
                          " (Algorithm 1, batch 64)",
                      src("graphturbo_instances_per_split"), q("graphturbo_instances_per_split"),
                      double(split_factors[i]), ClaimKind::Count, ""});
  ctx.emit_claims(claims);
}

}  // namespace dgs::graphturbo
