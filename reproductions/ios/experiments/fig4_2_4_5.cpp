// Figs. 4.2 and 4.5 of the IOS thesis: IOS against the frameworks (V100, RTX 2080 Ti).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "models/zoo.h"
#include "reproductions/ios/experiments/experiments.h"
#include "reproductions/ios/experiments/measured.h"
#include "reproductions/ios/experiments/runs.h"

namespace dgs::ios {

namespace {

// Fig. 4.2 / 4.5: frameworks. Only what the suite has is computed.
void frameworks_figure(ExperimentContext& ctx, bool with_paper, const std::string& title) {
  const GpuSpec& spec = ctx.gpu();
  common_notes(ctx, spec);
  ctx.note(
      "the suite has no TensorFlow, TF-XLA, TASO, TVM or TensorRT: their bars "
      "are the paper's "
      "and marked 'not reproduced'; 'Sequential (cuDNN-class)' is the suite's "
      "stand-in for a "
      "framework running the operators one by one with cuDNN-class kernels");
  const PaperData p = ctx.paper_data("fig4_2.csv");
  const std::vector<std::string> frameworks = {"TensorFlow", "TensorFlow-XLA", "TASO",
                                               "TVM-cuDNN",  "TensorRT",       "IOS"};
  Table t({"model", "framework", "latency_ms", "paper_latency_ms", "ios_speedup",
           "paper_ios_speedup", "status"});
  const std::vector<std::string> models = evaluation_models(ctx);
  ctx.progress("the IOS-Both searches of " + std::to_string(models.size()) +
               " networks, one per CPU at a time");
  prefetch_searches(ctx, models, 1, spec, {"IOS-Both"});
  for (const std::string& m : models) {
    const double seq =
        latency_ms(ctx, m, 1, ctx.hardware(), schedule_for(ctx, m, 1, spec, "Sequential").schedule);
    const double ios =
        latency_ms(ctx, m, 1, ctx.hardware(), schedule_for(ctx, m, 1, spec, "IOS-Both").schedule);
    const auto pios =
        with_paper ? p.value({{"model", m}, {"framework", "IOS"}}, "latency_ms") : std::nullopt;
    for (const std::string& f : frameworks) {
      const auto pv =
          with_paper ? p.value({{"model", m}, {"framework", f}}, "latency_ms") : std::nullopt;
      const std::optional<double> psp =
          pv && pios ? std::optional<double>(*pv / *pios) : std::nullopt;
      if (f == "IOS") {
        t.add_row({m, f, ios, cell(pv), 1.0, cell(psp), std::string("reproduced (GPU model)")});
      } else {
        t.add_row({m, f, Missing{}, cell(pv), Missing{}, cell(psp), std::string("not reproduced")});
      }
    }
    t.add_row({m, std::string("Sequential (cuDNN-class)"), seq, Missing{}, seq / ios, Missing{},
               std::string("suite stand-in (GPU model)")});
  }
  ctx.emit_table(title, t);
  BarChart chart;
  chart.title = title + " (paper bars; ours: the Sequential stand-in vs IOS)";
  chart.y_label = "throughput normalised to IOS";
  for (const std::string& m : evaluation_models(ctx)) chart.categories.push_back(m);
  for (const std::string& f : frameworks) {
    Series s{f + " (paper)", {}};
    for (const std::string& m : evaluation_models(ctx)) {
      const auto pv =
          with_paper ? p.value({{"model", m}, {"framework", f}}, "latency_ms") : std::nullopt;
      const auto pi =
          with_paper ? p.value({{"model", m}, {"framework", "IOS"}}, "latency_ms") : std::nullopt;
      s.values.push_back(pv && pi ? *pi / *pv : kNaN);
    }
    chart.series.push_back(s);
  }
  Series ours{"Sequential stand-in (ours)", {}};
  for (const std::string& m : evaluation_models(ctx)) {
    const double seq =
        latency_ms(ctx, m, 1, ctx.hardware(), schedule_for(ctx, m, 1, spec, "Sequential").schedule);
    const double ios =
        latency_ms(ctx, m, 1, ctx.hardware(), schedule_for(ctx, m, 1, spec, "IOS-Both").schedule);
    ours.values.push_back(ios / seq);
  }
  chart.series.push_back(ours);
  chart.x_label = "network";
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.note(
      "no claim of this figure is checked: the 1.1-1.5x over TASO, TVM-cuDNN and TensorRT needs "
      "those frameworks, which the suite does not have");
}

}  // namespace

void run_fig4_2(ExperimentContext& ctx) {
  frameworks_figure(ctx, true, "Fig. 4.2: frameworks on " + ctx.gpu().name + ", batch 1");
}

void run_fig4_5(ExperimentContext& ctx) {
  ctx.note("the thesis prints no per-bar values for Fig. 4.5");
  frameworks_figure(ctx, false, "Fig. 4.5: frameworks on " + ctx.gpu().name + ", batch 1");
}

}  // namespace dgs::ios
