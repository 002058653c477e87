// Fig. 16 of GraphTurbo: VME/MME usage against the batch size on the STCP920 DSA model.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/report/report.h"
#include "common/util/parallel_for.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/runs.h"

namespace dgs::graphturbo {

namespace {

// MME and VME utilisation (%) of a run: busy time over (units x latency).
std::pair<double, double> usage(const DsaRun& r, const DsaSpec& spec) {
  const double span = r.result.latency_us * double(spec.units());
  return {100 * value_of(r.result.busy_us_by_unit, "matrix") / span,
          100 * value_of(r.result.busy_us_by_unit, "vector") / span};
}

}  // namespace

void run_fig16(ExperimentContext& ctx) {
  note_constants(ctx);
  ctx.note(
      "x axis: batches per cluster (the chip's batch is 4x), GraphTurbo plans; usage = busy time "
      "of the matrix (MME) or vector (VME) units over 32 cores x latency; the quantized ResNet-50 "
      "runs on " +
      stcp920_int8().name +
      " (every tensor stored and computed in INT8, the MME at "
      "its INT8 rate of " +
      std::to_string(int64_t(stcp920_int8().matrix_macs_per_cycle)) +
      " MAC/cycle; GraphTurbo's split capacity and tiles at 1 byte per element)");
  const PaperData pd = ctx.paper_data("fig16.csv");
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  Table t({"model", "batches_per_cluster", "mme_usage_pct", "vme_usage_pct"});
  std::vector<std::string> panels;
  std::map<std::string, std::vector<double>> mme;
  struct Panel {
    std::string label, zoo;
    int64_t seq;
    const DsaSpec* spec;
  };
  for (const auto& [label, zoo, seq, spec] :
       std::vector<Panel>{{"ResNet-50", "resnet50", 0, &stcp920()},
                          {"ResNet-50 (quantized, INT8)", "resnet50", 0, &stcp920_int8()},
                          {"BERT-128", "bert_base", 128, &stcp920()}}) {
    LineChart c{.title = "Fig. 16 - " + label + ": VME/MME usage",
                .x_label = "batches per cluster",
                .y_label = "usage (%)",
                .x = {},
                .series = {{"MME (ours)", {}}, {"VME (ours)", {}}},
                .log_x = true};
    for (int64_t b : {1, 2, 4, 8, 16}) {
      const DsaRun r = run_on_dsa(zoo, b * spec->clusters, Approach::GraphTurbo, *spec, b, seq);
      const auto [m, v] = usage(r, *spec);
      t.add_row({label, b, m, v});
      c.x.push_back(double(b));
      c.series[0].values.push_back(m);
      c.series[1].values.push_back(v);
      mme[label].push_back(m);
    }
    panels.push_back(line_chart_svg(c));
  }
  ctx.emit_table("Fig. 16 - Usage of VME/MME against the batch (GraphTurbo)", t);
  ctx.emit_svg(panels_svg(panels, 3));
  const std::vector<double>& r = mme["ResNet-50"];
  const std::vector<double>& r8 = mme["ResNet-50 (quantized, INT8)"];
  const std::vector<double>& b = mme["BERT-128"];
  ctx.emit_claims(
      {{"ResNet-50: MME usage grows with the batch (1 = yes)",
        src("resnet50_usage_grows_with_batch"), q("resnet50_usage_grows_with_batch"),
        r.back() > r.front() ? 1.0 : 0.0, ClaimKind::Ordering, "yes"},
       {"quantized ResNet-50: MME usage grows with the batch (1 = yes)",
        src("resnet50_int8_usage_grows_with_batch"), q("resnet50_int8_usage_grows_with_batch"),
        r8.back() > r8.front() ? 1.0 : 0.0, ClaimKind::Ordering, "yes"},
       {"BERT-128: MME usage drops from 8 to 16 batches per cluster (1 = yes)",
        src("bert128_degrades_8_to_16"), q("bert128_degrades_8_to_16"), b[4] < b[3] ? 1.0 : 0.0,
        ClaimKind::Ordering, "yes"}});
}

}  // namespace dgs::graphturbo
