// Algorithm 1, Eq. 1 and Algorithm 2 of GraphTurbo (see grouping.h).
#include "reproductions/graphturbo/grouping.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "common/graph/iteration_space.h"
#include "common/graph/op_cost.h"
#include "common/util/error.h"

namespace dgs::graphturbo {

namespace {

// The candidate splitting factors of Algorithm 1 line 4: 1, 2, 4, ... up to the core count,
// then every integer up to the extent.
std::vector<int64_t> candidate_factors(int64_t extent, int cores) {
  std::vector<int64_t> v;
  for (int64_t f = 1; f <= cores && f <= extent; f *= 2) v.push_back(f);
  for (int64_t f = cores + 1; f <= extent; ++f) v.push_back(f);
  return v;
}

// Whether splitting axis d of the sub-graph's outputs into v slices slices every op's outputs the
// same way (Algorithm 1's match_dim on every op, with no recomputation): the first and last slice
// of every tensor the sub-graph writes, propagated back through its ops (the shared iteration
// spaces), is that tensor's slice of axis d, exactly.
bool splits_every_op_along(const Graph& g, const std::vector<int>& ops, int d, int64_t v) {
  const std::set<int> in(ops.begin(), ops.end());
  auto slice = [&](const Shape& s, int64_t k) {
    Region r = full_region(s);
    const int64_t e = s[static_cast<size_t>(d)];
    r[static_cast<size_t>(d)] = {e * k / v, e * (k + 1) / v};
    return r;
  };
  for (int64_t k : {int64_t{0}, v - 1}) {
    std::map<int, Region> seeds;
    for (int op : ops)
      for (int t : g.op(op).outputs) {
        const Shape& s = g.tensor(t).shape;
        if (static_cast<int>(s.size()) <= d || s[static_cast<size_t>(d)] % v != 0) return false;
        bool read_inside = false;
        for (int c : g.tensor(t).consumers) read_inside = read_inside || in.count(c) > 0;
        if (!read_inside) seeds[t] = slice(s, k);
      }
    const std::map<int, AccessRegion> need = propagate_regions(g, ops, seeds);
    for (int op : ops)
      for (int t : g.op(op).outputs) {
        const auto it = need.find(t);
        if (it == need.end() || !it->second.exact ||
            it->second.region != slice(g.tensor(t).shape, k))
          return false;
      }
  }
  return true;
}

// The tensors the sub-graph's ops write that no op of the sub-graph reads (what it hands on).
std::vector<int> written_outside(const Graph& g, const std::vector<int>& ops) {
  const std::set<int> in(ops.begin(), ops.end());
  std::vector<int> written;
  for (int op : ops)
    for (int t : g.op(op).outputs) {
      bool read_inside = false;
      for (int c : g.tensor(t).consumers) read_inside = read_inside || in.count(c) > 0;
      if (!read_inside) written.push_back(t);
    }
  return written;
}

// The FLOPs that splitting axis d of the sub-graph's written tensors into v slices computes more
// than once, as a fraction of the sub-graph's FLOPs: every slice's needs propagated back
// through the ops (the shared iteration spaces: a conv chain's halos), each op's output needed
// by the v slices together, against its whole output. Infinite where a slice needs an
// intermediate whole along d (no halo).
double recomputed_fraction(const Graph& g, const std::vector<int>& ops, int d, int64_t v) {
  double total = 0, computed = 0;
  std::vector<double> per_element(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const int64_t n = g.tensor(g.op(ops[i]).outputs.at(0)).numel();
    per_element[i] = n > 0 ? double(op_cost(g, ops[i]).flops) / double(n) : 0;
    total += double(op_cost(g, ops[i]).flops);
  }
  const std::vector<int> written = written_outside(g, ops);
  for (int64_t k = 0; k < v; ++k) {
    std::map<int, Region> seeds;
    for (int t : written) {
      const Shape& s = g.tensor(t).shape;
      Region r = full_region(s);
      const int64_t e = s[static_cast<size_t>(d)];
      r[static_cast<size_t>(d)] = {e * k / v, e * (k + 1) / v};
      seeds[t] = r;
    }
    const std::map<int, AccessRegion> need = propagate_regions(g, ops, seeds);
    for (size_t i = 0; i < ops.size(); ++i) {
      const int t = g.op(ops[i]).outputs.at(0);
      const auto it = need.find(t);
      if (it == need.end()) continue;
      // A halo only: a slice that needs a whole intermediate along d (attention's keys) is no
      // halo; such a split is refused.
      const Shape& s = g.tensor(t).shape;
      if (static_cast<int>(s.size()) > d && s[static_cast<size_t>(d)] > 1 &&
          it->second.region[static_cast<size_t>(d)].size() == s[static_cast<size_t>(d)])
        return std::numeric_limits<double>::infinity();
      computed += double(region_numel(it->second.region)) * per_element[i];
    }
  }
  return total > 0 ? (computed - total) / total : 0;
}

// Whether every tensor the sub-graph writes has axis d (to be split along it).
bool written_have_axis(const Graph& g, const std::vector<int>& ops, int d, int64_t v) {
  for (int t : written_outside(g, ops)) {
    const Shape& s = g.tensor(t).shape;
    if (static_cast<int>(s.size()) <= d || s[static_cast<size_t>(d)] % v != 0) return false;
  }
  return true;
}

}  // namespace

SplitTuple best_split(const std::vector<SplitTuple>& info) {
  if (info.empty()) throw Error("best_split of an empty SplitInfo");
  SplitTuple best = info.front();
  for (const SplitTuple& t : info) {
    const auto key = [](const SplitTuple& s) { return std::tuple(s.ops_split, -s.factor, -s.dim); };
    if (key(t) > key(best)) best = t;
  }
  return best;
}

SubGraph make_subgraph(const Graph& g, std::vector<int> ops, const GtParams& p) {
  SubGraph sg;
  sg.ops = std::move(ops);
  sg.output = g.op(sg.ops.back()).outputs.at(0);
  for (int op : sg.ops) {
    for (int t : g.op(op).outputs) {
      sg.peak_bytes = std::max(sg.peak_bytes, g.tensor(t).numel() * p.element_bytes);
    }
  }
  const Shape& out = g.tensor(sg.output).shape;
  // Algorithm 1's loop over d, the batch axis first (see grouping.h): match_dim holds for every
  // op's axis 0.
  for (int d = 0; d < std::min<int>(1, static_cast<int>(out.size())); ++d) {
    for (int64_t v : candidate_factors(out[static_cast<size_t>(d)], p.cores)) {
      if (out[static_cast<size_t>(d)] % v != 0) continue;
      if ((sg.peak_bytes + v - 1) / v > p.split_capacity) continue;
      int n = 0;
      for (int op : sg.ops) {
        const Shape& s = g.tensor(g.op(op).outputs.at(0)).shape;
        if (!s.empty() && s[0] % v == 0) ++n;
      }
      sg.split_info.push_back({n, v, d});
      break;
    }
  }
  // No fitting split of the batch (e.g. one image or sentence per cluster): the other axes, each
  // only where it is an axis of every op (see grouping.h).
  for (int d = 1; sg.split_info.empty() && d < static_cast<int>(out.size()); ++d) {
    for (int64_t v : candidate_factors(out[static_cast<size_t>(d)], p.cores)) {
      if (v == 1 || out[static_cast<size_t>(d)] % v != 0) continue;
      if ((sg.peak_bytes + v - 1) / v > p.split_capacity) continue;
      if (splits_every_op_along(g, sg.ops, d, v)) {
        sg.split_info.push_back({static_cast<int>(sg.ops.size()), v, d});
      } else if (written_have_axis(g, sg.ops, d, v)) {
        // Recomputation (halos of a conv chain), bounded by the cost model (§3.1).
        const double r = recomputed_fraction(g, sg.ops, d, v);
        if (r <= kRecomputeThreshold && (!p.recompute_fits || p.recompute_fits(g, sg.ops, d, v))) {
          sg.split_info.push_back({static_cast<int>(sg.ops.size()), v, d});
          sg.recomputed_fraction = r;
          sg.recomputes = true;
        }
      }
      break;
    }
  }
  if (sg.split_info.empty()) {
    sg.fits = false;  // the smallest instances (one batch index each) still overflow
    sg.best = {static_cast<int>(sg.ops.size()), out.empty() ? 1 : out[0], 0};
  } else {
    sg.best = best_split(sg.split_info);
  }
  return sg;
}

namespace {

struct GroupState {
  const Graph& g;
  const GtParams& p;
  std::vector<int> topo_pos;  // op -> position in g.topo_order()
  std::vector<std::vector<int>> groups;
  std::vector<SubGraph> sgs;
  std::vector<int> group_of_op;
  std::vector<std::set<int>> producers, consumers;
  std::vector<bool> has_graph_output;

