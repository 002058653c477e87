#pragma once
// Internal to common/exec (not part of the executor's API, executor.h): the operator
// implementations that compute_op dispatches to, one file per op family, and the helpers they
// share.
//   ops_common.cpp         errors naming the op, input access, strides, index-map copies,
//                          transposition, broadcasting
//   ops_elementwise.cpp    unary and binary element-wise ops, Max/Min, Cast, Clip, Dropout
//   ops_logic.cpp          Equal, And, Not, IsNaN, Where, GatherND (run-time attention masks)
//   ops_conv_pool.cpp      Conv, ConvTranspose, MaxPool/AveragePool, global pooling
//   ops_normalization.cpp  BatchNormalization, LayerNormalization, Softmax
//   ops_data_movement.cpp  Concat, Split, Slice, Reshape, Flatten, Squeeze/Unsqueeze, Transpose,
//                          Pad, DepthToSpace/SpaceToDepth, Gather, Expand
//   ops_resize.cpp         Resize
//   ops_reduce.cpp         ReduceMean, ReduceSum, ReduceMax
//   kernels_linalg.cpp     the Eigen kernels (kernels.h): convolutions, MatMul, Gemm
//   compute_op.cpp         dispatch (compute_op) and graph execution (run_op, run_ops, run_graph)
//   graph_feeds.cpp        input generation (make_graph_feeds, constant_value, weight scaling)
// Every function throws dgs::Error naming the op ("op 'name' (Kind): ...") on bad inputs, and
// UnsupportedFeature for features the executor does not implement.
#include <cstdint>
#include <string>
#include <vector>

#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "common/graph/graph.h"

namespace dgs::exec_ops {

// ---------------------------------------------------------------------------------------------
// Shared helpers (ops_common.cpp)
// ---------------------------------------------------------------------------------------------
std::string op_prefix(const Op& op);                                   // "op 'name' (Kind): "
[[noreturn]] void fail(const Op& op, const std::string& what);         // dgs::Error
[[noreturn]] void unsupported(const Op& op, const std::string& what);  // UnsupportedFeature

// The index-th input, nullptr when absent or omitted.
const TensorData* in_opt(const std::vector<const TensorData*>& in, size_t index);
// The index-th input; fails when it has no value (in_float: or is not float).
const TensorData& in_req(const Op& op, const std::vector<const TensorData*>& in, size_t index);
const TensorData& in_float(const Op& op, const std::vector<const TensorData*>& in, size_t index);

// Values of an integer list input (shape, axes, pads, ...); empty vector when the input is absent.
std::vector<int64_t> int_list(const TensorData* t);
// Values of a list input as doubles; empty when absent.
std::vector<double> float_list(const TensorData* t);

// `axis` in [-rank, rank) normalised to [0, rank); fails naming the op otherwise.
int64_t norm_axis(const Op& op, int64_t axis, int64_t rank);

// Row-major strides of shape `s`.
std::vector<int64_t> strides_of(const Shape& s);

// Copies elements from `src` to a new tensor of shape `out` through a source-index map (-1 means
// "fill with `fill`").
TensorData gather_by_index(const TensorData& src, const Shape& out, const std::vector<int64_t>& map,
                           double fill = 0.0);

// Calls fn(out_flat, in_offset) over the output of a strided view: out[j...] = in[sum j_d*st_d].
template <class F>
void for_each_strided(const Shape& out, const std::vector<int64_t>& in_strides, int64_t base,
                      F fn) {
  const size_t r = out.size();
  const int64_t n = numel(out);
  if (n == 0) return;
  std::vector<int64_t> idx(r, 0);
  int64_t off = base;
  for (int64_t k = 0; k < n; ++k) {
    fn(k, off);
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < out[d]) {
        off += in_strides[d];
        break;
      }
      off -= in_strides[d] * (out[d] - 1);
      idx[d] = 0;
    }
  }
}

// A new tensor of shape `out` read from `src` through strides `in_strides` from offset `base`.
TensorData strided_copy(const TensorData& src, const Shape& out,
                        const std::vector<int64_t>& in_strides, int64_t base);

