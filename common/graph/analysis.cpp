#include "common/graph/analysis.h"

#include <algorithm>
#include <bit>
#include <queue>
#include <set>

#include "common/graph/op_signature.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Cost
// ---------------------------------------------------------------------------------------------
namespace {

// FLOPs per element of the normalisation ops (see analysis.h for what each counts).
constexpr int64_t kBatchNormFlopsPerElement = 2;  // folded scale and shift
constexpr int64_t kLayerNormFlopsPerElement = 8;  // mean 1, variance 3, normalise 2, affine 2
constexpr int64_t kSoftmaxFlopsPerElement = 5;    // max, subtract, exp, sum, divide
constexpr int64_t kLerpFlops = 3;                 // linear interpolation: sub, mul, add
constexpr int64_t kCubicFlopsPerTap = 2;          // multiply-add per tap of a cubic filter

int64_t prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

int64_t int_pow(int64_t b, int64_t e) {
  int64_t r = 1;
  while (e-- > 0) r *= b;
  return r;
}

bool has_input(const Op& op, int i) {
  return i < static_cast<int>(op.inputs.size()) && op.inputs[i] >= 0;
}

}  // namespace

OpCost& OpCost::operator+=(const OpCost& o) {
  flops += o.flops;
  macs += o.macs;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  params += o.params;
  return *this;
}

OpCost op_cost(const Graph& g, int o) {
  const Op& op = g.op(o);
  OpCost c;
  auto in = [&](int i) -> const Tensor& { return g.tensor(op.inputs[i]); };
  const Tensor& out = g.tensor(op.outputs.at(0));
  const int64_t out_n = out.numel();

  // Bytes and parameters.
  std::vector<int> seen;
  for (int i = 0; i < static_cast<int>(op.inputs.size()); ++i) {
    int t = op.inputs[i];
    if (t < 0 || is_shape_input(op.kind, i)) continue;
    if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
    seen.push_back(t);
    const Tensor& x = g.tensor(t);
    if (x.role == TensorRole::Weight) c.params += x.numel();
    if (op.kind == OpKind::Slice && i == 0) {
      c.bytes_read += out.bytes();
    } else if (op.kind == OpKind::Gather && i == 0) {
      c.bytes_read += out_n * dtype_size(x.dtype);
    } else {
      c.bytes_read += x.bytes();
    }
  }
  for (int t : op.outputs) {
    if (t >= 0) c.bytes_written += g.tensor(t).bytes();
  }

  switch (op.kind) {
    case OpKind::Conv: {
      const Shape& w = in(1).shape;  // [M, C/group, k...]
      c.macs = out_n * w[1] * prod(w, 2, w.size());
      c.flops = 2 * c.macs + (has_input(op, 2) ? out_n : 0);
      break;
    }
    case OpKind::ConvTranspose: {
      const Shape& w = in(1).shape;  // [C, M/group, k...]
      c.macs = in(0).numel() * w[1] * prod(w, 2, w.size());
      c.flops = 2 * c.macs + (has_input(op, 2) ? out_n : 0);
      break;
    }
    case OpKind::Gemm: {
      const Shape& a = in(0).shape;
      const int64_t k = op.attrs.get_int("transA", 0) ? a[0] : a[1];
      c.macs = out_n * k;
      c.flops = 2 * c.macs + (has_input(op, 2) ? out_n : 0);
      break;
    }
    case OpKind::MatMul: {
      const Shape& a = in(0).shape;
      c.macs = out_n * a.back();
      c.flops = 2 * c.macs;
      break;
    }
    case OpKind::MaxPool:
    case OpKind::AveragePool: {
      const std::vector<int64_t> k = op.attrs.get_ints("kernel_shape", {});
      c.flops = out_n * prod(k, 0, k.size());
      break;
    }
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      c.flops = in(0).numel();
      break;
    case OpKind::BatchNormalization:
      c.flops = kBatchNormFlopsPerElement * out_n;
      break;
    case OpKind::LayerNormalization:
      c.flops = kLayerNormFlopsPerElement * out_n;
      break;
    case OpKind::Softmax:
      c.flops = kSoftmaxFlopsPerElement * out_n;
      break;
    case OpKind::Identity:
    case OpKind::Dropout:
    case OpKind::Cast:
      break;
    case OpKind::Max:
    case OpKind::Min:
      c.flops = out_n * std::max<int64_t>(1, static_cast<int64_t>(op.inputs.size()) - 1);
      break;
    case OpKind::ReduceMean:
      c.flops = in(0).numel() + out_n;
      break;
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      c.flops = in(0).numel();
      break;
    case OpKind::Resize: {
      const Shape& x = in(0).shape;
      int64_t k = 0;
      for (size_t i = 0; i < x.size(); ++i) k += x[i] != out.shape[i] ? 1 : 0;
      const std::string mode = op.attrs.get_string("mode", "nearest");
      if (mode == "linear") c.flops = out_n * kLerpFlops * (int_pow(2, k) - 1);
      if (mode == "cubic") c.flops = out_n * kCubicFlopsPerTap * int_pow(4, k);
      break;
    }
    default:
      if (is_elementwise(op.kind)) c.flops = out_n;  // other unary and binary arithmetic
      break;                                         // data movement: 0 FLOPs
  }
  return c;
}

