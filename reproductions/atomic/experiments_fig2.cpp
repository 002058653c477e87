// Fig. 2: layer-sequential (LS) PE utilisation per layer, batch 1, compute only (the paper does
// not count communication here), on the 8 x 8 mesh of 16 x 16 PEs.
#include <cmath>

#include "common/graph/graph.h"
#include "models/zoo.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/baselines.h"
#include "reproductions/atomic/experiments.h"

namespace dgs::atomic {

namespace {

// The networks of Fig. 2, by zoo name (EfficientNet-B0 is not in the zoo yet).
const std::vector<std::string> kFig2Networks = {"resnet50", "inception_v3", "nasnet_large",
                                                "efficientnet_b0"};

}  // namespace

void run_fig2(ExperimentContext& ctx) {
  const DsaSpec& spec = ctx.hardware().dsa.value();
  const PaperData paper = ctx.paper_data("fig2.csv");
  Table layers_table({"dnn", "layer", "op", "macs", "cycles", "util_pct"});
  Table summary({"dnn", "layers", "paper_avg_util_pct", "ours_avg_util_pct"});
  std::vector<Claim> claims;
  BarChart chart;
  chart.title = "Fig. 2: LS layer-averaged PE utilisation (batch 1, compute only)";
  chart.y_label = "utilisation (%)";
  chart.x_label = "network";
  Series paper_series{"paper", {}}, ours_series{"ours", {}};
  for (const std::string& net : kFig2Networks) {
    const std::optional<double> paper_avg = paper.value({{"dnn", net}}, "avg_util_pct");
    chart.categories.push_back(net);
    paper_series.values.push_back(paper_avg.value_or(NAN));
    if (!is_zoo_model(net)) {
      summary.add_row({net, Missing{}, paper.cell({{"dnn", net}}, "avg_util_pct"), Missing{}});
      ours_series.values.push_back(NAN);
      ctx.note(net + ": not in the model zoo yet; no value");
      continue;
    }
    const Graph g = build_zoo_model(net, {.batch = 1});
    const std::vector<Layer> layers = graph_layers(g);
    const AtomicDag dag = build_atomic_dag(g, ls_shapes(layers, spec, 1), spec);
    const std::vector<LayerUtilisation> util = layer_utilisation(dag, ls_schedule(dag, spec), spec);
    double sum = 0;
    for (const LayerUtilisation& u : util) {
      const Layer& l = dag.layers[static_cast<size_t>(u.layer)];
      layers_table.add_row({net, static_cast<int64_t>(u.layer), g.op(l.op).name, u.macs, u.cycles,
                            100 * u.utilisation});
      sum += 100 * u.utilisation;
    }
    const double avg = util.empty() ? 0 : sum / static_cast<double>(util.size());
    summary.add_row(
        {net, static_cast<int64_t>(util.size()), paper.cell({{"dnn", net}}, "avg_util_pct"), avg});
    ours_series.values.push_back(avg);
    if (paper_avg) {
      claims.push_back({.text = net + ": LS layer-averaged PE utilisation",
                        .source = paper.source({{"dnn", net}}),
                        .paper = *paper_avg,
                        .ours = avg,
                        .kind = ClaimKind::Percentage,
                        .unit = "%"});
    }
  }
  chart.series = {paper_series, ours_series};
  ctx.note(
      "utilisation of a layer = its MACs / (sum over its Rounds of the busiest engine's "
      "compute cycles x 64 engines x 256 MACs/cycle); the average is over convolution and "
      "FC layers, unweighted (the paper: 'layer-averaged')");
  ctx.note(
      "LS split: each layer's output channels first (multiples of the 16 PE columns), then "
      "rows, then columns, into 64 even parts; KC-P; engine cycles from the shared unit cost "
      "(folds x (streamed rows + fill/drain 30 + fold_overhead))");
  ctx.note("fold_overhead = " + std::to_string(spec.fold_overhead_cycles) +
           " cycles: NOT calibrated (the config's assumption); the claims are checked, not "
           "calibration points");
  ctx.emit_table("Fig. 2: LS utilisation per layer", layers_table, "_layers");
  ctx.emit_table("Fig. 2: layer-averaged LS utilisation", summary);
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(claims);
}

}  // namespace dgs::atomic