  GroupState(const Graph& graph, const GtParams& params) : g(graph), p(params) {
    topo_pos.assign(static_cast<size_t>(g.num_ops()), 0);
    const std::vector<int> order = g.topo_order();
    for (size_t i = 0; i < order.size(); ++i) topo_pos[static_cast<size_t>(order[i])] = int(i);
    for (int op : order) groups.push_back({op});
    rebuild(std::vector<bool>(groups.size(), true));
  }

  // Recomputes edges, topological order and (for `dirty` groups) Algorithm 1.
  void rebuild(const std::vector<bool>& dirty) {
    std::vector<SubGraph> old = std::move(sgs);
    std::vector<std::pair<std::vector<int>, std::optional<SubGraph>>> items;
    for (size_t i = 0; i < groups.size(); ++i) {
      std::sort(groups[i].begin(), groups[i].end(),
                [&](int a, int b) { return topo_pos[size_t(a)] < topo_pos[size_t(b)]; });
      std::optional<SubGraph> keep;
      if (!dirty[i] && i < old.size()) keep = std::move(old[i]);
      items.emplace_back(groups[i], std::move(keep));
    }
    // Topological order of the groups (Kahn over op-level edges, ties by first op position).
    const size_t n = items.size();
    std::vector<int> group_tmp(static_cast<size_t>(g.num_ops()), -1);
    for (size_t i = 0; i < n; ++i)
      for (int op : items[i].first) group_tmp[size_t(op)] = int(i);
    std::vector<std::set<int>> pred(n);
    for (size_t i = 0; i < n; ++i)
      for (int op : items[i].first)
        for (int q : g.predecessors(op))
          if (group_tmp[size_t(q)] != int(i)) pred[i].insert(group_tmp[size_t(q)]);
    std::vector<int> indeg(n);
    std::vector<std::vector<int>> succ(n);
    for (size_t i = 0; i < n; ++i) {
      indeg[i] = int(pred[i].size());
      for (int q : pred[i]) succ[size_t(q)].push_back(int(i));
    }
    auto later = [&](int a, int b) {
      return topo_pos[size_t(items[size_t(a)].first[0])] >
             topo_pos[size_t(items[size_t(b)].first[0])];
    };
    std::vector<int> heap;
    for (size_t i = 0; i < n; ++i)
      if (indeg[i] == 0) heap.push_back(int(i));
    std::make_heap(heap.begin(), heap.end(), later);
    std::vector<int> order;
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const int i = heap.back();
      heap.pop_back();
      order.push_back(i);
      for (int s : succ[size_t(i)])
        if (--indeg[size_t(s)] == 0) {
          heap.push_back(s);
          std::push_heap(heap.begin(), heap.end(), later);
        }
    }
    if (order.size() != n)
      throw Error("GraphTurbo grouping made a cycle in graph '" + g.name + "'");
    groups.clear();
    sgs.clear();
    for (int i : order) {
      groups.push_back(items[size_t(i)].first);
      sgs.push_back(items[size_t(i)].second ? std::move(*items[size_t(i)].second)
                                            : make_subgraph(g, items[size_t(i)].first, p));
    }
    group_of_op.assign(static_cast<size_t>(g.num_ops()), -1);
    for (size_t i = 0; i < n; ++i)
      for (int op : groups[i]) group_of_op[size_t(op)] = int(i);
    producers.assign(n, {});
    consumers.assign(n, {});
    has_graph_output.assign(n, false);
    for (size_t i = 0; i < n; ++i) {
      for (int op : groups[i]) {
        for (int q : g.predecessors(op)) {
          const int gq = group_of_op[size_t(q)];
          if (gq != int(i)) {
            producers[i].insert(gq);
            consumers[size_t(gq)].insert(int(i));
          }
        }
        for (int t : g.op(op).outputs)
          if (g.tensor(t).role == TensorRole::Output) has_graph_output[i] = true;
      }
    }
  }

