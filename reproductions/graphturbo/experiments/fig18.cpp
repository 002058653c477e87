// Fig. 18 of GraphTurbo: the kernel orders of the three schedules of ResNet18-Tailor.
#include <algorithm>

#include "common/gpumodel/kernel_rules.h"
#include "common/gpumodel/plan_evaluation.h"
#include "common/report/report.h"
#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/gpu_schedules.h"
#include "reproductions/graphturbo/tailor.h"

namespace dgs::graphturbo {

void run_fig18(ExperimentContext& ctx) {
  const GpuSpec& gpu = ctx.gpu();
  const Graph g = tailor_f16(64);
  // The split recomputed by the scheduler (Algorithm 1 + Eq. 1 on CUTLASS's two-conv sub-graphs).
  const TailorSplit split = tailor_algorithm1_split(64, gpu);
  const TailorNetwork recomputed = tailor_instances(64, DType::F16, split.factors);
  std::string factors;
  for (int64_t f : split.factors) {
    if (!factors.empty()) factors += '/';
    factors += std::to_string(f);
  }
  ctx.note(
      "schedules 1-3 are Table 5's model-mode schedules at batch 64 with the paper's split of Fig. "
      "18c (2 sub-graphs in 2 instances); schedule 4 is GraphTurbo's split recomputed at batch 64 "
      "(Table 5's graph_scheduling_ms runs it): "
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
    const std::vector<int64_t> factors =
        kinds[i] == GpuSchedule::GraphTurbo ? kFig18cFactors : std::vector<int64_t>(4, 1);
    const Plan p = gpu_plan(g, kinds[i], factors);
    const FusedKernelFn fused = [factors](const Graph& gg, const Task& task, const GpuSpec& spec) {
      return fused_kernels(gg, task, spec, factors);
    };
    int64_t n = 0;
    for (const Stage& st : p.stages)
      for (const auto& stream : stage_streams(g, st, gpu, fused, kernel_options(p.options)))
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
