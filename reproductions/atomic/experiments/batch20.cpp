// Fig. 9 (throughput at batch 20), Table II (utilisation without memory delay, NoC overhead,
// on-chip reuse) and Fig. 11 (energy at batch 20 by component): LS, CNN-P, IL-Pipe and AD of
// ResNet-50 and Inception-v3 on atomic_mesh, KC-P (Fig. 9 also YX-P, ResNet-50), one shared run
// each (ls_ad_runs.h, partition_runs.h).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/run_cache.h"
#include "common/util/error.h"
#include "common/util/parallel_for.h"
#include "reproductions/atomic/baselines.h"
#include "reproductions/atomic/experiments/experiments.h"
#include "reproductions/atomic/experiments/ls_ad_runs.h"
#include "reproductions/atomic/experiments/partition_runs.h"
#include "reproductions/atomic/paper_networks.h"

namespace dgs::atomic {

namespace {

constexpr int kBatch = 20;

const char* kSetupNote =
    "batch 20, KC-P, atomic_mesh; LS: each layer split over the 64 engines, samples side by side "
    "(batch mapping), a layer's output through DRAM (what a layer is: the LS line below); AD: the "
    "iterative search's atoms (iterative_search.h), "
    "Rounds by the priority rules (latency "
    "first: later samples only when the current one cannot fill a Round), snake mapping with the "
    "Eq. 2 search, Algorithm 3 buffering with the DSA model's working sets; fold_overhead not "
    "calibrated (0)";

// What the items read of one strategy's run (its atoms and schedule are not kept: at batch 20 a
// network's atomic DAGs take gigabytes).
struct StrategySummary {
  EvaluationResult result;
  int64_t steps = 0;     // pipeline steps (LS: layers; AD: Rounds)
  ComputeBounds bounds;  // compute_bounds of its schedule (partition_runs.h)
  double layer_utilisation_pct = 0;
  UtilisationFactors factors;  // of the utilisation (baselines.h), for Table II's notes
};
StrategySummary summary_of(const StrategyRun& r, const DsaSpec& spec) {
  return {r.result, static_cast<int64_t>(r.schedule.rounds.size()),
          compute_bounds(r.dag, r.schedule, spec.units()), r.layer_utilisation_pct,
          utilisation_factors(r.dag, r.schedule, spec)};
}
// "rounds / engines / array" of a summary's utilisation factors, two decimals.
std::string factors_note(const StrategySummary& s) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(2);
  o << s.factors.rounds << " / " << s.factors.engines << " / " << s.factors.array;
  return o.str();
}

// Fig. 9's note on its breakdown table: what each step between the bounds is, and why.
const char* kTimePartsNote =
    "where the time goes (the breakdown table; balanced_us <= busiest_engine_us <= "
    "compute_bound_us <= latency_us, all without communication but the last): balanced = "
    "every atom's engine cycles spread over the 64 engines (about the same for LS and CNN-P); "
    "uneven engines = what the busiest engine runs beyond that (LS: 20 samples x 4 pieces of "
    "a layer dealt round 64 engines, 16 running two; CNN-P: CLPs sized by the cycles of one "
    "sample of their layers on one engine, while a layer split over n engines does not take "
    "1/n of them, its thinner slices filling and draining more and more often port-bound); "
    "barriers = what a barrier per step adds to that (CNN-P: each step lasts as long as the "
    "CLP whose layer matches it least, the paper's mismatch: 'the segment length is "
    "determined by the slowest CLP'); transfers not hidden = the latency less the compute "
    "bound (every CNN-P layer's input and output through DRAM and through each engine's 8 "
    "B/cycle port, which the array's operands also use: the paper's off-chip accesses that "
    "'cannot be completely overlapped by double buffering'). These are what CNN-P does on "
    "this machine, not choices tuned here: its uneven CLPs and per-step barriers cost more "
    "than LS's uneven batch mapping while its transfers take about as long as LS's, so it "
    "comes out near LS, not above it, where the paper has it above. On EfficientNet-B0 the CLPs, "
    "sized by compute, "
    "give the cheap 1x1 layers of its wide early feature maps a few engines whose ports "
    "carry each sample's activations";

// A summary's batch time as the steps between fig9_breakdown's bounds, in ms: its work spread
// over every engine, + what its busiest engine runs beyond that, + what the barriers between its
// steps add to that, + the transfers its steps do not hide (the latency less the compute bound).
std::string time_parts_note(const StrategySummary& s, double clock_mhz) {
  const double ms = 1e-3 / clock_mhz;  // per cycle
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << s.bounds.balanced * ms << " + " << (s.bounds.busiest_engine - s.bounds.balanced) * ms
    << " + " << (s.bounds.per_round - s.bounds.busiest_engine) * ms << " + "
    << s.result.latency_us * 1e-3 - s.bounds.per_round * ms << " = " << s.result.latency_us * 1e-3;
  return o.str();
}

// LS, CNN-P, IL-Pipe and AD of one network at batch 20, or why the DSA model refuses one of
// their plans; computed once per (network, config) for the three items (refusals included).
struct Batch20Run {
  StrategySummary ls, cnnp, ilpipe, ad;
  double ideal_us = 0, ad_noc_overhead_pct = 0, ad_reuse_pct = 0;
  std::string ad_search;
  std::string refused;  // non-empty: the model's refusal
};

// The two independent parts of a run: LS and AD (one after the other: side by side their atomic
// DAGs, plans and simulations double the peak memory), and CNN-P and IL-Pipe. Each holds its
// strategies or its first refusal.
Batch20Run ls_ad_part(const std::string& net, const DsaSpec& spec, uint64_t seed) {
  Batch20Run r;
  try {
    // The NoC overhead only where Table II reads it (KC-P; Fig. 9's YX-P runs do not).
    const LsAdRun run =
        compute_ls_ad_run(net, kBatch, spec, seed, spec.dataflow == DsaDataflow::KC);
    r.ls = summary_of(run.ls, spec);
    r.ad = summary_of(run.ad, spec);
    r.ideal_us = run.ideal_us;
    r.ad_noc_overhead_pct = run.ad_noc_overhead_pct;
    r.ad_reuse_pct = run.ad_reuse_pct;
    r.ad_search = run.ad_search;
  } catch (const Error& e) {
    r.refused = e.what();
  }
  return r;
}
Batch20Run partition_part(const std::string& net, const DsaSpec& spec) {
  Batch20Run r;
  try {
    const PartitionRuns p = compute_partition_runs(net, kBatch, spec);
    r.cnnp = summary_of(p.cnnp, spec);
    r.ilpipe = summary_of(p.ilpipe, spec);
  } catch (const Error& e) {
    r.refused = e.what();
  }
  return r;
}
// The run from its parts; a refusal is LS's or AD's first, then CNN-P's or IL-Pipe's (as when the
// four run in that order and the first refusal stops them).
Batch20Run joined(Batch20Run ls_ad, const Batch20Run& partitions) {
  const std::string& refusal = !ls_ad.refused.empty() ? ls_ad.refused : partitions.refused;
  if (!refusal.empty()) {
    Batch20Run r;
    r.refused = "the DSA model refuses a plan (" + refusal + ")";
    return r;
  }
  ls_ad.cnnp = partitions.cnnp;
  ls_ad.ilpipe = partitions.ilpipe;
  return ls_ad;
}

RunCache<std::pair<std::string, std::string>, Batch20Run> batch20_cache;

const Batch20Run& batch20_run(const std::string& net, const DsaSpec& spec, uint64_t seed) {
  return batch20_cache.get(std::make_pair(net, spec.name), [&] {
    Batch20Run ls_ad = ls_ad_part(net, spec, seed);
    // A refused LS or AD is the run's refusal whatever CNN-P and IL-Pipe give (joined).
    const Batch20Run partitions = ls_ad.refused.empty() ? partition_part(net, spec) : Batch20Run{};
    return joined(std::move(ls_ad), partitions);
  });
}

// The dataflows whose batch-20 runs the item (`own`) and the later items of this invocation
// (RunOptions::items) read, KC-P first: Table II and Fig. 11 read KC-P's, Fig. 9 KC-P's and
// YX-P's. The three items run on the same machine (their default, atomic_mesh, or --hw), so the
// first of them to run computes every one's runs in one pool, where the last parts of one
// item's networks run beside another's instead of each item's last part alone on one CPU.
std::vector<DsaDataflow> batch20_dataflows(const ExperimentContext& ctx,
                                           std::initializer_list<DsaDataflow> own) {
  const std::vector<std::string>& items = ctx.options().items;
  const auto runs = [&](const char* id) {
    return std::find(items.begin(), items.end(), id) != items.end();
  };
  const auto needs = [&](DsaDataflow df) {
    if (std::find(own.begin(), own.end(), df) != own.end()) return true;
    if (df == DsaDataflow::KC) return runs("table2") || runs("fig9") || runs("fig11");
    return runs("fig9");
  };
  std::vector<DsaDataflow> dfs;
  for (const DsaDataflow df : {DsaDataflow::KC, DsaDataflow::YX})
    if (needs(df)) dfs.push_back(df);
  return dfs;
}

// Computes the runs on `base` with each of `dfs` of the networks those dataflows' items run that
// the cache lacks: their parts, one per CPU at a time, every network's LS and AD (the long parts)
// before any CNN-P and IL-Pipe, so that a lone network's (YX-P's) two parts run side by side;
// each part into its own slot, the runs entered in the networks' order (the results do not depend
// on the order in which parts finish). A network's CNN-P and IL-Pipe part is skipped when its LS
// and AD part has already ended in a refusal (VGG-19's and PNASNet's LS plans at batch 20): the
// run is then that refusal whatever the skipped part would give (joined), so which parts are
// skipped depends on which finish first, the runs do not. `done` (if any) is called with a
// part's name ("<dataflow> <network>: LS, AD") as it ends.
void prefetch_batch20_runs(const DsaSpec& base, const std::vector<DsaDataflow>& dfs, uint64_t seed,
                           const ProgressFn& done = {}) {
  std::vector<std::pair<DsaSpec, std::string>> nets;  // (spec, network) of each missing run
  for (const DsaDataflow df : dfs) {
    const DsaSpec spec = item_spec(base, df);
    for (const std::string& net : networks_run(kBatch, df))
      if (!batch20_cache.contains(std::make_pair(net, spec.name))) nets.emplace_back(spec, net);
  }
  const int64_t n = static_cast<int64_t>(nets.size());
  std::vector<Batch20Run> parts(static_cast<size_t>(2 * n));
  std::vector<std::atomic<bool>> refused(static_cast<size_t>(n));  // LS or AD, per network
  parallel_for(2 * n, available_cpus(), [&](int64_t i) {
    const size_t k = static_cast<size_t>(i % n);
    const auto& [spec, net] = nets[k];
    const std::string name = std::string(dsa_dataflow_name(spec.dataflow)) + " " + net;
    if (i < n) {
      parts[k] = ls_ad_part(net, spec, seed);
      if (!parts[k].refused.empty()) refused[k] = true;
      if (done) done(name + ": LS, AD");
    } else if (!refused[k]) {
      parts[static_cast<size_t>(i)] = partition_part(net, spec);
      if (done) done(name + ": CNN-P, IL-Pipe");
    }
  });
  for (int64_t i = 0; i < n; ++i) {
    const auto& [spec, net] = nets[static_cast<size_t>(i)];
    batch20_cache.get(std::make_pair(net, spec.name), [&] {
      return joined(std::move(parts[static_cast<size_t>(i)]), parts[static_cast<size_t>(n + i)]);
    });
  }
}

// The networks of the paper's set not compared at batch 20 on `df`: left out for run time, or
// refused by the model (after their run was tried).
std::vector<LeftOut> not_compared(const DsaSpec& spec, DsaDataflow df, uint64_t seed) {
  std::vector<LeftOut> out = networks_left_out(kBatch, df);
  for (const std::string& net : networks_run(kBatch, df)) {
    const Batch20Run& r = batch20_run(net, spec, seed);
    if (!r.refused.empty()) out.push_back({net, r.refused});
  }
  return out;
}

}  // namespace

