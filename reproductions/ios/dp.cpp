#include "reproductions/ios/dp.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <unordered_map>

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

struct Entry {
  double cost = std::numeric_limits<double>::infinity();
  Count128 schedules = 0;
  Mask stage = 0;  // the chosen last stage's units
  Mask heads = 0;  // its group heads (concurrent execution)
  bool merge = false;
};

class Solver {
 public:
  Solver(const PartDag& dag, StrategySet strategies, const Pruning& prune, const StageCostFn& cost)
      : dag_(dag), strategies_(strategies), prune_(prune), cost_(cost) {
    memo_.reserve(1024);
    memo_[0] = Entry{0.0, 1, 0, 0, false};
    stats_.states = 1;  // the empty state
  }

  const Entry& solve(Mask s) {
    auto it = memo_.find(s);
    if (it != memo_.end()) return it->second;
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
    if (strategies_ != StrategySet::Parallel) merge_transitions(s, desc, best);
    if (strategies_ != StrategySet::Merge) parallel_transitions(s, desc, best);
    if (best.schedules == 0)
      throw Error("IOS DP: state with no allowed ending (pruning r=" +
                  std::to_string(prune_.max_group_size) +
                  ", s=" + std::to_string(prune_.max_num_groups) + " leaves no stage)");
    return memo_.emplace(s, best).first->second;
  }

  std::vector<StageChoice> reconstruct(Mask s) {
    std::vector<StageChoice> out;
    while (s) {
      const Entry& e = memo_.at(s);
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
    if (merge && std::popcount(units) > 1) {
      st.merge = true;
      st.groups.push_back(units);
      return st;
    }
    if (merge) {  // a one-unit "merge" is a one-unit stage
      st.groups.push_back(units);
      return st;
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
    return st;
  }

  double stage_cost(Mask s, Mask units, Mask heads, bool merge) {
    if (!cost_) return 0.0;
    if (merge && std::popcount(units) == 1) merge = false;  // same stage as a one-unit group
    const Mask key_tag = merge ? 1 : 0;
    auto key = std::make_pair(units, key_tag);
    auto it = stage_memo_.find(key);
    if (it != stage_memo_.end()) return it->second;
    ++stats_.stages_costed;
    const double c = cost_(make_stage(s, units, merge ? 0 : (heads ? heads : units), merge));
    stage_memo_.emplace(key, c);
    return c;
  }

  void consider(Mask s, Mask units, Mask heads, bool merge, Entry& best) {
    ++stats_.transitions;
    const Entry& sub = solve(s & ~units);
    best.schedules += sub.schedules;
    const double c = sub.cost + stage_cost(s, units, heads, merge);
    if (c < best.cost) {
      best.cost = c;
      best.stage = units;
      best.heads = heads;
      best.merge = merge;
    }
  }

  void merge_transitions(Mask s, const Mask* desc, Entry& best) {
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
      if (std::popcount(sub) > 1) {
        const int cls = dag_.merge_class[static_cast<size_t>(std::countr_zero(sub))];
        if (cls < 0) continue;
        bool same = true;
        for (Mask r = sub; r && same; r &= r - 1)
          same = dag_.merge_class[static_cast<size_t>(std::countr_zero(r))] == cls;
        if (!same) continue;
      }
      consider(s, sub, 0, true, best);
    }
  }

  void parallel_transitions(Mask s, const Mask* desc, Entry& best) {
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
      consider(s, used, heads, false, best);
      if (groups < max_groups) stack[sp++] = Frame{f.next, used, heads, groups};
    }
  }

  const PartDag& dag_;
  StrategySet strategies_;
  Pruning prune_;
  const StageCostFn& cost_;
  std::unordered_map<Mask, Entry> memo_;
  struct PairHash {
    size_t operator()(const std::pair<Mask, Mask>& p) const {
      return std::hash<Mask>()(p.first * 0x9E3779B97F4A7C15ull ^ p.second);
    }
  };
  std::unordered_map<std::pair<Mask, Mask>, double, PairHash> stage_memo_;
  DpStats stats_;
};

}  // namespace

DpResult solve_part(const PartDag& dag, StrategySet strategies, const Pruning& prune,
                    const StageCostFn& cost) {
  if (dag.n > 64) throw Error("IOS part has " + std::to_string(dag.n) + " units; at most 64");
  Solver solver(dag, strategies, prune, cost);
  DpResult r;
  const Mask all = dag.all();
  const Entry& e = solver.solve(all);
  r.latency = e.cost;
  r.stats = solver.stats();
  r.stats.schedules = e.schedules;
  r.stages = solver.reconstruct(all);
  return r;
}

DpStats count_part(const PartDag& dag, StrategySet strategies, const Pruning& prune) {
  return solve_part(dag, strategies, prune, StageCostFn{}).stats;
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
