#pragma once
// Welder's tile-graph (OSDI'23 §3.1): operator-tiles over iteration spaces, tile propagation from
// an output tile back to every input tile, and the producer-consumer edges along which tiles are
// connected at a memory level.
//
// Each operator is described by its iteration space, taken from the suite's shared iteration
// spaces (common/graph/iteration_space.h): output (space) axes, reduction axes, and for each
// input the quasi-affine index map, evaluated here by interval arithmetic on a tile anchored at
// the origin (the tile the traffic model costs); maps the shared code marks Custom (Concat,
// Reshape, Resize, DepthToSpace, ConvTranspose, ...) are answered by its input_regions().
// Hand-built graphs (tests, the §2 example) state their maps directly, in the same terms.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs::welder {

// One input of a tile op: the shared iteration space's map of that input (dgs::InputAccess:
// Affine dims, each offset + sum coef * floor(axis / divisor) over the op's output (space) and
// reduction axes, or a `full` dim; or Custom, answered by the shared input_regions()), and which
// tile tensor it reads.
struct TileInput : dgs::InputAccess {
  int tensor = -1;       // index into TileGraph::tensors
  int graph_input = -1;  // which input of the source op
  bool custom() const { return kind == Kind::Custom; }
};

struct TileTensor {
  std::string name;
  Shape shape;
  int64_t elem_bytes = 4;
  bool param = false;     // weight or constant: always read from global memory
  int graph_tensor = -1;  // the dgs::Graph tensor (-1 for hand-built graphs)
  bool graph_input = false;
  bool graph_output = false;
  int producer = -1;           // tile op index
  std::vector<int> consumers;  // tile op indices
  int64_t bytes() const { return numel(shape) * elem_bytes; }
};

struct TileOp {
  std::string name;
  std::string type;            // ONNX op type (or a hand-built name)
  int graph_op = -1;           // the dgs::Graph op it comes from (-1 for hand-built graphs)
  int output_index = 0;        // which output of that op
  int output = -1;             // tensor index
  std::vector<int64_t> space;  // output extents
  std::vector<int64_t> reduce;
  std::vector<TileInput> inputs;
  double flops = 0;          // for the whole op
  bool layout_only = false;  // Reshape & co.: a view, launches no kernel
  bool is_reduction() const { return !reduce.empty(); }
  // Injective: no reduction axis (element-wise, broadcast, transpose, slice, ...).
  bool injective() const { return reduce.empty(); }
};

struct TileGraph {
  std::string name;
  std::shared_ptr<const Graph> source;  // the graph it was built from (null if hand-built)
  std::vector<TileTensor> tensors;
  std::vector<TileOp> ops;  // in a topological order
  int add_tensor(TileTensor t);
  int add_op(TileOp op);  // links producer/consumers; inputs must exist
  // Consumers of op `p`'s output inside the graph.
  const std::vector<int>& consumers_of(int p) const { return tensors[ops[p].output].consumers; }
};

// The region (extent per input dimension) of input `k` of `op` needed to compute an output tile
// with extents `space_tile` (clipped to the output) when the reduction axes span `reduce_tile`.
std::vector<int64_t> input_region(const TileGraph& g, const TileOp& op, int k,
                                  const std::vector<int64_t>& space_tile,
                                  const std::vector<int64_t>& reduce_tile);

// input_region for an affine (non-custom) access, without allocating: `space_tile` has the op's
// rank, `reduce_tile` its reduction rank, `out` the input's rank.
void affine_input_region(const TileGraph& g, const TileOp& op, int k, const int64_t* space_tile,
                         const int64_t* reduce_tile, int64_t* out);

// Memo of the regions answered by the shared iteration spaces (custom accesses: Reshape,
// Concat, ConvTranspose, ... are recomputed from the source graph and cost far more than the
// affine maps): per (tile op, output tile clipped to the op), the region of every custom input,
// exactly as input_region returns it. One scheduling run owns one memo (the tile-graph must
// outlive it and stay unchanged).
class CustomRegionMemo {
 public:
  // The region of input `k` (a custom access) of op `op_index` for the output tile `space_tile`
  // (the op's rank; clipped here as input_region clips it). Valid until the next call. A memo
  // serves the one tile-graph it was first used with (dgs::Error for another).
  const int64_t* region(const TileGraph& g, int op_index, int k, const int64_t* space_tile);
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    size_t key = 0;    // offset of (op index, clipped tile) in keys_
    size_t value = 0;  // offset of the op's custom input regions, in input order, in values_
    uint64_t hash = 0;
  };
  const int64_t* find_or_add(const TileGraph& g, int op_index, int k);
  // Flat storage (no allocation per entry) and an open-addressing index of entry ids.
  std::vector<int64_t> keys_, values_;
  std::vector<Entry> entries_;
  std::vector<int> slots_;    // -1 = empty; size a power of two, at most half full
  std::vector<int64_t> key_;  // the key being looked up
  const TileGraph* graph_ = nullptr;
};

// Converts a dgs::Graph into a tile-graph: one TileOp per operator output (layout-only operators
// are views); iteration spaces from common/graph/iteration_space.h, FLOPs from
// common/graph/op_cost.h.
TileGraph build_tile_graph(const Graph& g);

// Hand-built graphs (tests, the §2 example): element-wise op over `shape` reading `inputs`
// with NumPy broadcasting.
int add_elementwise(TileGraph& g, const std::string& name, const std::vector<int>& inputs,
                    const Shape& shape, double flops_per_elem = 1);
// C[.., M, N] = A[.., M, K] x B[K, N] (B shared by every batch row).
int add_matmul(TileGraph& g, const std::string& name, int a, int b);
// Softmax over the last axis.
int add_softmax(TileGraph& g, const std::string& name, int x);
int add_tensor(TileGraph& g, const std::string& name, const Shape& shape, bool param,
               int64_t elem_bytes = 4);

}  // namespace dgs::welder