void run_fig9(ExperimentContext& ctx) {
  const DsaSpec& base = ctx.hardware().dsa.value();
  const uint64_t seed = ctx.options().seed;
  const PaperData paper = ctx.paper_data("fig9.csv");
  Table t({"dataflow", "dnn", "ls_ips", "cnnp_ips", "ilpipe_ips", "ad_ips", "ideal_ips",
           "ad_over_ls", "ad_over_cnnp", "cnnp_over_ls"});
  // Where the time goes, per strategy: pipeline steps (LS: layers; AD: Rounds), the compute-only
  // bounds (compute_bounds: the work spread over every engine, the busiest engine's, and the sum
  // over steps of the busiest engine's compute), DRAM bytes, the busiest mesh link's bytes and
  // time at 8 B/cycle.
  Table where({"dataflow", "dnn", "strategy", "latency_us", "steps", "balanced_us",
               "busiest_engine_us", "compute_bound_us", "hbm_mb", "busiest_link_mb",
               "busiest_link_us"});
  BarChart chart;
  chart.title = "Fig. 9: throughput at batch 20";
  chart.y_label = "inferences per second";
  chart.x_label = "dataflow / network";
  Series ls_s{"LS (ours)", {}}, ad_s{"AD (ours)", {}}, ideal_s{"Ideal (MACs / peak)", {}};
  Series cnnp_s{"CNN-P (ours)", {}}, ilpipe_s{"IL-Pipe (ours)", {}};
  std::vector<Claim> claims;
  // Per network of the paper's set: AD over CNN-P against the paper's range over its networks,
  // and CNN-P above LS ('exceeds LS in all cases'); a network not compared is a row saying why.
  const std::string cnnp_above_src = "Sec. V-B (Fig. 9 text: CNN-P 'exceeds LS in all cases')";
  const std::string both = stand_ins({kDpStandIn, kCnnpStandIn});
  const auto il_slower_text = [](const std::string& net) {
    return paper_name_of(net) + ": IL-Pipe slower than LS at batch 20, KC-P (1 = yes)";
  };
  const std::string il_slower_src =
      "Sec. V-B (Fig. 9 text: IL-Pipe 'is even slower than LS when processing NASNet and PNASNet "
      "of KC-Partition case')";
  ctx.progress("the networks' runs, one per CPU at a time");
  prefetch_batch20_runs(base, batch20_dataflows(ctx, {DsaDataflow::KC, DsaDataflow::YX}), seed,
                        ctx.progress_fn());
  for (const DsaDataflow df : {DsaDataflow::KC, DsaDataflow::YX}) {
    const DsaSpec spec = item_spec(base, df);
    const std::string dfn(dsa_dataflow_name(df));
    const std::string label = df == DsaDataflow::KC ? "KC-P" : "YX-P";
    const std::vector<std::pair<std::string, std::string>> key = {
        {"quantity", "ad_over_cnnp_" + dfn}};
    auto range = [&](const std::string& net, double ours, const std::string& not_run) {
      return Claim{.text = paper_name_of(net) + ": AD over CNN-P at batch 20, " + label,
                   .source = paper.source(key),
                   .paper = paper.value(key, "low").value_or(NAN),
                   .ours = ours,
                   .kind = ClaimKind::Ratio,
                   .unit = "x",
                   .stand_in = both,
                   .informational = not_run.empty() ? "" : "not run: " + not_run,
                   .paper_high = paper.value(key, "high")};
    };
    auto above = [&](const std::string& net, std::optional<bool> yes, const std::string& not_run) {
      return yes_no_claim(paper_name_of(net) + ": CNN-P above LS in throughput at batch 20, " +
                              label + " (1 = yes)",
                          cnnp_above_src, yes, kCnnpStandIn,
                          not_run.empty() ? "" : "not run: " + not_run);
    };
    for (const std::string& net : networks_run(kBatch, df)) {
      const Batch20Run& b = batch20_run(net, spec, seed);
      if (!b.refused.empty()) continue;
      ctx.note(dfn + " " + net + ": " + b.ad_search);
      ctx.note(dfn + " " + net +
               ": batch time (ms) = balanced + uneven engines + barriers + transfers not "
               "hidden: LS " +
               time_parts_note(b.ls, spec.clock_mhz) + "; CNN-P " +
               time_parts_note(b.cnnp, spec.clock_mhz) + "; IL-Pipe " +
               time_parts_note(b.ilpipe, spec.clock_mhz) + "; AD " +
               time_parts_note(b.ad, spec.clock_mhz));
      const double ls = kBatch / (b.ls.result.latency_us * 1e-6);
      const double ad = kBatch / (b.ad.result.latency_us * 1e-6);
      const double ideal = kBatch / (b.ideal_us * 1e-6);
      const double cnnp = kBatch / (b.cnnp.result.latency_us * 1e-6);
      const double ilpipe = kBatch / (b.ilpipe.result.latency_us * 1e-6);
      t.add_row({dfn, net, ls, cnnp, ilpipe, ad, ideal, ad / ls, ad / cnnp, cnnp / ls});
      chart.categories.push_back(dfn + " " + net);
      ls_s.values.push_back(ls);
      cnnp_s.values.push_back(cnnp);
      ilpipe_s.values.push_back(ilpipe);
      ad_s.values.push_back(ad);
      ideal_s.values.push_back(ideal);
      claims.push_back(range(net, ad / cnnp, ""));
      claims.push_back(above(net, cnnp > ls, ""));
      if (df == DsaDataflow::KC && (net == "nasnet_large" || net == "pnasnet5_large"))
        claims.push_back(
            yes_no_claim(il_slower_text(net), il_slower_src, ilpipe < ls, kIlPipeStandIn));
      for (const auto& [name, run] : {std::pair<std::string, const StrategySummary*>{"LS", &b.ls},
                                      {"CNN-P", &b.cnnp},
                                      {"IL-Pipe", &b.ilpipe},
                                      {"AD", &b.ad}}) {
        const double link = value_of(run->result.details, "noc_max_link_bytes");
        where.add_row({dfn, net, name, run->result.latency_us, run->steps,
                       run->bounds.balanced / spec.clock_mhz,
                       run->bounds.busiest_engine / spec.clock_mhz,
                       run->bounds.per_round / spec.clock_mhz,
                       value_of(run->result.bytes_by_level, "hbm") / 1e6, link / 1e6,
                       link / spec.noc_link_bytes_per_cycle / spec.clock_mhz});
      }
    }
    for (const LeftOut& l : not_compared(spec, df, seed)) {
      claims.push_back(range(l.zoo, NAN, l.why));
      claims.push_back(above(l.zoo, std::nullopt, l.why));
      if (df == DsaDataflow::KC && (l.zoo == "nasnet_large" || l.zoo == "pnasnet5_large")) {
        claims.push_back(yes_no_claim(il_slower_text(l.zoo), il_slower_src, std::nullopt,
                                      kIlPipeStandIn, "not run: " + l.why));
      }
      ctx.note(dfn + " " + l.zoo + ": not run (" + l.why + ")");
    }
  }
  chart.series = {ls_s, cnnp_s, ilpipe_s, ad_s, ideal_s};
  chart.log_y = true;
  ctx.note(kSetupNote);
  ctx.note(ls_layer_note());
  ctx.note("Fig. 9 also runs YX-P (dsa_with_dataflow)");
  ctx.note(
      "throughput = 20 / the latency of the whole batch (one batch is the job; the paper "
      "does not say whether it measures a steady state); Ideal = 20 / (MACs / peak)");
  ctx.note(partition_baselines_note());
  ctx.note(kTimePartsNote);
  ctx.note(
      "claims: per network of the paper's set (Table II's eight) and dataflow, ours against the "
      "paper's range over its networks; the networks not compared are listed in the claims with "
      "the reason");
  ctx.emit_table("Fig. 9: throughput at batch 20", t);
  ctx.emit_table("Fig. 9: where the time goes", where, "_breakdown");
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
  const DsaSpec spec = item_spec(ctx.hardware().dsa.value(), DsaDataflow::KC);
  const uint64_t seed = ctx.options().seed;
  const PaperData paper = ctx.paper_data("table2.csv");
  Table t({"row", "dnn", "paper", "ours"});
  std::vector<Claim> claims;
  // The rows and whose stand-ins they involve (LS is the paper's own baseline).
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"ls_util_pct", ""},
      {"cnnp_util_pct", kCnnpStandIn},
      {"ilpipe_util_pct", kIlPipeStandIn},
      {"ad_util_pct", kDpStandIn},
      {"ad_noc_overhead_pct", kDpStandIn},
      {"ad_reuse_pct", kDpStandIn}};
  ctx.progress("the networks' runs, one per CPU at a time");
  prefetch_batch20_runs(ctx.hardware().dsa.value(), batch20_dataflows(ctx, {DsaDataflow::KC}), seed,
                        ctx.progress_fn());
  for (const std::string& net : networks_run(kBatch, DsaDataflow::KC)) {
    const Batch20Run& b = batch20_run(net, spec, seed);
    if (!b.refused.empty()) continue;
    const std::map<std::string, double> ours = {{"ls_util_pct", b.ls.layer_utilisation_pct},
                                                {"cnnp_util_pct", b.cnnp.layer_utilisation_pct},
                                                {"ilpipe_util_pct", b.ilpipe.layer_utilisation_pct},
                                                {"ad_util_pct", b.ad.layer_utilisation_pct},
                                                {"ad_noc_overhead_pct", b.ad_noc_overhead_pct},
                                                {"ad_reuse_pct", b.ad_reuse_pct}};
    for (const auto& [row, stand_in] : rows) {
      const std::vector<std::pair<std::string, std::string>> key = {{"row", row}};
      const double v = ours.at(row);
      t.add_row({row, net, paper.cell(key, net), std::isnan(v) ? Cell{Missing{}} : Cell{v}});
      if (std::isnan(v)) continue;
      claims.push_back({.text = row + " (" + paper_name_of(net) + ")",
                        .source = paper.text(key, "source").value_or("Table II"),
                        .paper = paper.value(key, net).value_or(NAN),
                        .ours = v,
                        .kind = ClaimKind::Percentage,
                        .unit = "%",
                        .stand_in = stand_in});
    }
    ctx.note(net + ": " + b.ad_search);
    ctx.note(net +
             ": utilisation factors (rounds / engines / array, each averaged over the "
             "layers; see below): LS " +
             factors_note(b.ls) + ", CNN-P " + factors_note(b.cnnp) + ", IL-Pipe " +
             factors_note(b.ilpipe) + ", AD " + factors_note(b.ad));
  }
  for (const LeftOut& l : not_compared(spec, DsaDataflow::KC, seed)) {
    for (const auto& [row, stand_in] : rows) {
      const std::vector<std::pair<std::string, std::string>> key = {{"row", row}};
      claims.push_back({.text = row + " (" + paper_name_of(l.zoo) + ")",
                        .source = paper.text(key, "source").value_or("Table II"),
                        .paper = paper.value(key, l.zoo).value_or(NAN),
                        .ours = NAN,
                        .kind = ClaimKind::Percentage,
                        .unit = "%",
                        .stand_in = stand_in,
                        .informational = "not run: " + l.why});
    }
    ctx.note(l.zoo + ": not run (" + l.why + ")");
  }
  ctx.note(kSetupNote);
  ctx.note(ls_layer_note());
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
  ctx.note(partition_baselines_note());
  ctx.note(
      "CNN-P and IL-Pipe utilisation: the same definition, a Round being one pipeline step "
      "(its length the busiest engine's compute over all regions)");
  ctx.note(
      "utilisation factors (baselines.h utilisation_factors; per layer the utilisation is "
      "their product, the notes give each one's average over the layers): rounds = the "
      "layer's busiest engine / its Round's length: 1 for LS, whose Rounds hold one layer; "
      "below 1 for CNN-P and IL-Pipe, whose steps last as long as the slowest region, because "
      "their regions are fixed while consecutive layers' costs vary (the paper's mismatch and "
      "load unbalance), IL-Pipe's regions fill and drain within a segment (its pipeline delay), "
      "and an engine runs the step's vector ops (batch norm, ReLU, residual add) besides its "
      "matrix work, which LS's separate Rounds leave out of its matrix layers; engines = the "
      "layer's mean engine / its busiest: LS at batch 20 deals 20 samples x 4 pieces of a "
      "layer round 64 engines, 16 of them running two (0.625), while a CNN-P or IL-Pipe region "
      "runs at most one piece of a block per engine; array = MACs / (the atoms' engine cycles "
      "x 256): CNN-P splits one sample's layer over a CLP and IL-Pipe a quarter of one over a "
      "region, slices thinner than LS's quarter samples, so more of their cycles are fill and "
      "drain and port-bound steps. These are what CNN-P and IL-Pipe do on this machine's 16 x 16 "
      "engines, not choices tuned here. EfficientNet-B0 is low in "
      "every dataflow: most of its matrix layers are depthwise convolutions, which KC-P runs "
      "on one PE of 256 (one channel each way, unit_cost.h), and squeeze-and-excitation FCs of "
      "one pixel per sample, a fold each with its fill and drain.");
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

