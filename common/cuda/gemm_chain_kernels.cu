// A chain of small GEMMs in one kernel, as templates over the rows per block (see
// gemm_chain_kernels.h). Three row tiles are instantiated.
#include "common/cuda/gemm_chain_kernels.h"

#include <cuda_runtime.h>

#include <string>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/gemm_mainloop.cuh"

namespace dgs::gpu {

namespace {

using gemm_detail::activate;
using gemm_detail::check_positive;
using gemm_detail::stream_of;

constexpr int kStaticSharedLimit = 48 * 1024;  // above this, dynamic shared memory needs opt-in
constexpr int kChainThreadsX = 16;             // mlp_chain: 16 x 16 threads,
constexpr int kChainThreadsY = 16;             // each computing rows ty+16i, columns tx+16j

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

}  // namespace

// --- public entry points ------------------------------------------------------------------------
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
