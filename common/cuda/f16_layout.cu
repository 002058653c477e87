// NCHW float32 <-> NHWC FP16 (library_kernels.h): the operands of the tensor-core kernels.
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/library_kernels.h"

namespace dgs::gpu {

namespace {

constexpr int kThreads = 256;

// One thread per element of the NHWC side, grid-stride; the NCHW side is read or written with a
// stride of h*w. Setup work (not timed), so simple.
template <bool kToNhwc>
__global__ void relayout_kernel(int64_t total, int64_t c, int64_t hw, const float* x_nchw,
                                __half* y_nhwc, const __half* x_nhwc, float* y_nchw) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t ch = i % c, p = (i / c) % hw, n = i / (c * hw);
    const int64_t nchw = (n * c + ch) * hw + p;
    if constexpr (kToNhwc) {
      y_nhwc[i] = __float2half_rn(x_nchw[nchw]);
    } else {
      y_nchw[nchw] = __half2float(x_nhwc[i]);
    }
  }
}

unsigned blocks_for(int64_t total) {
  return static_cast<unsigned>(std::min<int64_t>((total + kThreads - 1) / kThreads, 65535));
}

template <bool kToNhwc>
void relayout(KernelLauncher& l, const char* what, int64_t n, int64_t c, int64_t h, int64_t w,
              const float* x_nchw, __half* y_nhwc, const __half* x_nhwc, float* y_nchw) {
  if (n < 1 || c < 1 || h < 1 || w < 1)
    throw Error(std::string(what) + ": dimensions [" + std::to_string(n) + ", " +
                std::to_string(c) + ", " + std::to_string(h) + ", " + std::to_string(w) +
                "] must be positive");
  const int64_t total = n * c * h * w;
  relayout_kernel<kToNhwc>
      <<<blocks_for(total), kThreads, 0, static_cast<cudaStream_t>(l.stream_handle())>>>(
          total, c, h * w, x_nchw, y_nhwc, x_nhwc, y_nchw);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

}  // namespace

void nchw_f32_to_nhwc_f16(KernelLauncher& l, int64_t n, int64_t c, int64_t h, int64_t w,
                          const float* x, uint16_t* y) {
  relayout<true>(l, "nchw_f32_to_nhwc_f16", n, c, h, w, x, reinterpret_cast<__half*>(y), nullptr,
                 nullptr);
}

void nhwc_f16_to_nchw_f32(KernelLauncher& l, int64_t n, int64_t c, int64_t h, int64_t w,
                          const uint16_t* x, float* y) {
  relayout<false>(l, "nhwc_f16_to_nchw_f32", n, c, h, w, nullptr, nullptr,
                  reinterpret_cast<const __half*>(x), y);
}

}  // namespace dgs::gpu
