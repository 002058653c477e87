#pragma once
// A chain of small GEMMs in one kernel, float32 on CUDA cores:
//   mlp_chain             up to kChainMaxLayers layers y = act(W x + bias) of at most
//                         kChainMaxWidth features each, over a tile of rows: the weights of one
//                         layer and the row tile's intermediates stay in shared memory, only the
//                         first input and the last output touch global memory (a multilayer
//                         perceptron in one launch).
//   pointwise_conv_chain  back-to-back 1x1 convolutions on NCHW as one mlp_chain (pixels are rows).
// Same conventions as gemm_kernels.h: device pointers, the launcher's stream, launches counted,
// instantiated tiles listed by mlp_chain_tiles() and any other refused. CUDA-free header.
#include <cstdint>
#include <vector>

#include "common/cuda/gemm_kernels.h"
#include "common/cuda/runtime.h"

namespace dgs::gpu {

inline constexpr int kChainMaxWidth = 64;  // features per layer (one layer's weights in shared mem)
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
