#include "reproductions/brickdl/static_model.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/graph/iteration_space.h"
#include "common/util/error.h"

namespace dgs::brickdl {

namespace {

bool is_activation_tensor(const Graph& g, int t) {
  return !g.tensor(t).is_param();
}

bool fusable_elementwise(const Graph& g, int op) {
  const OpKind k = g.op(op).kind;
  return (is_elementwise(k) && !is_layout_only(k)) || k == OpKind::BatchNormalization;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Distinct spatial extents among the outputs of `ops`.
size_t resolutions(const Graph& g, const std::vector<int>& ops) {
  std::set<Shape> r;
  for (int op : ops) {
    const Shape& s = g.tensor(g.op(op).outputs[0]).shape;
    r.insert(Shape(s.begin() + 2, s.end()));
  }
  return r.size();
}

}  // namespace

bool brick_mergeable(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.outputs.empty()) return false;
  const Shape& s = g.tensor(o.outputs[0]).shape;
  if (s.size() < 3) return false;  // needs (N, C, spatial...)
  switch (o.kind) {
    case OpKind::Conv:
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      return o.outputs.size() == 1;
    case OpKind::Concat:
      return o.attrs.get_int("axis", 0) == 1;
    default:
      return fusable_elementwise(g, op);
  }
}

std::vector<BrickUnit> brick_units(const Graph& g, const std::vector<int>& ops) {
  std::vector<BrickUnit> units;
  std::map<int, size_t> unit_of_output;  // tensor -> unit whose last op produced it
  const std::set<int> in_group(ops.begin(), ops.end());
  for (int op : ops) {
    int join = -1;
    if (fusable_elementwise(g, op)) {
      for (int t : g.op(op).inputs) {
        if (t < 0) continue;
        auto it = unit_of_output.find(t);
        if (it == unit_of_output.end()) continue;
        // Only a tensor this op alone consumes inside the group can stay in the unit's registers.
        int consumers_in_group = 0;
        for (int c : g.tensor(t).consumers) consumers_in_group += in_group.count(c) ? 1 : 0;
        const bool consumed_outside =
            g.tensor(t).role == TensorRole::Output ||
            std::any_of(g.tensor(t).consumers.begin(), g.tensor(t).consumers.end(),
                        [&](int c) { return !in_group.count(c); });
        if (consumers_in_group == 1 && !consumed_outside &&
            g.tensor(g.op(op).outputs[0]).shape == g.tensor(t).shape) {
          join = static_cast<int>(it->second);
          unit_of_output.erase(it);
          break;
        }
      }
    }
    if (join < 0) {
      units.push_back({});
      join = static_cast<int>(units.size() - 1);
    }
    units[static_cast<size_t>(join)].ops.push_back(op);
    units[static_cast<size_t>(join)].output = g.op(op).outputs[0];
    unit_of_output[g.op(op).outputs[0]] = static_cast<size_t>(join);
  }
  return units;
}

BrickSizeChoice choose_brick_size(const std::vector<int64_t>& blocked_extents) {
  double volume = 1;
  for (int64_t d : blocked_extents) volume *= static_cast<double>(d);
  const int n = static_cast<int>(blocked_extents.size());
  BrickSizeChoice best;
  best.n = n;
  for (int64_t b : kBrickEdges) {
    const double rho = volume / std::pow(static_cast<double>(b), n);
    if (rho <= kTau && (best.edge == 0 || rho > best.rho)) {
      best.edge = b;
      best.rho = rho;
    }
  }
  if (best.edge == 0) {  // no B gives rho <= tau: the coarsest bricks (assumption; notes §2.8)
    best.edge = kBrickEdges[3];
    best.rho = volume / std::pow(static_cast<double>(best.edge), n);
  }
  best.fallback = best.rho < std::pow(static_cast<double>(best.edge), n);
  return best;
}

std::vector<int> blocked_dims(const Shape& activation) {
  std::vector<int> dims;
  if (activation.size() < 3) return dims;
  if (activation[0] > 1) dims.push_back(0);
  for (size_t d = 2; d < activation.size(); ++d) dims.push_back(static_cast<int>(d));
  return dims;
}

std::vector<int64_t> blocked_extents(const Shape& activation) {
  std::vector<int64_t> e;
  for (int d : blocked_dims(activation)) e.push_back(activation[static_cast<size_t>(d)]);
  return e;
}

std::vector<int64_t> brick_extent(const Shape& activation, int64_t edge) {
  std::vector<int64_t> ext(activation.begin(), activation.end());
  for (int d : blocked_dims(activation)) ext[static_cast<size_t>(d)] = edge;
  return ext;
}

std::vector<int64_t> subgraph_blocked_extents(const Graph& g, const std::vector<int>& ops) {
  std::set<int> produced;
  for (int op : ops)
    for (int t : g.op(op).outputs) produced.insert(t);
  int best = -1;
  for (int op : ops)
    for (int t : g.op(op).inputs)
      if (t >= 0 && !produced.count(t) && is_activation_tensor(g, t) &&
          (best < 0 || g.tensor(t).numel() > g.tensor(best).numel()))
        best = t;
  if (best < 0) best = g.op(ops.back()).outputs.at(0);
  return blocked_extents(g.tensor(best).shape);
}

const char* variant_name(MergeVariant v) {
  return v == MergeVariant::Padded ? "padded" : "memoized";
}

SubgraphAnalysis analyze_subgraph(const Graph& g, const std::vector<int>& ops, int64_t edge) {
  if (ops.empty()) throw Error("brick analysis: empty subgraph");
  SubgraphAnalysis a;
  a.ops = ops;
  a.root_op = ops.back();
  a.edge = edge;
  const int root = g.op(a.root_op).outputs.at(0);
  const Shape& rs = g.tensor(root).shape;
  const std::vector<int64_t> ext = brick_extent(rs, edge);
  a.root_bricks = 1;
  for (size_t d = 0; d < rs.size(); ++d) a.root_bricks *= ceil_div(rs[d], ext[d]);

  const std::set<int> in_group(ops.begin(), ops.end());
  std::set<int> produced;
  for (int op : ops)
    for (int t : g.op(op).outputs) produced.insert(t);
  for (int op : ops) {
    for (int t : g.op(op).inputs)
      if (t >= 0 && is_activation_tensor(g, t) && !produced.count(t) &&
          std::find(a.input_tensors.begin(), a.input_tensors.end(), t) == a.input_tensors.end())
        a.input_tensors.push_back(t);
    for (int p : g.op(op).inputs)
      if (p >= 0 && g.tensor(p).role == TensorRole::Weight)
        a.weight_bytes += static_cast<double>(g.tensor(p).bytes());
  }

  // Per-dim sums of the padded regions' extents over the root's bricks along that dim (the
  // other dims whole), then the product over dims.
  std::map<int, std::vector<double>> dim_sums;  // tensor -> per-dim sum
  for (size_t d = 0; d < rs.size(); ++d) {
    const int64_t nb = ceil_div(rs[d], ext[d]);
    for (int64_t c = 0; c < nb; ++c) {
      Region tile = full_region(rs);
      tile[d] = {c * ext[d], std::min(rs[d], (c + 1) * ext[d])};
      for (const auto& [t, acc] : propagate_tile(g, ops, a.root_op, tile)) {
        if (!is_activation_tensor(g, t)) continue;
        auto& sums = dim_sums[t];
        sums.resize(g.tensor(t).shape.size(), 0.0);
        // Along a dim the root brick grid does not cut (channels), every brick reads the same
        // extent: counted once per brick of that dim's single "brick".
        sums[d] += static_cast<double>(acc.region[d].size());
      }
    }
  }
  double all = 0, all_padded = 0, in = 0, in_padded = 0, out = 0, out_padded = 0;
  for (const auto& [t, sums] : dim_sums) {
    const Shape& s = g.tensor(t).shape;
    double padded = 1;
    for (size_t d = 0; d < s.size(); ++d) padded *= d < sums.size() ? sums[d] : 1.0;
    const auto n = static_cast<double>(numel(s));
    a.elements[t] = n;
    a.padded_elements[t] = padded;
    all += n;
    all_padded += padded;
    if (produced.count(t)) {
      out += n;
      out_padded += padded;
    } else {
      in += n;
      in_padded += padded;
    }
  }
  a.delta_all = all > 0 ? all_padded / all - 1 : 0;
  a.delta_in = in > 0 ? in_padded / in - 1 : 0;
  a.delta_out = out > 0 ? out_padded / out - 1 : 0;
  a.choice = a.delta_all > kDeltaThreshold ? MergeVariant::Memoized : MergeVariant::Padded;

  a.units = brick_units(g, ops);
  for (const BrickUnit& u : a.units) {
    const Shape& s = g.tensor(u.output).shape;
    const std::vector<int64_t> e = brick_extent(s, edge);
    int64_t n = 1;
    for (size_t d = 0; d < s.size(); ++d) n *= ceil_div(s[d], e[d]);
    a.unit_bricks.push_back(n);
    a.memo_bricks += n;
  }
  return a;
}

double footprint_bytes(const Graph& g, const SubgraphAnalysis& a, MergeVariant v,
                       int64_t resident_bricks) {
  const std::set<int> in_group(a.ops.begin(), a.ops.end());
  auto intermediate = [&](int t) {
    if (g.tensor(t).role == TensorRole::Output) return false;
    for (int c : g.tensor(t).consumers)
      if (!in_group.count(c)) return false;
    return true;
  };
  const auto resident = static_cast<double>(resident_bricks);
  double per_brick = 0;  // bytes per resident brick
  if (v == MergeVariant::Padded) {
    const auto roots = static_cast<double>(a.root_bricks);
    for (const BrickUnit& u : a.units) {
      const auto it = a.padded_elements.find(u.output);
      if (it != a.padded_elements.end() && intermediate(u.output)) per_brick += it->second / roots;
    }
    for (int t : a.input_tensors) {  // the halo copies beyond the brick itself
      const auto p = a.padded_elements.find(t);
      const auto e = a.elements.find(t);
      if (p != a.padded_elements.end() && e != a.elements.end())
        per_brick += (p->second - e->second) / roots;
    }
    return a.weight_bytes + resident * per_brick * 4.0;
  }
  for (size_t u = 0; u < a.units.size(); ++u) {
    if (!intermediate(a.units[u].output)) continue;
    per_brick += static_cast<double>(g.tensor(a.units[u].output).numel()) /
                 static_cast<double>(a.unit_bricks[u]);
  }
  return a.weight_bytes + resident * per_brick * 4.0 + 4.0 * static_cast<double>(a.memo_bricks);
}

std::vector<Subgraph> partition_graph(const Graph& g, double l2_bytes, int64_t resident_bricks) {
  std::vector<int> order = g.topo_order();
  std::vector<Subgraph> reversed;
  std::vector<int> cur;  // in topological order
  auto close = [&] {
    if (cur.empty()) return;
    Subgraph s;
    s.ops = cur;
    s.brick = choose_brick_size(subgraph_blocked_extents(g, cur));
    s.merged = !s.brick.fallback;
    reversed.push_back(std::move(s));
    cur.clear();
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    if (!brick_mergeable(g, v)) {
      close();
      reversed.push_back({.ops = {v}, .merged = false, .brick = {}});
      continue;
    }
    const OpKind k = g.op(v).kind;
    if (!cur.empty() && (k == OpKind::MaxPool || k == OpKind::AveragePool)) close();
    std::vector<int> cand = cur;
    cand.insert(cand.begin(), v);
    if (!cur.empty() && resolutions(g, cand) > kMaxResolutionsPerSubgraph) {
      close();
      cand = {v};
    }
    if (!cur.empty()) {
      const BrickSizeChoice b = choose_brick_size(subgraph_blocked_extents(g, cand));
      const SubgraphAnalysis an = analyze_subgraph(g, cand, b.edge);
      const double fp = std::min(footprint_bytes(g, an, MergeVariant::Padded, resident_bricks),
                                 footprint_bytes(g, an, MergeVariant::Memoized, resident_bricks));
      if (fp > l2_bytes) {
        close();
        cand = {v};
      }
    }
    cur = std::move(cand);
  }
  close();
  std::reverse(reversed.begin(), reversed.end());
  return reversed;
}

}  // namespace dgs::brickdl
