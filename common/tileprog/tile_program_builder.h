#pragma once
// Builds a tile program (common/tileprog/tile_program.h) from any group of graph operators that a
// scheduler fuses into one kernel: the group's ops (graph op indices), the op whose output is
// tiled (the root), one tile of that output, and which of the group's outputs the kernel stores to
// global memory. Nothing here knows which scheduler formed the group.
//
// The program computes the root's output tile by tile. For each tile, the region every op must
// compute comes from the shared region propagation (propagate_regions,
// common/graph/iteration_space.h), seeded with the tile at every op whose output no op of the
// group reads (those outputs must all have the root's shape). An op output read inside the kernel
// lives in per-block scratch sized for its largest region; a written output is stored at its
// full-tensor position. Where a written tensor is also read inside the kernel and the tiles'
// regions miss some of its elements (a Slice after it needs only part), every tile also computes a
// share of it (one box of a grid of disjoint boxes), so the kernel writes it whole.
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"
#include "common/tileprog/tile_program.h"

namespace dgs {

// One group of graph operators to run as one kernel.
struct TileProgramGroup {
  // Graph op indices, in any order (the program runs them in the graph's topological order). Each
  // op has one output and is of a kind the interpreter supports (TpKind).
  std::vector<int> ops;
  // The op whose output is tiled: one of `ops`, its output read by no op of the group.
  int root = -1;
  // Extents of one tile of the root's output, one per output dim (edge tiles are clipped).
  std::vector<int64_t> root_tile;
  // Graph tensors, outputs of `ops`, that the kernel stores to global memory; every output that
  // no op of the group reads must be among them. tensors_leaving_group() gives the usual choice.
  std::vector<int> written;
};

// The program of `group`; its global ids are graph tensor indices. Throws dgs::Error (one line,
// naming the op where there is one) for an operator or attribute the interpreter does not support,
// a non-float32 global tensor, or a group that is not well formed (root, tile rank, written set,
// outputs of different shapes that would share one tile).
TileProgram build_tile_program(const Graph& g, const TileProgramGroup& group);

// Outputs of `ops` that a kernel of exactly these ops must store to global memory: graph outputs,
// tensors without consumers, and tensors read by an op outside `ops` (sorted by tensor index).
std::vector<int> tensors_leaving_group(const Graph& g, const std::vector<int>& ops);

}  // namespace dgs
