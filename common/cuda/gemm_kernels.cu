// Welder's fused-group kernels as templates over tile shapes (see gemm_kernels.h).
// Instantiations are kept few (3 GEMM tiles x {GEMM, conv}, 3 softmax tiles, 3 chain tiles) to
// keep nvcc time modest for three architectures.
#include "common/cuda/gemm_kernels.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/cuda/cuda_check.cuh"

namespace dgs::gpu {

namespace {

constexpr int64_t kMaxGridYZ = 65535;          // CUDA limit of gridDim.y and gridDim.z
constexpr int kStaticSharedLimit = 48 * 1024;  // above this, dynamic shared memory needs opt-in
constexpr int kChainThreadsX = 16;             // mlp_chain: 16 x 16 threads,
constexpr int kChainThreadsY = 16;             // each computing rows ty+16i, columns tx+16j
constexpr int kWarp = 32;

cudaStream_t stream_of(const KernelLauncher& l) {
  return static_cast<cudaStream_t>(l.stream_handle());
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

// --- problems: how a GEMM view maps to memory --------------------------------------------------
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

// Implicit GEMM of an NCHW convolution, one GEMM per group (the "batch" index):
// rows = (image, out pixel), columns = output channels of the group, k = (in channel, r, s).
struct ConvProblem {
  Conv2dShape s;
  int64_t m, n, k;  // n*out_h*out_w, out_c/groups, c/groups*r*s
  const float* x;
  const float* w;
  float* y;
  __device__ float load_a(int64_t g, int64_t row, int64_t kk) const {
    const int64_t hw = s.out_h * s.out_w;
    const int64_t img = row / hw, p = row % hw;
    const int64_t ho = p / s.out_w, wo = p % s.out_w;
    const int64_t rs = s.r * s.s;
    const int64_t ci = kk / rs, q = kk % rs;
    const int64_t ih = ho * s.stride_h - s.pad_top + (q / s.s) * s.dil_h;
    const int64_t iw = wo * s.stride_w - s.pad_left + (q % s.s) * s.dil_w;
    if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) return 0.0f;
    const int64_t cg = s.c / s.groups;
    return x[((img * s.c + g * cg + ci) * s.h + ih) * s.w + iw];
  }
  __device__ float load_b(int64_t g, int64_t kk, int64_t col) const {
    return w[(g * n + col) * k + kk];
  }
  __device__ int64_t out_index(int64_t g, int64_t row, int64_t col) const {
    const int64_t hw = s.out_h * s.out_w;
    return ((row / hw) * s.out_c + g * n + col) * hw + row % hw;
  }
  __device__ float* out() const { return y; }
  __device__ int64_t bias_index(int64_t g, int64_t col, int64_t) const { return g * n + col; }
};

// --- the shared main loop: acc[TM][TN] += A tile . B tile over all of k ------------------------
// Thread (ty, tx) owns rows ty + i*(BM/TM) and columns tx + j*(BN/TN) of the block tile, so
// neighbouring threads read neighbouring shared-memory words and write neighbouring outputs.
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

template <class P, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) tiled_gemm_kernel(P p, Epilogue e) {
  constexpr int kTX = BN / TN, kTY = BM / TM;
  __shared__ float as[BK][BM + 1];
  __shared__ float bs[BK][BN];
  float acc[TM][TN];
  const int64_t batch = blockIdx.z;
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * BM;
  const int64_t col0 = static_cast<int64_t>(blockIdx.y) * BN;
  gemm_mainloop<P, BM, BN, BK, TM, TN>(p, batch, row0, col0, as, bs, acc);
  const int tx = threadIdx.x % kTX, ty = threadIdx.x / kTX;
  float* out = p.out();
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int64_t row = row0 + ty + i * kTY;
    if (row >= p.m) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int64_t col = col0 + tx + j * kTX;
      if (col >= p.n) continue;
      const int64_t at = p.out_index(batch, row, col);
      float v = e.alpha * acc[i][j];
      if (e.bias) v += e.bias[p.bias_index(batch, col, e.bias_batch_stride)];
      if (e.residual) v += e.residual[at];
      out[at] = activate(e.act, v);
    }
  }
}

