// The iterative search of Fig. 4(b) over Algorithm 1's atom sets (see iterative_search.h).
#include "reproductions/atomic/iterative_search.h"

#include <cstdio>

#include "common/dsamodel/dsa_model.h"
#include "reproductions/atomic/atom_search.h"

namespace dgs::atomic {

IterativeSearch iterative_atomic_search(const Graph& g, const DsaSpec& spec, uint64_t seed) {
  const auto options = shape_options(g, graph_layers(g), spec);
  const AnnealResult sa = anneal_atom_shapes(options, {}, seed);
  std::vector<int> largest(options.size());
  for (size_t l = 0; l < options.size(); ++l) largest[l] = static_cast<int>(options[l].size()) - 1;
  IterativeSearch best;
  std::vector<int> previous;
  double target = sa.target_cycles;
  for (int k = 0; k <= kTargetDoublings; ++k, target *= 2) {
    std::vector<int> choice = k == 0 ? sa.choice : shapes_at_target(options, target);
    if (k > 0 && choice == previous) continue;
    AtomicDag dag = build_atomic_dag(g, chosen_shapes(options, choice), spec);
    AtomSchedule schedule = schedule_atoms(g, dag, spec, {});
    EvaluationResult result = evaluate_dsa_plan(g, atom_plan(g, dag, schedule, spec, "AD"), spec);
    best.candidates.push_back({.target_cycles = target,
                               .atoms = static_cast<int64_t>(dag.atoms.size()),
                               .rounds = static_cast<int64_t>(schedule.rounds.size()),
                               .latency_us = result.latency_us});
    if (best.candidates.size() == 1 || result.latency_us < best.result.latency_us) {
      best.best = static_cast<int>(best.candidates.size()) - 1;
      best.dag = std::move(dag);
      best.schedule = std::move(schedule);
      best.result = std::move(result);
    }
    if (choice == largest) break;
    previous = std::move(choice);
  }
  return best;
}

std::string describe_search(const IterativeSearch& s) {
  std::string r = "iterative search (Fig. 4b): " + std::to_string(s.candidates.size()) +
                  " candidate atom sets (the SA's and Algorithm 1's atoms at up to " +
                  std::to_string(kTargetDoublings) +
                  " doublings of its target cycle S, kTargetDoublings), kept: S = ";
  char buf[64];
  const SearchCandidate& b = s.candidates[static_cast<size_t>(s.best)];
  std::snprintf(buf, sizeof buf, "%.0f", b.target_cycles);
  r += buf;
  r += " cycles; tried (S cycles: atoms, us):";
  for (const SearchCandidate& c : s.candidates) {
    std::snprintf(buf, sizeof buf, " %.0f: %lld, %.1f;", c.target_cycles,
                  static_cast<long long>(c.atoms), c.latency_us);
    r += buf;
  }
  r.pop_back();
  return r;
}

}  // namespace dgs::atomic
