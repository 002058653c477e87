#include "common/graph/op_dag.h"

#include <algorithm>
#include <bit>
#include <queue>

namespace dgs {

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

}  // namespace dgs
