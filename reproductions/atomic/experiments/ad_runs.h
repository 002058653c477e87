#pragma once
// One network through atomic dataflow (AD) and the layer-sequential baseline (LS) on one DSA
// config, as Fig. 8 runs them: the iterative search of iterative_search.h (Algorithm 1's atom
// sets from the SA with --seed, each through the priority-rule Rounds with snake mapping and
// Algorithm 3 buffering and priced by the shared DSA model; the fastest kept); LS = every layer
// split over all engines, outputs through DRAM. Used by the sweeps (Figs. 12, 13), the prototype
// and the search-time item.
#include <cstdint>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/iterative_search.h"

namespace dgs::atomic {

struct AdRun {
  double ad_us = 0;
  int64_t atoms = 0;
  int64_t rounds = 0;
  int64_t candidates = 0;  // atom sets the iterative search evaluated
  // CPU seconds (this process) of the whole iterative search, the model's evaluation of every
  // candidate included.
  double search_cpu_s = 0;
};

// The iterative search (shape options, SA, and per candidate atom set the atomic DAG, the Rounds
// with mapping and buffering and the model's evaluation): its CPU seconds and the kept plan's size.
struct AdSearch {
  int64_t layers = 0;
  int64_t atoms = 0;
  int64_t rounds = 0;
  int64_t candidates = 0;
  double cpu_s = 0;
};
// With `searched`, the search itself is moved there (after its CPU seconds are taken).
AdSearch search_ad(const Graph& g, const DsaSpec& spec, uint64_t seed,
                   IterativeSearch* searched = nullptr);

// AD on `g` (built at the batch to run), as Fig. 8 runs it: Algorithm 3 buffering with the
// model's own working set per atom (atom_task.h), so the model accepts the plan as it is.
AdRun run_ad(const Graph& g, const DsaSpec& spec, uint64_t seed);

// LS latency (us) on `g` at `batch`.
double run_ls(const Graph& g, const DsaSpec& spec, int batch);

// CPU seconds used by this process so far.
double process_cpu_seconds();

}  // namespace dgs::atomic
