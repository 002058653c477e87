// Table 6: compute-intensive models.
#include "common/report/report.h"
#include "common/util/parallel_for.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

void run_table6(ExperimentContext& ctx) {
  const WelderArch arch = noted_experiment_arch(ctx, false);
  ctx.note(
      "TensorRT and Ansor are not available: their columns are the paper's; ours is the "
      "suite's Welder plan (direct convolution only: no Winograd, as in Welder); UNet at "
      "224x224 batch 1 (artifact)");
  const PaperData pd = ctx.paper_data("table6.csv");
  Table t({"model", "ours_welder_ms", "ours_welder_base_ms", "paper_welder_ms", "paper_ansor_ms",
           "paper_tensorrt_ms"});
  const std::vector<std::string> models = {"resnet50", "resnet18", "unet", "vgg16"};
  // Each model's Welder and Welder-base latencies, one model per CPU at a time (each its own
  // tile-graph and memo; into its own slot, so the table does not depend on which ends first).
  const auto latencies =
      parallel_map(static_cast<int64_t>(models.size()), available_cpus(), [&](int64_t i) {
        const std::string& m = models[static_cast<size_t>(i)];
        ZooOptions zo;
        if (m == "unet") zo.image_size = 224;
        const TileGraph tg = model_tile_graph(m, zo);
        const auto s = run_variants(tg, arch, {Variant::Base, Variant::Welder});
        return std::pair<double, double>(evaluated_latency_ms(tg, s[1], arch),
                                         evaluated_latency_ms(tg, s[0], arch));
      });
  for (size_t i = 0; i < models.size(); ++i) {
    const std::string& m = models[i];
    t.add_row({m, latencies[i].first, latencies[i].second, *pd.value({{"model", m}}, "welder_ms"),
               *pd.value({{"model", m}}, "ansor_ms"), *pd.value({{"model", m}}, "tensorrt_ms")});
  }
  ctx.emit_table("Table 6 - compute-intensive models (batch 1, FP32)", t);
  std::vector<Claim> claims;
  for (const auto& row : t.rows()) {
    const std::string m = std::get<std::string>(row[0]);
    const double paper = *pd.value({{"model", m}}, "welder_ms");
    claims.push_back({m + ": Welder latency (ours: the GPU model's latency of the Welder plan)",
                      pd.source({{"model", m}}), paper, std::get<double>(row[1]), ClaimKind::Time,
                      "ms"});
  }
  ctx.emit_claims(claims);
}

}  // namespace dgs::welder
