// Fig. 9 (throughput at batch 20), Table II (utilisation without memory delay, NoC overhead,
// on-chip reuse) and Fig. 11 (energy at batch 20 by component): LS and AD of ResNet-50 on
// atomic_mesh, KC-P, one shared run (ls_ad_runs.h). CNN-P and IL-Pipe are not implemented yet.
#include <cmath>
#include <sstream>
#include <string>

#include "reproductions/atomic/experiments.h"
#include "reproductions/atomic/ls_ad_runs.h"

namespace dgs::atomic {

namespace {

constexpr int kBatch = 20;
// The networks of the batch-20 items that run in seconds at batch 20 (ResNet-50: 500,540 atoms;
// Inception-v3 would have over two million).
const std::vector<std::string> kBatch20Networks = {"resnet50"};

const char* kSetupNote =
    "batch 20, KC-P, atomic_mesh; LS: each layer split over the 64 engines, samples side by side "
    "(batch mapping), outputs through DRAM; AD: the iterative search's atoms (iterative_search.h), "
    "Rounds by the priority rules (latency "
    "first: later samples only when the current one cannot fill a Round), snake mapping with the "
    "Eq. 2 search, Algorithm 3 buffering with the DSA model's working sets; fold_overhead not "
    "calibrated (0); CNN-P and IL-Pipe not implemented yet";

}  // namespace

void run_fig9(ExperimentContext& ctx) {
  const DsaSpec& spec = ctx.hardware().dsa.value();
  const PaperData paper = ctx.paper_data("fig9.csv");
  Table t({"dataflow", "dnn", "ls_ips", "ad_ips", "ideal_ips", "ad_over_ls"});
  BarChart chart;
  chart.title = "Fig. 9: throughput at batch 20 (KC-P)";
  chart.y_label = "inferences per second";
  chart.x_label = "network";
  Series ls_s{"LS (ours)", {}}, ad_s{"AD (ours)", {}}, ideal_s{"Ideal (MACs / peak)", {}};
  std::vector<double> ratios;
  for (const std::string& net : kBatch20Networks) {
    const LsAdRun& r = ls_ad_run(net, kBatch, spec, ctx.options().seed);
    const double ls = kBatch / (r.ls.result.latency_us * 1e-6);
    const double ad = kBatch / (r.ad.result.latency_us * 1e-6);
    const double ideal = kBatch / (r.ideal_us * 1e-6);
    t.add_row({std::string("kc"), net, ls, ad, ideal, ad / ls});
    chart.categories.push_back(net);
    ls_s.values.push_back(ls);
    ad_s.values.push_back(ad);
    ideal_s.values.push_back(ideal);
    ratios.push_back(ad / ls);
  }
  chart.series = {ls_s, ad_s, ideal_s};
  chart.log_y = true;
  const std::vector<std::pair<std::string, std::string>> key = {{"quantity", "ad_over_cnnp_kc"}};
  const double low = paper.value(key, "low").value_or(NAN);
  const double high = paper.value(key, "high").value_or(NAN);
  std::vector<Claim> claims = {
      {.text = "AD over CNN-P at batch 20, KC-P: the lowest of the paper's networks (ResNet-50 "
               "here)",
       .source = paper.source(key),
       .paper = low,
       .ours = ratios.front(),
       .kind = ClaimKind::Ratio,
       .unit = "x",
       .stand_in = "LS for CNN-P (CNN-P not implemented; the paper has CNN-P above LS everywhere)"},
      {.text = "AD over CNN-P at batch 20, KC-P: the highest of the paper's networks (ResNet-50 "
               "here)",
       .source = paper.source(key),
       .paper = high,
       .ours = ratios.front(),
       .kind = ClaimKind::Ratio,
       .unit = "x",
       .stand_in =
           "LS for CNN-P (CNN-P not implemented; the paper has CNN-P above LS everywhere)"}};
  ctx.note(kSetupNote);
  for (const std::string& net : kBatch20Networks)
    ctx.note(net + ": " + ls_ad_run(net, kBatch, spec, ctx.options().seed).ad_search);
  ctx.note(
      "throughput = 20 / the latency of the whole batch (one batch is the job; the paper "
      "does not say whether it measures a steady state); Ideal = 20 / (MACs / peak)");
  ctx.note(
      "YX-P at batch 20 and the other networks are left out for run time (repro_atomic "
      "--all stays under 3 minutes)");
  ctx.emit_table("Fig. 9: throughput at batch 20", t);
  Table ranges({"dataflow", "paper_ad_over_cnnp_low", "paper_ad_over_cnnp_high"});
  for (const std::string df : {"kc", "yx"}) {
    const std::vector<std::pair<std::string, std::string>> k = {{"quantity", "ad_over_cnnp_" + df}};
    ranges.add_row({df, paper.cell(k, "low"), paper.cell(k, "high")});
  }
  ctx.emit_table("Fig. 9: the paper's AD over CNN-P ranges (its 8 networks)", ranges, "_paper");
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(claims);
}

void run_table2(ExperimentContext& ctx) {
  const DsaSpec& spec = ctx.hardware().dsa.value();
  const PaperData paper = ctx.paper_data("table2.csv");
  Table t({"row", "dnn", "paper", "ours"});
  std::vector<Claim> claims;
  for (const std::string& net : kBatch20Networks) {
    const LsAdRun& r = ls_ad_run(net, kBatch, spec, ctx.options().seed);
    const std::vector<std::pair<std::string, double>> rows = {
        {"ls_util_pct", r.ls.layer_utilisation_pct},
        {"cnnp_util_pct", NAN},
        {"ilpipe_util_pct", NAN},
        {"ad_util_pct", r.ad.layer_utilisation_pct},
        {"ad_noc_overhead_pct", r.ad_noc_overhead_pct},
        {"ad_reuse_pct", r.ad_reuse_pct}};
    for (const auto& [row, ours] : rows) {
      const std::vector<std::pair<std::string, std::string>> key = {{"row", row}};
      t.add_row({row, net, paper.cell(key, net), std::isnan(ours) ? Cell{Missing{}} : Cell{ours}});
      if (std::isnan(ours)) continue;
      claims.push_back({.text = row + " (" + net + ")",
                        .source = paper.text(key, "source").value_or("Table II"),
                        .paper = paper.value(key, net).value_or(NAN),
                        .ours = ours,
                        .kind = ClaimKind::Percentage,
                        .unit = "%"});
    }
  }
  ctx.note(kSetupNote);
  for (const std::string& net : kBatch20Networks)
    ctx.note(net + ": " + ls_ad_run(net, kBatch, spec, ctx.options().seed).ad_search);
  ctx.note(
      "utilisation (the paper: 'averaged among DNN layers w/o memory access delay'): per "
      "convolution/FC layer, MACs / (sum over the Rounds holding its atoms of the Round's "
      "compute-only length (the busiest engine's summed atom cycles) x the engines the "
      "layer uses in that Round x 256 MACs/cycle), averaged over the layers unweighted");
  ctx.note(
      "NoC overhead (the paper: the part of the time the NoC blocks computation): 1 - "
      "latency with the mesh links infinitely wide and no hop latency / latency, same plan");
  ctx.note(
      "on-chip reuse ratio (the paper: the share of data reused on chip rather than stored "
      "off chip): bytes of intermediate outputs (each region once, by the atom holding it) "
      "kept on chip until their last reader / bytes of all intermediate outputs with a "
      "reader; weights not counted");
  ctx.note("CNN-P and IL-Pipe rows: not implemented yet (paper values shown)");
  ctx.emit_table("Table II: utilisation, NoC overhead, on-chip reuse (batch 20)", t);
  const std::vector<std::string> nets = {"vgg19",           "resnet50",     "resnet152",
                                         "inception_v3",    "nasnet_large", "pnasnet5_large",
                                         "efficientnet_b0", "resnet1001"};
  std::vector<std::string> columns = {"row"};
  for (const std::string& n : nets) columns.push_back("paper_" + n);
  Table printed(columns);
  for (const std::string row : {"ls_util_pct", "cnnp_util_pct", "ilpipe_util_pct", "ad_util_pct",
                                "ad_noc_overhead_pct", "ad_reuse_pct"}) {
    std::vector<Cell> cells = {row};
    for (const std::string& n : nets) cells.push_back(paper.cell({{"row", row}}, n));
    printed.add_row(cells);
  }
  ctx.emit_table("Table II as the paper prints it (networks we do not run yet included)", printed,
                 "_paper");
  ctx.emit_claims(claims);
}

void run_fig11(ExperimentContext& ctx) {
  const DsaSpec& spec = ctx.hardware().dsa.value();
  Table t({"dnn", "strategy", "total_mj", "mac_mj", "sram_mj", "noc_mj", "hbm_mj", "static_mj"});
  BarChart chart;
  chart.title = "Fig. 11: energy at batch 20 by component (KC-P, ours; the paper prints no values)";
  chart.y_label = "energy (mJ)";
  chart.x_label = "network / strategy";
  const std::vector<std::string> parts = {"mac", "sram", "noc", "hbm", "static"};
  std::vector<Series> series;
  for (const std::string& p : parts) series.push_back({p, {}});
  std::vector<Claim> claims;
  for (const std::string& net : kBatch20Networks) {
    const LsAdRun& r = ls_ad_run(net, kBatch, spec, ctx.options().seed);
    for (const auto& [name, run] :
         {std::pair<std::string, const StrategyRun*>{"LS", &r.ls}, {"AD", &r.ad}}) {
      std::vector<Cell> row = {net, name};
      double total = 0;
      std::vector<double> mj;
      for (const std::string& p : parts) {
        mj.push_back(value_of(run->result.energy_pj_by_component, p) * 1e-9);
        total += mj.back();
      }
      row.push_back(total);
      for (size_t i = 0; i < parts.size(); ++i) {
        row.push_back(mj[i]);
        series[i].values.push_back(mj[i]);
      }
      t.add_row(row);
      chart.categories.push_back(net + " " + name);
    }
    const double ls = [&] {
      double e = 0;
      for (const auto& [k, v] : r.ls.result.energy_pj_by_component) e += v;
      return e;
    }();
    double ad = 0;
    for (const auto& [k, v] : r.ad.result.energy_pj_by_component) ad += v;
    claims.push_back(
        {.text = "AD below LS in energy (1 = yes; the paper: IL-Pipe and AD the most efficient "
                 "of the four strategies) (" +
                 net + ")",
         .source = "Sec. V-B (Fig. 11 text)",
         .paper = 1,
         .ours = ad < ls ? 1.0 : 0.0,
         .kind = ClaimKind::Ordering,
         .unit = "yes/no"});
  }
  chart.series = series;
  ctx.note(kSetupNote);
  for (const std::string& net : kBatch20Networks)
    ctx.note(net + ": " + ls_ad_run(net, kBatch, spec, ctx.options().seed).ad_search);
  auto num = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  ctx.note("components from the DSA model (" + spec.name + "; sources in the config): MAC " +
           num(spec.mac_pj) + " pJ, SRAM " + num(spec.local_pj_per_bit) + " pJ/bit, NoC " +
           num(spec.noc_pj_per_bit_hop) + " pJ/bit/hop, HBM " + num(spec.dram_pj_per_bit) +
           " pJ/bit, static " + num(spec.static_mw_per_unit) +
           " mW per engine; the paper compares with IL-Pipe, which is not implemented yet");
  ctx.emit_table("Fig. 11: energy at batch 20", t);
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(claims);
}

}  // namespace dgs::atomic
