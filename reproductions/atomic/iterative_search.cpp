// The iterative search of Fig. 4(b) over Algorithm 1's atom sets (see iterative_search.h).
#include "reproductions/atomic/iterative_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>

#include "common/dsamodel/dsa_model.h"
#include "common/graph/iteration_space.h"
#include "common/util/error.h"
#include "common/util/parallel_for.h"
#include "reproductions/atomic/atom_search.h"
#include "reproductions/atomic/baselines.h"

namespace dgs::atomic {

namespace {

struct Candidate {
  std::vector<AtomShape> shapes;
  double target = 0;
  int64_t budget = 0;
  bool even_split = false;
};

// Builds, schedules, maps, buffers and prices each candidate on its own (the expensive part), on
// as many CPUs as the process has, appending them to `s.candidates` and keeping the fastest (the
// minimum of (latency, index), whatever order they finish in, so the result does not depend on
// the thread count).
void price_candidates(const Graph& g, const DsaSpec& spec, const std::vector<Candidate>& cs,
                      IterativeSearch& s) {
  const size_t first = s.candidates.size();
  s.candidates.resize(first + cs.size());
  std::mutex keep;
  // The refusal of the lowest-indexed candidate refused, thrown once every worker has finished
  // (whichever candidate finishes first, so the error does not depend on the thread count).
  std::string error;
  size_t error_index = cs.size();
  parallel_for(static_cast<int64_t>(cs.size()), available_cpus(), [&](int64_t i) {
    {
      // A candidate after one already refused cannot change the outcome (the lowest-indexed
      // refusal is thrown, and nothing of the search is kept): not priced.
      const std::lock_guard<std::mutex> lock(keep);
      if (error_index < static_cast<size_t>(i)) return;
    }
    const Candidate& c = cs[static_cast<size_t>(i)];
    const IterationSpaceMemo spaces(g);  // the DAG, its buffering and its plan ask for regions
    AtomicDag dag;
    AtomSchedule schedule;
    EvaluationResult result;
    try {
      dag = build_atomic_dag(g, c.shapes, spec);
      schedule = schedule_atoms(g, dag, spec, {});
      // The DSA model directly, not evaluate(): Plan::check on every candidate would add about
      // a fifth to its pricing (bench_atomic_search: BM_CheckSaPlan against BM_EvaluateSaPlan,
      // 14.9 against 79.8 ms CPU on ResNet-50's SA plan); the candidates' plans come from
      // atom_plan, whose plans evaluate() checks where the runs price LS, CNN-P, IL-Pipe and the
      // kept AD plan again.
      result = evaluate_dsa_plan(g, atom_plan(g, dag, schedule, spec, "AD"), spec);
    } catch (const Error& e) {
      const std::lock_guard<std::mutex> lock(keep);
      if (c.even_split) {  // not Algorithm 1's: a plan the model refuses is no candidate
        s.candidates[first + static_cast<size_t>(i)] = {.latency_us = NAN, .even_split = true};
        return;
      }
      if (static_cast<size_t>(i) < error_index) {
        error = e.what();
        error_index = static_cast<size_t>(i);
      }
      return;
    }
    const std::lock_guard<std::mutex> lock(keep);
    const size_t at = first + static_cast<size_t>(i);
    s.candidates[at] = {.target_cycles = c.target,
                        .budget_bytes = c.budget,
                        .atoms = static_cast<int64_t>(dag.atoms.size()),
                        .rounds = static_cast<int64_t>(schedule.rounds.size()),
                        .latency_us = result.latency_us,
                        .even_split = c.even_split};
    const auto faster_than = [&](int kept) {
      return kept < 0 || result.latency_us < s.candidates[static_cast<size_t>(kept)].latency_us ||
             (result.latency_us == s.candidates[static_cast<size_t>(kept)].latency_us &&
              static_cast<int>(at) < kept);
    };
    // Algorithm 1's fastest DAG is `s.dag` while it is also the fastest overall (best ==
    // best_algorithm1), else `s.algorithm1_dag`: moved there when an even split displaces it, or
    // put there when it is not the fastest overall (never copied: at batch 20 a DAG takes
    // hundreds of megabytes).
    const bool algorithm1 = !c.even_split && faster_than(s.best_algorithm1);
    const bool faster = faster_than(s.best);
    if (faster && !algorithm1 && s.best >= 0 && s.best == s.best_algorithm1)
      s.algorithm1_dag = std::move(s.dag);
    if (algorithm1) {
      s.best_algorithm1 = static_cast<int>(at);
      if (!faster) s.algorithm1_dag = std::move(dag);
    }
    if (faster) {
      s.best = static_cast<int>(at);
      s.dag = std::move(dag);
      s.schedule = std::move(schedule);
      s.result = std::move(result);
    }
  });
  if (error_index < cs.size()) throw Error(error);
}

// The second round's candidates: Algorithm 1's atoms at up to o.target_doublings doublings of
// the SA's target S within `budget` (one of the first round's, whose shape options and SA result
// are options_of[h] and sa_of[h] for budget = local_bytes / 2^(h+1)); a doubling whose atoms
// equal the previous rung's is skipped, and the ladder stops once every layer takes its largest
// shape.
std::vector<Candidate> target_ladder(
    const DsaSpec& spec, const IterativeSearchOptions& o,
    const std::vector<std::vector<std::vector<ShapeOption>>>& options_of,
    const std::vector<AnnealResult>& sa_of, int64_t budget) {
  int h = 0;
  while (spec.local_bytes / (int64_t{2} << h) != budget) ++h;
  const auto& options = options_of[static_cast<size_t>(h)];
  const AnnealResult& sa = sa_of[static_cast<size_t>(h)];
  std::vector<int> largest(options.size());
  for (size_t l = 0; l < options.size(); ++l) largest[l] = static_cast<int>(options[l].size()) - 1;
  std::vector<Candidate> ladder;
  std::vector<int> previous = sa.choice;
  double target = sa.target_cycles;
  for (int k = 1; k <= o.target_doublings && previous != largest; ++k) {
    target *= 2;
    std::vector<int> choice = shapes_at_target(options, target);
    if (choice == previous) continue;
    previous = choice;
    ladder.push_back({chosen_shapes(options, choice), target, budget});
  }
  return ladder;
}

}  // namespace

IterativeSearch iterative_atomic_search(const Graph& g, const DsaSpec& spec, uint64_t seed,
                                        const IterativeSearchOptions& o) {
  if (o.budget_halvings < 0 || o.target_doublings < 0 || o.anneal.iterations < 1)
    throw Error("iterative search: budget halvings " + std::to_string(o.budget_halvings) +
                ", target doublings " + std::to_string(o.target_doublings) + ", SA iterations " +
                std::to_string(o.anneal.iterations) + " (expected >= 0, >= 0, >= 1)");
  const std::vector<Layer> layers = graph_layers(g);
  const auto all = all_shape_options(g, layers, spec);
  IterativeSearch best;
  best.best = -1;
  best.options = o;
  // 1. The SA's atoms within half the engine buffer and within each of kBudgetHalvings halvings
  // of that.
  std::vector<std::vector<std::vector<ShapeOption>>> options_of;
  std::vector<AnnealResult> sa_of;
  std::vector<Candidate> first;
  for (int h = 0; h <= o.budget_halvings; ++h) {
    const int64_t budget = spec.local_bytes / (int64_t{2} << h);
    if (h > 0 && budget < kSmallestAtomBudget) break;
    options_of.push_back(admitted_shape_options(layers, all, budget, spec));
    sa_of.push_back(anneal_atom_shapes(options_of.back(), o.anneal, seed));
    best.sa_evaluations += sa_of.back().evaluations;
    std::vector<AtomShape> shapes = chosen_shapes(options_of.back(), sa_of.back().choice);
    bool seen = false;
    for (const Candidate& c : first) seen = seen || c.shapes == shapes;
    if (!seen) first.push_back({std::move(shapes), sa_of.back().target_cycles, budget});
  }
  // 2. Algorithm 1's atoms at up to kTargetDoublings doublings of the SA's target S, within the
  // budget whose SA atoms ran fastest. With one atom set in the first round (every budget's SA
  // gave the same atoms), that budget is known before any pricing: both rounds are priced
  // together (the same candidates in the same order, so the same search), and the first one's
  // long candidate runs beside the ladder's instead of alone.
  // 3. The even split of LS, last (kEvenSplitCandidate), priced with the last round.
  std::vector<Candidate> even;
  if (o.even_split)
    even.push_back({.shapes = ls_shapes(g, layers, spec, static_cast<int>(graph_batch(g))),
                    .even_split = true});
  if (first.size() == 1) {
    std::vector<Candidate> both = first;
    const std::vector<Candidate> ladder =
        target_ladder(spec, o, options_of, sa_of, first[0].budget);
    both.insert(both.end(), ladder.begin(), ladder.end());
    both.insert(both.end(), even.begin(), even.end());
    price_candidates(g, spec, both, best);
  } else {
    price_candidates(g, spec, first, best);
    const int64_t budget = best.candidates[static_cast<size_t>(best.best)].budget_bytes;
    std::vector<Candidate> last = target_ladder(spec, o, options_of, sa_of, budget);
    last.insert(last.end(), even.begin(), even.end());
    price_candidates(g, spec, last, best);
  }
  if (!best.candidates[static_cast<size_t>(best.best)].even_split) best.algorithm1_dag = {};
  return best;
}

std::string describe_search(const IterativeSearch& s) {
  std::string r = "iterative search (Fig. 4b): " + std::to_string(s.candidates.size()) +
                  " candidate atom sets (the SA's atoms within half the engine buffer and " +
                  std::to_string(s.options.budget_halvings) +
                  " halvings of that, kBudgetHalvings; then, within the budget whose SA atoms ran "
                  "fastest, Algorithm 1's atoms at up to " +
                  std::to_string(s.options.target_doublings) +
                  " doublings of its target cycle S, kTargetDoublings" +
                  (s.options.even_split ? "; then LS's even split, kEvenSplitCandidate" : "") +
                  "), kept: ";
  char buf[96];
  const SearchCandidate& b = s.candidates[static_cast<size_t>(s.best)];
  if (b.even_split) {
    r += "LS's even split (kEvenSplitCandidate)";
  } else {
    std::snprintf(buf, sizeof buf, "S = %.0f cycles, atoms within %lld KiB", b.target_cycles,
                  static_cast<long long>(b.budget_bytes / 1024));
    r += buf;
  }
  r += "; tried (KiB, S cycles: atoms, us):";
  for (const SearchCandidate& c : s.candidates) {
    if (c.even_split && std::isnan(c.latency_us))
      std::snprintf(buf, sizeof buf, " even split: refused by the model;");
    else if (c.even_split)
      std::snprintf(buf, sizeof buf, " even split: %lld, %.1f;", static_cast<long long>(c.atoms),
                    c.latency_us);
    else
      std::snprintf(buf, sizeof buf, " %lld, %.0f: %lld, %.1f;",
                    static_cast<long long>(c.budget_bytes / 1024), c.target_cycles,
                    static_cast<long long>(c.atoms), c.latency_us);
    r += buf;
  }
  r.pop_back();
  return r;
}

}  // namespace dgs::atomic
