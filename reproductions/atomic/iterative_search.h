#pragma once
// The iterative search of Fig. 4(b) (Sec. III (3)): candidate atomic DAGs go through scheduling
// (the priority-rule Rounds), atom-engine mapping (snake, Eq. 2) and buffering (Algorithm 3), each
// plan is priced by the shared DSA model, and the fastest is kept.
//
// What the paper says and what we add: the paper generates ONE atomic DAG per workload and
// hardware (Sec. IV-A) and iterates over the candidate SCHEDULES of its DP (Sec. IV-B), keeping
// the one the evaluation finds fastest. Our Rounds are one greedy priority-rule fill per DAG (the
// exact DP runs only on DAGs of at most 63 atoms, dp_schedule.h), so that loop has one candidate.
// We iterate instead over candidate ATOM SETS, all drawn from Algorithm 1: the SA's result (its
// final state S, seed --seed) and the atoms Algorithm 1's lines 11-14 give at the target cycles
// S x 2^k, k = 1 .. kTargetDoublings (every layer's shape closest to that target). The SA's energy
// (spread of atom cycles) does not rank latency on our model: larger targets give fewer, larger
// atoms with fewer Rounds and less per-Round communication, which the energy cannot see. The even
// split of LS is NOT a candidate: the paper's atoms come from Algorithm 1 only.
// Deterministic: the candidates depend only on the seed; ties keep the smaller target. The
// candidates are priced in parallel (common/util/parallel_for.h), the choice independent of order.
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/hw/evaluation_result.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {

// The candidate budget: the SA's target cycle and up to this many doublings of it (a doubling
// whose atoms equal the previous candidate's is skipped; the ladder stops once every layer takes
// its largest shape).
inline constexpr int kTargetDoublings = 7;

struct SearchCandidate {
  double target_cycles = 0;  // Algorithm 1's state S for this atom set
  int64_t atoms = 0;
  int64_t rounds = 0;
  double latency_us = 0;  // the DSA model's
};

struct IterativeSearch {
  AtomicDag dag;  // the fastest candidate's
  AtomSchedule schedule;
  EvaluationResult result;
  std::vector<SearchCandidate> candidates;  // in target order
  int best = 0;                             // index into candidates
};

IterativeSearch iterative_atomic_search(const Graph& g, const DsaSpec& spec, uint64_t seed);

// One line for the notes: the candidate budget and the targets tried with their latencies.
std::string describe_search(const IterativeSearch& s);

}  // namespace dgs::atomic
