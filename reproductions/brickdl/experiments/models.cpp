// Fig. 7: the seven networks end to end, BrickDL (the static model's partition, brick sizes and
// padded/memoized choices, cuDNN for what bricks cannot run, brick conversions included) against
// the cuDNN layer-by-layer baseline. TorchScript and TF-XLA are not reproduced.
#include <cmath>

#include "common/evaluate/evaluate.h"
#include "models/zoo.h"
#include "reproductions/brickdl/brick_plan.h"
#include "reproductions/brickdl/experiments/breakdown_report.h"
#include "reproductions/brickdl/experiments/experiments.h"
#include "reproductions/brickdl/experiments/workloads.h"
#include "reproductions/brickdl/network_model.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {

namespace {

struct ModelResult {
  std::string model;
  TimeBreakdown cudnn, brickdl;  // BrickDL's own analytic model (perf_model.h)
  // The same schedules as plans (network_plan, cudnn_baseline_plan) checked and priced by
  // evaluate() with BrickDL's kernels (brickdl_fused_kernels), in microseconds.
  double cudnn_evaluated_us = 0, brickdl_evaluated_us = 0;
  int merged_subgraphs = 0, cudnn_subgraphs = 0, padded = 0, conversions = 0;
};

ModelResult price_model(const std::string& name, const Graph& g, const HardwareSpec& hw) {
  const GpuSpec& spec = *hw.gpu;
  const NetworkSchedule s = schedule_network(g, spec);
  const NetworkPricing p = price_network(g, s, spec);
  return {.model = name,
          .cudnn = p.cudnn,
          .brickdl = p.brickdl,
          .cudnn_evaluated_us = evaluate(g, cudnn_baseline_plan(g), hw,
                                         {.gpu_fused_kernels = brickdl_fused_kernels()})
                                    .latency_us,
          .brickdl_evaluated_us = evaluate(g, network_plan(g, s), hw,
                                           {.gpu_fused_kernels = brickdl_fused_kernels(g, s)})
                                      .latency_us,
          .merged_subgraphs = p.merged_subgraphs,
          .cudnn_subgraphs = p.cudnn_subgraphs,
          .padded = p.padded,
          .conversions = p.conversions};
}

}  // namespace