// `x` with its axes permuted by `perm`.
TensorData transpose(const TensorData& x, const std::vector<int64_t>& perm);

// `x` with shape `s` (same number of elements; no data moved).
TensorData reshaped(TensorData x, Shape s);

// Strides of `s` viewed as broadcast to `out` (0 along broadcast dimensions).
std::vector<int64_t> broadcast_strides(const Shape& s, const Shape& out);
// `x` broadcast to shape `out` (NumPy rules).
TensorData broadcast_to(const TensorData& x, const Shape& out);

// ---------------------------------------------------------------------------------------------
// Element-wise (ops_elementwise.cpp)
// ---------------------------------------------------------------------------------------------
// The kinds of family EwBinary (op_table.inc) and the pairwise step of Max/Min (EwVariadic), with
// NumPy broadcasting.
TensorData binary(const Op& op, const TensorData& a, const TensorData& b);
// The kinds of family EwUnary (op_table.inc): a new row there needs its case here.
TensorData unary(const Op& op, const TensorData& input);
TensorData max_min(const Op& op, const std::vector<const TensorData*>& in);
TensorData cast(const Op& op, const TensorData& x);
TensorData clip(const Op& op, const std::vector<const TensorData*>& in);
std::vector<TensorData> dropout(const Op& op, const std::vector<const TensorData*>& in,
                                int num_outputs);

// Equal, And, Not, IsNaN, Where (ops_logic.cpp): NumPy broadcasting; bool results.
TensorData logic(const Op& op, const std::vector<const TensorData*>& in);

// ---------------------------------------------------------------------------------------------
// Convolution and pooling (ops_conv_pool.cpp)
// ---------------------------------------------------------------------------------------------
TensorData conv(const Op& op, const std::vector<const TensorData*>& in);
TensorData conv_transpose(const Op& op, const std::vector<const TensorData*>& in);
// MaxPool (with optional Indices output) and AveragePool over 1-3 spatial dims.
std::vector<TensorData> pool(const Op& op, const std::vector<const TensorData*>& in,
                             int num_outputs);
TensorData global_pool(const Op& op, const TensorData& x);

// ---------------------------------------------------------------------------------------------
// Normalisation (ops_normalization.cpp)
// ---------------------------------------------------------------------------------------------
TensorData batch_norm(const Op& op, const std::vector<const TensorData*>& in, int num_outputs);
std::vector<TensorData> layer_norm(const Op& op, const std::vector<const TensorData*>& in,
                                   int num_outputs);
TensorData softmax(const Op& op, const TensorData& x);

// ---------------------------------------------------------------------------------------------
// Data movement (ops_data_movement.cpp, ops_resize.cpp)
// ---------------------------------------------------------------------------------------------
TensorData concat(const Op& op, const std::vector<const TensorData*>& in);
std::vector<TensorData> split(const Op& op, const std::vector<const TensorData*>& in,
                              int num_outputs);
TensorData slice(const Op& op, const std::vector<const TensorData*>& in);
TensorData reshape(const Op& op, const std::vector<const TensorData*>& in);
TensorData flatten(const Op& op, const TensorData& x);
TensorData squeeze_unsqueeze(const Op& op, const std::vector<const TensorData*>& in);
TensorData transpose_op(const Op& op, const TensorData& x);
TensorData pad(const Op& op, const std::vector<const TensorData*>& in);
TensorData depth_space(const Op& op, const TensorData& x);
TensorData gather(const Op& op, const std::vector<const TensorData*>& in);
TensorData expand(const Op& op, const std::vector<const TensorData*>& in);
TensorData gather_nd(const Op& op, const std::vector<const TensorData*>& in);  // ops_logic.cpp
TensorData resize(const Op& op, const std::vector<const TensorData*>& in);

// ---------------------------------------------------------------------------------------------
// Reductions (ops_reduce.cpp)
// ---------------------------------------------------------------------------------------------
TensorData reduce(const Op& op, const std::vector<const TensorData*>& in);

}  // namespace dgs::exec_ops
