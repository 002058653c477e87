#pragma once
// The iterative search of Fig. 4(b) (Sec. III (3)): candidate atomic DAGs go through scheduling
// (the priority-rule Rounds), atom-engine mapping (snake, Eq. 2) and buffering (Algorithm 3), each
// plan is priced by the shared DSA model, and the fastest is kept.
//
// What the paper says and what we add: the paper generates ONE atomic DAG per workload and
// hardware (Sec. IV-A) and iterates over the candidate SCHEDULES of its DP (Sec. IV-B), keeping
// the one the evaluation finds fastest. Our Rounds are one greedy priority-rule fill per DAG (the
// exact DP runs only on DAGs of at most 63 atoms, dp_schedule.h), so that loop has one candidate.
// We iterate instead over candidate ATOM SETS, drawn from Algorithm 1 (and one more, below), in two
// rounds: first the SA's result (its final state S, seed --seed) for atoms admitted within half the
// engine buffer and within each of kBudgetHalvings halvings of that; then, for the budget whose SA
// atoms ran fastest, the atoms Algorithm 1's lines 11-14 give at the target cycles S x 2^k,
// k = 1 .. kTargetDoublings (every layer's shape closest to that target). The SA's atoms of a
// smaller buffer's budgets down to kSmallestAtomBudget stay candidates on a larger one (they fit
// it): its larger admitted atoms, closer to the same targets, give fewer atoms per layer and
// less parallelism, and on ResNet-50 the fastest atoms fit 32 KiB whatever the buffer (reached
// by kBudgetHalvings = 3 from 64 to 512 KiB; a 1 MiB buffer would not reach them). Budgets below
// the floor, and the target doublings of budgets other than the fastest one, are not: at 32 KiB
// the search misses the 16 KiB buffer's plan (a doubling of 8 KiB atoms), which is why Fig. 13
// adds every smaller buffer's plan as a candidate (kFig13SmallerPlans, sweeps.cpp).
// The SA's energy (spread of atom cycles) does not rank latency on our model: larger targets
// give fewer, larger atoms with fewer Rounds and less per-Round communication, which the energy
// cannot see. One candidate is not Algorithm 1's: the even split of LS (ls_shapes, every layer
// cut over all engines), through the same Rounds, mapping, buffering and model, ranked by the
// same simulated latency (kEvenSplitCandidate, an open choice named for issue #23). Why: the
// paper says AD's search space covers the previous allocation schemes ("Ideally, this approach
// can undoubtedly improve the performance ... as the previous resource allocation schemes are
// covered in its search space", Sec. I), and leaves the search's candidate set open (Fig. 4b
// iterates over the schedules of ONE atomic DAG); Algorithm 1's objective, the spread of atom
// cycles, cannot see transfers, ports or the mesh, so its atom sets alone missed the even
// split, which on ResNet-50 (batch 1, KC-P) ran 3124 us against the kept 4376 us.
// Deterministic: the candidates depend only on the seed; ties keep the smaller target (and
// Algorithm 1's atoms over the even split). The candidates are priced in parallel
// (common/util/parallel_for.h), the choice independent of order.
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/hw/evaluation_result.h"
#include "reproductions/atomic/atom_search.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {

// The candidate budget: the SA's target cycle and up to this many doublings of it (a doubling
// whose atoms equal the previous candidate's is skipped; the ladder stops once every layer takes
// its largest shape).
inline constexpr int kTargetDoublings = 7;
// Admission budgets tried: half the engine buffer and this many halvings of it, none below
// kSmallestAtomBudget (a run-time bound, not a model constant: smaller atoms make atomic DAGs of
// tens of thousands of atoms for ResNet-50 whose pricing dominates the search; the fastest atoms
// of Fig. 13's sweep fit 32 KiB).
inline constexpr int kBudgetHalvings = 3;
inline constexpr int64_t kSmallestAtomBudget = 32 * 1024;
// Whether the search also prices the even split of LS (the header's comment says why).
inline constexpr bool kEvenSplitCandidate = true;

struct SearchCandidate {
  double target_cycles = 0;  // Algorithm 1's state S for this atom set
  int64_t budget_bytes = 0;  // the atoms' admission budget (their working set)
  int64_t atoms = 0;
  int64_t rounds = 0;
  double latency_us = 0;  // the DSA model's
  // LS's atoms (target_cycles and budget_bytes 0), not Algorithm 1's; where the DSA model
  // refuses their plan (e.g. at batch 20, a whole-sample conv1 atom over the buffer), latency_us
  // is NaN and atoms 0: no candidate, the search goes on (a refused Algorithm 1 set throws).
  bool even_split = false;
};

// The search's extent; the defaults are what every item runs (the Scheduler "atomic" exposes
// them as options).
struct IterativeSearchOptions {
  int budget_halvings = kBudgetHalvings;    // >= 0
  int target_doublings = kTargetDoublings;  // >= 0
  AnnealConstants anneal;                   // Algorithm 1's SA for each budget
  bool even_split = kEvenSplitCandidate;    // the last candidate: LS's even split
  bool operator==(const IterativeSearchOptions&) const = default;
};

struct IterativeSearch {
  AtomicDag dag;  // the fastest candidate's
  // The fastest of Algorithm 1's candidates (every one but the even split), for the items that
  // measure Algorithm 1's atoms (Fig. 10's ablation); its DAG is kept apart only where the even
  // split is the fastest overall (else it is `dag`): algorithm1_atoms() gives it either way.
  int best_algorithm1 = -1;  // index into candidates
  AtomicDag algorithm1_dag;
  const AtomicDag& algorithm1_atoms() const {
    return candidates[static_cast<size_t>(best)].even_split ? algorithm1_dag : dag;
  }
  AtomSchedule schedule;
  EvaluationResult result;
  std::vector<SearchCandidate> candidates;  // in target order
  int best = 0;                             // index into candidates
  IterativeSearchOptions options;           // what ran
  int64_t sa_evaluations = 0;               // energy evaluations of the SA runs, all budgets
};

// Throws dgs::Error for options out of range (negative halvings or doublings, SA iterations < 1).
IterativeSearch iterative_atomic_search(const Graph& g, const DsaSpec& spec, uint64_t seed,
                                        const IterativeSearchOptions& options = {});

// One line for the notes: the candidate budget and the targets tried with their latencies.
std::string describe_search(const IterativeSearch& s);

}  // namespace dgs::atomic
