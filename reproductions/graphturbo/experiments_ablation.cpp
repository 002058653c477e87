// Fig. 15 (the ablation variants V1-V4) and Fig. 16 (VME/MME usage against the batch) on the
// STCP920 DSA model.
#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <tuple>

#include "common/report/report.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/experiment_runs.h"
#include "reproductions/graphturbo/experiments.h"

namespace dgs::graphturbo {

namespace {

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

// MME and VME utilisation (%) of a run: busy time over (units x latency).
std::pair<double, double> usage(const DsaRun& r, const DsaSpec& spec) {
  const double span = r.result.latency_us * double(spec.units());
  return {100 * value_of(r.result.busy_us_by_unit, "matrix") / span,
          100 * value_of(r.result.busy_us_by_unit, "vector") / span};
}

}  // namespace

void run_fig15(ExperimentContext& ctx) {
  note_constants(ctx);
  ctx.note(
      "V1/V2: TVM's layers at GraphTurbo's per-cluster batch, outputs kept in the LLB (V1) or L1 "
      "first (V2) while they fit over their liveness, else DDR; V3 = instances + order (the "
      "GraphTurbo plan); V4 = V3 on this model: across-layer instruction scheduling has no plan "
      "field, the DSA model's one-stage prefetch of weights serves every variant");
  const PaperData pd = ctx.paper_data("fig15.csv");
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  Table t({"label", "model", "v1_llb", "v2_l1", "v3_instances", "v4_all"});
  BarChart chart{
      .title = "Fig. 15 - speedup over TVM of V1-V4 (STCP920 DSA model)",
      .y_label = "speedup over TVM (x)",
      .categories = {},
      .series = {{"V1 (LLB)", {}}, {"V2 (L1)", {}}, {"V3 (instances)", {}}, {"V4 (all)", {}}},
      .reference_y = 1.0,
      .x_label = "model"};
  std::vector<double> v1s, v2s, v3v2, v4v3;
  for (const ModelRow& m : model_rows()) {
    if (m.zoo.empty()) continue;
    const RowRuns& r = runs_of(m);
    const DsaRun v1 = run_on_dsa(m.zoo, m.batch, Approach::V1Llb, stcp920(), 0, m.seq_len);
    const DsaRun v2 = run_on_dsa(m.zoo, m.batch, Approach::V2L1, stcp920(), 0, m.seq_len);
    const double s1 = v1.throughput / r.tvm.throughput, s2 = v2.throughput / r.tvm.throughput;
    const double s3 = r.gt.throughput / r.tvm.throughput, s4 = s3;
    t.add_row({m.label, m.name, s1, s2, s3, s4});
    chart.categories.push_back(m.label);
    const std::array<double, 4> speedups = {s1, s2, s3, s4};
    for (size_t k = 0; k < 4; ++k) chart.series[k].values.push_back(speedups[k]);
    v1s.push_back(s1);
    v2s.push_back(s2);
    v3v2.push_back(s3 / s2);
    v4v3.push_back(s4 / s3);
  }
  t.add_row({"mean", "arithmetic", mean(v1s), mean(v2s), Missing{}, Missing{}});
  Table ratios({"quantity", "ours", "paper"});
  ratios.add_row({"V2 over TVM (mean)", mean(v2s), q("v2_over_tvm_mean")});
  ratios.add_row({"V3 over V2 (mean)", mean(v3v2), q("v3_over_v2_mean")});
  ratios.add_row({"V4 over V3 (mean)", mean(v4v3), q("v4_over_v3_mean")});
  ctx.emit_table("Fig. 15 - Individual contributions of each optimization (speedup over TVM)", t);
  ctx.emit_table("Fig. 15 - mean ratios", ratios, "_means");
  ctx.emit_svg(bar_chart_svg(chart));
  const bool v1_below = std::any_of(v1s.begin(), v1s.end(), [](double x) { return x < 1; });
  ctx.emit_claims(
      {{"mean V2 speedup over TVM", src("v2_over_tvm_mean"), q("v2_over_tvm_mean"), mean(v2s),
        ClaimKind::Ratio, "x"},
       {"mean V3 over V2 (instances and ordering)", src("v3_over_v2_mean"), q("v3_over_v2_mean"),
        mean(v3v2), ClaimKind::Ratio, "x"},
       {"mean V4 over V3 (across-layer instruction scheduling)", src("v4_over_v3_mean"),
        q("v4_over_v3_mean"), mean(v4v3), ClaimKind::Ratio, "x"},
       {"V1 is slower than TVM for some model (1 = yes)", src("v1_sometimes_slower_than_tvm"),
        q("v1_sometimes_slower_than_tvm"), v1_below ? 1.0 : 0.0, ClaimKind::Ordering, "yes"}});
}

void run_fig16(ExperimentContext& ctx) {
  note_constants(ctx);
  ctx.note(
      "x axis: batches per cluster (the chip's batch is 4x), GraphTurbo plans; usage = busy time "
      "of the matrix (MME) or vector (VME) units over 32 cores x latency; the quantized ResNet-50 "
      "panel is not reproduced (the config has no INT8 variant)");
  const PaperData pd = ctx.paper_data("fig16.csv");
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  Table t({"model", "batches_per_cluster", "mme_usage_pct", "vme_usage_pct"});
  std::vector<std::string> panels;
  std::map<std::string, std::vector<double>> mme;
  for (const auto& [label, zoo, seq] : std::vector<std::tuple<std::string, std::string, int64_t>>{
           {"ResNet-50", "resnet50", 0}, {"BERT-128", "bert_base", 128}}) {
    LineChart c{.title = "Fig. 16 - " + label + ": VME/MME usage",
                .x_label = "batches per cluster",
                .y_label = "usage (%)",
                .x = {},
                .series = {{"MME (ours)", {}}, {"VME (ours)", {}}},
                .log_x = true};
    for (int64_t b : {1, 2, 4, 8, 16}) {
      const DsaRun r =
          run_on_dsa(zoo, b * stcp920().clusters, Approach::GraphTurbo, stcp920(), b, seq);
      const auto [m, v] = usage(r, stcp920());
      t.add_row({label, b, m, v});
      c.x.push_back(double(b));
      c.series[0].values.push_back(m);
      c.series[1].values.push_back(v);
      mme[label].push_back(m);
    }
    panels.push_back(line_chart_svg(c));
  }
  ctx.emit_table("Fig. 16 - Usage of VME/MME against the batch (GraphTurbo)", t);
  ctx.emit_svg(panels_svg(panels, 2));
  const std::vector<double>& r = mme["ResNet-50"];
  const std::vector<double>& b = mme["BERT-128"];
  ctx.emit_claims({{"ResNet-50: MME usage grows with the batch (1 = yes)",
                    src("resnet50_usage_grows_with_batch"), q("resnet50_usage_grows_with_batch"),
                    r.back() > r.front() ? 1.0 : 0.0, ClaimKind::Ordering, "yes"},
                   {"BERT-128: MME usage drops from 8 to 16 batches per cluster (1 = yes)",
                    src("bert128_degrades_8_to_16"), q("bert128_degrades_8_to_16"),
                    b[4] < b[3] ? 1.0 : 0.0, ClaimKind::Ordering, "yes"}});
}

}  // namespace dgs::graphturbo
