#pragma once
// Graph analyses shared by every scheduler: per-op cost (FLOPs, MACs, bytes, parameters), the
// op DAG with its transitive closure, width (largest antichain), IOS-style blocks, and grouping of
// ops into compound "schedule units" (Conv + its activation, Relu + separable conv, ...).
//
// Most structural analyses work on an OpDag, a plain DAG whose nodes are either the ops of a
// Graph (op_dag) or groups of ops (unit_dag, e.g. IOS schedule units), so a scheduler that works
// on compound operators reuses the same closure, width and block code.
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Cost of operators
// ---------------------------------------------------------------------------------------------
// What is counted (out = number of output elements of output 0, N = batch):
//   Conv            MACs = out * (C_in/group) * prod(kernel); FLOPs = 2*MACs (+ out with a bias)
//   ConvTranspose   MACs = in_elements(X) * (C_out/group) * prod(kernel); FLOPs = 2*MACs (+ out
//                   with a bias)
//   Gemm            MACs = M*N*K; FLOPs = 2*MACs (+ M*N when C is given); alpha/beta scaling
//                   not counted
//   MatMul          MACs = batch * M*N*K; FLOPs = 2*MACs
//   Max/AveragePool FLOPs = out * prod(kernel) (one compare or add per window element)
//   Global*Pool     FLOPs = input elements
//   BatchNorm       FLOPs = 2 per element (inference: folded scale and shift)
//   LayerNorm       FLOPs = 8 per element (mean 1, variance 3, normalise 2, affine 2)
//   Softmax         FLOPs = 5 per element (max, subtract, exp, sum, divide)
//   element-wise    FLOPs = 1 per output element for arithmetic ops (unary incl. transcendental,
//                   binary; variadic Max/Min count (inputs-1) per element); Identity, Dropout
//                   (inference) and Cast count 0
//   Reduce*         FLOPs = input elements (+ output elements for ReduceMean's division)
//   Resize          nearest 0; linear 3 per lerp, (2^k - 1) lerps per output element for k
//                   resized axes; cubic 2 per tap, 4^k taps
//   data movement   (Concat, Split, Slice, Reshape, Transpose, Flatten, Squeeze, Unsqueeze,
//                   Pad, DepthToSpace, SpaceToDepth, Gather, Expand): 0 FLOPs
// Bytes: bytes_read = bytes of every data input (activations, weights; an input used twice
// counts once), except that Slice reads only the selected elements and Gather reads the indices
// plus the gathered rows; shape-determining constants (Reshape's shape, Slice's starts, ...)
// are metadata and not counted. bytes_written = bytes of every output. Layout-only ops
// (is_layout_only) report the bytes a copy kernel would move; a model that treats them as free
// aliases should check is_layout_only itself.
// params = elements of the Weight-role inputs.
struct OpCost {
  int64_t flops = 0;
  int64_t macs = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t params = 0;

  OpCost& operator+=(const OpCost& o);
};

OpCost op_cost(const Graph& g, int op);

struct GraphCost {
  std::vector<OpCost> per_op;  // indexed by op
  OpCost total;                // sum over ops (params: each Weight tensor counted once)
};
GraphCost graph_cost(const Graph& g);

// Elements of all Weight-role tensors (each counted once, used or not).
int64_t parameter_count(const Graph& g);

// Cost of a fused group of ops run as one kernel: FLOPs and MACs summed; params = distinct
// Weight inputs; bytes_read = distinct tensors the group reads from outside (activations,
// weights, float constants; shape-determining inputs excluded), each whole; bytes_written =
// outputs of group ops that are graph outputs or read by ops outside the group. Intermediates
// stay on chip and cost no traffic.
OpCost group_cost(const Graph& g, const std::vector<int>& ops);

// ---------------------------------------------------------------------------------------------
// Op DAG, transitive closure, width
// ---------------------------------------------------------------------------------------------
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
// Blocks (IOS, thesis §3 / ios.md §2.2): a network is a stack of blocks; each block ends at an
// op that every path from the graph inputs to the graph outputs passes through (a "cut" op).
// Block i holds the ops after cut i-1 up to and including cut i (its exit); ops after the last
// cut form a final block. With `merge_chains`, consecutive blocks of a single op each (parts of
// a plain chain, e.g. a network's stem) are merged into one block, as the IOS authors' model
// code groups its front and tail layers.
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

// ---------------------------------------------------------------------------------------------
// Compound operators ("schedule units", IOS thesis §3.1 and Table 4.1)
// ---------------------------------------------------------------------------------------------
// Rules, applied in this order (each absorbed op must be the only consumer of the previous op's
// output, and that output must not be a graph output):
//   1. Relu-SepConv: a unary activation followed by a depthwise Conv (group == input channels
//      > 1) followed by a pointwise 1x1 Conv (group 1); also a bare depthwise + pointwise pair
//      ("SepConv").
//   2. Epilogue: a Conv/ConvTranspose/Gemm/MatMul (or a unit from rule 1) followed by a chain of
//      BatchNormalization, Add/Sub/Mul/Div with a Weight/Constant operand (bias, scale) and
//      unary activations (Relu, LeakyRelu, Clip, Sigmoid, Tanh, Gelu, HardSigmoid, HardSwish).
//      "Conv-Relu" in IOS terms.
//   3. Pre-activation (option): an activation not absorbed by rule 2 whose only consumer is a
//      Conv joins that Conv's unit ("Relu-Conv", NasNet's relu_conv).
//   4. Sums (options, IOS's conventions; off by default): with identity_units, trees of Add ops
//      feeding each other or a Concat form one "Identity" unit (IOS's Identity node adds the
//      values of each input term and concatenates the terms), and an ONNX Identity op is an
//      "Identity" unit of its own (not absorbed by rule 5); with absorb_input_sums, an Add
//      (tree) whose only consumer is the first op of a compound unit (of 2+ ops) joins it (IOS's
//      convolutions take sums of terms as inputs, e.g. RandWire's nodes).
//   5. Layout-only ops (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) join the unit of
//      their only predecessor op; a unit of layout-only ops alone is not counted (it moves no
//      data; IOS's graphs have no such ops).
// Every other op is a unit of its own (pools, Concat, Add of two activations, ...).
struct CompoundOptions {
  bool relu_sepconv = true;
  bool epilogue = true;
  bool pre_activation = true;
  bool absorb_layout_ops = true;
  bool identity_units = false;
  bool absorb_input_sums = false;
};
struct ScheduleUnit {
  std::vector<int> ops;  // in topological order
  int anchor = -1;       // the op that names the unit (the conv, or the op itself)
  std::string pattern;   // "Conv-Relu", "Relu-SepConv", "SepConv", "Relu-Conv", "Conv", "Concat"..
  bool counted = true;   // false for units of layout-only ops
};
struct OpGrouping {
  std::vector<ScheduleUnit> units;                 // in topological order of their anchors
  std::vector<int> unit_of_op;                     // indexed by op
  std::vector<std::vector<int>> unit_ops() const;  // for unit_dag
};
OpGrouping compound_operators(const Graph& g, const CompoundOptions& opts = {});

// The number of operators "the way IOS counts them" (thesis Table 4.1): counted compound units.
int ios_operator_count(const Graph& g, const CompoundOptions& opts = {});

}  // namespace dgs
