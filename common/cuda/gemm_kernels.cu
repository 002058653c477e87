// The tiled GEMM and the implicit-GEMM convolution as templates over tile shapes (see
// gemm_kernels.h). Instantiations are kept few (3 tiles x {GEMM, conv}) to keep nvcc time modest
// for three architectures.
#include "common/cuda/gemm_kernels.h"

#include <cuda_runtime.h>

#include <string>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/gemm_mainloop.cuh"

namespace dgs::gpu {

namespace {

using gemm_detail::activate;
using gemm_detail::check_positive;
using gemm_detail::gemm_mainloop;
using gemm_detail::GemmProblem;
using gemm_detail::kMaxGridYZ;
using gemm_detail::stream_of;

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

}  // namespace dgs::gpu
