#pragma once
// GEMM followed by a softmax over each output row, fused and unfused, float32 on CUDA cores:
//   gemm_softmax  GEMM + (scale, mask,) softmax in one kernel: a block computes bm whole rows of
//                 the product with the tiled GEMM's main loop, keeps them in shared memory and
//                 normalises them there, so the product never reaches global memory (rows up to
//                 the tile's n_max columns).
//   row_softmax   the unfused softmax (one warp per row, `rows_per_block` rows per block), to run
//                 after gemm() (gemm_kernels.h) writes the product.
// Same conventions as gemm_kernels.h: device pointers, the launcher's stream, launches counted,
// instantiated tiles listed by gemm_softmax_tiles() and any other refused. CUDA-free header.
#include <cstdint>
#include <string>
#include <vector>

#include "common/cuda/gemm_kernels.h"
#include "common/cuda/runtime.h"

namespace dgs::gpu {

// Fused GEMM + softmax tile: bm rows per block, each row whole (n <= n_max) in shared memory.
struct SoftmaxTile {
  int bm = 16, n_max = 128, bk = 8, tm = 1, tn = 8;
  int threads() const { return (bm / tm) * (n_max / tn); }
  std::string str() const { return std::to_string(bm) + "x" + std::to_string(n_max); }  // "16x128"
  bool operator==(const SoftmaxTile&) const = default;
};
// The instantiated shapes: rows of up to 64 columns 8 per block, and rows of up to 128 columns
// 16 or 32 per block.
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
// D[b] = softmax(scale * A[b] (m x k) . B[b] (k x n) + mask) for b < batch, in one kernel.
void gemm_softmax(KernelLauncher& l, const SoftmaxTile& tile, int64_t batch, int64_t m, int64_t n,
                  int64_t k, const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& d,
                  const SoftmaxArgs& s = {});
// Unfused softmax of a contiguous [rows, n] matrix.
void row_softmax(KernelLauncher& l, int rows_per_block, int64_t rows, int64_t n, const float* x,
                 float* y, const SoftmaxArgs& s = {});

}  // namespace dgs::gpu