void run_fig7(ExperimentContext& ctx) {
  const HardwareSpec& hw = ctx.hardware();
  ctx.gpu();  // refuses a config of another kind
  std::vector<std::string> models = {"vgg16",    "resnet50", "darknet53",   "resnet3d_34",
                                     "drn_c_26", "deepcam",  "inception_v4"};
  if (!ctx.options().model.empty()) models = {ctx.options().model};
  const double darknet_speedup = paper_value(ctx, "fig7", "darknet53_speedup_pct");
  const double vs_ts = paper_value(ctx, "fig7", "darknet53_vs_torchscript_pct");
  const double vs_xla = paper_value(ctx, "fig7", "darknet53_vs_xla_pct");
  Table t({"model", "system", "rel_time", "paper_rel_time", "dram_rel", "compute_other_rel",
           "atomics_rel", "total_ms", "merged_subgraphs", "padded_subgraphs", "cudnn_subgraphs",
           "brick_conversions", "evaluate_ms"});
  std::vector<BreakdownRow> rows;
  std::vector<ModelResult> results;
  for (const std::string& m : models) {
    const Graph g = load_model(m, {.batch = kDefaultBatch2d});
    const ModelResult r = price_model(m, g, hw);
    results.push_back(r);
    const bool dk = m == "darknet53";
    const double paper_bd = 1 / (1 + darknet_speedup / 100);  // reading (A)
    const double b = r.cudnn.total_us;
    t.add_row({m, "cuDNN", 1.0, Missing{}, r.cudnn.dram_us / b,
               (r.cudnn.total_us - r.cudnn.dram_us) / b, 0.0, r.cudnn.total_us / 1e3, int64_t{0},
               int64_t{0}, Missing{}, Missing{}, r.cudnn_evaluated_us / 1e3});
    const std::optional<double> p = dk ? std::optional<double>(paper_bd) : std::nullopt;
    t.add_row({m, "BrickDL", r.brickdl.total_us / b, p ? Cell(*p) : Cell(Missing{}),
               r.brickdl.dram_us / b, (r.brickdl.total_us - r.brickdl.dram_us) / b,
               (r.brickdl.atomic_compulsory_us + r.brickdl.atomic_conflict_us) / b,
               r.brickdl.total_us / 1e3, int64_t{r.merged_subgraphs}, int64_t{r.padded},
               int64_t{r.cudnn_subgraphs}, int64_t{r.conversions}, r.brickdl_evaluated_us / 1e3});
    for (const auto& [sys, vs] :
         {std::pair<std::string, double>{"TorchScript", vs_ts}, {"TF-XLA", vs_xla}})
      t.add_row({m, sys + " (not reproduced)", Missing{},
                 dk ? Cell(paper_bd * (1 + vs / 100)) : Cell(Missing{}), Missing{}, Missing{},
                 Missing{}, Missing{}, Missing{}, Missing{}, Missing{}, Missing{}, Missing{}});
    rows.push_back({.group = m, .variant = "cuDNN", .t = r.cudnn, .base = r.cudnn});
    BreakdownRow br{.group = m, .variant = "BrickDL", .t = r.brickdl, .base = r.cudnn};
    if (dk) br.paper_rel = paper_bd;
    rows.push_back(br);
  }
  ctx.emit_table(
      "Fig. 7: end-to-end time relative to cuDNN (batch 32; TorchScript/XLA not "
      "reproduced, paper values where stated)",
      t);
  ctx.emit_svg(breakdown_svg("Fig. 7: BrickDL vs cuDNN, seven models (model)", rows));

  // ---- claims (Fig. 7), one place --------------------------------------------------------------
  if (models.size() != 7) {
    ctx.note("--model given: the seven-model claims are not checked");
    note_model(ctx);
    return;
  }
  double lo = 1e9, hi = -1e9, dk_speed = 0, dk_dram = 0;
  int less_dram = 0;
  std::string best;
  for (const ModelResult& r : results) {
    const double s = (r.cudnn.total_us / r.brickdl.total_us - 1) * 100;
    lo = std::min(lo, s);
    if (s > hi) hi = s, best = r.model;
    less_dram += r.brickdl.dram_us < r.cudnn.dram_us;
    if (r.model == "darknet53") {
      dk_speed = s;
      dk_dram = (1 - r.brickdl.dram_us / r.cudnn.dram_us) * 100;
    }
  }
  const std::string f = "fig7";
  std::vector<Claim> claims = {
      // speedup: the caption's range starts at 9% (its 17% end is DarkNet-53's 17.4%, the next
      // two claims; counted once there)
      {"smallest speedup over cuDNN among the seven models",
       paper_source(ctx, f, "speedup_min_pct"), speedup_x(paper_value(ctx, f, "speedup_min_pct")),
       speedup_x(lo), ClaimKind::Ratio, "x"},
      // speedup
      {"DarkNet-53 speedup over cuDNN", paper_source(ctx, f, "darknet53_speedup_pct"),
       speedup_x(darknet_speedup), speedup_x(dk_speed), ClaimKind::Ratio, "x"},
      // percentage
      {"DarkNet-53 DRAM transfer time reduction vs cuDNN",
       paper_source(ctx, f, "darknet53_dram_reduction_pct"),
       paper_value(ctx, f, "darknet53_dram_reduction_pct"), dk_dram, ClaimKind::Percentage, "%"},
      // ordering
      {"DarkNet-53 has the largest speedup (1 = yes; ours: " + best + ")",
       paper_source(ctx, f, "darknet53_best"), paper_value(ctx, f, "darknet53_best"),
       best == "darknet53" ? 1.0 : 0.0, ClaimKind::Ordering, "yes/no"},
  };
  Claim largest{"largest speedup over cuDNN among the seven models",
                paper_source(ctx, f, "speedup_max_pct"),
                speedup_x(paper_value(ctx, f, "speedup_max_pct")),
                speedup_x(hi),
                ClaimKind::Ratio,
                "x"};
  largest.informational =
      "the same comparison as DarkNet-53's speedup and its being the largest (the paper's "
      "largest is DarkNet-53's 17.4%), counted there";
  claims.push_back(largest);
  // Can deviate, unlike Fig. 9's per-subgraph count: a merged kernel's DRAM traffic is at most
  // cuDNN's by the model's formula, but a whole network adds the brick layout conversions
  // (one read and one write of every tensor crossing between bricks and cuDNN).
  claims.push_back({"models with less DRAM time than cuDNN (brick conversions included)",
                    paper_source(ctx, f, "models_with_less_dram"),
                    paper_value(ctx, f, "models_with_less_dram"), static_cast<double>(less_dram),
                    ClaimKind::Count, "models"});
  ctx.emit_claims(claims);
  note_model(ctx);
  ctx.note(
      "two roads, named: total_ms and every bar are BrickDL's own analytic model (perf_model.h: "
      "each kernel priced alone by the GPU model's estimate_kernel, the memoized bricks' "
      "atomics x T_atomic serialised after their kernel, the breakdown into DRAM, compute, "
      "atomics and other), which the shared GPU model cannot give: it has no atomics mechanism "
      "and no such breakdown; evaluate_ms prices the same schedule as a plan through evaluate() "
      "(checked, the GPU model simulating BrickDL's kernels, the atomics as one stand-in kernel "
      "after each memoized brick kernel): the cuDNN rows equal, the BrickDL rows one kernel "
      "launch more per memoized subgraph (tests/brickdl: "
      "EvaluateEqualsFig7PricingOfTheSameSchedule)");
  ctx.note(
      "TorchScript (PyTorch 1.12 JIT) and TF-XLA are not reproduced: their rows carry the "
      "paper's DarkNet-53 values only (reading (A): BrickDL 5.2% / 6.7% faster)");
  ctx.note(
      "batch 32 for every network (the paper states none); input sizes are the networks' own "
      "(VGG-16/ResNet-50/DRN-C-26 224, DarkNet-53 256, Inception-v4 299, 3D ResNet-34 "
      "16x112x112, DeepCAM 16x768x1152); DeepCAM is a DeepLabv3+ reading (models/"
      "brickdl_cnns.cpp)");
  ctx.note(
      "partition (static_model.h): reverse traversal, pooling ends a subgraph, at most one "
      "change of resolution per subgraph, working set under the L2 size with one resident "
      "brick per SM; brick size by rho <= tau on the subgraph input; cuDNN where rho < B^n "
      "and for ops bricks cannot run (global pooling, GEMM, deconvolution, resize)");
}

}  // namespace dgs::brickdl
