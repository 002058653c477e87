// NCHW float32 <-> NHWC FP16 (library_kernels.h): the operands of the tensor-core kernels.
#include <cuda_fp16.h>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/library_kernels.h"

namespace dgs::gpu {

namespace {

constexpr int kThreads = 256;

// One thread per element of the NHWC side, grid-stride; the NCHW side is read or written with a
// stride of h*w. Setup work (not timed), so simple.
__global__ void nchw_to_nhwc_kernel(int64_t total, int64_t c, int64_t hw, const float* x,
                                    __half* y) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t ch = i % c, p = (i / c) % hw, n = i / (c * hw);
    y[i] = __float2half_rn(x[(n * c + ch) * hw + p]);
  }
}

__global__ void nhwc_to_nchw_kernel(int64_t total, int64_t c, int64_t hw, const __half* x,
                                    float* y) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t ch = i % c, p = (i / c) % hw, n = i / (c * hw);
    y[(n * c + ch) * hw + p] = __half2float(x[i]);
  }
}

unsigned blocks_for(int64_t total) {
  return static_cast<unsigned>(std::min<int64_t>((total + kThreads - 1) / kThreads, 65535));
}

void check_dims(const char* what, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (n < 1 || c < 1 || h < 1 || w < 1)
    throw Error(std::string(what) + ": dimensions [" + std::to_string(n) + ", " +
                std::to_string(c) + ", " + std::to_string(h) + ", " + std::to_string(w) +
                "] must be positive");
}

}  // namespace

void nchw_f32_to_nhwc_f16(KernelLauncher& l, int64_t n, int64_t c, int64_t h, int64_t w,
                          const float* x, uint16_t* y) {
  check_dims("nchw_f32_to_nhwc_f16", n, c, h, w);
  const int64_t total = n * c * h * w;
  nchw_to_nhwc_kernel<<<blocks_for(total), kThreads, 0,
                        static_cast<cudaStream_t>(l.stream_handle())>>>(
      total, c, h * w, x, reinterpret_cast<__half*>(y));
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void nhwc_f16_to_nchw_f32(KernelLauncher& l, int64_t n, int64_t c, int64_t h, int64_t w,
                          const uint16_t* x, float* y) {
  check_dims("nhwc_f16_to_nchw_f32", n, c, h, w);
  const int64_t total = n * c * h * w;
  nhwc_to_nchw_kernel<<<blocks_for(total), kThreads, 0,
                        static_cast<cudaStream_t>(l.stream_handle())>>>(
      total, c, h * w, reinterpret_cast<const __half*>(x), y);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

}  // namespace dgs::gpu
