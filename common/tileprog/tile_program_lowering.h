#pragma once
// Lowering of one graph operator to the tile-program interpreter's op block (TpOp,
// common/tileprog/tile_program.h): which interpreter kind runs it, which of its inputs are read as
// data, and its attribute block, with constant inputs (shapes, axes, starts, Gather indices)
// folded in. The builder (tile_program_builder.h) binds the operands and computes the regions.
// Every refusal is one line: "tile program: op '<name>' (<Kind>): <what>".
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/tileprog/tile_program.h"

namespace dgs {

// Throws the one-line error naming graph op `op`.
[[noreturn]] void fail_tile_program_op(const Graph& g, int op, const std::string& what);
// Refuses a tensor of op `op` whose rank exceeds kTpMaxRank.
void check_tile_program_rank(const Graph& g, int op, const Shape& s);

// The interpreter kind that runs graph op `op` (Reshape, Flatten, Squeeze, Unsqueeze and Identity
// all run as Reshape); refuses a kind the interpreter lacks.
TpKind tile_program_kind(const Graph& g, int op);
// The inputs of `op` that the interpreter reads as data, in operand order (the others are
// constants folded into the attribute block).
std::vector<size_t> tile_program_data_inputs(const Graph& g, int op, TpKind k);
// Fills t.ia / t.fa for op `op` (t.kind already set), appending Gather indices to `int_pool`.
void fill_tile_program_attrs(const Graph& g, int op, TpOp& t, std::vector<int64_t>& int_pool);

}  // namespace dgs
