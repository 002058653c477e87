#pragma once
// The IOS dynamic program over "endings" (thesis §3.2, Algorithm 1, Fig. 3.3)
// on one part of a block: at most 64 schedule units, a state is a bitmask of
// the units still to be scheduled.
//
//   cost[0] = 0
//   cost[S] = min over endings S' of S allowed by the pruning P(S,S') of cost[S
//   - S'] + L(S')
//
// Choices the thesis leaves open, taken from the authors' implementation (named
// as such):
//  * Concurrent-execution endings are "head closures": a stage is a set of
//  heads h whose closures
//    desc_S(h) = {h} plus every descendant of h inside S are pairwise disjoint;
//    each closure is one group (its units run in index order on one stream).
//    This is the rule with which the thesis' Table 3.1 counts come out exactly;
//    the thesis' wording ("connected operators share a group") admits more
//    endings (e.g. two branch tails plus their shared concat).
//  * Pruning: at most r units per group (max_group_size) and at most s groups
//  (max_num_groups).
//  * Operator-merge endings: every non-empty subset of the sinks of S (units
//  with no successor in
//    S) whose units can be merged; a single unit is always "mergeable" (a
//    one-unit stage).
//  * Merge transitions are tried before concurrent ones and a later transition
//  replaces the best
//    only when strictly cheaper (Algorithm 1, L19).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/util/error.h"

namespace dgs::ios {

using Mask = uint64_t;
using Count128 = unsigned __int128;  // #schedules reaches 2.6e24 (RandWire), beyond 64 bits
std::string to_string_u128(Count128 v);
double to_double_u128(Count128 v);

// A DAG of at most 64 units in a topological (definition) order: every edge
// goes from a lower to a higher index.
struct PartDag {
  int n = 0;
  std::vector<Mask> succ;  // succ[u]: units v > u with an edge u -> v inside the part
  // merge_class[u] >= 0: units with the same class can be merged into one
  // operator (same input, stride, resolution, activation; see network.h); -1:
  // this unit merges with nothing.
  std::vector<int> merge_class;

  static PartDag from_edges(int n, const std::vector<std::pair<int, int>>& edges);
  void add_edge(int u, int v);
  Mask all() const { return n == 64 ? ~Mask{0} : ((Mask{1} << n) - 1); }
};

enum class StrategySet { Merge, Parallel, Both };   // IOS-Merge, IOS-Parallel, IOS-Both
std::string_view strategy_set_name(StrategySet s);  // "IOS-Merge", ...

struct Pruning {
  int max_group_size = 3;  // r (thesis §3.4); <= 0: unlimited
  int max_num_groups = 8;  // s; <= 0: unlimited
  static Pruning none() { return {0, 0}; }
};

// One stage: for concurrent execution the groups (each a mask, units run in
// index order); for operator merge one group holding the merged units.
struct StageChoice {
  bool merge = false;
  std::vector<Mask> groups;
  Mask units() const;
};

// Stage latency of `stage` (in any unit; the DP only adds and compares). Called
// once per distinct (units, merge) pair: the DP memoises.
using StageCostFn = std::function<double(const StageChoice& stage)>;

struct DpStats {
  uint64_t states = 0;       // states visited, the empty state included (Fig. 3.4 counts 6)
  uint64_t transitions = 0;  // (S, S') pairs enumerated: executions of Algorithm 1 L17-21
  Count128 schedules = 0;    // number of distinct stage sequences (paths from the full state to 0)
  uint64_t stages_costed = 0;  // distinct stages whose latency was requested
};

struct DpResult {
  double latency = 0;
  std::vector<StageChoice> stages;  // in execution order
  DpStats stats;
};

// Thrown by solve_part / count_part when a part needs more states than the budget given.
class StateBudgetExceeded : public Error {
 public:
  explicit StateBudgetExceeded(uint64_t budget)
      : Error("IOS DP: more than " + std::to_string(budget) + " states"), budget(budget) {}
  uint64_t budget;
};

// Thrown by count_part when a part needs more transitions than the budget given.
class TransitionBudgetExceeded : public Error {
 public:
  explicit TransitionBudgetExceeded(uint64_t budget)
      : Error("IOS DP: more than " + std::to_string(budget) + " transitions"), budget(budget) {}
  uint64_t budget;
};

// Runs the DP on `dag`. With `cost` empty, only counts (every stage costs 0).
DpResult solve_part(const PartDag& dag, StrategySet strategies, const Pruning& prune,
                    const StageCostFn& cost);

// The same result (latency, stages, and stats: stages_costed still counts every distinct stage
// of the search), with `lower_bound(stage) <= cost(stage)` for every stage (each called at most
// once per distinct stage): a state's endings are costed in ascending order of (cost of the rest
// + lower bound), and an ending is not costed when that sum already exceeds the best ending's
// cost (or equals it and the ending comes later in the authors' order, so it could only tie).
// The winner is the cheapest ending, the first in the authors' order among equals: exactly
// Algorithm 1's. An empty `lower_bound` gives solve_part(dag, strategies, prune, cost).
// `tight_bound` (optional, also <= cost; costlier than `lower_bound`, so asked only for an ending
// that is about to be costed, at most once per distinct stage): the ending is not costed when
// rest cost + that bound rules it out as above.
// `max_states` > 0 bounds the states visited: one more throws StateBudgetExceeded.
DpResult solve_part(const PartDag& dag, StrategySet strategies, const Pruning& prune,
                    const StageCostFn& cost, const StageCostFn& lower_bound,
                    const StageCostFn& tight_bound = {}, uint64_t max_states = 0);

// Counting only (no cost): states, transitions and schedules. `max_transitions` > 0 bounds the
// transitions enumerated: one more throws TransitionBudgetExceeded (a wide part's endings can
// number millions per state long before the states reach a budget).
DpStats count_part(const PartDag& dag, StrategySet strategies, const Pruning& prune,
                   uint64_t max_states = 0, uint64_t max_transitions = 0);

// Largest antichain of the DAG (Definition 3), via Dilworth / bipartite
// matching on the transitive closure: width = n - maximum matching.
int dag_width(const PartDag& dag);

// The thesis' upper bound C(n/d+2, 2)^d on the number of transitions (Theorem,
// §3.3).
double transition_bound(int n, int d);

}  // namespace dgs::ios
