#pragma once
// Computing a region of an operator's output on the CPU reference executor from pieces of its
// inputs, with work proportional to the region plus its halo.
//
// The input regions an output region needs come from the shared iteration spaces
// (common/graph/iteration_space.h; with a reduction slice, common/graph/reduction_slice.h). Each
// input is cut to its needed region (elements the given piece lacks are NaN, so an output element
// that depends on a missing input element comes out NaN and a comparison fails), and the op runs
// on the cut pieces:
//   * Conv, MaxPool, AveragePool: with the padding of the region's window (pads begin/end
//     recomputed from the region, so a border region pads exactly where the whole op pads), the
//     output channels' groups only, and, for a reduction slice, the slice's input channels and
//     weights (the bias is added only by the slice that starts at 0);
//   * element-wise ops, BatchNormalization, LayerNormalization, Softmax, reductions, global
//     pooling, MatMul, Gemm (beta * C only by the slice that starts at 0), Transpose, Concat (the
//     inputs the region touches), Gather (when the data's gathered axis is needed whole): on the
//     cut pieces, then the region cut from the result (reduced axes come out whole);
//   * Slice, Split, Expand: an index-map gather over the region; Reshape, Flatten, Squeeze,
//     Unsqueeze: a row-major index gather over the region.
// Everything else (ConvTranspose, Resize, Pad, DepthToSpace, SpaceToDepth, Gather over part of its
// axis, MaxPool's indices, AveragePool with count_include_pad and ceil_mode, ...) is computed
// whole on NaN-filled inputs holding the pieces, and the region cut out: correct, with the cost of
// the whole op (region_eval_is_proportional says which case applies).
#include <string>
#include <vector>

#include "common/exec/tensor_data.h"
#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/graph/reduction_slice.h"

namespace dgs {

// The elements of `region` of a tensor, row-major (data->shape == the region's sizes). A null
// `data` stands for a Constant tensor's graph data (whole) or an omitted optional input.
struct TensorPiece {
  Region region;
  const TensorData* data = nullptr;
};

// A whole tensor as a piece.
inline TensorPiece whole_piece(const TensorData& t) {
  return {full_region(t.shape), &t};
}

// Computes region `out` of output `output_index` of op `op` of `g` from `inputs` (one piece per
// op input). With `slice` (reduction_slice.h), the partial result over that range of the op's
// reduction axis. Returns a tensor of shape = the region's sizes. Adds to `elements_computed` (if
// given) the output elements the evaluation computed: the region's, or more where the op ran
// over a larger extent (reduced axes whole, or the whole output for the ops computed whole).
// Throws dgs::Error naming the op for a region outside the output, an integer input not given
// whole, or a bad slice.
TensorData compute_op_region(const Graph& g, int op, const Region& out,
                             const std::vector<TensorPiece>& inputs, int output_index = 0,
                             const ReductionRange* slice = nullptr,
                             int64_t* elements_computed = nullptr);

// Whether compute_op_region's work for this op is proportional to the region (see above), or
// the whole op is computed.
bool region_eval_is_proportional(const Graph& g, int op, int output_index = 0);

// A tensor of shape = `need`'s sizes holding the elements of `need` that `piece` has (NaN for the
// others; integer tensors must be contained). `what` names it in errors.
TensorData cut_piece(const TensorPiece& piece, const Region& need, const std::string& what);

}  // namespace dgs
