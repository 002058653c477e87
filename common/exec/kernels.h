#pragma once
// The executor's Eigen-backed kernels (convolution, transposed convolution, matrix products).
// Implemented in kernels_linalg.cpp, the only place that includes Eigen. Shapes and attributes
// have been resolved by the callers (ops_*.cpp, ops.h); these functions only compute.
#include <cstdint>
#include <vector>

#include "common/exec/tensor_data.h"
#include "common/graph/window.h"

namespace dgs {

// Convolutions take their resolved window (kernel, strides, dilations, pads, group, output
// sizes; 1-3 spatial dims) from resolve_window (common/graph/window.h).

// Conv: x [N, C, ...], w [M, C/group, k...], bias [M] or nullptr -> y [N, M, out...].
// Per image and group: im2col into a [C/group * prod(k), prod(out)] buffer, then one GEMM.
TensorData conv_forward(const TensorData& x, const TensorData& w, const TensorData* bias,
                        const Window& geo);

// ConvTranspose: x [N, C, ...], w [C, M/group, k...], bias [M] or nullptr -> y [N, M, out...].
// Per image and group: one GEMM (w_g^T x_g) into columns, then col2im accumulation.
TensorData conv_transpose_forward(const TensorData& x, const TensorData& w, const TensorData* bias,
                                  const Window& geo);

// ONNX MatMul (numpy.matmul: 1-D promotion, broadcast batch dimensions).
TensorData matmul_forward(const TensorData& a, const TensorData& b);

// ONNX Gemm: alpha * op(A) * op(B) + beta * C, C (optional) broadcast to [M, N].
TensorData gemm_forward(const TensorData& a, const TensorData& b, const TensorData* c, double alpha,
                        double beta, bool trans_a, bool trans_b);

// Broadcast of shapes a and b (numpy rules); throws dgs::Error naming `what` if incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what);

}  // namespace dgs