GraphCost graph_cost(const Graph& g) {
  GraphCost gc;
  gc.per_op.reserve(g.num_ops());
  for (int o = 0; o < g.num_ops(); ++o) {
    gc.per_op.push_back(op_cost(g, o));
    gc.total += gc.per_op.back();
  }
  // A weight shared by several ops is one set of parameters.
  int64_t params = 0;
  std::vector<bool> used(g.num_tensors(), false);
  for (const Op& op : g.ops()) {
    for (int t : op.inputs) {
      if (t >= 0 && !used[t] && g.tensor(t).role == TensorRole::Weight) {
        used[t] = true;
        params += g.tensor(t).numel();
      }
    }
  }
  gc.total.params = params;
  return gc;
}

OpCost group_cost(const Graph& g, const std::vector<int>& ops) {
  std::vector<bool> in_group(g.num_ops(), false);
  for (int o : ops) in_group.at(o) = true;
  OpCost c;
  std::vector<bool> counted(g.num_tensors(), false);
  for (int o : ops) {
    const Op& op = g.op(o);
    const OpCost oc = op_cost(g, o);
    c.flops += oc.flops;
    c.macs += oc.macs;
    for (int i = 0; i < static_cast<int>(op.inputs.size()); ++i) {
      const int t = op.inputs[i];
      if (t < 0 || counted[t] || is_shape_input(op.kind, i)) continue;
      const Tensor& x = g.tensor(t);
      if (x.producer >= 0 && in_group[x.producer]) continue;
      counted[t] = true;
      c.bytes_read += x.bytes();
      if (x.role == TensorRole::Weight) c.params += x.numel();
    }
    for (int t : op.outputs) {
      if (t < 0) continue;
      const Tensor& y = g.tensor(t);
      bool external = y.role == TensorRole::Output;
      for (int u : y.consumers) external = external || !in_group[u];
      if (external) c.bytes_written += y.bytes();
    }
  }
  return c;
}

int64_t parameter_count(const Graph& g) {
  int64_t n = 0;
  for (int t : g.weight_tensors()) n += g.tensor(t).numel();
  return n;
}

