// Fig. 14: input-size sweep.
#include <map>

#include "common/report/report.h"
#include "common/util/parallel_for.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

void run_fig14(ExperimentContext& ctx) {
  const WelderArch arch = noted_experiment_arch(ctx, false);
  ctx.note(
      "sweep points (not given by the paper): BERT and Conformer 128/256/512, NAFNet "
      "256/512/1024; batch 1, FP32 (the paper states neither)");
  struct Sweep {
    std::string label, zoo;
    bool image;
  };
  const std::vector<Sweep> sweeps = {
      {"BERT", "bert_base", false}, {"Conformer", "conformer", false}, {"NAFNet", "nafnet", true}};
  Table t({"model", "size", "welder_base_ms", "welder_ms", "speedup"});
  struct Point {
    const Sweep* sweep;
    int64_t size;
  };
  std::vector<Point> points;
  for (const auto& s : sweeps)
    for (int64_t size :
         s.image ? std::vector<int64_t>{256, 512, 1024} : std::vector<int64_t>{128, 256, 512})
      points.push_back({&s, size});
  // Each point's Welder-base and Welder latencies, one point per CPU at a time (each its own
  // tile-graph and memo; into its own slot, so the table does not depend on which ends first).
  const auto latencies =
      parallel_map(static_cast<int64_t>(points.size()), available_cpus(), [&](int64_t i) {
        const Point& p = points[static_cast<size_t>(i)];
        ZooOptions zo;
        (p.sweep->image ? zo.image_size : zo.seq_len) = p.size;
        const TileGraph tg = model_tile_graph(p.sweep->zoo, zo);
        const auto r = run_variants(tg, arch, {Variant::Base, Variant::Welder});
        return std::pair<double, double>(evaluated_latency_ms(tg, r[0], arch),
                                         evaluated_latency_ms(tg, r[1], arch));
      });
  std::map<std::string, std::vector<double>> gains;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto [base_ms, welder_ms] = latencies[i];
    const double g = base_ms / welder_ms;
    gains[points[i].sweep->label].push_back(g);
    t.add_row({points[i].sweep->label, points[i].size, base_ms, welder_ms, g});
  }
  ctx.emit_table("Figure 14 - Welder over Welder-base vs input size (model mode)", t);
  BarChart chart;
  chart.title = "Fig. 14: Welder over Welder-base vs input size (" + arch.name + ")";
  chart.y_label = "speedup over Welder-base (x)";
  chart.x_label = "input size (BERT, Conformer: sequence length; NAFNet: image side)";
  chart.reference_y = 1.0;
  for (const auto& s : sweeps) chart.categories.push_back(s.label);
  const char* size_names[3] = {"smallest: 128 / 256x256 (ours)", "middle: 256 / 512x512 (ours)",
                               "largest: 512 / 1024x1024 (ours)"};
  for (size_t i = 0; i < 3; ++i) {
    Series ser{size_names[i], {}};
    for (const auto& s : sweeps) ser.values.push_back(gains[s.label][i]);
    chart.series.push_back(ser);
  }
  ctx.emit_svg(bar_chart_svg(chart));
  auto trend = [&](const std::string& m) { return gains[m].back() - gains[m].front(); };
  ctx.emit_claims({{"NAFNet: fusion gain grows with image size (gain at 1024^2 minus at 256^2 > 0)",
                    "§5.2 sensitivity study (Fig. 14)", 1, trend("NAFNet") > 0 ? 1.0 : 0.0,
                    ClaimKind::Ordering, "1=yes"},
                   {"BERT: fusion gain shrinks with sequence length (512 minus 128 < 0)",
                    "§5.2 sensitivity study (Fig. 14)", 1, trend("BERT") < 0 ? 1.0 : 0.0,
                    ClaimKind::Ordering, "1=yes"},
                   {"Conformer: fusion gain shrinks with frames (512 minus 128 < 0)",
                    "§5.2 sensitivity study (Fig. 14)", 1, trend("Conformer") < 0 ? 1.0 : 0.0,
                    ClaimKind::Ordering, "1=yes"}});
}

}  // namespace dgs::welder
