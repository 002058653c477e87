#pragma once
// The executor's Eigen-backed kernels (convolution, transposed convolution, matrix products).
// Implemented in kernels_linalg.cpp, the only place that includes Eigen. Shapes and attributes
// have been resolved by the caller (executor.cpp); these functions only compute.
#include <cstdint>
#include <vector>

#include "common/exec/tensor_data.h"

namespace dgs {

// Resolved geometry of a 1-D/2-D/3-D (transposed) convolution. Vectors have one entry per spatial
// dimension.
struct ConvGeometry {
  int64_t group = 1;
  std::vector<int64_t> kernel;  // k per spatial dim
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;  // may be negative for ConvTranspose with output_shape
  std::vector<int64_t> pads_end;
  Shape out_spatial;  // output spatial sizes
};

// Conv: x [N, C, ...], w [M, C/group, k...], bias [M] or nullptr -> y [N, M, out...].
// Per image and group: im2col into a [C/group * prod(k), prod(out)] buffer, then one GEMM.
TensorData conv_forward(const TensorData& x, const TensorData& w, const TensorData* bias,
                        const ConvGeometry& geo);

// ConvTranspose: x [N, C, ...], w [C, M/group, k...], bias [M] or nullptr -> y [N, M, out...].
// Per image and group: one GEMM (w_g^T x_g) into columns, then col2im accumulation.
TensorData conv_transpose_forward(const TensorData& x, const TensorData& w, const TensorData* bias,
                                  const ConvGeometry& geo);

// ONNX MatMul (numpy.matmul: 1-D promotion, broadcast batch dimensions).
TensorData matmul_forward(const TensorData& a, const TensorData& b);

// ONNX Gemm: alpha * op(A) * op(B) + beta * C, C (optional) broadcast to [M, N].
TensorData gemm_forward(const TensorData& a, const TensorData& b, const TensorData* c, double alpha,
                        double beta, bool trans_a, bool trans_b);

// Broadcast of shapes a and b (numpy rules); throws dgs::Error naming `what` if incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what);

}  // namespace dgs