template <class P, int BM, int BN, int BK, int TM, int TN>
void launch_tiled(KernelLauncher& l, const P& p, int64_t batch, const Epilogue& e) {
  const int64_t gx = (p.m + BM - 1) / BM, gy = (p.n + BN - 1) / BN;
  if (gy > kMaxGridYZ || batch > kMaxGridYZ) {
    throw Error("gemm: " + std::to_string(gy) + " column tiles x " + std::to_string(batch) +
                " batches exceed the grid limit 65535");
  }
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                  static_cast<unsigned>(batch));
  tiled_gemm_kernel<P, BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN), 0, stream_of(l)>>>(p, e);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

template <class P>
void dispatch_tiled(KernelLauncher& l, const GemmTile& t, const P& p, int64_t batch,
                    const Epilogue& e, const char* what) {
  if (t == GemmTile{32, 64, 8, 2, 4}) return launch_tiled<P, 32, 64, 8, 2, 4>(l, p, batch, e);
  if (t == GemmTile{64, 64, 8, 4, 4}) return launch_tiled<P, 64, 64, 8, 4, 4>(l, p, batch, e);
  if (t == GemmTile{128, 64, 8, 8, 4}) return launch_tiled<P, 128, 64, 8, 8, 4>(l, p, batch, e);
  std::string avail;
  for (const GemmTile& g : gemm_tiles()) avail += (avail.empty() ? "" : ", ") + g.str();
  throw Error(std::string(what) + ": tile " + t.str() + " is not instantiated; expected one of " +
              avail);
}

// --- GEMM + softmax with the row tile in shared memory
// --------------------------------------------
__device__ __forceinline__ float warp_max(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

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

// --- chain of small GEMMs with intermediates in shared memory -----------------------------------
struct ChainArgs {
  int num_layers = 0;
  int64_t rows = 0;
  ChainLayer layers[kChainMaxLayers];
  RowsArg x;
  RowsOutArg y;
};

__device__ __forceinline__ int64_t rows_offset(int64_t r, int64_t c, int64_t per_image,
                                               int64_t image_stride, int64_t row_stride,
                                               int64_t col_stride) {
  return (r / per_image) * image_stride + (r % per_image) * row_stride + c * col_stride;
}

template <int BM>
__global__ void __launch_bounds__(kChainThreadsX* kChainThreadsY) mlp_chain_kernel(ChainArgs a) {
  constexpr int W = kChainMaxWidth, kLd = W + 1;  // +1: no bank conflicts between rows
  constexpr int kRowsPerThread = BM / kChainThreadsY, kColsPerThread = W / kChainThreadsX;
  constexpr int kThreads = kChainThreadsX * kChainThreadsY;
  extern __shared__ float smem[];
  float* act[2] = {smem, smem + BM * kLd};
  float* wt = smem + 2 * BM * kLd;  // W^T of the current layer: wt[i * W + o] = W(o, i)
  const int tid = threadIdx.x, tx = tid % kChainThreadsX, ty = tid / kChainThreadsX;
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * BM;

  // Load the input row tile (zeros past the last row).
  const int64_t k0 = a.layers[0].in_features;
  const bool rows_contiguous = a.x.row_stride == 1;
  for (int64_t i = tid; i < BM * k0; i += kThreads) {
    const int64_t r = rows_contiguous ? i % BM : i / k0;
    const int64_t c = rows_contiguous ? i / BM : i % k0;
    const int64_t gr = row0 + r;
    act[0][r * kLd + c] = gr < a.rows
                              ? a.x.data[rows_offset(gr, c, a.x.rows_per_image, a.x.image_stride,
                                                     a.x.row_stride, a.x.col_stride)]
                              : 0.0f;
  }
  int cur = 0;
  for (int li = 0; li < a.num_layers; ++li) {
    const ChainLayer& L = a.layers[li];
    for (int64_t i = tid; i < L.in_features * L.out_features; i += kThreads) {
      const int64_t o = i / L.in_features, in = i % L.in_features;
      wt[in * W + o] = L.weight[o * L.w_out_stride + in * L.w_in_stride];
    }
    __syncthreads();  // weights loaded; the previous layer's outputs written
    float acc[kRowsPerThread][kColsPerThread];
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j) acc[i][j] = 0.0f;
    }
    const float* in_tile = act[cur];
    for (int64_t kk = 0; kk < L.in_features; ++kk) {
      float av[kRowsPerThread], bv[kColsPerThread];
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i)
        av[i] = in_tile[(ty + i * kChainThreadsY) * kLd + kk];
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j) bv[j] = wt[kk * W + tx + j * kChainThreadsX];
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) {
#pragma unroll
        for (int j = 0; j < kColsPerThread; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
      }
    }
    const bool last = li + 1 == a.num_layers;
    float* out_tile = act[1 - cur];
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
      const int r = ty + i * kChainThreadsY;
