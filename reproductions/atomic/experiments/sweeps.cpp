// Figs. 12 and 13: design-space sweeps of the multi-engine accelerator with atomic dataflow.
// Fig. 12: the engine count at fixed totals (16384 PEs, 8 MB SRAM): 1x1 .. 16x16 engines of
// 128x128 .. 8x8 PEs with 8 MB / engines of SRAM each. Fig. 13: the SRAM per engine on the 8 x 8
// mesh, 16 KiB .. 512 KiB. AD (and LS for reference) latency per point, normalised to the best.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/evaluate/evaluate.h"
#include "common/util/parallel_for.h"
#include "models/zoo.h"
#include "reproductions/atomic/experiments/ad_runs.h"
#include "reproductions/atomic/experiments/experiments.h"
#include "reproductions/atomic/experiments/ls_ad_runs.h"
#include "reproductions/atomic/iterative_search.h"
#include "reproductions/atomic/paper_networks.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {

namespace {

constexpr int kTotalPesPerSide = 128;        // 16384 PEs
constexpr int64_t kTotalSram = 8LL << 20;    // 8 MB (read as MiB: 64 x 128 KiB)
constexpr int64_t kBankBytes = 128LL << 10;  // the paper's 128 KB SRAM with its 64-bit port
const std::vector<int> kEnginesPerSide = {1, 2, 4, 8, 16};
const std::vector<int64_t> kSramKib = {16, 32, 64, 128, 256, 512};

struct SweepNetwork {
  std::string zoo;
  std::string paper_name;  // "" = not one the paper names for the figure (a stand-in)
  int batch;
  int max_engines_per_side = 16;  // larger points are left out (run time, memory)
};

// Fig. 12's networks: the paper names VGG-19, ResNet-152 and NasNet and runs two batch sizes,
// the second double the first (not stated which). VGG-19 (16-50 s of search per point today)
// and NasNet-A Large (over a million atoms) are left out for run time, and ResNet-152's 16 x 16
// point (1.4 million atoms, 2.9 GB, a minute); ResNet-50 runs at batch 1 and 2 for the doubled
// batch. --model replaces them (batches 1 and 2).
std::vector<SweepNetwork> fig12_networks(const ExperimentContext& ctx) {
  if (!ctx.options().model.empty()) {
    return {{ctx.options().model, "", 1}, {ctx.options().model, "", 2}};
  }
  return {{"resnet152", "ResNet-152", 1, 8}, {"resnet50", "", 1}, {"resnet50", "", 2}};
}

// Fig. 13's networks (the paper does not name them): ResNet-50 (ResNet-152 below 64 KiB per
// engine needs over 3 GB).
std::vector<SweepNetwork> fig13_networks(const ExperimentContext& ctx) {
  if (!ctx.options().model.empty()) return {{ctx.options().model, "", 1}};
  return {{"resnet50", "", 1}};
}

// The machine with n x n engines sharing the totals; each engine's SRAM is made of 128 KB banks
// with the paper's 64-bit port each, so the total SRAM bandwidth stays that of the 8 x 8 mesh.
DsaSpec fig12_spec(const DsaSpec& base, int n) {
  const int pe = kTotalPesPerSide / n;
  const int64_t sram = kTotalSram / (static_cast<int64_t>(n) * n);
  DsaSpec s = dsa_with_local_bytes(dsa_with_mesh(base, n, n, pe, pe), sram);
  s.local_bytes_per_cycle =
      base.local_bytes_per_cycle * static_cast<double>(sram) / static_cast<double>(kBankBytes);
  return s;
}

// A run of network `w` on `spec` that this process has already computed (Fig. 8's, when `spec` is
// its machine: computed_ls_ad_run), or nullptr.
const LsAdRun* computed_run(const SweepNetwork& w, const DsaSpec& spec, uint64_t seed) {
  return is_zoo_model(w.zoo) ? computed_ls_ad_run(w.zoo, w.batch, spec, seed) : nullptr;
}

// Fig. 13's prices: [j][i] for j <= i = the plan that the iterative search finds at SRAM size
// kSramKib[j], priced by the DSA model on the engine of size kSramKib[i] (j == i: the search's own
// result). The searches run one size per CPU at a time (a size whose machine is Fig. 8's takes
// that run's search when this process has made it: the same search); a plan made for a smaller
// SRAM fits a larger one (same array, same port, the same tiles), so evaluate() checks it against
// the larger engine and the shared model prices it there as it is. `done` (if any) is called with
// the SRAM size as its search ends.
std::vector<std::vector<double>> fig13_plan_prices(const SweepNetwork& w, const Graph& g,
                                                   const DsaSpec& base, uint64_t seed,
                                                   const ProgressFn& done = {}) {
  const size_t n = kSramKib.size();
  const auto engine = [&](size_t i) { return dsa_with_local_bytes(base, kSramKib[i] * 1024); };
  struct Searched {
    double us = 0;
    Plan plan;
  };
  const std::vector<Searched> searched =
      parallel_map(static_cast<int64_t>(n), available_cpus(), [&](int64_t i) {
        const DsaSpec s = engine(static_cast<size_t>(i));
        Searched out;
        if (const LsAdRun* run = computed_run(w, s, seed)) {
          out = {run->ad.result.latency_us, atom_plan(g, run->ad.dag, run->ad.schedule, s, "AD")};
        } else {
          const IterativeSearch r = iterative_atomic_search(g, s, seed);
          out = {r.result.latency_us, atom_plan(g, r.dag, r.schedule, s, "AD")};
        }
        if (done) done(std::to_string(kSramKib[static_cast<size_t>(i)]) + " KiB: searched");
        return out;
      });
  const std::vector<double> flat =
      parallel_map(static_cast<int64_t>(n * n), available_cpus(), [&](int64_t k) {
        const size_t j = static_cast<size_t>(k) / n, i = static_cast<size_t>(k) % n;
        if (i < j) return double{NAN};
        if (i == j) return searched[j].us;
        return evaluate(g, searched[j].plan, dsa_hardware_spec(engine(i))).latency_us;
      });
  std::vector<std::vector<double>> us(n, std::vector<double>(n, NAN));
  for (size_t k = 0; k < n * n; ++k) us[k / n][k % n] = flat[k];
  return us;
}

std::string label(const SweepNetwork& w) {
  return model_display_name(w.zoo) + " b" + std::to_string(w.batch);
}

// Fig. 12's AD run and LS latency of every network at each of its points (kEnginesPerSide up to
// its max_engines_per_side), per network in the points' order. The (network, point) pairs run
// one per CPU at a time, the most engines first (more engines: less SRAM each, so smaller atoms
// and more of them; parallel_for_largest_first), where network by network in the points' order
// the largest point of each started last and ran alone. Each result goes to its own slot (an
// error: the first failing pair's in that order). `done` (if any) is called with the pair's name as
// it ends.
std::vector<std::vector<std::pair<AdRun, double>>> fig12_points(
    const std::vector<SweepNetwork>& networks, const DsaSpec& base, uint64_t seed,
    const ProgressFn& done = {}) {
  std::vector<Graph> graphs;
  std::vector<std::pair<size_t, size_t>> pairs;  // (network, point index)
  std::vector<int> engines;                      // per pair: its engines per side
  std::vector<std::vector<std::pair<AdRun, double>>> out(networks.size());
  for (size_t w = 0; w < networks.size(); ++w) {
    graphs.push_back(load_model_at_batch(networks[w].zoo, {.batch = networks[w].batch}));
    for (size_t i = 0; i < kEnginesPerSide.size(); ++i) {
      if (kEnginesPerSide[i] > networks[w].max_engines_per_side) break;
      pairs.emplace_back(w, i);
      engines.push_back(kEnginesPerSide[i]);
      out[w].emplace_back();
    }
  }
  parallel_for_largest_first(engines, available_cpus(), [&](int64_t k) {
    const auto [w, i] = pairs[static_cast<size_t>(k)];
    const DsaSpec s = fig12_spec(base, kEnginesPerSide[i]);
    if (const LsAdRun* run = computed_run(networks[w], s, seed)) {
      // Fig. 8's machine (8 x 8 engines): its run, searched and priced by the same calls.
      AdRun r{.ad_us = run->ad.result.latency_us,
              .atoms = static_cast<int64_t>(run->ad.dag.atoms.size()),
              .rounds = static_cast<int64_t>(run->ad.schedule.rounds.size()),
              .candidates = run->ad_candidates,
              .search_cpu_s = NAN};  // not measured here (Fig. 12 does not report it)
      out[w][i] = std::make_pair(r, run->ls.result.latency_us);
    } else {
      AdRun r = run_ad(graphs[w], s, seed);
      out[w][i] = std::make_pair(r, run_ls(graphs[w], s, networks[w].batch));
    }
    if (done) {
      done(label(networks[w]) + ", " + std::to_string(kEnginesPerSide[i]) + "x" +
           std::to_string(kEnginesPerSide[i]) + " engines");
    }
  });
  return out;
}

}  // namespace

