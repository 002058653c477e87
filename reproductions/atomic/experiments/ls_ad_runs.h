#pragma once
// LS and AD of one network on the shared DSA model, with what the batch-20 items (Fig. 9,
// Table II, Fig. 11) read from them; cached per (network, batch, dataflow, seed) so the items of
// one run share it.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/hw/evaluation_result.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/iterative_search.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {

struct StrategyRun {
  AtomicDag dag;
  AtomSchedule schedule;
  EvaluationResult result;
  // Table II (1): per matrix layer, MACs / (sum over its Rounds of the Round's compute-only
  // length (the busiest engine's summed atom cycles) x the engines the layer uses in that Round
  // x MACs per cycle per engine), averaged over the layers (unweighted).
  double layer_utilisation_pct = 0;
};

// StrategyRun::layer_utilisation_pct of a schedule.
double layer_utilisation_pct(const AtomicDag& dag, const AtomSchedule& s, const DsaSpec& spec);

// The notes line of every item that runs LS: what its "layer" is (baselines.h LsLayer, an open
// choice) and why.
std::string ls_layer_note();

struct LsAdRun {
  StrategyRun ls, ad;
  double ideal_us = 0;  // MACs / peak
  // Table II (2), AD: the part of the latency the mesh adds, 1 - T(mesh links infinitely wide,
  // zero hop latency) / T (NAN unless compute_ls_ad_run was asked for it: another pricing of the
  // kept plan, which only Table II reads); and the share of intermediate outputs (bytes, by the
  // atom holding a region) that stay on chip until their last reader, never written back.
  double ad_noc_overhead_pct = NAN;
  double ad_reuse_pct = 0;
  std::string ad_search;  // describe_search of AD's iterative search (for the notes)
  // The iterative search: the SA's atoms alone (its first candidate), the kept candidate's
  // target cycle and the number of candidates priced.
  double ad_sa_only_us = 0;
  double ad_target_cycles = 0;
  int64_t ad_candidates = 0;
  // The search's last candidate, LS's even split (kEvenSplitCandidate): AD's Rounds, mapping and
  // buffering on LS's atoms (ls.dag); NAN where the model refuses it (or the search has none).
  double ad_even_split_us = NAN;
  // Whether the search kept LS's even split (kEvenSplitCandidate); then the fastest of
  // Algorithm 1's candidates is kept apart, for Fig. 10's ablation of Algorithm 1's atoms.
  bool ad_kept_even_split = false;
  AtomicDag ad_algorithm1_dag;  // empty unless ad_kept_even_split
  double ad_algorithm1_us = 0;  // the fastest of Algorithm 1's candidates
  const AtomicDag& algorithm1_dag() const {
    return ad_kept_even_split ? ad_algorithm1_dag : ad.dag;
  }
};

// Computed once per (network, batch, dataflow, config name, seed) and shared by the items (Fig. 8
// and Fig. 10 at batch 1; Fig. 9, Table II and Fig. 11 at batch 20). A plan the DSA model refuses
// throws dgs::Error (and is not cached).
const LsAdRun& ls_ad_run(const std::string& net, int batch, const DsaSpec& spec, uint64_t seed);
// A run of `net` at `batch` with `seed` that this process has already computed (ls_ad_run,
// prefetch_ls_ad_runs) on a machine equal to `spec` in every field but its name, file and sources,
// or nullptr: the same computation on the same numbers (the name reaches only messages and
// EvaluationResult::hardware_name), which the sweeps (Figs. 12 and 13) read at the point that is
// Fig. 8's machine instead of searching again. A refusal is not returned (its message names the
// config). Thread-safe.
const LsAdRun* computed_ls_ad_run(const std::string& net, int batch, const DsaSpec& spec,
                                  uint64_t seed);
// Computes into that cache the runs of `nets` it lacks (refusals included), one network per CPU
// at a time, so that an item's loop over them finds every run there: the results do not depend
// on the order in which they finish. `done` (if any) is called with a network's name as its runs
// end (not for one found in the cache).
void prefetch_ls_ad_runs(const std::vector<std::string>& nets, int batch, const DsaSpec& spec,
                         uint64_t seed, const ProgressFn& done = {});
// The MACs of each of `nets` at batch 1: the proxy for a run's time by which the runs of a list
// of networks are handed out, largest first (parallel_for_largest_first), so that the CPUs finish
// together (NasNet-A Large, the longest by far at batch 1, is fifth in Table II's order, so in
// that order it started once four others had run and then ran alone).
std::vector<int64_t> macs_at_batch_1(const std::vector<std::string>& nets);
// Keeps a finished iterative search of `net` at `batch` with `seed` on `spec` (Fig. 4's, which
// times it) for the first compute_ls_ad_run of that network, batch and seed on a machine equal to
// `spec` in every field but its name, file and sources (as computed_ls_ad_run) to take instead of
// searching again: the same search on the same numbers (its result then names that run's
// config), and only a search run with the default options (the run's). take_kept_search hands
// it over once (nullopt: none kept for these). A search nobody takes (`--fig 4` alone, or Fig. 8's
// run cached before) is held until the process ends. Thread-safe.
void keep_search(const std::string& net, int batch, const DsaSpec& spec, uint64_t seed,
                 IterativeSearch search);
std::optional<IterativeSearch> take_kept_search(const std::string& net, int batch,
                                                const DsaSpec& spec, uint64_t seed);
// How many kept searches are held now (for tests).
size_t kept_search_count();
// The same, computed and returned, not cached (for callers that keep only a summary of it);
// with `noc_overhead`, also LsAdRun::ad_noc_overhead_pct (the cached runs go without it: no item
// that reads them reads it).
LsAdRun compute_ls_ad_run(const std::string& net, int batch, const DsaSpec& spec, uint64_t seed,
                          bool noc_overhead = false);

}  // namespace dgs::atomic
