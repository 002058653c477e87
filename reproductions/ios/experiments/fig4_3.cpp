// Fig. 4.3 of the IOS thesis: active warps of Sequential and IOS.
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

void run_fig4_3(ExperimentContext& ctx) {
  const GpuSpec& spec = gpu_and_notes(
      ctx,
      "active warps: the GPU model's time-averaged resident warps (x SMs), not CUPTI samples; "
      "Sequential a,b,c,d vs the thesis' IOS schedule {a,d},{b,c} on the Fig. 1.2 graph, as the "
      "authors' script runs them");
  ctx.note(
      "known deviation (not fitted): the model's IOS/Sequential active-warp ratio is about 1.90x "
      "vs the thesis' 1.58x. Most likely reason: the model counts every resident block's warps "
      "as active for its whole residence, while CUPTI samples warps that are actually issued or "
      "stalled per active cycle (the model already starts a stage's streams staggered by the "
      "host's serial launches)");
  const Network& net = network(ctx, "ios_fig1_2", 1);
  const int a = unit_by_name(net, "block.a"), b = unit_by_name(net, "block.b"),
            c = unit_by_name(net, "block.c"), d = unit_by_name(net, "block.d"),
            cat = unit_by_name(net, "block.concat");
  const IosSchedule seq{
      "Sequential",
      {{false, {{a}}}, {false, {{b}}}, {false, {{c}}}, {false, {{d}}}, {false, {{cat}}}},
      {0}};
  const IosSchedule ios{"IOS", {{false, {{a}, {d}}}, {false, {{b}, {c}}}, {false, {{cat}}}}, {0}};
  Table t({"schedule", "latency_ms", "avg_active_warps_gpu", "active_warps_per_ms_1e8",
           "ratio_vs_sequential"});
  const ScheduleEval es = evaluate_schedule(net, seq, ctx.hardware());
  const ScheduleEval ei = evaluate_schedule(net, ios, ctx.hardware());
  const double ws = es.avg_active_warps_per_sm * spec.sm_count;
  const double wi = ei.avg_active_warps_per_sm * spec.sm_count;
  // warps x ms: the number of resident warps integrated over one millisecond of
  // running, / 1e8, at the SM clock (warp-cycles), the unit of the authors'
  // figure annotation
  const double per_ms = spec.core_clock_mhz * 1e3 / 1e8;
  t.add_row({std::string("Sequential"), es.latency_us / 1e3, ws, ws * per_ms, 1.0});
  t.add_row({std::string("IOS"), ei.latency_us / 1e3, wi, wi * per_ms, wi / ws});
  ctx.emit_table("Fig. 4.3: active warps, Sequential vs IOS (" + spec.name + ")", t);
  BarChart chart{"Fig. 4.3: average active warps on the GPU",
                 "active warps (warps, GPU total, time-averaged)",
                 {"Sequential", "IOS"},
                 {{"ours (GPU model)", {ws, wi}}},
                 false};
  chart.x_label = "schedule";
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims({make_claim(ctx, "active_warps_gain", "IOS / Sequential active warps", wi / ws,
                              ClaimKind::Ratio)});
}

}  // namespace dgs::ios