  SubGraph merged(std::initializer_list<int> ids) const {
    std::vector<int> ops;
    for (int i : ids) ops.insert(ops.end(), groups[size_t(i)].begin(), groups[size_t(i)].end());
    std::sort(ops.begin(), ops.end(),
              [&](int a, int b) { return topo_pos[size_t(a)] < topo_pos[size_t(b)]; });
    return make_subgraph(g, std::move(ops), p);
  }
  int64_t f(int i) const { return sgs[size_t(i)].best.factor; }

  // Moves the groups of each merge set into its first member; returns whether any merged.
  bool apply(const std::vector<std::vector<int>>& sets) {
    if (sets.empty()) return false;
    std::vector<bool> dead(groups.size(), false), dirty(groups.size(), false);
    for (const auto& s : sets) {
      for (size_t k = 1; k < s.size(); ++k) {
        auto& dst = groups[size_t(s[0])];
        dst.insert(dst.end(), groups[size_t(s[k])].begin(), groups[size_t(s[k])].end());
        dead[size_t(s[k])] = true;
      }
      dirty[size_t(s[0])] = true;
    }
    std::vector<std::vector<int>> kept;
    std::vector<bool> kept_dirty;
    std::vector<SubGraph> kept_sgs;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (dead[i]) continue;
      kept.push_back(std::move(groups[i]));
      kept_dirty.push_back(dirty[i]);
      kept_sgs.push_back(std::move(sgs[i]));
    }
    groups = std::move(kept);
    sgs = std::move(kept_sgs);
    rebuild(kept_dirty);
    return true;
  }