namespace {

// "<net>: <a> X mJ against <b>'s Y: hbm +1.2, noc +0.8, ... mJ": a's energy against b's by
// component (`parts`), the largest difference first.
std::string component_gap(const std::string& net, const std::string& a_name,
                          const StrategySummary& a, const std::string& b_name,
                          const StrategySummary& b, const std::vector<std::string>& parts) {
  std::vector<std::pair<double, std::string>> gaps;
  double ta = 0, tb = 0;
  for (const std::string& p : parts) {
    const double va = value_of(a.result.energy_pj_by_component, p) * 1e-9;
    const double vb = value_of(b.result.energy_pj_by_component, p) * 1e-9;
    ta += va;
    tb += vb;
    gaps.push_back({va - vb, p});
  }
  std::stable_sort(gaps.begin(), gaps.end(), [](const auto& x, const auto& y) {
    return std::abs(x.first) > std::abs(y.first);
  });
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << net << ": " << a_name << " " << ta << " mJ against " << b_name << "'s " << tb << ":";
  for (size_t i = 0; i < gaps.size(); ++i)
    o << (i ? ", " : " ") << gaps[i].second << " " << (gaps[i].first >= 0 ? "+" : "")
      << gaps[i].first;
  o << " mJ";
  return o.str();
}

}  // namespace