// ---------------------------------------------------------------------------------------------
// NodeSet
// ---------------------------------------------------------------------------------------------
NodeSet& NodeSet::operator|=(const NodeSet& o) {
  for (size_t i = 0; i < words_.size(); ++i) words_[i] |= o.words_[i];
  return *this;
}
NodeSet& NodeSet::operator&=(const NodeSet& o) {
  for (size_t i = 0; i < words_.size(); ++i) words_[i] &= o.words_[i];
  return *this;
}
int NodeSet::count() const {
  int c = 0;
  for (uint64_t w : words_) c += std::popcount(w);
  return c;
}
std::vector<int> NodeSet::members() const {
  std::vector<int> out;
  for (size_t i = 0; i < words_.size(); ++i) {
    uint64_t w = words_[i];
    while (w) {
      out.push_back(static_cast<int>(i * 64 + std::countr_zero(w)));
      w &= w - 1;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// DAGs
// ---------------------------------------------------------------------------------------------
namespace {

void add_edge(OpDag& d, int a, int b) {
  if (a == b) return;
  auto& s = d.succ[a];
  if (std::find(s.begin(), s.end(), b) != s.end()) return;
  s.push_back(b);
  d.pred[b].push_back(a);
}

// Kahn's algorithm with ties broken by `priority` (smaller first); returns the order, shorter
// than num_nodes on a cycle.
std::vector<int> kahn(const OpDag& d, const std::vector<int>& priority) {
  std::vector<int> indeg(d.num_nodes);
  for (int u = 0; u < d.num_nodes; ++u) indeg[u] = static_cast<int>(d.pred[u].size());
  using Item = std::pair<int, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (int u = 0; u < d.num_nodes; ++u) {
    if (indeg[u] == 0) ready.push({priority[u], u});
  }
  std::vector<int> order;
  while (!ready.empty()) {
    int u = ready.top().second;
    ready.pop();
    order.push_back(u);
    for (int s : d.succ[u]) {
      if (--indeg[s] == 0) ready.push({priority[s], s});
    }
  }
  return order;
}

}  // namespace

OpDag op_dag(const Graph& g) {
  OpDag d;
  d.num_nodes = g.num_ops();
  d.succ.resize(d.num_nodes);
  d.pred.resize(d.num_nodes);
  d.reads_graph_input.assign(d.num_nodes, false);
  d.writes_graph_output.assign(d.num_nodes, false);
  for (int o = 0; o < d.num_nodes; ++o) {
    for (int p : g.predecessors(o)) add_edge(d, p, o);
    for (int t : g.op(o).inputs) {
      if (t >= 0 && g.tensor(t).role == TensorRole::Input) d.reads_graph_input[o] = true;
    }
    for (int t : g.op(o).outputs) {
      if (t >= 0 && g.tensor(t).role == TensorRole::Output) d.writes_graph_output[o] = true;
    }
  }
  d.topo = g.topo_order();
  return d;
}

OpDag unit_dag(const Graph& g, const std::vector<std::vector<int>>& units) {
  std::vector<int> unit_of(g.num_ops(), -1);
  std::vector<int> first_op(units.size(), g.num_ops());
  const std::vector<int> topo = g.topo_order();
  std::vector<int> pos(g.num_ops());
  for (size_t i = 0; i < topo.size(); ++i) pos[topo[i]] = static_cast<int>(i);
  for (size_t u = 0; u < units.size(); ++u) {
    if (units[u].empty()) throw Error("unit " + std::to_string(u) + " has no ops; expected >= 1");
    for (int o : units[u]) {
      if (o < 0 || o >= g.num_ops()) {
        throw Error("unit " + std::to_string(u) + " lists op index " + std::to_string(o) +
                    "; expected an op of graph '" + g.name + "'");
      }
      if (unit_of[o] >= 0) {
        throw Error("op '" + g.op(o).name + "' is in units " + std::to_string(unit_of[o]) +
                    " and " + std::to_string(u) + "; expected exactly one unit per op");
      }
      unit_of[o] = static_cast<int>(u);
      first_op[u] = std::min(first_op[u], pos[o]);
    }
  }
  for (int o = 0; o < g.num_ops(); ++o) {
    if (unit_of[o] < 0) {
      throw Error("op '" + g.op(o).name + "' is in no unit; expected every op in one unit");
    }
  }
  OpDag base = op_dag(g);
  OpDag d;
  d.num_nodes = static_cast<int>(units.size());
  d.succ.resize(d.num_nodes);
  d.pred.resize(d.num_nodes);
  d.reads_graph_input.assign(d.num_nodes, false);
  d.writes_graph_output.assign(d.num_nodes, false);
  for (int o = 0; o < g.num_ops(); ++o) {
    const int u = unit_of[o];
    for (int s : base.succ[o]) add_edge(d, u, unit_of[s]);
    if (base.reads_graph_input[o]) d.reads_graph_input[u] = true;
    if (base.writes_graph_output[o]) d.writes_graph_output[u] = true;
  }
  d.topo = kahn(d, first_op);
  if (static_cast<int>(d.topo.size()) != d.num_nodes) {
    std::vector<bool> placed(d.num_nodes, false);
    for (int u : d.topo) placed[u] = true;
    for (int u = 0; u < d.num_nodes; ++u) {
      if (!placed[u]) {
        throw Error("grouping of graph '" + g.name + "' into units has a cycle through unit " +
                    std::to_string(u) + " (op '" + g.op(units[u].front()).name +
                    "'); expected an acyclic contraction");
      }
    }
  }
  return d;
}

TransitiveClosure transitive_closure(const OpDag& d) {
  TransitiveClosure c;
  c.descendants.assign(d.num_nodes, NodeSet(d.num_nodes));
  c.ancestors.assign(d.num_nodes, NodeSet(d.num_nodes));
  for (auto it = d.topo.rbegin(); it != d.topo.rend(); ++it) {
    const int u = *it;
    for (int s : d.succ[u]) {
      c.descendants[u].set(s);
      c.descendants[u] |= c.descendants[s];
    }
  }
  for (int u : d.topo) {
    for (int p : d.pred[u]) {
      c.ancestors[u].set(p);
      c.ancestors[u] |= c.ancestors[p];
    }
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// Width: Dilworth via Hopcroft-Karp on the comparability bipartite graph
// ---------------------------------------------------------------------------------------------
namespace {

class HopcroftKarp {
 public:
  explicit HopcroftKarp(const std::vector<std::vector<int>>& adj)
      : adj_(adj),
        n_(static_cast<int>(adj.size())),
        match_l_(n_, -1),
        match_r_(n_, -1),
        dist_(n_) {}

  int run() {
    int matching = 0;
    while (bfs()) {
      for (int u = 0; u < n_; ++u) {
        if (match_l_[u] < 0 && dfs(u)) ++matching;
      }
    }
    return matching;
  }
  const std::vector<int>& match_left() const { return match_l_; }
  const std::vector<int>& match_right() const { return match_r_; }

 private:
  static constexpr int kInf = 1 << 30;

  bool bfs() {
    std::queue<int> q;
    bool found = false;
    for (int u = 0; u < n_; ++u) {
      dist_[u] = match_l_[u] < 0 ? 0 : kInf;
      if (dist_[u] == 0) q.push(u);
    }
    while (!q.empty()) {
      int u = q.front();
      q.pop();
      for (int v : adj_[u]) {
        int w = match_r_[v];
        if (w < 0) {
          found = true;
        } else if (dist_[w] == kInf) {
          dist_[w] = dist_[u] + 1;
          q.push(w);
        }
      }
    }
    return found;
  }

  // Recursion depth is bounded by the layered graph's depth (< number of nodes).
  bool dfs(int u) {
    for (int v : adj_[u]) {
      int w = match_r_[v];
      if (w < 0 || (dist_[w] == dist_[u] + 1 && dfs(w))) {
        match_l_[u] = v;
        match_r_[v] = u;
        return true;
      }
    }
    dist_[u] = kInf;
    return false;
  }

  const std::vector<std::vector<int>>& adj_;
  int n_;
  std::vector<int> match_l_, match_r_, dist_;
};

}  // namespace

WidthResult dag_width(const OpDag& dag, const TransitiveClosure& closure,
                      const std::vector<int>& subset_in) {
  std::vector<int> nodes = subset_in;
  if (nodes.empty()) {
    nodes.resize(dag.num_nodes);
    for (int i = 0; i < dag.num_nodes; ++i) nodes[i] = i;
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const int n = static_cast<int>(nodes.size());
  WidthResult r;
  if (n == 0) return r;
  std::vector<int> local(dag.num_nodes, -1);
  for (int i = 0; i < n; ++i) local[nodes[i]] = i;
  std::vector<std::vector<int>> adj(n);
  for (int i = 0; i < n; ++i) {
    for (int v : closure.descendants[nodes[i]].members()) {
      if (local[v] >= 0) adj[i].push_back(local[v]);
    }
  }
  HopcroftKarp hk(adj);
  const int matching = hk.run();
  r.width = n - matching;

  // Chains: follow matched edges from nodes that are nobody's match.
  const auto& ml = hk.match_left();
  const auto& mr = hk.match_right();
  for (int i = 0; i < n; ++i) {
    if (mr[i] >= 0) continue;
    std::vector<int> chain;
    for (int u = i; u >= 0; u = ml[u]) chain.push_back(nodes[u]);
    r.chains.push_back(std::move(chain));
  }

  // Antichain (Konig): Z = nodes reachable by alternating paths from unmatched left vertices.
  std::vector<bool> z_left(n, false), z_right(n, false);
  std::queue<int> q;
  for (int u = 0; u < n; ++u) {
    if (ml[u] < 0) {
      z_left[u] = true;
      q.push(u);
    }
  }
  while (!q.empty()) {
    int u = q.front();
    q.pop();
    for (int v : adj[u]) {
      if (z_right[v] || ml[u] == v) continue;
      z_right[v] = true;
      int w = mr[v];
      if (w >= 0 && !z_left[w]) {
        z_left[w] = true;
        q.push(w);
      }
    }
  }
  // Minimum vertex cover = (L \ Z) U (R n Z); the antichain is what it leaves uncovered.
  for (int i = 0; i < n; ++i) {
    if (z_left[i] && !z_right[i]) r.antichain.push_back(nodes[i]);
  }
  return r;
}

int graph_width(const Graph& g) {
  OpDag d = op_dag(g);
  return dag_width(d, transitive_closure(d)).width;
}

// ---------------------------------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------------------------------
std::vector<int> cut_nodes(const OpDag& d, const TransitiveClosure& c) {
  std::vector<int> cuts;
  const int n = d.num_nodes;
  auto is_source = [&](int u) { return d.pred[u].empty() || d.reads_graph_input[u]; };
  auto is_sink = [&](int u) { return d.succ[u].empty() || d.writes_graph_output[u]; };
  for (int v : d.topo) {
    const NodeSet& anc = c.ancestors[v];
    const NodeSet& desc = c.descendants[v];
    // Every node is an ancestor, v or a descendant.
    if (anc.count() + desc.count() + 1 != n) continue;
    bool cut = true;
    for (int u = 0; u < n && cut; ++u) {
      if (desc.test(u) && is_source(u)) cut = false;  // a path from the inputs starts after v
      if (anc.test(u) && is_sink(u)) cut = false;     // a path to the outputs ends before v
      if (anc.test(u)) {
        for (int s : d.succ[u]) {
          if (desc.test(s)) cut = false;  // an edge jumps over v
        }
      }
    }
    if (cut) cuts.push_back(v);
  }
  return cuts;
}

std::vector<std::vector<int>> dag_blocks(const OpDag& d, const TransitiveClosure& c,
                                         const BlockOptions& opts) {
  const std::vector<int> cuts = cut_nodes(d, c);
  std::vector<std::vector<int>> blocks(cuts.size() + 1);
  for (int u : d.topo) {
    size_t b = 0;
    for (int cut : cuts) b += c.ancestors[u].test(cut) ? 1 : 0;
    blocks[b].push_back(u);
  }
  if (blocks.back().empty()) blocks.pop_back();
  if (!opts.merge_chains) return blocks;
  std::vector<std::vector<int>> merged;
  bool last_single = false;
  for (auto& b : blocks) {
    const bool single = b.size() == 1;
    if (single && last_single) {
      merged.back().push_back(b.front());
    } else {
      merged.push_back(std::move(b));
    }
    last_single = single;
  }
  return merged;
}

std::vector<std::vector<int>> graph_blocks(const Graph& g, const BlockOptions& opts) {
  OpDag d = op_dag(g);
  return dag_blocks(d, transitive_closure(d), opts);
}

// ---------------------------------------------------------------------------------------------
// Compound operators
// ---------------------------------------------------------------------------------------------
namespace {

class Grouper {
 public:
  Grouper(const Graph& g, const CompoundOptions& opts)
      : g_(g), opts_(opts), unit_(g.num_ops(), -1), topo_(g.topo_order()) {}

  OpGrouping run() {
    if (opts_.relu_sepconv) rule_sepconv();
    if (opts_.epilogue) rule_epilogue();
    if (opts_.pre_activation) rule_pre_activation();
    if (opts_.identity_units || opts_.absorb_input_sums) rule_sums();
    for (int o : topo_) {
      if (unit_[o] < 0 && !(opts_.absorb_layout_ops && is_layout_only(g_.op(o).kind))) {
        new_unit({o}, o, std::string(op_kind_name(g_.op(o).kind)));
      }
    }
    if (opts_.absorb_layout_ops) rule_layout();
    return finish();
  }

 private:
  // The only op consuming any output of `o`, or -1 (none, several, or a graph output).
  int sole_consumer(int o) const {
    int c = -1;
    for (int t : g_.op(o).outputs) {
      if (t < 0) continue;
      const Tensor& x = g_.tensor(t);
      if (x.role == TensorRole::Output) return -1;
      for (int u : x.consumers) {
        if (c >= 0 && c != u) return -1;
        c = u;
      }
    }
    return c;
  }
  // True when `prev` is the only op feeding `o` and every other input of `o` is a parameter.
  bool fed_only_by(int o, int prev) const {
    for (int t : g_.op(o).inputs) {
      if (t < 0) continue;
      const Tensor& x = g_.tensor(t);
      if (x.producer == prev) continue;
      if (!x.is_param()) return false;
    }
    return true;
  }
  bool free_(int o) const { return o >= 0 && unit_[o] < 0; }

  bool is_depthwise(int o) const {
    const Op& op = g_.op(o);
    if (op.kind != OpKind::Conv) return false;
    const int64_t group = op.attrs.get_int("group", 1);
    const Shape& x = g_.tensor(op.inputs[0]).shape;
    return group > 1 && x.size() > 1 && group == x[1];
  }
  bool is_pointwise(int o) const {
    const Op& op = g_.op(o);
    if (op.kind != OpKind::Conv || op.attrs.get_int("group", 1) != 1) return false;
    const Shape& w = g_.tensor(op.inputs[1]).shape;
    for (size_t i = 2; i < w.size(); ++i) {
      if (w[i] != 1) return false;
    }
    return true;
  }

  int new_unit(std::vector<int> ops, int anchor, std::string pattern) {
    const int id = static_cast<int>(units_.size());
    for (int o : ops) unit_[o] = id;
    units_.push_back({std::move(ops), anchor, std::move(pattern), true});
    return id;
  }
  void join(int unit, int o, bool front = false) {
    unit_[o] = unit;
    auto& ops = units_[unit].ops;
    if (front) {
      ops.insert(ops.begin(), o);
    } else {
      ops.push_back(o);
    }
  }

  void rule_sepconv() {
    for (int o : topo_) {
      if (!free_(o)) continue;
      if (is_activation(g_.op(o).kind)) {
        int dw = sole_consumer(o);
        if (!free_(dw) || !is_depthwise(dw) || !fed_only_by(dw, o)) continue;
        int pw = sole_consumer(dw);
        if (!free_(pw) || !is_pointwise(pw) || !fed_only_by(pw, dw)) continue;
        new_unit({o, dw, pw}, dw, std::string(op_kind_name(g_.op(o).kind)) + "-SepConv");
      } else if (is_depthwise(o)) {
        int pw = sole_consumer(o);
        if (!free_(pw) || !is_pointwise(pw) || !fed_only_by(pw, o)) continue;
        new_unit({o, pw}, o, "SepConv");
      }
    }
  }

  bool is_epilogue(int o, int prev) const {
    const Op& op = g_.op(o);
    if (!fed_only_by(o, prev)) return false;
    if (op.kind == OpKind::BatchNormalization || is_activation(op.kind)) return true;
    // Add/Sub/Mul/Div with a parameter operand: bias or scale (fed_only_by checked the rest).
    return op.kind == OpKind::Add || op.kind == OpKind::Sub || op.kind == OpKind::Mul ||
           op.kind == OpKind::Div;
  }

  void rule_epilogue() {
    for (int o : topo_) {
      const OpKind k = g_.op(o).kind;
      int unit = unit_[o];
      bool anchor = false;
      if (unit < 0 && (is_conv_like(k) || is_matmul_like(k))) {
        anchor = true;
      } else if (unit >= 0 && units_[unit].ops.back() == o &&
                 units_[unit].pattern.find("SepConv") != std::string::npos) {
        anchor = true;  // the pointwise conv ending a separable conv
      }
      if (!anchor) continue;
      std::vector<int> chain;
      std::string pattern = unit >= 0 ? units_[unit].pattern : std::string(op_kind_name(k));
      for (int cur = o;;) {
        int c = sole_consumer(cur);
        if (!free_(c) || !is_epilogue(c, cur)) break;
        chain.push_back(c);
        pattern.push_back('-');
        pattern.append(op_kind_name(g_.op(c).kind));
        cur = c;
      }
      if (unit < 0) unit = new_unit({o}, o, pattern);
      units_[unit].pattern = pattern;
      for (int c : chain) join(unit, c);
    }
  }

  void rule_pre_activation() {
    for (int o : topo_) {
      if (!free_(o) || !is_activation(g_.op(o).kind)) continue;
      int c = sole_consumer(o);
      if (c < 0 || unit_[c] < 0 || g_.op(c).kind != OpKind::Conv) continue;
      const int unit = unit_[c];
      if (units_[unit].ops.front() != c || !fed_only_by(c, o)) continue;
      join(unit, o, /*front=*/true);
      units_[unit].pattern = std::string(op_kind_name(g_.op(o).kind)) + "-" + units_[unit].pattern;
    }
  }

  // IOS's "Identity" node adds the values of each input term and concatenates the terms, and
  // its convolutions take such sums as inputs. In ONNX these are trees of Add ops (and a
  // Concat): an Add whose only consumer is an Add/Concat of an identity unit joins that unit;
  // with absorb_input_sums, an Add whose only consumer is the first op of a compound unit joins
  // that unit. (Contracting an op into its only consumer's unit never creates a cycle.)
  void rule_sums() {
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it) {
      const int o = *it;
      const OpKind k = g_.op(o).kind;
      if (opts_.identity_units && k == OpKind::Identity && free_(o)) {
        new_unit({o}, o, "Identity");  // an explicit copy node, as IOS's one-term Identity
        continue;
      }
      if (!free_(o) || (k != OpKind::Add && k != OpKind::Concat)) continue;
      const int c = sole_consumer(o);
      const int cu = c >= 0 ? unit_[c] : -1;
      if (k == OpKind::Add && cu >= 0) {
        const bool identity = units_[cu].pattern == "Identity";
        if (opts_.identity_units && identity) {
          join(cu, o, /*front=*/true);
          continue;
        }
        // Only into compound units (more than one op): a bare Relu or pool takes its input as
        // is (RandWire's tail Relu after the last stage's sum).
        if (opts_.absorb_input_sums && !identity && units_[cu].ops.size() > 1 &&
            units_[cu].ops.front() == c) {
          join(cu, o, /*front=*/true);
          continue;
        }
      }
      if (opts_.identity_units) new_unit({o}, o, "Identity");
    }
  }

  void rule_layout() {
    for (int o : topo_) {
      if (unit_[o] >= 0) continue;
      std::vector<int> preds = g_.predecessors(o);
      if (preds.size() == 1 && unit_[preds[0]] >= 0) {
        join(unit_[preds[0]], o);
      } else {
        int u = new_unit({o}, o, std::string(op_kind_name(g_.op(o).kind)));
        units_[u].counted = false;
      }
    }
  }

  OpGrouping finish() {
    // Order ops inside units topologically, then the units by a topological order of the
    // contracted DAG (ties by the position of their first op).
    std::vector<int> pos(g_.num_ops());
    for (size_t i = 0; i < topo_.size(); ++i) pos[topo_[i]] = static_cast<int>(i);
    for (auto& u : units_) {
      std::sort(u.ops.begin(), u.ops.end(), [&](int a, int b) { return pos[a] < pos[b]; });
    }
    std::vector<std::vector<int>> ops;
    for (const auto& u : units_) ops.push_back(u.ops);
    OpDag d = unit_dag(g_, ops);
    OpGrouping r;
    r.unit_of_op.assign(g_.num_ops(), -1);
    for (int u : d.topo) {
      for (int o : units_[u].ops) r.unit_of_op[o] = static_cast<int>(r.units.size());
      r.units.push_back(units_[u]);
    }
    return r;
  }

  const Graph& g_;
  CompoundOptions opts_;
  std::vector<int> unit_;
  std::vector<int> topo_;
  std::vector<ScheduleUnit> units_;
};

}  // namespace

std::vector<std::vector<int>> OpGrouping::unit_ops() const {
  std::vector<std::vector<int>> out;
  out.reserve(units.size());
  for (const auto& u : units) out.push_back(u.ops);
  return out;
}

OpGrouping compound_operators(const Graph& g, const CompoundOptions& opts) {
  return Grouper(g, opts).run();
}

int ios_operator_count(const Graph& g, const CompoundOptions& opts) {
  int n = 0;
  for (const auto& u : compound_operators(g, opts).units) n += u.counted ? 1 : 0;
  return n;
}

}  // namespace dgs
