#pragma once
// Kernels for the groups Welder forms, written once as templates over tile shapes (not one kernel
// per model), float32, CUDA cores:
//   gemm                 tiled (batched, strided) GEMM: shared-memory block tiles, register
//                        micro-tiles, fused element-wise epilogue (alpha, bias, residual add,
//                        ReLU/GELU): the register-level connection of Welder-base.
//   conv2d_implicit_gemm convolution as an implicit GEMM (im2col indices computed on the fly),
//                        same tiles and epilogue; a conv chain is a sequence of these.
//   gemm_softmax         GEMM + (scale, mask,) softmax with the output row tile kept in shared
//                        memory (Welder Fig. 2: the shared-memory connection).
//   row_softmax          the unfused softmax (one warp per row, `rows_per_block` rows per block).
//   mlp_chain            a chain of small GEMMs (<= kChainMaxWidth features) with bias and
//                        activation, intermediates in shared memory, in one kernel (the NeRF MLP,
//                        Welder Table 4; also back-to-back 1x1 convolutions via
//                        pointwise_conv_chain).
// Every function takes device pointers, enqueues on the launcher's stream and counts its launches
// there. The instantiated tile shapes are listed by *_tiles(); another shape is refused with a
// dgs::Error naming the available ones. CUDA-free header: the no-CUDA build's stubs throw.
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
// The instantiated shapes (gemm_kernels.cu instantiates exactly these; a test runs each).
// 32x64 is Welder Fig. 2's standalone-optimal Matmul tile.
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

// Fused GEMM + softmax tile: bm rows per block, each row whole (n <= n_max) in shared memory.
struct SoftmaxTile {
  int bm = 16, n_max = 128, bk = 8, tm = 1, tn = 8;
  int threads() const { return (bm / tm) * (n_max / tn); }
  std::string str() const { return std::to_string(bm) + "x" + std::to_string(n_max); }  // "16x128"
  bool operator==(const SoftmaxTile&) const = default;
};
// The instantiated shapes; 16x128 is Welder Fig. 2's aligned fused tile.
inline std::vector<SoftmaxTile> gemm_softmax_tiles() {
  return {{8, 64, 8, 1, 4}, {16, 128, 8, 1, 8}, {32, 128, 8, 2, 8}};
}

// Softmax over the last axis of scale * x + mask, where the mask row for global row g
// (g = batch * m + row) is mask + (g / mask_row_div) * n, or no mask.
struct SoftmaxArgs {
  float scale = 1.0f;
  const float* mask = nullptr;
  int64_t mask_row_div = 1;
};
void gemm_softmax(KernelLauncher& l, const SoftmaxTile& tile, int64_t batch, int64_t m, int64_t n,
                  int64_t k, const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& d,
                  const SoftmaxArgs& s = {});
// Unfused softmax of a contiguous [rows, n] matrix.
void row_softmax(KernelLauncher& l, int rows_per_block, int64_t rows, int64_t n, const float* x,
                 float* y, const SoftmaxArgs& s = {});

// --- chains of small GEMMs in one kernel ---
inline constexpr int kChainMaxWidth =
    64;  // features per layer (weights of one layer in shared memory)
inline constexpr int kChainMaxLayers = 8;

// One layer: y = act(W x + bias), W(o, i) at weight[o*w_out_stride + i*w_in_stride]
// (a Gemm transB=1 / 1x1-conv weight [out, in] has strides (in, 1); a MatMul weight [in, out]
// has (1, out)).
struct ChainLayer {
  const float* weight = nullptr;
  int64_t w_out_stride = 0, w_in_stride = 1;
  const float* bias = nullptr;
  int64_t in_features = 0, out_features = 0;
  Activation act = Activation::None;
};
// Rows of features: feature c of row r at data[(r / rows_per_image) * image_stride +
// (r % rows_per_image) * row_stride + c * col_stride]. Row-major [rows, f]: rows_per_image = rows,
// row_stride = f, col_stride = 1. NCHW as pixels x channels: rows_per_image = H*W,
// image_stride = C*H*W, row_stride = 1, col_stride = H*W.
struct RowsArg {
  const float* data = nullptr;
  int64_t rows_per_image = 1, image_stride = 0, row_stride = 0, col_stride = 1;
};
struct RowsOutArg {
  float* data = nullptr;
  int64_t rows_per_image = 1, image_stride = 0, row_stride = 0, col_stride = 1;
};
// Rows per block of the instantiated mlp_chain kernels.
inline std::vector<int> mlp_chain_tiles() {
  return {16, 32, 64};
}
void mlp_chain(KernelLauncher& l, int rows_per_block, int64_t rows,
               const std::vector<ChainLayer>& layers, const RowsArg& x, const RowsOutArg& y);
// Back-to-back 1x1 convolutions on NCHW [n, c, h, w] as one mlp_chain (pixels are rows).
void pointwise_conv_chain(KernelLauncher& l, int rows_per_block, int64_t n, int64_t c, int64_t h,
                          int64_t w, const std::vector<ChainLayer>& layers, const float* x,
                          float* y);

}  // namespace dgs::gpu
