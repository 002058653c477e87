#pragma once
// The DAG of a graph's ops (or of groups of ops), with its transitive closure, width (largest
// antichain) and blocks (a network as a stack of parts separated by cut ops).
//
// An OpDag is a plain DAG whose nodes are either the ops of a Graph (op_dag) or groups of ops
// (unit_dag, e.g. the compound operators of op_grouping.h), so a scheduler that works on compound
// operators reuses the same closure, width and block code.
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

struct OpDag {
  int num_nodes = 0;
  std::vector<std::vector<int>> succ;  // distinct successors of each node
  std::vector<std::vector<int>> pred;  // distinct predecessors of each node
  // Nodes that read a graph Input tensor / write a graph Output tensor. Blocks treat them as
  // attached to a virtual source / sink (besides nodes without predecessors / successors).
  std::vector<bool> reads_graph_input;
  std::vector<bool> writes_graph_output;
  std::vector<int> topo;  // a topological order (deterministic)
};

// The op-level DAG of g (node i = op i). Throws dgs::Error on a cycle.
OpDag op_dag(const Graph& g);
// The DAG of groups of ops (node u = units[u]); every op must be in exactly one unit and the
// contracted graph must be acyclic (throws dgs::Error naming the unit otherwise).
OpDag unit_dag(const Graph& g, const std::vector<std::vector<int>>& units);

// A set of nodes as a bitset.
class NodeSet {
 public:
  NodeSet() = default;
  explicit NodeSet(int n) : n_(n), words_((static_cast<size_t>(n) + 63) / 64, 0) {}
  int size() const { return n_; }
  bool test(int i) const { return (words_[static_cast<size_t>(i) >> 6] >> (i & 63)) & 1U; }
  void set(int i) { words_[static_cast<size_t>(i) >> 6] |= uint64_t{1} << (i & 63); }
  void reset(int i) { words_[static_cast<size_t>(i) >> 6] &= ~(uint64_t{1} << (i & 63)); }
  NodeSet& operator|=(const NodeSet& o);
  NodeSet& operator&=(const NodeSet& o);
  int count() const;
  std::vector<int> members() const;
  bool operator==(const NodeSet& o) const = default;

 private:
  int n_ = 0;
  std::vector<uint64_t> words_;
};

// descendants[u] = the nodes reachable from u by a non-empty path; ancestors likewise.
struct TransitiveClosure {
  std::vector<NodeSet> descendants;
  std::vector<NodeSet> ancestors;
  bool reaches(int from, int to) const { return descendants[from].test(to); }
  // Neither reaches the other (and they differ): the two can run concurrently.
  bool independent(int a, int b) const { return a != b && !reaches(a, b) && !reaches(b, a); }
};
TransitiveClosure transitive_closure(const OpDag& dag);

// Width of a DAG (largest antichain: nodes no path connects pairwise), by Dilworth's theorem:
// n - (maximum matching of the bipartite "u reaches v" graph), Hopcroft-Karp. Also returns one
// maximum antichain and a minimum chain decomposition (each chain in path order; chains of a
// partial order, consecutive nodes need not be adjacent in the DAG).
struct WidthResult {
  int width = 0;
  std::vector<int> antichain;            // sorted node indices
  std::vector<std::vector<int>> chains;  // width() chains covering the nodes
};
// Over the nodes in `subset` (all nodes when empty), ordered by reachability in the whole DAG.
WidthResult dag_width(const OpDag& dag, const TransitiveClosure& closure,
                      const std::vector<int>& subset = {});
// Width of the op DAG of g.
int graph_width(const Graph& g);

// ---------------------------------------------------------------------------------------------
// Blocks: a network as a stack of parts separated by cut ops. A cut op is one that every path
// from the graph inputs to the graph outputs passes through; each block ends at one. Block i
// holds the ops after cut i-1 up to and including cut i (its exit); ops after the last cut form
// a final block. With `merge_chains`, consecutive blocks of a single op each (parts of a plain
// chain, e.g. a network's stem or its tail layers) are merged into one block.
// ---------------------------------------------------------------------------------------------
struct BlockOptions {
  bool merge_chains = true;
};
// Cut nodes in topological order.
std::vector<int> cut_nodes(const OpDag& dag, const TransitiveClosure& closure);
// Blocks as lists of nodes (each sorted in the DAG's topological order), in execution order.
std::vector<std::vector<int>> dag_blocks(const OpDag& dag, const TransitiveClosure& closure,
                                         const BlockOptions& opts = {});
std::vector<std::vector<int>> graph_blocks(const Graph& g, const BlockOptions& opts = {});

}  // namespace dgs