void run_fig12(ExperimentContext& ctx) {
  const DsaSpec& base = ctx.hardware().dsa.value();
  const PaperData paper = ctx.paper_data("fig12.csv");
  Table t({"dnn", "batch", "engines", "pes_per_engine", "sram_kib", "sram_bytes_per_cycle", "ad_us",
           "ls_us", "ad_norm", "ad_atoms"});
  LineChart chart;
  chart.title = "Fig. 12: AD time vs engine count (16384 PEs, 8 MB SRAM in total)";
  chart.x_label = "engines per side (n x n engines)";
  chart.y_label = "AD time / best of the curve";
  for (int n : kEnginesPerSide) chart.x.push_back(n);
  std::vector<Claim> claims;
  Table minima({"dnn", "batch", "paper_best_engines_per_side", "ours_best_engines_per_side"});
  std::vector<int> best_of_batch;  // per network row: engines per side at the minimum
  const std::vector<SweepNetwork> networks = fig12_networks(ctx);
  ctx.progress("every network's points, one per CPU at a time");
  const std::vector<std::vector<std::pair<AdRun, double>>> ad_ls_of =
      fig12_points(networks, base, ctx.options().seed, ctx.progress_fn());
  for (size_t wi = 0; wi < networks.size(); ++wi) {
    const SweepNetwork& w = networks[wi];
    std::vector<double> ad;
    std::vector<AdRun> runs;
    std::vector<double> ls;
    for (const auto& [r, l] : ad_ls_of[wi]) {
      runs.push_back(r);
      ad.push_back(r.ad_us);
      ls.push_back(l);
    }
    const size_t best = static_cast<size_t>(std::min_element(ad.begin(), ad.end()) - ad.begin());
    Series series{label(w), {}};
    for (size_t i = 0; i < kEnginesPerSide.size(); ++i) {
      if (i >= ad.size()) {
        series.values.push_back(NAN);
        continue;
      }
      const int n = kEnginesPerSide[i];
      const DsaSpec s = fig12_spec(base, n);
      t.add_row({model_display_name(w.zoo), static_cast<int64_t>(w.batch),
                 std::to_string(n) + "x" + std::to_string(n),
                 std::to_string(kTotalPesPerSide / n) + "x" + std::to_string(kTotalPesPerSide / n),
                 s.local_bytes / 1024, s.local_bytes_per_cycle, ad[i], ls[i], ad[i] / ad[best],
                 runs[i].atoms});
      series.values.push_back(ad[i] / ad[best]);
    }
    chart.series.push_back(series);
    best_of_batch.push_back(kEnginesPerSide[best]);
    const std::string who = w.paper_name.empty() ? model_display_name(w.zoo) : w.paper_name;
    const std::vector<std::pair<std::string, std::string>> key = {
        {"dnn", w.paper_name.empty() ? "ResNet-152" : w.paper_name}};
    minima.add_row(
        {who, static_cast<int64_t>(w.batch),
         w.paper_name.empty() ? Cell{Missing{}} : paper.cell(key, "best_engines_per_side"),
         static_cast<int64_t>(kEnginesPerSide[best])});
    Claim c{.text = who + " (batch " + std::to_string(w.batch) +
                    "): engines per side at the minimum AD time",
            .source = paper.source(key),
            .paper = paper.value(key, "best_engines_per_side").value_or(NAN),
            .ours = static_cast<double>(kEnginesPerSide[best]),
            .kind = ClaimKind::Count,
            .unit = "engines per side",
            .stand_in = kDpStandIn};
    if (w.paper_name.empty())
      c.informational =
          "not one of the networks the paper names for this minimum (VGG-19, "
          "ResNet-152 and NasNet reach theirs at 4 x 4)";
    claims.push_back(c);
    // U shape: the minimum is inside the sweep, both ends slower.
    claims.push_back(
        yes_no_claim(who + " (batch " + std::to_string(w.batch) +
                         "): U-shaped curve, both ends slower than the minimum (1 = yes)",
                     "Sec. V-C (Fig. 12 text: 'the curves are all in the U shape')",
                     best > 0 && best + 1 < ad.size(), kDpStandIn));
  }
  // The doubled batch (the last two rows of the default list, or --model's two) keeps the minimum.
  if (best_of_batch.size() >= 2) {
    const size_t k = best_of_batch.size();
    claims.push_back(
        yes_no_claim("doubling the batch does not move the minimum (1 = yes)",
                     "Sec. V-C (Fig. 12 text: 'the doubled batch size does not change the trend')",
                     best_of_batch[k - 1] == best_of_batch[k - 2], kDpStandIn));
  }
  ctx.note(
      "each point: n x n engines of (128/n) x (128/n) PEs and 8 MiB / n^2 SRAM; the SRAM port "
      "scales with the SRAM (128 KB banks with the paper's 64-bit port each: 8 B/cycle per "
      "128 KiB), so the total SRAM bandwidth is that of the 8 x 8 mesh at every point; NoC "
      "links, DRAM and clock as in the config");
  ctx.note(
      "AD as in Fig. 8 (SA atoms with --seed, priority-rule Rounds, snake mapping, Algorithm 3 "
      "buffering, the shared DSA model); LS beside it for reference (not in the paper's figure)");
  ctx.note(ls_layer_note());
  ctx.note(
      "networks: the paper names VGG-19, ResNet-152 and NasNet at two batch sizes (not stated, "
      "the second double the first); ours: ResNet-152 at batch 1, ResNet-50 at batches 1 and 2 "
      "(VGG-19's search takes 16-50 s per point today and NasNet-A Large has over a million "
      "atoms: left out for run time, as is ResNet-152's 16 x 16 point: 1.4 million atoms, "
      "2.9 GB; --fig 12 --model vgg19 runs one)");
  for (const char* name : {"VGG-19", "NasNet"}) {
    minima.add_row({std::string(name), Missing{},
                    paper.cell({{"dnn", name}}, "best_engines_per_side"), Missing{}});
  }
  ctx.emit_table("Fig. 12: execution time vs engine count at fixed totals", t);
  ctx.emit_table("Fig. 12: engines per side at the minimum (VGG-19 and NasNet not run)", minima,
                 "_minima");
  ctx.emit_svg(line_chart_svg(chart));
  ctx.emit_claims(claims);
}

