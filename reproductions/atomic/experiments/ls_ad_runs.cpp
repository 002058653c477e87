// LS and AD runs (see ls_ad_runs.h).
#include "reproductions/atomic/experiments/ls_ad_runs.h"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include "cli/run_cache.h"
#include "common/evaluate/evaluate.h"
#include "common/graph/iteration_space.h"
#include "common/graph/op_cost.h"
#include "common/util/error.h"
#include "common/util/parallel_for.h"
#include "models/zoo.h"
#include "reproductions/atomic/baselines.h"
#include "reproductions/atomic/iterative_search.h"

namespace dgs::atomic {

double layer_utilisation_pct(const AtomicDag& dag, const AtomSchedule& s, const DsaSpec& spec) {
  const std::vector<double> length = round_lengths(dag, s);  // compute-only (baselines.h)
  double sum = 0;
  int layers = 0;
  for (size_t l = 0; l < dag.layers.size(); ++l) {
    if (!dag.layers[l].matrix) continue;
    std::map<int, std::set<int>> engines;  // Round -> engines the layer uses
    double macs = 0;
    for (int a : dag.atoms_of_layer[l]) {
      macs += dag.atoms[static_cast<size_t>(a)].macs;
      engines[s.round_of[static_cast<size_t>(a)]].insert(s.engine_of[static_cast<size_t>(a)]);
    }
    double capacity = 0;
    for (const auto& [r, es] : engines)
      capacity += length[static_cast<size_t>(r)] * static_cast<double>(es.size());
    if (capacity <= 0) continue;
    sum += 100 * macs / (capacity * spec.matrix_macs_per_cycle);
    ++layers;
  }
  return layers > 0 ? sum / layers : 0;
}

std::string ls_layer_note() {
  return std::string(
             "LS's layer (an open choice, baselines.h LsLayer: Sec. II-B runs 'DNN layers "
             "one-at-a-time' without saying whether a batch norm, ReLU, residual add or pooling "
             "after a convolution crosses DRAM on its own): ") +
         ls_layer_text(kLsLayer) +
         ". Why: each engine's vector unit runs these 'element-wise layers' beside its array "
         "and buffer (Sec. II-A); KC-P is NVDLA's dataflow, whose fused mode passes a "
         "convolution's output through its element-wise and pooling units without a round trip "
         "through memory (nvdla.org hardware architecture); the suite's CNN-P, IL-Pipe and AD "
         "keep them on chip, so LS not doing so would be a cost only LS pays. Table I does not "
         "settle it: its 73 layers of ResNet-50 are nn_dataflow's count (TETRIS [18], cited for "
         "LS's partitioning: input, convolutions, FC, pooling and element-wise adds, no batch norm "
         "or ReLU layer), but its 516 for ResNet-152 is 2.5x that count (209). Until issue #23 "
         "every op was its own layer (LsLayer::Op). Table II's and Fig. 2's utilisation is "
         "unchanged by it: LS's matrix layers' Rounds hold only their own atoms";
}

namespace {

double reuse_pct(const AtomicDag& dag, const AtomSchedule& s) {
  double kept = 0, all = 0;
  for (size_t a = 0; a < dag.atoms.size(); ++a) {
    if (dag.succs[a].empty() || dag.atoms[a].out_bytes == 0) continue;
    const double b = static_cast<double>(dag.atoms[a].out_bytes);
    all += b;
    if (s.on_chip[a]) kept += b;
  }
  return all > 0 ? 100 * kept / all : 0;
}

}  // namespace

namespace {

using RunKey = std::tuple<std::string, int, int, uint64_t, std::string>;

RunKey run_key(const std::string& net, int batch, const DsaSpec& spec, uint64_t seed) {
  return std::make_tuple(net, batch, static_cast<int>(spec.dataflow), seed, spec.name);
}

// A run or the DSA model's refusal of one of its plans: refusals are kept too (the items that
// share a run do not try it again).
struct LsAdOutcome {
  std::optional<LsAdRun> run;
  std::string refusal;
};

LsAdOutcome ls_ad_outcome(const std::string& net, int batch, const DsaSpec& spec, uint64_t seed) {
  LsAdOutcome o;
  try {
    o.run = compute_ls_ad_run(net, batch, spec, seed);
  } catch (const Error& e) {
    o.refusal = e.what();
  }
  return o;
}

RunCache<RunKey, LsAdOutcome> ls_ad_cache;

// The runs ls_ad_cache holds, each with its network, batch, seed and machine (the config without
// its name, file and sources), for computed_ls_ad_run.
struct ComputedRun {
  std::string net;
  int batch = 0;
  uint64_t seed = 0;
  DsaSpec machine;
  const LsAdRun* run = nullptr;
};
std::mutex computed_lock;
std::vector<ComputedRun> computed;

DsaSpec machine_of(DsaSpec spec) {
  spec.name.clear();
  spec.file.clear();
  spec.sources.clear();
  return spec;
}

const LsAdOutcome& cached_outcome(const std::string& net, int batch, const DsaSpec& spec,
                                  uint64_t seed) {
  const LsAdOutcome& o = ls_ad_cache.get(run_key(net, batch, spec, seed),
                                         [&] { return ls_ad_outcome(net, batch, spec, seed); });
  if (o.run) {
    const std::lock_guard<std::mutex> lock(computed_lock);
    const LsAdRun* run = &*o.run;
    if (std::none_of(computed.begin(), computed.end(),
                     [&](const ComputedRun& c) { return c.run == run; }))
      computed.push_back({net, batch, seed, machine_of(spec), run});
  }
  return o;
}

// The searches keep_search holds, each with its network, batch, seed and machine.
struct KeptSearch {
  std::string net;
  int batch = 0;
  uint64_t seed = 0;
  DsaSpec machine;
  IterativeSearch search;
};
std::mutex kept_lock;
std::vector<KeptSearch> kept;

}  // namespace

void keep_search(const std::string& net, int batch, const DsaSpec& spec, uint64_t seed,
                 IterativeSearch search) {
  const std::lock_guard<std::mutex> lock(kept_lock);
  kept.push_back({net, batch, seed, machine_of(spec), std::move(search)});
}

std::optional<IterativeSearch> take_kept_search(const std::string& net, int batch,
                                                const DsaSpec& spec, uint64_t seed) {
  const DsaSpec machine = machine_of(spec);
  const std::lock_guard<std::mutex> lock(kept_lock);
  for (auto k = kept.begin(); k != kept.end(); ++k) {
    if (k->net != net || k->batch != batch || k->seed != seed || !(k->machine == machine) ||
        !(k->search.options == IterativeSearchOptions{}))  // the run's search: the defaults
      continue;
    IterativeSearch s = std::move(k->search);
    kept.erase(k);
    s.result.hardware_name = spec.name;  // the only field that names the config
    return s;
  }
  return std::nullopt;
}

size_t kept_search_count() {
  const std::lock_guard<std::mutex> lock(kept_lock);
  return kept.size();
}

const LsAdRun& ls_ad_run(const std::string& net, int batch, const DsaSpec& spec, uint64_t seed) {
  const LsAdOutcome& o = cached_outcome(net, batch, spec, seed);
  if (!o.run) throw Error(o.refusal);
  return *o.run;
}

const LsAdRun* computed_ls_ad_run(const std::string& net, int batch, const DsaSpec& spec,
                                  uint64_t seed) {
  const DsaSpec machine = machine_of(spec);
  const std::lock_guard<std::mutex> lock(computed_lock);
  for (const ComputedRun& c : computed)
    if (c.net == net && c.batch == batch && c.seed == seed && c.machine == machine) return c.run;
  return nullptr;
}

std::vector<int64_t> macs_at_batch_1(const std::vector<std::string>& nets) {
  std::vector<int64_t> macs;
  for (const std::string& net : nets)
    macs.push_back(graph_cost(build_zoo_model(net, {.batch = 1})).total.macs);
  return macs;
}

void prefetch_ls_ad_runs(const std::vector<std::string>& nets, int batch, const DsaSpec& spec,
                         uint64_t seed, const ProgressFn& done) {
  parallel_for_largest_first(macs_at_batch_1(nets), available_cpus(), [&](int64_t i) {
    const std::string& net = nets[static_cast<size_t>(i)];
    const bool computed_before = ls_ad_cache.contains(run_key(net, batch, spec, seed));
    cached_outcome(net, batch, spec, seed);
    if (done && !computed_before) done(net);
  });
}

LsAdRun compute_ls_ad_run(const std::string& net, int batch, const DsaSpec& spec, uint64_t seed,
                          bool noc_overhead) {
  auto run = std::make_unique<LsAdRun>();
  const Graph g = build_zoo_model(net, {.batch = batch});
  // LS (0) and AD (1), each into its own fields; at batch 1 side by side (a network's two
  // strategies need not wait for each other: the longest network decides the item's time), at
  // larger batches one after the other (their atomic DAGs, plans and simulations take gigabytes
  // there: side by side they double the peak memory). An error is LS's first, as when LS runs
  // before AD.
  parallel_for(2, batch <= 1 ? available_cpus() : 1, [&](int64_t part) {
    if (part == 0) {
      const IterationSpaceMemo spaces(g);  // the DAG, plan and model ask for the same regions
      StrategyRun& ls = run->ls;
      const std::vector<Layer> layers = graph_layers(g);
      ls.dag = build_atomic_dag(g, ls_shapes(g, layers, spec, batch), spec);
      ls.schedule = ls_schedule(g, ls.dag, spec);
      const Plan ls_plan = atom_plan(g, ls.dag, ls.schedule, spec, "LS");
      ls.result = evaluate(g, ls_plan, dsa_hardware_spec(spec));
      ls.layer_utilisation_pct = layer_utilisation_pct(ls.dag, ls.schedule, spec);
      return;
    }
    StrategyRun& ad = run->ad;
    std::optional<IterativeSearch> kept_search = take_kept_search(net, batch, spec, seed);
    IterativeSearch search =
        kept_search ? std::move(*kept_search) : iterative_atomic_search(g, spec, seed);
    run->ad_search = describe_search(search);
    run->ad_sa_only_us = search.candidates.front().latency_us;
    run->ad_target_cycles = search.candidates[static_cast<size_t>(search.best)].target_cycles;
    run->ad_candidates = static_cast<int64_t>(search.candidates.size());
    for (const SearchCandidate& c : search.candidates)
      if (c.even_split) run->ad_even_split_us = c.latency_us;
    run->ad_kept_even_split = search.candidates[static_cast<size_t>(search.best)].even_split;
    run->ad_algorithm1_us =
        search.candidates[static_cast<size_t>(search.best_algorithm1)].latency_us;
    if (run->ad_kept_even_split) run->ad_algorithm1_dag = std::move(search.algorithm1_dag);
    ad.dag = std::move(search.dag);
    ad.schedule = std::move(search.schedule);
    ad.result = std::move(search.result);
    ad.layer_utilisation_pct = layer_utilisation_pct(ad.dag, ad.schedule, spec);
    if (noc_overhead) {
      const Plan ad_plan = atom_plan(g, ad.dag, ad.schedule, spec, "AD");
      DsaSpec free_mesh = spec;
      free_mesh.noc_link_bytes_per_cycle = std::numeric_limits<double>::max() / 4;
      free_mesh.noc_hop_cycles = 0;
      const double t_free = evaluate(g, ad_plan, dsa_hardware_spec(free_mesh)).latency_us;
      run->ad_noc_overhead_pct =
          ad.result.latency_us > 0 ? 100 * std::max(0.0, 1 - t_free / ad.result.latency_us) : 0;
    }
    run->ad_reuse_pct = reuse_pct(ad.dag, ad.schedule);
    run->ideal_us =
        ad.dag.total_macs() / (spec.units() * spec.matrix_macs_per_cycle * spec.clock_mhz);
  });
  return std::move(*run);
}

}  // namespace dgs::atomic
