// Fig. 4.7 of the IOS thesis: schedules of the last Inception V3 block specialised for batch 1
// and 32.
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

// The latency of `block`, a schedule of part `part` of `net` alone, as a part of a plan of the
// whole network: the other parts' units one stage each (Sequential's stages), the block's stages
// in the part's place; the plan is checked and priced by evaluate() and the latencies of the
// block's stages (each with the synchronisation after it) are summed. (The GPU model prices
// stages independently, so this is the block's latency alone.)
double block_latency_us(const Network& net, const Part& part, const IosSchedule& block,
                        const HardwareSpec& hw) {
  IosSchedule whole;
  whole.name = block.name;
  size_t first = 0;
  bool found = false;
  for (const Part& p : net.parts) {
    whole.part_first_stage.push_back(static_cast<int>(whole.stages.size()));
    if (!found && p.units == part.units) {
      found = true;
      first = whole.stages.size();
      whole.stages.insert(whole.stages.end(), block.stages.begin(), block.stages.end());
    } else {
      for (int u : p.units) whole.stages.push_back(IosStage{false, {{u}}});
    }
  }
  if (!found) throw Error("IOS: block '" + part.block + "' is not a part of the network");
  const ScheduleEval e = evaluate_schedule(net, whole, hw);
  double us = 0;
  for (size_t i = first; i < first + block.stages.size(); ++i) us += e.stage_us[i];
  return us;
}

}  // namespace

void run_fig4_7(ExperimentContext& ctx) {
  const GpuSpec& spec = ctx.gpu();
  common_notes(ctx, spec);
  const std::string m = "inception_v3";
  const Network& net1 = network(ctx, m, 1);
  const Part& last = [&]() -> const Part& {
    for (auto it = net1.parts.rbegin(); it != net1.parts.rend(); ++it)
      if (it->units.size() > 1) return *it;
    return net1.parts.back();
  }();
  ctx.note(
      "the last Inception block (Mixed_7c, Inception-E) scheduled alone "
      "by the DP at batch 1 and "
      "batch 32; stage counts include the Concat's stage");
  Table t({"optimized_for", "stage", "strategy", "groups"});
  std::map<int64_t, IosSchedule> block_sched;
  for (int64_t bs : {1, 32}) {
    const Network& net = network(ctx, m, bs);
    Network one = net;
    one.parts = {last};
    const SearchResult r = fresh_search(one, spec, StrategySet::Both, Pruning{});
    block_sched[bs] = r.schedule;
    for (size_t i = 0; i < r.schedule.stages.size(); ++i) {
      const IosStage& st = r.schedule.stages[i];
      t.add_row({static_cast<int64_t>(bs), static_cast<int64_t>(i + 1),
                 std::string(st.merge && st.num_units() > 1 ? "operator merge" : "concurrent"),
                 describe_stage(net, st)});
    }
  }
  ctx.emit_table("Fig. 4.7: schedules of the last Inception V3 block", t);
  Table x({"schedule", "run_at_batch", "latency_ms"});
  double lat[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      const int64_t opt = i == 0 ? 1 : 32, run = j == 0 ? 1 : 32;
      lat[i][j] =
          block_latency_us(network(ctx, m, run), last, block_sched[opt], ctx.hardware()) / 1e3;
      x.add_row({"optimized for " + std::to_string(opt), static_cast<int64_t>(run), lat[i][j]});
    }
  ctx.emit_table("Fig. 4.7: cross-evaluation of the two block schedules", x, "_cross");
  BarChart chart;
  chart.title = "Fig. 4.7: gain of the specialised schedule of the last Inception V3 block";
  chart.y_label = "mismatched / specialised latency (x)";
  chart.x_label = "batch size the block runs at";
  chart.categories = {"batch 1", "batch 32"};
  chart.reference_y = 1.0;
  chart.series = {{"ours (GPU model)", {lat[1][0] / lat[0][0], lat[0][1] / lat[1][1]}},
                  {"paper (§4.6.2)",
                   {claim_value(ctx, "fig4_7_bs1_gain"), claim_value(ctx, "fig4_7_bs32_gain")}}};
  ctx.emit_svg(bar_chart_svg(chart));
  auto nonconcat = [&](const IosSchedule& s) {
    return static_cast<double>(s.stages.size()) - 1.0;  // without the Concat's own stage
  };
  ctx.emit_claims(
      {make_claim(ctx, "fig4_7_bs1_stages", "stages of the batch-1 schedule (without the Concat)",
                  nonconcat(block_sched[1]), ClaimKind::Count),
       make_claim(ctx, "fig4_7_bs32_stages", "stages of the batch-32 schedule (without the Concat)",
                  nonconcat(block_sched[32]), ClaimKind::Count),
       make_claim(ctx, "fig4_7_bs1_gain", "batch-1 schedule's gain at batch 1",
                  lat[1][0] / lat[0][0], ClaimKind::Ratio),
       make_claim(ctx, "fig4_7_bs32_gain", "batch-32 schedule's gain at batch 32",
                  lat[0][1] / lat[1][1], ClaimKind::Ratio)});
}

}  // namespace dgs::ios
