// Fig. 14 of GraphTurbo: throughput speedups over TVM on the shared DSA model (STCP920 config).
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "common/report/report.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/runs.h"
#include "reproductions/graphturbo/instances.h"

namespace dgs::graphturbo {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? kNaN : std::exp(s / double(v.size()));
}

// The crafted column of a model's row: the paper's bars of the vendor-crafted code (Fig. 14) carry
// no printed number; §5.2 says which of the two is faster for three models, and that the crafted
// code of H-J is missing.
std::string crafted_status(const std::string& label) {
  const std::string nr = kCraftedNotReproduced;
  if (label == "D") return nr + " (§5.2: GraphTurbo faster)";
  if (label == "E" || label == "G") return nr + " (§5.2: crafted faster)";
  if (label == "H" || label == "I" || label == "J")
    return "no crafted code (§5.2: under construction, the paper's data are missing)";
  return nr;
}

// §5.2's statements about the vendor-crafted code: informational rows, ours empty.
void crafted_claims(ExperimentContext& ctx, const PaperData& pd, std::vector<Claim>& claims) {
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  claims.push_back(crafted_claim("mean GraphTurbo speedup over the vendor-crafted code (A-G)",
                                 src("graphturbo_over_crafted_mean"),
                                 q("graphturbo_over_crafted_mean"), ClaimKind::Ratio, "x"));
  for (const auto& [k, text] : std::vector<std::pair<std::string, std::string>>{
           {"crafted_faster_bert512", "BERT-512: crafted code faster than GraphTurbo (1 = yes)"},
           {"crafted_faster_mobilenet",
            "MobileNet-v2: crafted code faster than GraphTurbo (1 = yes)"},
           {"graphturbo_faster_than_crafted_bert384",
            "BERT-384: GraphTurbo faster than the crafted code (1 = yes)"}})
    claims.push_back(crafted_claim(text, src(k), q(k), ClaimKind::Ordering, "yes"));
  ctx.note("vendor-crafted code (the vendor's hand-written C++ for STCP920, §5.1-5.2): " +
           std::string(kCraftedNotReproduced) +
           "; the paper prints no number for its bars, only the mean (GraphTurbo " +
           num(q("graphturbo_over_crafted_mean")) +
           "x over it, models A-G: H-J have no crafted code) and which is faster for BERT-384, "
           "BERT-512 and MobileNet-v2: the crafted column and the mean A-G row, and informational "
           "claims");
}

}  // namespace