  // One sweep of a pattern: every candidate whose groups no earlier merge of the sweep touched.
  template <class Find>
  bool sweep(Find find, int& merged_count, int& refused) {
    std::vector<std::vector<int>> sets;
    std::vector<bool> used(groups.size(), false);
    for (int i = 0; i < static_cast<int>(groups.size()); ++i) {
      std::vector<int> set = find(i, refused);
      if (set.empty()) continue;
      if (std::any_of(set.begin(), set.end(), [&](int k) { return used[size_t(k)]; })) continue;
      for (int k : set) used[size_t(k)] = true;
      sets.push_back(std::move(set));
    }
    merged_count += static_cast<int>(sets.size());
    return apply(sets);
  }
};

}  // namespace

Grouping group_subgraphs(const Graph& g, const GtParams& p) {
  GroupState s(g, p);
  MergeCounts counts;
  // Straight (Fig. 4a, Rule i): SG1 the unique producer of SG2, SG2 the unique consumer of SG1.
  auto straight = [&](int a, int& refused) -> std::vector<int> {
    if (s.consumers[size_t(a)].size() != 1 || s.has_graph_output[size_t(a)]) return {};
    const int b = *s.consumers[size_t(a)].begin();
    if (s.producers[size_t(b)].size() != 1) return {};
    const SubGraph m = s.merged({a, b});
    if (s.f(b) >= s.f(a) && m.best.factor <= s.f(b)) return {b, a};
    ++refused;
    return {};
  };
  // Diamond (Fig. 4b, Rule ii): exit SG4 with >= 2 producers that each have the same single
  // producer SG1 and SG4 as their only consumer; SG2, SG3 (, ...) and SG4 fuse.
  auto diamond = [&](int exit, int& refused) -> std::vector<int> {
    std::map<int, std::vector<int>> by_entry;
    for (int q : s.producers[size_t(exit)]) {
      if (s.consumers[size_t(q)].size() != 1 || s.has_graph_output[size_t(q)]) continue;
      if (s.producers[size_t(q)].size() != 1) continue;
      by_entry[*s.producers[size_t(q)].begin()].push_back(q);
    }
    for (auto& [entry, paths] : by_entry) {
      if (paths.size() < 2) continue;
      std::vector<int> ops_set = {exit};
      int64_t fmax = s.f(exit);
      std::vector<int> all_ops = s.groups[size_t(exit)];
      for (int q : paths) {
        ops_set.push_back(q);
        fmax = std::max(fmax, s.f(q));
        all_ops.insert(all_ops.end(), s.groups[size_t(q)].begin(), s.groups[size_t(q)].end());
      }
      std::sort(all_ops.begin(), all_ops.end(),
                [&](int a, int b) { return s.topo_pos[size_t(a)] < s.topo_pos[size_t(b)]; });
      if (make_subgraph(g, all_ops, p).best.factor <= fmax) return ops_set;
      ++refused;
    }
    return {};
  };
  // Branch (Fig. 4c, Rule i on (SG2, SG3)): exit SG3 with >= 2 producers; a producer SG2 whose
  // only consumer is SG3 fuses with it.
  auto branch = [&](int exit, int& refused) -> std::vector<int> {
    if (s.producers[size_t(exit)].size() < 2) return {};
    for (int q : s.producers[size_t(exit)]) {
      if (s.consumers[size_t(q)].size() != 1 || s.has_graph_output[size_t(q)]) continue;
      const SubGraph m = s.merged({q, exit});
      if (s.f(exit) >= s.f(q) && m.best.factor <= s.f(exit)) return {exit, q};
      ++refused;
    }
    return {};
  };
  for (;;) {
    ++counts.rounds;
    int refused = 0;
    bool any = false;
    while (s.sweep(straight, counts.straight, refused)) any = true;
    while (s.sweep(diamond, counts.diamond, refused)) any = true;
    while (s.sweep(branch, counts.branch, refused)) any = true;
    counts.refused = refused;
    if (!any) break;
  }
  Grouping out;
  out.subgraphs = std::move(s.sgs);
  out.subgraph_of_op = std::move(s.group_of_op);
  out.merges = counts;
  for (size_t i = 0; i < out.subgraphs.size(); ++i) {
    out.producers.emplace_back(s.producers[i].begin(), s.producers[i].end());
    out.consumers.emplace_back(s.consumers[i].begin(), s.consumers[i].end());
  }
  return out;
}

