// Fig. 1: compute and memory-bandwidth utilisation of unfused execution.
#include "common/report/report.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

namespace {

const char* const kOnnxRuntimeStandIn =
    "the suite's unfused plan (Welder-none) under the GPU model for ONNX Runtime";

}  // namespace

void run_fig1(ExperimentContext& ctx) {
  const WelderArch arch = noted_experiment_arch(ctx, false);
  ctx.note(
      "ONNX Runtime is not available: utilisation is that of the suite's unfused plan "
      "(Welder-none) under the GPU model: FLOPs / (latency x peak) and compulsory DRAM "
      "bytes / (latency x bandwidth), per model (bs 64 where the artifact uses it, else 1)");
  Table t({"model", "batch", "compute_util_pct", "memory_util_pct"});
  std::vector<ZooVariantsCase> cases;  // scheduled one per CPU at a time, then read in order
  for (const auto& m : kTable2) {
    if (m.zoo.empty()) continue;
    ZooOptions zo;
    zo.batch = m.batch64 ? 64 : 1;
    cases.push_back({m.zoo, zo, arch, {Variant::None}, m.label});
  }
  prefetch_zoo_variants(cases, ctx.progress_fn());
  double sc = 0, sm = 0;
  int n = 0;
  for (const auto& m : kTable2) {
    if (m.zoo.empty()) continue;
    ZooOptions zo;
    zo.batch = m.batch64 ? 64 : 1;
    const TileGraph& tg = zoo_tile_graph(m.zoo, zo);
    ScheduleOptions o;
    o.variant = Variant::None;
    const Schedule& s = zoo_schedule(m.zoo, zo, arch, o);
    double flops = 0, bytes = 0;
    for (const auto& op : tg.ops) flops += op.flops;
    for (const auto& g : s.groups)
      if (g.result.launches) bytes += g.result.best.unique_bytes;
    const double sec = zoo_latency_ms(m.zoo, zo, arch, o) / 1000;
    const double cu = 100 * flops / (sec * arch.peak_tflops * 1e12);
    const double mu = 100 * bytes / (sec * arch.dram_gbs * 1e9);
    sc += cu;
    sm += mu;
    ++n;
    t.add_row({m.label, zo.batch, cu, mu});
  }
  ctx.emit_table("Figure 1 - compute and memory utilisation of unfused execution (model mode)", t);
  const PaperData pd = ctx.paper_data("fig1.csv");
  const double pc = *pd.value({{"quantity", "compute_util"}}, "value");
  const double pm = *pd.value({{"quantity", "memory_util"}}, "value");
  BarChart chart{"Fig. 1: average utilisation of unfused execution (" + arch.name + ")",
                 "utilisation (% of peak)",
                 {"compute (FLOP/s)", "memory bandwidth"},
                 {{"ours (Welder-none, GPU model)", {sc / n, sm / n}},
                  {"paper (ONNX Runtime, measured)", {pc, pm}}}};
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(
      {stand_in_claim({"average compute utilisation", pd.source({{"quantity", "compute_util"}}), pc,
                       sc / n, ClaimKind::Percentage, "%"},
                      kOnnxRuntimeStandIn),
       stand_in_claim(
           {"average memory-bandwidth utilisation", pd.source({{"quantity", "memory_util"}}), pm,
            sm / n, ClaimKind::Percentage, "%"},
           kOnnxRuntimeStandIn)});
}

}  // namespace dgs::welder