void run_fig13(ExperimentContext& ctx) {
  const DsaSpec& base = ctx.hardware().dsa.value();
  const PaperData paper = ctx.paper_data("fig13.csv");
  Table t({"dnn", "sram_kib", "ad_us", "ad_perf_norm", "gain_over_half_size", "search_us",
           "plan_sram_kib"});
  Table plans({"dnn", "plan_sram_kib", "sram_kib", "ad_us", "over_own_sram"});
  int slower_on_larger = 0;  // (plan, larger engine) pairs slower than on the plan's own engine
  LineChart chart;
  chart.title = "Fig. 13: AD performance vs SRAM per engine (8 x 8 engines)";
  chart.x_label = "SRAM per engine (KiB)";
  chart.y_label = "performance / at the largest SRAM";
  chart.log_x = true;
  for (int64_t k : kSramKib) chart.x.push_back(static_cast<double>(k));
  std::vector<Claim> claims;
  const std::vector<std::pair<std::string, std::string>> key = {{"quantity", "knee_kib"}};
  const double knee = paper.value(key, "value").value_or(NAN);
  for (const SweepNetwork& w : fig13_networks(ctx)) {
    ctx.progress(w.zoo + ", batch " + std::to_string(w.batch));
    const Graph g = load_model_at_batch(w.zoo, {.batch = w.batch});
    const std::vector<std::vector<double>> us =
        fig13_plan_prices(w, g, base, ctx.options().seed, [&ctx, &w](const std::string& what) {
          ctx.progress(w.zoo + ", batch " + std::to_string(w.batch) + ", " + what);
        });
    // kFig13SmallerPlans: AD time = the least over this size's own plan and every smaller size's
    // plan on this engine (ties: the own plan, then the smaller size's).
    const size_t n = kSramKib.size();
    std::vector<double> ad(n);
    std::vector<size_t> made_for(n);
    for (size_t i = 0; i < n; ++i) {
      made_for[i] = i;
      ad[i] = us[i][i];
      for (size_t j = 0; j < i; ++j) {
        if (us[j][i] < ad[i]) {
          ad[i] = us[j][i];
          made_for[i] = j;
        }
        plans.add_row(
            {model_display_name(w.zoo), kSramKib[j], kSramKib[i], us[j][i], us[j][i] / us[j][j]});
        if (us[j][i] > us[j][j] * (1 + 1e-9)) ++slower_on_larger;
      }
    }
    Series series{model_display_name(w.zoo), {}};
    // Performance = 1 / time, normalised to the largest SRAM; gain of each doubling.
    size_t knee_index = 0;
    double gain_below = NAN, gain_above = NAN;
    for (size_t i = 0; i < kSramKib.size(); ++i) {
      const double gain = i == 0 ? NAN : ad[i - 1] / ad[i];
      if (kSramKib[i] == static_cast<int64_t>(knee)) {
        knee_index = i;
        gain_below = gain;
      }
      if (knee_index > 0 && i == knee_index + 1) gain_above = gain;
      t.add_row({model_display_name(w.zoo), kSramKib[i], ad[i], ad.back() / ad[i],
                 i == 0 ? Cell{Missing{}} : Cell{gain}, us[i][i], kSramKib[made_for[i]]});
      series.values.push_back(ad.back() / ad[i]);
    }
    chart.series.push_back(series);
    const std::string stand_in = kDpStandIn;
    claims.push_back(yes_no_claim(model_display_name(w.zoo) +
                                      ": gains slow down past 128 KB: 128->256 KiB gains less "
                                      "than 64->128 KiB (1 = yes)",
                                  paper.source(key), gain_above < gain_below, stand_in));
    bool never_slower = true;
    for (size_t i = 1; i < ad.size(); ++i) never_slower &= ad[i] <= ad[i - 1] * (1 + 1e-9);
    claims.push_back(yes_no_claim(
        model_display_name(w.zoo) + ": performance does not fall as the SRAM grows (1 = yes)",
        "Sec. V-C (Fig. 13 text: 'the results do benefit from increased buffer size')",
        never_slower, stand_in));
  }
  ctx.note(
      "8 x 8 engines of 16 x 16 PEs (the config), only the SRAM per engine changes (its port "
      "stays 64 bits); AD as in Fig. 8; batch 1 (the paper does not state Fig. 13's batch); the "
      "paper does not name Fig. 13's networks: ours is ResNet-50, one of its eight");
  ctx.note(
      "kFig13SmallerPlans (a search rule of ours; the paper does not say how its search uses a "
      "larger buffer): an engine with more SRAM can run the plan found for any smaller SRAM of "
      "the sweep (same array, same 64-bit port, its tiles fit), so those plans are candidates "
      "too, each priced by the DSA model on this engine (fig13_plans.csv: every plan on every "
      "larger engine, over_own_sram = that time / the plan's time on the SRAM it was made for): "
      "ad_us = the least of them and this SRAM's own plan, plan_sram_kib = the SRAM whose plan "
      "that is; search_us = the iterative search at this SRAM alone (its atoms admitted within "
      "its own budgets, kSmallestAtomBudget, iterative_search.h). Latency can still rise with "
      "the SRAM where a plan runs slower on a larger engine (the model's mapper and buffering "
      "use the room; weights_stay keeps the most recently used weights, so a larger buffer "
      "holds every weight a smaller one holds), so the claim stays checked; pairs slower on "
      "the larger engine: " +
      std::to_string(slower_on_larger) + " of " + std::to_string(plans.rows().size()));
  ctx.note("gain_over_half_size = AD time at half the SRAM / AD time here");
  ctx.emit_table("Fig. 13: execution time vs SRAM per engine", t);
  ctx.emit_table("Fig. 13: each SRAM size's plan on every larger engine", plans, "_plans");
  ctx.emit_svg(line_chart_svg(chart));
  ctx.emit_claims(claims);
}

}  // namespace dgs::atomic