int paper_op_count(const Graph& g, const std::vector<int>& ops) {
  const std::set<int> in(ops.begin(), ops.end());
  int n = 0;
  for (int op : ops) {
    ++n;
    if (g.op(op).kind != OpKind::Add) continue;
    const std::vector<int> next = g.successors(op);
    if (next.size() == 1 && g.op(next[0]).kind == OpKind::Relu && in.count(next[0])) --n;
  }
  return n;
}

std::string gt_constants_note(const GtParams& p) {
  std::ostringstream os;
  os << "GraphTurbo constants: Algorithm 1 capacity sizeof(LB) = kSplitCapacityFractionOfLlb ("
     << kSplitCapacityFractionOfLlb << ") x LLB = " << p.split_capacity
     << " B (calibration point: Fig. 6's 8/4/2/1 split of ResNet-50); peak = largest activation "
        "written in the sub-graph; splits along the batch axis, other axes only where no batch "
        "split fits and the axis is one of every op with no recomputation, or recomputes at "
        "most kRecomputeThreshold = "
     << kRecomputeThreshold
     << " of the sub-graph's FLOPs (a conv chain's halos along a spatial axis); cores per "
        "cluster = "
     << p.cores << "; element bytes = " << p.element_bytes;
  if (p.recompute_fits)
    os << "; a recomputing split only where its halo kernels' LB-fitting tiles fit";
  return os.str();
}

}  // namespace dgs::graphturbo
