#pragma once
// Device code shared by the GEMM-based kernels (gemm_kernels.cu, gemm_softmax_kernels.cu,
// gemm_chain_kernels.cu): the epilogue activation, the GEMM view of a problem and the tiled main
// loop, warp reductions, and the argument checks. Included only by .cu files.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "common/cuda/gemm_kernels.h"
#include "common/cuda/runtime.h"
#include "common/util/error.h"

namespace dgs::gpu::gemm_detail {

inline constexpr int64_t kMaxGridYZ = 65535;  // CUDA limit of gridDim.y and gridDim.z
inline constexpr int kWarp = 32;

inline cudaStream_t stream_of(const KernelLauncher& l) {
  return static_cast<cudaStream_t>(l.stream_handle());
}

inline void check_positive(int64_t v, const char* what, const char* name) {
  if (v <= 0) {
    throw Error(std::string(what) + ": " + name + " = " + std::to_string(v) + "; expected > 0");
  }
}

__device__ __forceinline__ float activate(Activation a, float v) {
  switch (a) {
    case Activation::Relu:
      return v > 0.0f ? v : 0.0f;
    case Activation::Gelu:
      return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    case Activation::None:
      break;
  }
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// A (batched, strided) matrix product as the main loop sees it.
struct GemmProblem {
  int64_t m, n, k;
  MatrixArg a, b;
  OutMatrixArg c;
  __device__ float load_a(int64_t batch, int64_t row, int64_t kk) const {
    return a.data[batch * a.batch_stride + row * a.row_stride + kk * a.col_stride];
  }
  __device__ float load_b(int64_t batch, int64_t kk, int64_t col) const {
    return b.data[batch * b.batch_stride + kk * b.row_stride + col * b.col_stride];
  }
  __device__ int64_t out_index(int64_t batch, int64_t row, int64_t col) const {
    return batch * c.batch_stride + row * c.row_stride + col * c.col_stride;
  }
  __device__ float* out() const { return c.data; }
  __device__ int64_t bias_index(int64_t batch, int64_t col, int64_t bias_batch_stride) const {
    return batch * bias_batch_stride + col;
  }
};

// The shared main loop: acc[TM][TN] += A tile . B tile over all of k. Thread (ty, tx) owns rows
// ty + i*(BM/TM) and columns tx + j*(BN/TN) of the block tile, so neighbouring threads read
// neighbouring shared-memory words and write neighbouring outputs. P provides m, n, k,
// load_a(batch, row, k) and load_b(batch, k, col).
template <class P, int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void gemm_mainloop(const P& p, int64_t batch, int64_t row0, int64_t col0,
                                              float (&as)[BK][BM + 1], float (&bs)[BK][BN],
                                              float (&acc)[TM][TN]) {
  constexpr int kTX = BN / TN, kTY = BM / TM, kThreads = kTX * kTY;
  const int tid = threadIdx.x, tx = tid % kTX, ty = tid / kTX;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }
  for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
    for (int i = tid; i < BM * BK; i += kThreads) {
      const int r = i / BK, c = i % BK;
      const int64_t gr = row0 + r, gk = k0 + c;
      as[c][r] = (gr < p.m && gk < p.k) ? p.load_a(batch, gr, gk) : 0.0f;
    }
    for (int i = tid; i < BK * BN; i += kThreads) {
      const int r = i / BN, c = i % BN;
      const int64_t gk = k0 + r, gc = col0 + c;
      bs[r][c] = (gk < p.k && gc < p.n) ? p.load_b(batch, gk, gc) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float av[TM], bv[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) av[i] = as[kk][ty + i * kTY];
#pragma unroll
      for (int j = 0; j < TN; ++j) bv[j] = bs[kk][tx + j * kTX];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
}

}  // namespace dgs::gpu::gemm_detail