#pragma unroll
      for (int j = 0; j < kColsPerThread; ++j) {
        const int c = tx + j * kChainThreadsX;
        if (c >= L.out_features) continue;
        float v = acc[i][j];
        if (L.bias) v += L.bias[c];
        v = activate(L.act, v);
        if (!last) {
          out_tile[r * kLd + c] = v;
        } else if (row0 + r < a.rows) {
          a.y.data[rows_offset(row0 + r, c, a.y.rows_per_image, a.y.image_stride, a.y.row_stride,
                               a.y.col_stride)] = v;
        }
      }
    }
    __syncthreads();  // this layer's weights and inputs are no longer read
    cur = 1 - cur;
  }
}

constexpr size_t chain_smem_bytes(int bm) {
  return (2 * static_cast<size_t>(bm) * (kChainMaxWidth + 1) +
          static_cast<size_t>(kChainMaxWidth) * kChainMaxWidth) *
         sizeof(float);
}

template <int BM>
void launch_chain(KernelLauncher& l, const ChainArgs& a) {
  static_assert(BM % kChainThreadsY == 0, "rows per block must be a multiple of 16");
  constexpr size_t smem = chain_smem_bytes(BM);
  if (smem > static_cast<size_t>(kStaticSharedLimit)) {
    int dev = 0, optin = 0;
    DGS_CUDA_CHECK(cudaGetDevice(&dev));
    DGS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (smem > static_cast<size_t>(optin)) {
      throw Error("mlp_chain: tile of " + std::to_string(BM) + " rows needs " +
                  std::to_string(smem) + " bytes of shared memory; this device allows " +
                  std::to_string(optin));
    }
    DGS_CUDA_CHECK(cudaFuncSetAttribute(
        mlp_chain_kernel<BM>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  }
  const unsigned grid = static_cast<unsigned>((a.rows + BM - 1) / BM);
  mlp_chain_kernel<BM><<<grid, kChainThreadsX * kChainThreadsY, smem, stream_of(l)>>>(a);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void check_positive(int64_t v, const char* what, const char* name) {
  if (v <= 0) {
    throw Error(std::string(what) + ": " + name + " = " + std::to_string(v) + "; expected > 0");
  }
}

}  // namespace

// --- public entry points ------------------------------------------------------------------------
void gemm(KernelLauncher& l, const GemmTile& tile, int64_t batch, int64_t m, int64_t n, int64_t k,
          const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& c, const Epilogue& e) {
  check_positive(batch, "gemm", "batch");
  check_positive(m, "gemm", "m");
  check_positive(n, "gemm", "n");
  check_positive(k, "gemm", "k");
  const GemmProblem p{m, n, k, a, b, c};
  dispatch_tiled(l, tile, p, batch, e, "gemm");
}

void conv2d_implicit_gemm(KernelLauncher& l, const GemmTile& tile, const Conv2dShape& s,
                          const float* x, const float* w, float* y, const Epilogue& e) {
  check_positive(s.groups, "conv2d_implicit_gemm", "groups");
  if (s.c % s.groups != 0 || s.out_c % s.groups != 0) {
    throw Error("conv2d_implicit_gemm: channels " + std::to_string(s.c) + " -> " +
                std::to_string(s.out_c) + " not divisible by groups " + std::to_string(s.groups));
  }
  if (e.bias_batch_stride != 0) {
    throw Error("conv2d_implicit_gemm: bias_batch_stride must be 0 (bias is per output channel)");
  }
  ConvProblem p{s, s.n * s.out_h * s.out_w, s.out_c / s.groups, (s.c / s.groups) * s.r * s.s, x, w,
                y};
  check_positive(p.m, "conv2d_implicit_gemm", "n*out_h*out_w");
  check_positive(p.k, "conv2d_implicit_gemm", "c/groups*r*s");
  dispatch_tiled(l, tile, p, s.groups, e, "conv2d_implicit_gemm");
}

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

void mlp_chain(KernelLauncher& l, int rows_per_block, int64_t rows,
               const std::vector<ChainLayer>& layers, const RowsArg& x, const RowsOutArg& y) {
  check_positive(rows, "mlp_chain", "rows");
  check_positive(x.rows_per_image, "mlp_chain", "x.rows_per_image");
  check_positive(y.rows_per_image, "mlp_chain", "y.rows_per_image");
  if (layers.empty() || layers.size() > static_cast<size_t>(kChainMaxLayers)) {
    throw Error("mlp_chain: " + std::to_string(layers.size()) + " layers; expected 1.." +
                std::to_string(kChainMaxLayers));
  }
  ChainArgs a;
  a.num_layers = static_cast<int>(layers.size());
  a.rows = rows;
  a.x = x;
  a.y = y;
  for (size_t i = 0; i < layers.size(); ++i) {
    const ChainLayer& L = layers[i];
    const std::string where = "mlp_chain: layer " + std::to_string(i);
    if (L.weight == nullptr) throw Error(where + " has no weight");
    if (L.in_features < 1 || L.in_features > kChainMaxWidth || L.out_features < 1 ||
        L.out_features > kChainMaxWidth) {
      throw Error(where + " is " + std::to_string(L.in_features) + " -> " +
                  std::to_string(L.out_features) + " features; expected 1.." +
                  std::to_string(kChainMaxWidth));
    }
    if (i > 0 && L.in_features != layers[i - 1].out_features) {
      throw Error(where + " takes " + std::to_string(L.in_features) + " features; layer " +
                  std::to_string(i - 1) + " gives " + std::to_string(layers[i - 1].out_features));
    }
    a.layers[i] = L;
  }
  switch (rows_per_block) {
    case 16:
      return launch_chain<16>(l, a);
    case 32:
      return launch_chain<32>(l, a);
    case 64:
      return launch_chain<64>(l, a);
    default:
      throw Error("mlp_chain: " + std::to_string(rows_per_block) +
                  " rows per block is not instantiated; expected 16, 32 or 64");
  }
}

void pointwise_conv_chain(KernelLauncher& l, int rows_per_block, int64_t n, int64_t c, int64_t h,
                          int64_t w, const std::vector<ChainLayer>& layers, const float* x,
                          float* y) {
  if (layers.empty()) throw Error("pointwise_conv_chain: no layers");
  if (layers.front().in_features != c) {
    throw Error("pointwise_conv_chain: input has " + std::to_string(c) +
                " channels; the first layer takes " + std::to_string(layers.front().in_features));
  }
  const int64_t hw = h * w, out_c = layers.back().out_features;
  const RowsArg xa{x, hw, c * hw, 1, hw};
  const RowsOutArg ya{y, hw, out_c * hw, 1, hw};
  mlp_chain(l, rows_per_block, n * hw, layers, xa, ya);
}

}  // namespace dgs::gpu
