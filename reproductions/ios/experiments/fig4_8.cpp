// Fig. 4.8 of the IOS thesis: block-wise speedups of IOS over Sequential on Inception V3.
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

void run_fig4_8(ExperimentContext& ctx) {
  const GpuSpec& spec = ctx.gpu();
  common_notes(ctx, spec);
  const std::string m = ctx.options().model.empty() ? "inception_v3" : ctx.options().model;
  const Network& net = network(ctx, m, 1);
  const IosSchedule& seq = schedule_for(ctx, m, 1, spec, "Sequential").schedule;
  const IosSchedule& ios = schedule_for(ctx, m, 1, spec, "IOS-Both").schedule;
  const ScheduleEval es = evaluate_schedule(net, seq, ctx.hardware());
  const ScheduleEval ei = evaluate_schedule(net, ios, ctx.hardware());
  ctx.note(
      "per block: the sum of the block's stage latencies (including the "
      "synchronisations after "
      "them) in the end-to-end run");
  Table t({"block", "units", "sequential_ms", "ios_ms", "speedup"});
  BarChart chart{"Fig. 4.8: blockwise speedup of IOS over Sequential (" + m + ")",
                 "speedup over Sequential (x)",
                 {},
                 {},
                 false};
  Series sp{"ours (GPU model)", {}};
  double max_speedup = 0;
  for (size_t pi = 0; pi < net.parts.size(); ++pi) {
    auto span = [&](const IosSchedule& s, const ScheduleEval& e) {
      const size_t b = static_cast<size_t>(s.part_first_stage[pi]);
      const size_t end = pi + 1 < net.parts.size() ? static_cast<size_t>(s.part_first_stage[pi + 1])
                                                   : s.stages.size();
      double v = 0;
      for (size_t i = b; i < end; ++i) v += e.stage_us[i];
      return v / 1e3;
    };
    const double a = span(seq, es), b = span(ios, ei);
    t.add_row({net.parts[pi].block, static_cast<int64_t>(net.parts[pi].units.size()), a, b, a / b});
    chart.categories.push_back(std::to_string(pi));
    sp.values.push_back(a / b);
    max_speedup = std::max(max_speedup, a / b);
  }
  t.add_row({std::string("end-to-end"), static_cast<int64_t>(net.units.size()), es.latency_us / 1e3,
             ei.latency_us / 1e3, es.latency_us / ei.latency_us});
  // The thesis prints the largest block speedup and the end-to-end one: drawn beside ours.
  chart.categories.push_back("largest");
  sp.values.push_back(max_speedup);
  chart.categories.push_back("end-to-end");
  sp.values.push_back(es.latency_us / ei.latency_us);
  Series paper{"paper (§4.6.3)", std::vector<double>(chart.categories.size(), kNaN)};
  if (m == "inception_v3") {
    paper.values[paper.values.size() - 2] = claim_value(ctx, "blockwise_max_speedup");
    paper.values.back() = claim_value(ctx, "end_to_end_speedup_inception");
  }
  chart.series = {sp, paper};
  chart.reference_y = 1.0;
  ctx.emit_table("Fig. 4.8: blockwise speedup, " + m + " (" + spec.name + ")", t);
  chart.x_label = "block (index in the network), largest block, end-to-end";
  ctx.emit_svg(bar_chart_svg(chart));
  if (m != "inception_v3") {  // the thesis' claims are Inception V3's
    ctx.note("no claim is checked: the thesis' claims are for Inception V3, not " +
             model_display_name(m));
    return;
  }
  ctx.emit_claims({make_claim(ctx, "blockwise_max_speedup", "largest block speedup", max_speedup,
                              ClaimKind::Ratio),
                   make_claim(ctx, "end_to_end_speedup_inception", "end-to-end speedup",
                              es.latency_us / ei.latency_us, ClaimKind::Ratio)});
}

}  // namespace dgs::ios