void run_fig11(ExperimentContext& ctx) {
  const DsaSpec spec = item_spec(ctx.hardware().dsa.value(), DsaDataflow::KC);
  const uint64_t seed = ctx.options().seed;
  Table t({"dnn", "strategy", "total_mj", "mac_mj", "registers_mj", "sram_mj", "noc_mj", "hbm_mj",
           "static_mj"});
  BarChart chart;
  chart.title = "Fig. 11: energy at batch 20 by component (KC-P, ours; the paper prints no values)";
  chart.y_label = "energy (mJ)";
  chart.x_label = "network / strategy";
  const std::vector<std::string> parts = {"mac", "registers", "sram", "noc", "hbm", "static"};
  std::vector<Series> series;
  for (const std::string& p : parts) series.push_back({p, {}});
  std::vector<Claim> claims;
  const std::string most_src =
      "Sec. V-B (Fig. 11 text: 'IL-Pipe and AD are the most energy-efficient')";
  const std::string il_src =
      "Sec. V-B (Fig. 11 text: 'slightly more energy than IL-Pipe on the first 3 workloads', "
      "lower 'on the other four'; first 3 in Table I and II order: VGG-19, ResNet-50, "
      "ResNet-152)";
  // The first 3 workloads in Table I's and Table II's order are VGG-19, ResNet-50 and ResNet-152.
  auto first_three = [](const std::string& net) {
    return net == "vgg19" || net == "resnet50" || net == "resnet152";
  };
  auto most_text = [](const std::string& net) {
    return paper_name_of(net) +
           ": IL-Pipe and AD the two most energy-efficient of the four strategies (1 = yes: both "
           "below LS and CNN-P)";
  };
  auto above_text = [&](const std::string& net) {
    return first_three(net) ? paper_name_of(net) +
                                  ": AD above IL-Pipe in energy, as on the paper's first 3 "
                                  "workloads (1 = yes)"
                            : paper_name_of(net) +
                                  ": AD below IL-Pipe in energy, as on the paper's other four "
                                  "workloads (1 = yes)";
  };
  const std::string all_four = stand_ins({kDpStandIn, kCnnpStandIn, kIlPipeStandIn});
  const std::string ad_il = stand_ins({kDpStandIn, kIlPipeStandIn});
  ctx.progress("the networks' runs, one per CPU at a time");
  prefetch_batch20_runs(ctx.hardware().dsa.value(), batch20_dataflows(ctx, {DsaDataflow::KC}), seed,
                        ctx.progress_fn());
  std::string ilpipe_gaps;  // where IL-Pipe is not below both LS and CNN-P
  for (const std::string& net : networks_run(kBatch, DsaDataflow::KC)) {
    const Batch20Run& b = batch20_run(net, spec, seed);
    if (!b.refused.empty()) continue;
    std::map<std::string, double> total_of;
    for (const auto& [name, run] : {std::pair<std::string, const StrategySummary*>{"LS", &b.ls},
                                    {"CNN-P", &b.cnnp},
                                    {"IL-Pipe", &b.ilpipe},
                                    {"AD", &b.ad}}) {
      std::vector<Cell> row = {net, name};
      double total = 0;
      std::vector<double> mj;
      for (const std::string& p : parts) {
        mj.push_back(value_of(run->result.energy_pj_by_component, p) * 1e-9);
        total += mj.back();
      }
      row.push_back(total);
      total_of[name] = total;
      for (size_t i = 0; i < parts.size(); ++i) {
        row.push_back(mj[i]);
        series[i].values.push_back(mj[i]);
      }
      t.add_row(row);
      chart.categories.push_back(net + " " + name);
    }
    const double ls = total_of["LS"], cnnp = total_of["CNN-P"], ilpipe = total_of["IL-Pipe"],
                 ad = total_of["AD"];
    if (ilpipe >= std::min(ls, cnnp)) {  // the paper has IL-Pipe among the two most efficient
      const bool vs_ls = ls <= cnnp;
      ilpipe_gaps += (ilpipe_gaps.empty() ? "" : "; ") +
                     component_gap(net, "IL-Pipe", b.ilpipe, vs_ls ? "LS" : "CNN-P",
                                   vs_ls ? b.ls : b.cnnp, parts);
    }
    claims.push_back(yes_no_claim(most_text(net), most_src,
                                  std::max(ad, ilpipe) < std::min(ls, cnnp), all_four));
    claims.push_back(
        yes_no_claim(above_text(net), il_src, first_three(net) ? ad > ilpipe : ad < ilpipe, ad_il));
  }
  for (const LeftOut& l : not_compared(spec, DsaDataflow::KC, seed)) {
    claims.push_back(
        yes_no_claim(most_text(l.zoo), most_src, std::nullopt, all_four, "not run: " + l.why));
    claims.push_back(
        yes_no_claim(above_text(l.zoo), il_src, std::nullopt, ad_il, "not run: " + l.why));
  }
  ctx.note(
      "Fig. 11 shows 7 of the 8 workloads (the text's first 3 and other four; which one is "
      "absent is not said): ours compares every network it runs after the first three with "
      "'the other four'");
  chart.series = series;
  ctx.note(kSetupNote);
  ctx.note(ls_layer_note());
  for (const std::string& net : networks_run(kBatch, DsaDataflow::KC))
    if (batch20_run(net, spec, seed).refused.empty())
      ctx.note(net + ": " + batch20_run(net, spec, seed).ad_search);
  auto num = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  ctx.note("components from the DSA model (" + spec.name + "; sources in the config): MAC " +
           num(spec.mac_pj) + " pJ, registers " + num(spec.register_pj_per_bit) +
           " pJ/bit (the PEs' register files), SRAM " + num(spec.local_pj_per_bit) +
           " pJ/bit, NoC " + num(spec.noc_pj_per_bit_hop) + " pJ/bit/hop, HBM " +
           num(spec.dram_pj_per_bit) + " pJ/bit, static " + num(spec.static_mw_per_unit) +
           " mW per engine");
  ctx.note(partition_baselines_note());
  if (!ilpipe_gaps.empty())
    ctx.note(
        "where IL-Pipe is not among the two most efficient (the paper: 'IL-Pipe and AD are the "
        "most energy-efficient'): its energy "
        "against the lower of LS and CNN-P, by component, largest difference first (static: "
        "the engines' static power over the latency, so a slower schedule pays more of it): " +
        ilpipe_gaps);
  ctx.emit_table("Fig. 11: energy at batch 20", t);
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(claims);
}

}  // namespace dgs::atomic
