#pragma once
// The sub-graph of a set of ops: those ops, the tensors they read and write, and the boundary
// made explicit (a tensor read from outside the set becomes a graph input; one that the set
// writes and that is a graph output or is read outside the set becomes a graph output).
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

struct InducedSubgraph {
  Graph graph;
  std::vector<int> op_index;      // per op of the original graph: its index here, -1 if absent
  std::vector<int> tensor_index;  // per tensor of the original graph: its index here, -1 if absent
};

// The sub-graph of `ops` (op indices of `g`, any order, each at most once). Ops and tensors keep
// their names, attributes, shapes and dtypes and their relative order (both index maps increase),
// so that anything that iterates over indices visits them in the same order as in `g`. Weights
// and constants keep their role and values; any other tensor read but not produced inside becomes
// an Input. Throws dgs::Error naming the op for an index out of range or listed twice.
InducedSubgraph induced_subgraph(const Graph& g, const std::vector<int>& ops);

}  // namespace dgs
