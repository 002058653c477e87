// AD and LS runs of one network on one config (see ad_runs.h).
#include "reproductions/atomic/experiments/ad_runs.h"

#include <ctime>
#include <utility>

#include "common/evaluate/evaluate.h"
#include "reproductions/atomic/baselines.h"
#include "reproductions/atomic/iterative_search.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

AdRun run_ad(const Graph& g, const DsaSpec& spec, uint64_t seed) {
  AdRun r;
  const double t0 = process_cpu_seconds();
  const IterativeSearch s = iterative_atomic_search(g, spec, seed);
  r.search_cpu_s = process_cpu_seconds() - t0;
  r.ad_us = s.result.latency_us;
  r.rounds = static_cast<int64_t>(s.schedule.rounds.size());
  r.atoms = static_cast<int64_t>(s.dag.atoms.size());
  r.candidates = static_cast<int64_t>(s.candidates.size());
  return r;
}

AdSearch search_ad(const Graph& g, const DsaSpec& spec, uint64_t seed, IterativeSearch* searched) {
  AdSearch r;
  const double t0 = process_cpu_seconds();
  IterativeSearch s = iterative_atomic_search(g, spec, seed);
  r.cpu_s = process_cpu_seconds() - t0;
  r.layers = static_cast<int64_t>(graph_layers(g).size());
  r.atoms = static_cast<int64_t>(s.dag.atoms.size());
  r.rounds = static_cast<int64_t>(s.schedule.rounds.size());
  r.candidates = static_cast<int64_t>(s.candidates.size());
  if (searched) *searched = std::move(s);
  return r;
}

double run_ls(const Graph& g, const DsaSpec& spec, int batch) {
  const std::vector<Layer> layers = graph_layers(g);
  const AtomicDag ls = build_atomic_dag(g, ls_shapes(g, layers, spec, batch), spec);
  return evaluate(g, atom_plan(g, ls, ls_schedule(g, ls, spec), spec, "LS"),
                  dsa_hardware_spec(spec))
      .latency_us;
}

}  // namespace dgs::atomic
