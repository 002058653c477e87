#include "reproductions/ios/dp.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "common/util/error.h"

namespace dgs::ios {

std::string to_string_u128(Count128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

double to_double_u128(Count128 v) {
  const double hi = static_cast<double>(static_cast<uint64_t>(v >> 64));
  const double lo = static_cast<double>(static_cast<uint64_t>(v));
  return hi * 18446744073709551616.0 + lo;
}

PartDag PartDag::from_edges(int n, const std::vector<std::pair<int, int>>& edges) {
  if (n < 0 || n > 64) throw Error("IOS part with " + std::to_string(n) + " units; expected 0..64");
  PartDag d;
  d.n = n;
  d.succ.assign(static_cast<size_t>(n), 0);
  d.merge_class.assign(static_cast<size_t>(n), -1);
  for (auto [u, v] : edges) d.add_edge(u, v);
  return d;
}

void PartDag::add_edge(int u, int v) {
  if (u < 0 || v < 0 || u >= n || v >= n || u >= v)
    throw Error("IOS part edge " + std::to_string(u) + "->" + std::to_string(v) +
                " is not forward in a part of " + std::to_string(n) +
                " units; expected 0 <= u < v < n (units in topological order)");
  succ[static_cast<size_t>(u)] |= Mask{1} << v;
}

std::string_view strategy_set_name(StrategySet s) {
  switch (s) {
    case StrategySet::Merge:
      return "IOS-Merge";
    case StrategySet::Parallel:
      return "IOS-Parallel";
    case StrategySet::Both:
      return "IOS-Both";
  }
  return "?";
}

Mask StageChoice::units() const {
  Mask m = 0;
  for (Mask g : groups) m |= g;
  return m;
}

namespace {

inline Mask bit(int i) {
  return Mask{1} << i;
}

// Whether m has two or more units (popcount(m) > 1 without a popcount: the build targets no
// particular CPU, so std::popcount is a library call there).
inline bool several(Mask m) {
  return (m & (m - 1)) != 0;
}

// (The 16-byte count first: no padding, 48 bytes, so that a memo slot fills one cache line.)
struct Entry {
  Count128 schedules = 0;
  double cost = std::numeric_limits<double>::infinity();
  Mask stage = 0;  // the chosen last stage's units
  Mask heads = 0;  // its group heads (concurrent execution)
  bool merge = false;
};

// Hash table from masks to values for the DP's memos, which see a lookup per transition
// (millions per search): open addressing with linear probing in one array (no node per entry),
// Fibonacci hashing (the high bits of key * 2^64/phi mix every unit's bit). A reference to a
// value stays valid until the next insertion.
template <typename Value>
class MaskTable {
 public:
  MaskTable() { slots_.resize(kInitialSlots); }
  const Value* find(Mask key) const {
    for (size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& sl = slots_[i];
      if (!sl.used) return nullptr;
      if (sl.key == key) return &sl.value;
    }
  }
  // Brings the cache line where a lookup of `key` starts towards the core (a hint: it changes
  // nothing), so that several lookups' memory accesses overlap.
  void prefetch(Mask key) const { __builtin_prefetch(&slots_[home(key)]); }
  // The value of `key`, value-initialised if absent (then `inserted`).
  Value& find_or_insert(Mask key, bool& inserted) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (size_t i = home(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& sl = slots_[i];
      if (!sl.used) {
        sl.used = true;
        sl.key = key;
        sl.value = Value{};
        ++size_;
        inserted = true;
        return sl.value;
      }
      if (sl.key == key) {
        inserted = false;
        return sl.value;
      }
    }
  }

 private:
  static constexpr size_t kInitialSlots = 64;  // a power of two
  // A slot whose size is a power of two up to a cache line is aligned to its size, so that a
  // lookup touches one line (the DP memo's 64-byte slots would otherwise straddle two).
  struct PlainSlot {
    Value value{};
    Mask key = 0;
    bool used = false;
  };
  static constexpr size_t kSlotAlign =
      std::has_single_bit(sizeof(PlainSlot)) && sizeof(PlainSlot) <= 64 ? sizeof(PlainSlot)
                                                                        : alignof(PlainSlot);
  struct alignas(kSlotAlign) Slot {
    Value value{};
    Mask key = 0;
    bool used = false;
  };
  size_t home(Mask key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    --shift_;
    size_ = 0;
    for (Slot& o : old)
      if (o.used) {
        bool inserted = false;
        find_or_insert(o.key, inserted) = std::move(o.value);
      }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
  int shift_ = 64 - std::countr_zero(kInitialSlots);
};

// An ending of the state being solved, with the cost of the state it leaves.
struct Candidate {
  Mask units = 0, heads = 0;
  bool merge = false;
  double rest_cost = 0;  // cost of (state - units)
  double key = 0;        // rest_cost + the stage's lower bound (or its cost, when known)
  bool open = true;      // the stage's cost is not known yet
};

class Solver {
 public:
  Solver(const PartDag& dag, StrategySet strategies, const Pruning& prune, const StageCostFn& cost,
         const StageCostFn& lower_bound, const StageCostFn& tight_bound, uint64_t max_states,
         uint64_t max_transitions = 0)
      : max_states_(max_states),
        max_transitions_(max_transitions),
        dag_(dag),
        strategies_(strategies),
        prune_(prune),
        cost_(cost),
        lower_bound_(lower_bound),
        tight_bound_(tight_bound) {
    bool inserted = false;
    memo_.find_or_insert(0, inserted) = Entry{1, 0.0, 0, 0, false};
    stats_.states = 1;  // the empty state
  }

  const Entry& solve(Mask s) {
    if (const Entry* known = memo_.find(s)) return *known;
    if (max_states_ > 0 && stats_.states >= max_states_) throw StateBudgetExceeded(max_states_);
    ++stats_.states;
    Entry best;
    // desc[u] = {u} + every descendant of u inside s (units in topological
    // index order).
    Mask desc[64];
    for (Mask rest = s; rest;) {
      const int u = 63 - std::countl_zero(rest);
      rest &= ~bit(u);
      Mask d = bit(u);
      for (Mask su = dag_.succ[static_cast<size_t>(u)] & s; su; su &= su - 1)
        d |= desc[std::countr_zero(su)];
      desc[u] = d;
    }
    // The endings are collected (the states they leave solved by solve_pending, in their order)
    // on a stack shared by the recursion: this state's candidates are cands_[first..], above
    // those of its callers.
    const size_t first = cands_.size();
    const Pending outer = pending_;
    pending_ = Pending{s, first, &best};
    if (strategies_ != StrategySet::Parallel) merge_transitions(s, desc);
    if (strategies_ != StrategySet::Merge) parallel_transitions(s, desc);
    solve_pending();
    pending_ = outer;
    choose(s, first, best);
    cands_.resize(first);
    if (best.schedules == 0)
      throw Error("IOS DP: state with no allowed ending (pruning r=" +
                  std::to_string(prune_.max_group_size) +
                  ", s=" + std::to_string(prune_.max_num_groups) + " leaves no stage)");
    bool inserted = false;
    Entry& e = memo_.find_or_insert(s, inserted);
    e = best;
    return e;
  }

  std::vector<StageChoice> reconstruct(Mask s) {
    std::vector<StageChoice> out;
    while (s) {
      const Entry* known = memo_.find(s);
      if (!known) throw Error("IOS DP: a state of the schedule is missing from the memo");
      const Entry& e = *known;
      out.push_back(make_stage(s, e.stage, e.heads, e.merge));
      s &= ~e.stage;
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  DpStats& stats() { return stats_; }

 private:
  StageChoice make_stage(Mask s, Mask units, Mask heads, bool merge) const {
    StageChoice st;
    make_stage_into(s, units, heads, merge, st);
    return st;
  }

  // make_stage into `st`, reusing its storage.
  void make_stage_into(Mask s, Mask units, Mask heads, bool merge, StageChoice& st) const {
    st.merge = false;
    st.groups.clear();
    if (merge && several(units)) {
      st.merge = true;
      st.groups.push_back(units);
      return;
    }
    if (merge) {  // a one-unit "merge" is a one-unit stage
      st.groups.push_back(units);
      return;
    }
    // groups: closure of each head inside s
    for (Mask h = heads; h; h &= h - 1) {
      const int u = std::countr_zero(h);
      Mask d = 0, frontier = bit(u);
      while (frontier) {
        d |= frontier;
        Mask next = 0;
        for (Mask f = frontier; f; f &= f - 1)
          next |= dag_.succ[static_cast<size_t>(std::countr_zero(f))];
        frontier = next & s & ~d;
      }
      st.groups.push_back(d);
    }
  }

  // The memo entry of a stage (counted in stages_costed when first requested), keyed by its
  // units and whether it is a merge (a one-unit merge is the same stage as a one-unit group).
  struct StageMemo {
    double cost = 0, bound = 0;
    bool has_cost = false, has_bound = false, has_tight_bound = false;
  };
  StageMemo& stage_memo(Mask units, bool& merge) {
    if (merge && units && !several(units)) merge = false;
    const Mask key_tag = merge ? 1 : 0;
    bool inserted = false;
    StageMemo& m = (key_tag ? merge_stage_memo_ : stage_memo_).find_or_insert(units, inserted);
    if (inserted) ++stats_.stages_costed;
    return m;
  }

  double stage_cost(Mask s, Mask units, Mask heads, bool merge) {
    if (!cost_) return 0.0;
    StageMemo& m = stage_memo(units, merge);
    if (!m.has_cost) {
      make_stage_into(s, units, merge ? 0 : (heads ? heads : units), merge, scratch_stage_);
      m.cost = cost_(scratch_stage_);
      m.has_cost = true;
    }
    return m.cost;
  }

  // The stage's lower bound, or its cost when known (then *exact = true).
  double stage_bound(Mask s, Mask units, Mask heads, bool merge, bool& exact) {
    StageMemo& m = stage_memo(units, merge);
    exact = m.has_cost;
    if (m.has_cost) return m.cost;
    if (!m.has_bound) {
      make_stage_into(s, units, merge ? 0 : (heads ? heads : units), merge, scratch_stage_);
      m.bound = lower_bound_(scratch_stage_);
      if (!(m.bound >= 0)) m.bound = 0;  // a NaN or negative bound would break the ordering
      m.has_bound = true;
    }
    return m.bound;
  }

  // Before an open ending is costed: with a tight bound, whether rest cost + that bound still
  // lets it win (the bound is kept as the stage's bound for later states).
  bool tight_may_win(Mask s, size_t i, double best_cost, size_t best_i) {
    if (!tight_bound_) return true;
    const Candidate& c = cands_[i];
    bool merge = c.merge;
    StageMemo& m = stage_memo(c.units, merge);
    if (m.has_cost) return true;
    if (!m.has_tight_bound) {
      make_stage_into(s, c.units, merge ? 0 : (c.heads ? c.heads : c.units), merge, scratch_stage_);
      m.bound = std::max(m.bound, tight_bound_(scratch_stage_));
      m.has_tight_bound = true;
    }
    const double key = c.rest_cost + m.bound;
    return !(key > best_cost) && !(key == best_cost && i > best_i);
  }

  // An ending of state s: the state it leaves is solved with the next batch (solve_pending).
  void consider(Mask s, Mask units, Mask heads, bool merge) {
    if (max_transitions_ > 0 && stats_.transitions >= max_transitions_)
      throw TransitionBudgetExceeded(max_transitions_);
    ++stats_.transitions;
    memo_.prefetch(s & ~units);
    cands_.push_back(Candidate{units, heads, merge, 0.0, 0.0});
    if (cands_.size() - pending_.from >= solve_batch_) solve_pending();
  }

  // Solves the states left by the endings collected since the last batch, in the order the
  // enumeration met them (so the DP solves the same states and asks for the same stages in the
  // same order as when each is solved as it is met), adding their schedules and noting their
  // costs. When counting, batched (solve_batch_) so that their memo lookups, prefetched as the
  // endings were met, overlap instead of each waiting for memory; at most kSolveBatch at a time,
  // so that a wide state's endings (millions) are not all held before the first sub-state counts
  // against the state budget. Solving one pushes its own endings above these and pops them again.
  void solve_pending() {
    const size_t end = cands_.size();
    const Pending p = pending_;
    for (size_t i = p.from; i < end; ++i) {
      const Entry& sub = solve(p.state & ~cands_[i].units);
      p.best->schedules += sub.schedules;
      cands_[i].rest_cost = sub.cost;
    }
    pending_.from = end;
  }

  void take(const Candidate& c, double cost, Entry& best) {
    best.cost = cost;
    best.stage = c.units;
    best.heads = c.heads;
    best.merge = c.merge;
  }

  // Algorithm 1 L17-21 over the endings cands_[first..] (in the authors' order): the first
  // ending of least cost wins (a later one replaces the best only when strictly cheaper).
  void choose(Mask s, size_t first, Entry& best) {
    const size_t end = cands_.size();
    if (!cost_ || !lower_bound_) {
      for (size_t i = first; i < end; ++i) {
        const Candidate& c = cands_[i];
        const double v = c.rest_cost + stage_cost(s, c.units, c.heads, c.merge);
        if (v < best.cost) take(c, v, best);
      }
      return;
    }
    // An ending whose cost is known (memoised) is compared at once. The others are taken best
    // first by key = rest cost + lower bound: one whose key exceeds the best cost found cannot
    // win, nor can one whose key equals it and that comes after the best in the authors' order
    // (it could only tie). Costs are computed as above, so the winner is the same: the cheapest,
    // the first in the authors' order among equals.
    constexpr size_t kNone = std::numeric_limits<size_t>::max();
    size_t best_i = kNone;
    auto better = [&](double v, size_t i) {
      return v < best.cost || (v == best.cost && best_i != kNone && i < best_i);
    };
    size_t lead = kNone;                    // the open ending of least key (first among equals)
    for (size_t i = first; i < end; ++i) {  // the stage memo's slots, for the loop below
      const Candidate& c = cands_[i];
      (c.merge && several(c.units) ? merge_stage_memo_ : stage_memo_).prefetch(c.units);
    }
    for (size_t i = first; i < end; ++i) {
      Candidate& c = cands_[i];
      bool exact = false;
      c.key = c.rest_cost + stage_bound(s, c.units, c.heads, c.merge, exact);
      c.open = !exact;
      if (exact) {
        if (better(c.key, i)) {  // key = rest cost + cost, computed as v below
          take(c, c.key, best);
          best_i = i;
        }
      } else if (lead == kNone || c.key < cands_[lead].key) {
        lead = i;
      }
    }
    if (lead == kNone) return;
    auto open_may_win = [&](size_t i) {
      const double key = cands_[i].key;
      return !(key > best.cost) && !(key == best.cost && i > best_i);
    };
    if (open_may_win(lead) && tight_may_win(s, lead, best.cost, best_i)) {
      const Candidate& c = cands_[lead];
      const double v = c.rest_cost + stage_cost(s, c.units, c.heads, c.merge);
      if (better(v, lead)) {
        take(c, v, best);
        best_i = lead;
      }
    }
    // Only the open endings that may still win are sorted.
    order_.clear();
    for (size_t i = first; i < end; ++i)
      if (i != lead && cands_[i].open && open_may_win(i)) order_.push_back(i);
    std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      return cands_[a].key < cands_[b].key || (cands_[a].key == cands_[b].key && a < b);
    });
    for (size_t i : order_) {
      const Candidate& c = cands_[i];
      if (c.key > best.cost) break;
      if (c.key == best.cost && i > best_i) continue;
      if (!tight_may_win(s, i, best.cost, best_i)) continue;
      const double v = c.rest_cost + stage_cost(s, c.units, c.heads, c.merge);
      if (v < best.cost || (v == best.cost && best_i != kNone && i < best_i)) {
        take(c, v, best);
        best_i = i;
      }
    }
  }

  void merge_transitions(Mask s, const Mask* desc) {
    Mask sinks = 0;
    for (Mask r = s; r; r &= r - 1) {
      const int u = std::countr_zero(r);
      if (desc[u] == bit(u)) sinks |= bit(u);
    }
    // Every non-empty subset of the sinks that can be merged: singletons, and
    // subsets of size >= 2 whose units share one merge class. Enumerated in the
    // authors' order (all subsets of the sinks, ascending) so that ties resolve
    // the same way.
    for (Mask sub = sinks; sub; sub = (sub - 1) & sinks) {
      if (several(sub)) {
        const int cls = dag_.merge_class[static_cast<size_t>(std::countr_zero(sub))];
        if (cls < 0) continue;
        bool same = true;
        for (Mask r = sub; r && same; r &= r - 1)
          same = dag_.merge_class[static_cast<size_t>(std::countr_zero(r))] == cls;
        if (!same) continue;
      }
      consider(s, sub, 0, true);
    }
  }

  void parallel_transitions(Mask s, const Mask* desc) {
    int cand[64];
    int nc = 0;
    for (Mask r = s; r; r &= r - 1) {
      const int u = std::countr_zero(r);
      if (prune_.max_group_size <= 0 || std::popcount(desc[u]) <= prune_.max_group_size)
        cand[nc++] = u;
    }
    const int max_groups = prune_.max_num_groups <= 0 ? 64 : prune_.max_num_groups;
    // Depth-first over candidate heads; a head is taken only if its closure is
    // disjoint from the closures already taken.
    struct Frame {
      int next;
      Mask used, heads;
      int groups;
    };
    Frame stack[65];
    int sp = 0;
    stack[sp++] = Frame{0, 0, 0, 0};
    while (sp) {
      Frame& f = stack[sp - 1];
      if (f.next >= nc) {
        --sp;
        continue;
      }
      const int u = cand[f.next++];
      if (desc[u] & f.used) continue;
      const Mask used = f.used | desc[u];
      const Mask heads = f.heads | bit(u);
      const int groups = f.groups + 1;
      consider(s, used, heads, false);
      if (groups < max_groups) stack[sp++] = Frame{f.next, used, heads, groups};
    }
  }

  uint64_t max_states_;       // 0: unbounded
  uint64_t max_transitions_;  // 0: unbounded
  const PartDag& dag_;
  StrategySet strategies_;
  Pruning prune_;
  const StageCostFn& cost_;
  const StageCostFn& lower_bound_;
  const StageCostFn& tight_bound_;
  MaskTable<Entry> memo_;
  std::vector<Candidate> cands_;  // endings of the states being solved (a stack)
  // The state whose endings are being collected, the first of them whose sub-state is not solved
  // yet (cands_[from..]), and its entry in the making.
  struct Pending {
    Mask state = 0;
    size_t from = 0;
    Entry* best = nullptr;
  };
  Pending pending_;
  // Counting (no cost): sub-states solved kSolveBatch at a time, the memo's lookups prefetched
  // (the counts' memos outgrow the caches: RandWire's 55,041 states). A search solves each as it
  // is met: its memo stays small, where the batches only add work.
  static constexpr size_t kSolveBatch = 32;
  const size_t solve_batch_ = cost_ ? 1 : kSolveBatch;
  std::vector<size_t> order_;              // scratch: cands_ indices, best first
  StageChoice scratch_stage_;              // the stage whose cost or bound is asked (no allocation)
  MaskTable<StageMemo> stage_memo_;        // concurrent stages (and one-unit stages) by units
  MaskTable<StageMemo> merge_stage_memo_;  // operator-merge stages of >= 2 units by units
  DpStats stats_;
};

}  // namespace

DpResult solve_part(const PartDag& dag, StrategySet strategies, const Pruning& prune,
                    const StageCostFn& cost) {
  return solve_part(dag, strategies, prune, cost, StageCostFn{}, StageCostFn{});
}

DpResult solve_part(const PartDag& dag, StrategySet strategies, const Pruning& prune,
                    const StageCostFn& cost, const StageCostFn& lower_bound,
                    const StageCostFn& tight_bound, uint64_t max_states) {
  if (dag.n > 64) throw Error("IOS part has " + std::to_string(dag.n) + " units; at most 64");
  Solver solver(dag, strategies, prune, cost, lower_bound, tight_bound, max_states);
  DpResult r;
  const Mask all = dag.all();
  const Entry& e = solver.solve(all);
  r.latency = e.cost;
  r.stats = solver.stats();
  r.stats.schedules = e.schedules;
  r.stages = solver.reconstruct(all);
  return r;
}

DpStats count_part(const PartDag& dag, StrategySet strategies, const Pruning& prune,
                   uint64_t max_states, uint64_t max_transitions) {
  if (dag.n > 64) throw Error("IOS part has " + std::to_string(dag.n) + " units; at most 64");
  // The Solver keeps references to its cost functions: they must outlive it (no temporaries).
  const StageCostFn none;
  Solver solver(dag, strategies, prune, none, none, none, max_states, max_transitions);
  const Count128 schedules = solver.solve(dag.all()).schedules;
  DpStats stats = solver.stats();
  stats.schedules = schedules;
  return stats;
}

int dag_width(const PartDag& dag) {
  const int n = dag.n;
  // transitive closure (indices are topological)
  std::vector<Mask> reach(static_cast<size_t>(n), 0);
  for (int u = n - 1; u >= 0; --u) {
    Mask r = dag.succ[static_cast<size_t>(u)];
    for (Mask s = dag.succ[static_cast<size_t>(u)]; s; s &= s - 1)
      r |= reach[static_cast<size_t>(std::countr_zero(s))];
    reach[static_cast<size_t>(u)] = r;
  }
  // minimum chain cover = n - maximum matching in the bipartite graph u -> v (v
  // reachable from u)
  std::vector<int> match_right(static_cast<size_t>(n), -1);
  int matching = 0;
  for (int u = 0; u < n; ++u) {
    std::vector<char> seen(static_cast<size_t>(n), 0);
    std::function<bool(int)> augment = [&](int x) -> bool {
      for (Mask r = reach[static_cast<size_t>(x)]; r; r &= r - 1) {
        const int v = std::countr_zero(r);
        if (seen[static_cast<size_t>(v)]) continue;
        seen[static_cast<size_t>(v)] = 1;
        if (match_right[static_cast<size_t>(v)] < 0 ||
            augment(match_right[static_cast<size_t>(v)])) {
          match_right[static_cast<size_t>(v)] = x;
          return true;
        }
      }
      return false;
    };
    if (augment(u)) ++matching;
  }
  return n - matching;
}

double transition_bound(int n, int d) {
  if (d <= 0) return 0;
  const double c = static_cast<double>(n) / d;
  return std::pow((c + 2) * (c + 1) / 2, d);
}

}  // namespace dgs::ios
