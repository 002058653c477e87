#pragma once
// The suite's tiled GEMM, float32 on CUDA cores, written once as templates over tile shapes (not
// one kernel per model):
//   gemm                 tiled (batched, strided) GEMM: shared-memory block tiles, register
//                        micro-tiles, and a fused element-wise epilogue (alpha, bias, residual
//                        add, ReLU/GELU) applied to the accumulators in registers before the
//                        single store.
//   conv2d_implicit_gemm convolution as an implicit GEMM (im2col indices computed on the fly),
//                        same tiles and epilogue; a conv chain is a sequence of these.
// The stage executor runs Gemm/MatMul through gemm(); the kernels that fuse a GEMM with what
// follows it are in gemm_softmax_kernels.h (GEMM + softmax) and gemm_chain_kernels.h (chains of
// small GEMMs). Every function takes device pointers, enqueues on the launcher's stream and counts
// its launches there. The instantiated tile shapes are listed by *_tiles(); another shape is
// refused with a dgs::Error naming the available ones. CUDA-free header: the no-CUDA build's
// stubs throw.
//
// Each kernel is checked against the CPU reference executor through one testbed
// (common/cuda/kernel_testbed.h) in tests/cuda/.
#include <cstdint>
#include <string>
#include <vector>

#include "common/cuda/runtime.h"

namespace dgs::gpu {

// GEMM block tile bm x bn with a k-step of bk; each of the (bm/tm)*(bn/tn) threads computes a
// tm x tn register micro-tile.
struct GemmTile {
  int bm = 64, bn = 64, bk = 8, tm = 4, tn = 4;
  int threads() const { return (bm / tm) * (bn / tn); }
  std::string str() const {  // "64x64x8/4x4"
    return std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + "/" +
           std::to_string(tm) + "x" + std::to_string(tn);
  }
  bool operator==(const GemmTile&) const = default;
};
// The instantiated shapes (gemm_kernels.cu instantiates exactly these; a test runs each): a
// narrow 32x64 tile for small or skinny products, the 64x64 default, and a tall 128x64 tile.
inline std::vector<GemmTile> gemm_tiles() {
  return {{32, 64, 8, 2, 4}, {64, 64, 8, 4, 4}, {128, 64, 8, 8, 4}};
}
inline GemmTile default_gemm_tile() {
  return {64, 64, 8, 4, 4};
}

enum class Activation : int { None, Relu, Gelu };  // Gelu: 0.5 x (1 + erf(x / sqrt 2))

// A (batch of) matrices: element (b, r, c) at data[b*batch_stride + r*row_stride + c*col_stride].
// A transposed operand is the same memory with the two strides swapped.
struct MatrixArg {
  const float* data = nullptr;
  int64_t row_stride = 0, col_stride = 1, batch_stride = 0;
};
struct OutMatrixArg {
  float* data = nullptr;
  int64_t row_stride = 0, col_stride = 1, batch_stride = 0;
};
inline MatrixArg row_major(const float* p, int64_t cols, int64_t batch_stride = 0) {
  return {p, cols, 1, batch_stride};
}
inline OutMatrixArg row_major_out(float* p, int64_t cols, int64_t batch_stride = 0) {
  return {p, cols, 1, batch_stride};
}

// out = act(alpha * acc + bias[col] + residual[same position as out]); absent parts skipped.
// For a convolution `col` is the output channel and the residual has the output's layout.
struct Epilogue {
  float alpha = 1.0f;
  const float* bias = nullptr;
  int64_t bias_batch_stride = 0;    // batched GEMM: bias of batch b at bias + b*stride
  const float* residual = nullptr;  // GEMM: same strides as the output matrix
  Activation act = Activation::None;
};

// C[b] = epilogue(A[b] (m x k) . B[b] (k x n)) for b < batch.
void gemm(KernelLauncher& l, const GemmTile& tile, int64_t batch, int64_t m, int64_t n, int64_t k,
          const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& c, const Epilogue& e = {});

// NCHW convolution, weights [out_c, c/groups, r, s], symmetric or asymmetric padding given by
// its top/left values (the bottom/right padding follows from out_h/out_w).
struct Conv2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1;  // input
  int64_t out_c = 1, r = 1, s = 1;     // output channels, kernel height and width
  int64_t out_h = 1, out_w = 1;
  int64_t stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0, dil_h = 1, dil_w = 1;
  int64_t groups = 1;
};
void conv2d_implicit_gemm(KernelLauncher& l, const GemmTile& tile, const Conv2dShape& shape,
                          const float* x, const float* w, float* y, const Epilogue& e = {});

}  // namespace dgs::gpu
