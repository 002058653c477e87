// GEMM + softmax, fused and unfused, as templates over tile shapes (see gemm_softmax_kernels.h).
// Three fused tiles are instantiated, to keep nvcc time modest for three architectures.
#include "common/cuda/gemm_softmax_kernels.h"

#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/gemm_mainloop.cuh"

namespace dgs::gpu {

namespace {

using gemm_detail::check_positive;
using gemm_detail::gemm_mainloop;
using gemm_detail::GemmProblem;
using gemm_detail::kMaxGridYZ;
using gemm_detail::kWarp;
using gemm_detail::stream_of;
using gemm_detail::warp_max;
using gemm_detail::warp_sum;

template <int BM, int NMAX, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (NMAX / TN))
    gemm_softmax_kernel(GemmProblem p, SoftmaxArgs s) {
  constexpr int kTX = NMAX / TN, kTY = BM / TM, kThreads = kTX * kTY;
  __shared__ float as[BK][BM + 1];
  __shared__ float bs[BK][NMAX];
  __shared__ float cs[BM][NMAX + 1];  // the reuse tile: C rows never reach global memory
  float acc[TM][TN];
  const int64_t batch = blockIdx.z;
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * BM;
  gemm_mainloop<GemmProblem, BM, NMAX, BK, TM, TN>(p, batch, row0, 0, as, bs, acc);
  const int tx = threadIdx.x % kTX, ty = threadIdx.x / kTX;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = ty + i * kTY;
    const int64_t grow = batch * p.m + row0 + r;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int c = tx + j * kTX;
      float v = -INFINITY;
      if (c < p.n && row0 + r < p.m) {
        v = s.scale * acc[i][j];
        if (s.mask) v += s.mask[(grow / s.mask_row_div) * p.n + c];
      }
      cs[r][c] = v;
    }
  }
  __syncthreads();
  constexpr int kWarps = kThreads / kWarp;
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  for (int r = warp; r < BM; r += kWarps) {
    const int64_t row = row0 + r;
    if (row >= p.m) continue;  // uniform per warp
    float mx = -INFINITY;
    for (int c = lane; c < p.n; c += kWarp) mx = fmaxf(mx, cs[r][c]);
    mx = warp_max(mx);
    float sum = 0.0f;
    for (int c = lane; c < p.n; c += kWarp) sum += expf(cs[r][c] - mx);
    sum = warp_sum(sum);
    const float inv = 1.0f / sum;
    for (int c = lane; c < p.n; c += kWarp) {
      p.c.data[p.out_index(batch, row, c)] = expf(cs[r][c] - mx) * inv;
    }
  }
}

template <int BM, int NMAX, int BK, int TM, int TN>
void launch_gemm_softmax(KernelLauncher& l, const GemmProblem& p, int64_t batch,
                         const SoftmaxArgs& s) {
  static_assert((BM / TM) * (NMAX / TN) % kWarp == 0, "whole warps");
  const dim3 grid(static_cast<unsigned>((p.m + BM - 1) / BM), 1, static_cast<unsigned>(batch));
  gemm_softmax_kernel<BM, NMAX, BK, TM, TN>
      <<<grid, (BM / TM) * (NMAX / TN), 0, stream_of(l)>>>(p, s);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

__global__ void row_softmax_kernel(int64_t rows, int64_t n, const float* __restrict__ x,
                                   float* __restrict__ y, SoftmaxArgs s) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const int lane = threadIdx.x;
  const float* xr = x + row * n;
  const float* mr = s.mask ? s.mask + (row / s.mask_row_div) * n : nullptr;
  float mx = -INFINITY;
  for (int64_t c = lane; c < n; c += kWarp) mx = fmaxf(mx, s.scale * xr[c] + (mr ? mr[c] : 0.0f));
  mx = warp_max(mx);
  float sum = 0.0f;
  for (int64_t c = lane; c < n; c += kWarp) sum += expf(s.scale * xr[c] + (mr ? mr[c] : 0.0f) - mx);
  sum = warp_sum(sum);
  const float inv = 1.0f / sum;
  for (int64_t c = lane; c < n; c += kWarp) {
    y[row * n + c] = expf(s.scale * xr[c] + (mr ? mr[c] : 0.0f) - mx) * inv;
  }
}

}  // namespace

// --- public entry points ------------------------------------------------------------------------
void gemm_softmax(KernelLauncher& l, const SoftmaxTile& t, int64_t batch, int64_t m, int64_t n,
                  int64_t k, const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& d,
                  const SoftmaxArgs& s) {
  check_positive(batch, "gemm_softmax", "batch");
  check_positive(m, "gemm_softmax", "m");
  check_positive(n, "gemm_softmax", "n");
  check_positive(k, "gemm_softmax", "k");
  check_positive(s.mask_row_div, "gemm_softmax", "mask_row_div");
  if (n > t.n_max) {
    throw Error("gemm_softmax: row length " + std::to_string(n) + " exceeds the tile's " +
                std::to_string(t.n_max) + " (a row must fit the shared-memory tile)");
  }
  if (batch > kMaxGridYZ) throw Error("gemm_softmax: batch exceeds the grid limit 65535");
  const GemmProblem p{m, n, k, a, b, d};
  if (t == SoftmaxTile{8, 64, 8, 1, 4}) return launch_gemm_softmax<8, 64, 8, 1, 4>(l, p, batch, s);
  if (t == SoftmaxTile{16, 128, 8, 1, 8})
    return launch_gemm_softmax<16, 128, 8, 1, 8>(l, p, batch, s);
  if (t == SoftmaxTile{32, 128, 8, 2, 8})
    return launch_gemm_softmax<32, 128, 8, 2, 8>(l, p, batch, s);
  std::string avail;
  for (const SoftmaxTile& g : gemm_softmax_tiles()) avail += (avail.empty() ? "" : ", ") + g.str();
  throw Error("gemm_softmax: tile " + t.str() + " is not instantiated; expected one of " + avail);
}

void row_softmax(KernelLauncher& l, int rows_per_block, int64_t rows, int64_t n, const float* x,
                 float* y, const SoftmaxArgs& s) {
  check_positive(rows, "row_softmax", "rows");
  check_positive(n, "row_softmax", "n");
  check_positive(s.mask_row_div, "row_softmax", "mask_row_div");
  if (rows_per_block < 1 || rows_per_block > 32) {
    throw Error("row_softmax: rows_per_block " + std::to_string(rows_per_block) +
                "; expected 1..32 (one warp per row)");
  }
  const unsigned grid = static_cast<unsigned>((rows + rows_per_block - 1) / rows_per_block);
  row_softmax_kernel<<<grid, dim3(kWarp, static_cast<unsigned>(rows_per_block)), 0, stream_of(l)>>>(
      rows, n, x, y, s);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

}  // namespace dgs::gpu