void run_fig14(ExperimentContext& ctx) {
  prefetch_runs(ctx.progress_fn());  // the configurations one per CPU at a time
  note_constants(ctx);
  const PaperData pd = ctx.paper_data("fig14.csv");
  Table t({"label", "model", "tvm_throughput", "astitch_throughput", "graphturbo_throughput",
           "astitch_speedup", "graphturbo_speedup", "graphturbo_over_astitch",
           "paper_graphturbo_speedup", "graphturbo_kernels", "tvm_kernels",
           "paper_graphturbo_over_crafted", "crafted"});
  std::vector<double> gt_sp, gt_over_as;
  BarChart chart{.title = "Fig. 14 - throughput speedup over TVM (STCP920 DSA model)",
                 .y_label = "speedup over TVM (x)",
                 .categories = {},
                 .series = {{"AStitch (ours)", {}},
                            {"GraphTurbo (ours)", {}},
                            {"vendor-crafted (" + std::string(kCraftedNotReproduced) + ")", {}}},
                 .reference_y = 1.0,
                 .x_label = "model"};
  std::vector<Claim> claims;
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  for (const ModelRow& m : model_rows()) {
    if (m.zoo.empty()) {
      ctx.note(m.label + " " + m.name + ": not reproduced (" + m.note + ")");
      continue;
    }
    const RowRuns& r = runs_of(m);
    const MovementCounts& mv = r.gt.movement;
    ctx.note(m.label + " " + m.name + ": GraphTurbo's §3.5 operators per cluster: " +
             std::to_string(mv.concats) + " concatenations of " + std::to_string(mv.pieces) +
             " instance pieces (" + std::to_string(mv.copies) + " copies between levels, " +
             std::to_string(mv.redistributions) + " redistributions between cores, " +
             std::to_string(mv.in_place) +
             " in place); sub-graphs: " + std::to_string(r.gt.subgraphs) + " (largest peak " +
             std::to_string(r.gt.peak_bytes) + " B), instances: " + std::to_string(r.gt.kernels) +
             "; the model's own Concat ops: " + std::to_string(r.gt.model_concats));
    const double as = r.astitch.throughput / r.tvm.throughput;
    const double gt = r.gt.throughput / r.tvm.throughput;
    // The paper prints no number for a model's bar (§2.1's 7.97x is ResNet-50 at batch 32, Fig.
    // 3; Table 1's BERT-128 ratio is compared there).
    const Cell paper = Missing{};
    t.add_row({m.label, m.name, r.tvm.throughput, r.astitch.throughput, r.gt.throughput, as, gt,
               gt / as, paper, r.gt.kernels, r.tvm.kernels, Missing{}, crafted_status(m.label)});
    gt_sp.push_back(gt);
    gt_over_as.push_back(gt / as);
    chart.categories.push_back(m.label);
    chart.series[0].values.push_back(as);
    chart.series[1].values.push_back(gt);
    chart.series[2].values.push_back(kNaN);  // the paper prints no number for a crafted bar
    if (m.label == "A" || m.label == "G") {
      const std::string k =
          m.label == "A" ? "astitch_slower_than_tvm_resnet50" : "astitch_slower_than_tvm_mobilenet";
      Claim c{m.name + ": AStitch slower than TVM (1 = yes)",
              src(k),
              q(k),
              as < 1 ? 1.0 : 0.0,
              ClaimKind::Ordering,
              "yes"};
      c.stand_in = kAStitchAndTvmStandIn;
      claims.push_back(c);
    }
  }
  const double mean_gt = std::accumulate(gt_sp.begin(), gt_sp.end(), 0.0) / double(gt_sp.size());
  const double mean_as =
      std::accumulate(gt_over_as.begin(), gt_over_as.end(), 0.0) / double(gt_over_as.size());
  t.add_row({"mean", "arithmetic (" + std::to_string(gt_sp.size()) + " of 10 models)", Missing{},
             Missing{}, Missing{}, Missing{}, mean_gt, mean_as, q("graphturbo_over_tvm_mean"),
             Missing{}, Missing{}, Missing{}, std::string()});
  t.add_row({"geomean", "geometric", Missing{}, Missing{}, Missing{}, Missing{}, geomean(gt_sp),
             geomean(gt_over_as), Missing{}, Missing{}, Missing{}, Missing{}, std::string()});
  t.add_row({"mean A-G", "GraphTurbo over the vendor-crafted code (§5.2)", Missing{}, Missing{},
             Missing{}, Missing{}, Missing{}, Missing{}, Missing{}, Missing{}, Missing{},
             q("graphturbo_over_crafted_mean"), std::string(kCraftedNotReproduced)});
  ctx.note(
      "paper means are over all ten configurations; ours over the " + std::to_string(gt_sp.size()) +
      " of them in the zoo; the paper prints no number for a model's bar (§2.1's 7.97x is "
      "ResNet-50 at batch 32, compared in Fig. 3; BERT-128 at batch 32 is Table 1's 4052 / 512, "
      "compared in Table 1)");
  claims.push_back({"mean GraphTurbo speedup over TVM", src("graphturbo_over_tvm_mean"),
                    q("graphturbo_over_tvm_mean"), mean_gt, ClaimKind::Ratio, "x", kTvmStandIn});
  claims.push_back({"mean GraphTurbo speedup over AStitch", src("graphturbo_over_astitch_mean"),
                    q("graphturbo_over_astitch_mean"), mean_as, ClaimKind::Ratio, "x",
                    kAStitchStandIn});
  crafted_claims(ctx, pd, claims);
  ctx.emit_table("Fig. 14 - Speedups of throughput over TVM", t);
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(claims);
}

}  // namespace dgs::graphturbo
