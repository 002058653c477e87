#pragma once
// The DP of Algorithm 2 (Atomic Dataflow) for small atomic DAGs (at most 63 atoms): the minimum
// total of Round cycles (a Round costs its longest atom, compute only: the paper's Cycle(Comb)
// before mapping and buffering) over all schedules whose Rounds are drawn from the options:
//   All:            every set of min(N, ready) ready atoms (the unpruned search: C(P, N) per
//   Round); PriorityRules:  the four priority levels of schedule.h: the levels before the deciding
//   one
//                   whole, and every choice of the remaining slots from the deciding level.
// The memo (Table) is keyed by the set of atoms done. The pruning we add (the paper's run times
// imply one it does not describe) is exact: branch and bound, cutting a branch whose elapsed
// cycles plus a lower bound of the rest (max of the longest remaining atom and ceil(remaining /
// N) x the shortest remaining atom) reach the best complete schedule found; sub-DAGs cut this
// way keep that bound, never a value, so the optimum is never dropped (tested against the search
// without it). On the tiny test DAGs it can expand more sub-DAGs than the plain memo (a sub-DAG
// cut under one budget is expanded again under a looser one). The large networks use the greedy
// fill of schedule.h, not this search.
#include <cstdint>
#include <vector>

#include "reproductions/atomic/atoms.h"

namespace dgs::atomic {

enum class DpOptions { All, PriorityRules };

struct DpResult {
  double cycles = 0;                     // the minimum total of Round cycles
  std::vector<std::vector<int>> rounds;  // one optimal schedule
  int64_t states = 0;                    // sub-DAGs expanded
};

// Throws dgs::Error when the DAG has more than 63 atoms.
DpResult dp_schedule(const AtomicDag& dag, int engines, DpOptions options, bool branch_and_bound);

}  // namespace dgs::atomic
