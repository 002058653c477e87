// Table 5 of GraphTurbo: ResNet18-Tailor on the A100 under three schedules, model mode (the GPU
// model through evaluate()) or measured (measured_table5.cpp).
#include <algorithm>

#include "common/report/report.h"
#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/gpu_schedules.h"
#include "reproductions/graphturbo/experiments/measured_table5.h"
#include "reproductions/graphturbo/tailor.h"

namespace dgs::graphturbo {

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
      "intermediate's write and read; GraphTurbo's instances divide a sub-graph's grid, work and "
      "traffic, run in Algorithm 3's order, a consumer instance reading its producer instances' "
      "output from L2 (at most the L2's size of it)");
  ctx.note(
      "graph_scheduling_ms: GraphTurbo with the split its Algorithm 1 computes for the batch on "
      "this GPU (the algorithm1_split column; tailor_algorithm1_split: capacity "
      "kSplitCapacityFractionOfLlb (" +
      std::to_string(kSplitCapacityFractionOfLlb) +
      ", a calibration point on Fig. 6) x L2); fig18c_split_ms: the paper's split of Fig. 18c "
      "(" +
      factors_text(kFig18cFactors) +
      ") on the same model, shown beside it, not compared; TVM and CUTLASS fusion are the "
      "suite's per-layer and back-to-back kernels on the GPU model (stand-ins)");
  const PaperData pd = ctx.paper_data("table5.csv");
  Table t({"batch", "tvm_ms", "paper_tvm_ms", "cutlass_fusion_ms", "paper_cutlass_fusion_ms",
           "algorithm1_split", "graph_scheduling_ms", "paper_graph_scheduling_ms",
           "fig18c_split_ms", "speedup_over_tvm", "paper_speedup_over_tvm", "speedup_over_cutlass",
           "paper_speedup_over_cutlass"});
  std::vector<Claim> claims;
  double sum_tvm = 0, sum_cut = 0;
  const int64_t batches[] = {64, 128, 256, 512};
  for (int64_t batch : batches) {
    const Graph g = tailor_f16(batch);
    const std::vector<int64_t> split = tailor_algorithm1_split(batch, gpu).factors;
    const HardwareSpec& hw = ctx.hardware();
    const double tvm = gpu_ms(g, GpuSchedule::Tvm, hw);
    const double cut = gpu_ms(g, GpuSchedule::CutlassFusion, hw);
    const double gt = gpu_ms(g, GpuSchedule::GraphTurbo, hw, split);
    const double fig18c = gpu_ms(g, GpuSchedule::GraphTurbo, hw, kFig18cFactors);
    const std::vector<std::pair<std::string, std::string>> key = {{"batch", std::to_string(batch)}};
    t.add_row({batch, tvm, pd.cell(key, "tvm_ms"), cut, pd.cell(key, "cutlass_fusion_ms"),
               factors_text(split), gt, pd.cell(key, "graph_scheduling_ms"), fig18c, tvm / gt,
               pd.cell(key, "speedup_over_tvm"), cut / gt, pd.cell(key, "speedup_over_cutlass")});
    sum_tvm += tvm / gt;
    sum_cut += cut / gt;
    claims.push_back({"batch " + std::to_string(batch) + ": graph scheduling time (Algorithm 1's " +
                          factors_text(split) + " split)",
                      pd.source(key), *pd.value(key, "graph_scheduling_ms"), gt, ClaimKind::Time,
                      "ms"});
  }
  const std::vector<std::pair<std::string, std::string>> avg = {{"batch", "average"}};
  t.add_row({"average", Missing{}, Missing{}, Missing{}, Missing{}, Missing{}, Missing{}, Missing{},
             Missing{}, sum_tvm / 4, pd.cell(avg, "speedup_over_tvm"), sum_cut / 4,
             pd.cell(avg, "speedup_over_cutlass")});
  claims.push_back({"mean speedup over TVM (CUTLASS per layer)", pd.source(avg),
                    *pd.value(avg, "speedup_over_tvm"), sum_tvm / 4, ClaimKind::Ratio, "x",
                    "the suite's per-layer kernels on the GPU model for TVM wrapping CUTLASS"});
  claims.push_back({"mean speedup over CUTLASS two-conv fusion", pd.source(avg),
                    *pd.value(avg, "speedup_over_cutlass"), sum_cut / 4, ClaimKind::Ratio, "x",
                    "the suite's back-to-back two-conv kernels on the GPU model for CUTLASS's "
                    "fusion"});
  ctx.emit_table("Table 5 - Execution time in milliseconds on A100 (GPU model)", t);
  ctx.emit_claims(claims);
}

}  // namespace dgs::graphturbo
