#pragma once
// The suite's own data-movement, element-wise and pooling kernels, where cuDNN has none (concat,
// split, slice, transpose, broadcasting element-wise ops, pooling windows cuDNN cannot express).
// Float32 only; bool tensors (attention masks) are float32 buffers holding 0 and 1. Every function
// takes device pointers, enqueues on the launcher's stream and counts one launch per kernel.
// CUDA-free header: the no-CUDA build's stubs throw.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/cuda/runtime.h"
#include "common/graph/graph.h"
#include "common/util/error.h"

namespace dgs::gpu {

// Highest tensor rank the strided kernels handle (ONNX models of the suite stay below 6).
inline constexpr int kMaxKernelRank = 8;

// A strided view of a float tensor: element (i_0..i_{r-1}) lives at
// base[offset + sum_d i_d * strides[d]]. A stride of 0 broadcasts.
struct StridedView {
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

// Row-major (contiguous) strides of `dims`.
inline std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Strides of a tensor of shape `shape` read as a tensor of shape `out` under NumPy broadcasting
// (right-aligned; size-1 and missing dimensions get stride 0). Throws dgs::Error if `shape` does
// not broadcast to `out`.
inline std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& shape,
                                              const std::vector<int64_t>& out) {
  if (shape.size() > out.size()) {
    throw Error("broadcast_strides: rank " + std::to_string(shape.size()) +
                " does not broadcast to rank " + std::to_string(out.size()));
  }
  const std::vector<int64_t> own = contiguous_strides(shape);
  std::vector<int64_t> s(out.size(), 0);
  const size_t lead = out.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == out[lead + i]) {
      s[lead + i] = shape[i] == 1 ? 0 : own[i];
    } else if (shape[i] != 1) {
      throw Error("broadcast_strides: dimension " + std::to_string(i) + " of size " +
                  std::to_string(shape[i]) + " does not broadcast to " +
                  std::to_string(out[lead + i]));
    }
  }
  return s;
}

// dst[view(i)] = src[view(i)] for every index i of `dims` (rank <= kMaxKernelRank). Covers
// concat (dst view), split and slice (src view), transpose (permuted src strides), expand
// (broadcast src strides), padding (dst view into a larger buffer) and weight embedding.
void strided_copy(KernelLauncher& l, const std::vector<int64_t>& dims, const float* src,
                  const StridedView& src_view, float* dst, const StridedView& dst_view);

// Sets `count` floats at `dst` to `value`.
void fill(KernelLauncher& l, float* dst, int64_t count, float value);

// Element-wise operators (ONNX semantics): one per OpKind with an Ew class in op_table.inc (same
// name), and two of the kernel's own.
#define DGS_EW_None(kind)
#define DGS_EW_Unary(kind) kind,
#define DGS_EW_Binary(kind) kind,
#define DGS_OP(kind, family, min_in, max_in, min_out, max_out, ew, ...) DGS_EW_##ew(kind)
enum class EwOp : int {
#include "common/graph/op_table.inc"
  GeluTanh,  // Gelu with approximate "tanh"
  Identity,  // a copy
};
#undef DGS_OP
#undef DGS_EW_Binary
#undef DGS_EW_Unary

// Whether `op` reads two operands (op_table.inc's Ew class Binary).
inline bool ew_is_binary(EwOp op) {
#define DGS_EW_Unary(kind)
#define DGS_EW_Binary(kind) \
  case EwOp::kind:          \
    return true;
#define DGS_OP(kind, family, min_in, max_in, min_out, max_out, ew, ...) DGS_EW_##ew(kind)
  switch (op) {
#include "common/graph/op_table.inc"
    default:
      return false;
  }
#undef DGS_OP
#undef DGS_EW_Binary
#undef DGS_EW_Unary
}

// The element-wise kernel op of an operator kind; nullopt for kinds without one (Ew class None).
inline std::optional<EwOp> ew_op_of(OpKind k) {
#define DGS_EW_Unary(kind) \
  case OpKind::kind:       \
    return EwOp::kind;
#define DGS_EW_Binary(kind) DGS_EW_Unary(kind)
#define DGS_OP(kind, family, min_in, max_in, min_out, max_out, ew, ...) DGS_EW_##ew(kind)
  switch (k) {
#include "common/graph/op_table.inc"
    default:
      return std::nullopt;
  }
#undef DGS_OP
#undef DGS_EW_Binary
#undef DGS_EW_Unary
}
#undef DGS_EW_None

// Scalar attributes: LeakyRelu alpha; Clip min (alpha) and max (beta); HardSigmoid alpha, beta.
struct EwParams {
  float alpha = 0.0f;
  float beta = 0.0f;
};

// out (contiguous, shape `out_dims`) = op(a[a_view], b[b_view]); `b` is ignored for unary ops.
// Views usually come from broadcast_strides.
void elementwise(KernelLauncher& l, EwOp op, const EwParams& params,
                 const std::vector<int64_t>& out_dims, const float* a, const StridedView& a_view,
                 const float* b, const StridedView& b_view, float* out);

// out (contiguous, shape `out_dims`) = cond[c_view] != 0 ? x[x_view] : y[y_view] (ONNX Where;
// the bool condition stored as 0/1 floats).
void where_select(KernelLauncher& l, const std::vector<int64_t>& out_dims, const float* cond,
                  const StridedView& c_view, const float* x, const StridedView& x_view,
                  const float* y, const StridedView& y_view, float* out);

// out[s * slice + j] = src[offsets[s] + j] for s < num_slices, j < slice: the gather of
// GatherND with indices known on the host (`offsets`: device int64 array of flat element
// offsets of the gathered slices).
void gather_slices(KernelLauncher& l, const float* src, const int64_t* offsets, int64_t num_slices,
                   int64_t slice, float* out);

// 2-D pooling window on NCHW (any padding, ceil mode, dilation), the same semantics as the CPU
// reference: max over in-bounds elements; average over in-bounds elements, or over the window
// clipped to the padded extent when count_include_pad.
struct Pool2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1;  // input
  int64_t out_h = 1, out_w = 1;        // output (from the graph)
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};
void pool2d(KernelLauncher& l, bool is_max, bool count_include_pad, const Pool2dShape& s,
            const float* x, float* y);

}  // namespace dgs::gpu
