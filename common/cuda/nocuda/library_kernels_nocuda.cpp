// Built when nvcc was not found: the library kernels' entry points exist so that everything
// links; each throws "this build has no CUDA support". (Their argument checks,
// common/cuda/library_kernels.cpp, are compiled in both builds.)
#include "common/cuda/library_kernels.h"
#include "common/cuda/nocuda/nocuda.h"

namespace dgs::gpu {

struct BlasContext::Impl {};
BlasContext::BlasContext(bool allow_tf32) : allow_tf32_(allow_tf32) {
  throw_no_cuda("BlasContext");
}
BlasContext::~BlasContext() = default;

void blas_gemm(KernelLauncher&, BlasContext&, int64_t, int64_t, int64_t, int64_t, const MatrixArg&,
               const MatrixArg&, const OutMatrixArg&, const Epilogue&) {
  throw_no_cuda("blas_gemm");
}
void cublas_sgemm(KernelLauncher&, BlasContext&, int64_t, int64_t, int64_t, const float*,
                  const float*, float*) {
  throw_no_cuda("cublas_sgemm");
}

void cutlass_conv2d_f16(KernelLauncher&, const Conv2dShape&, const uint16_t*, const uint16_t*,
                        uint16_t*, bool) {
  throw_no_cuda("cutlass_conv2d_f16");
}
void cutlass_b2b_conv2d_f16(KernelLauncher&, const Conv2dShape&, const Conv2dShape&,
                            const uint16_t*, const uint16_t*, const uint16_t*, uint16_t*) {
  throw_no_cuda("cutlass_b2b_conv2d_f16");
}
void cutlass_gemm_softmax(KernelLauncher&, const CutlassSoftmaxTile&, int64_t, int64_t, int64_t,
                          const float*, const float*, float*, float) {
  throw_no_cuda("cutlass_gemm_softmax");
}

struct CudnnConvF16::Impl {};
CudnnConvF16::CudnnConvF16(const Stream&, size_t) {
  throw_no_cuda("CudnnConvF16");
}
CudnnConvF16::~CudnnConvF16() = default;
void CudnnConvF16::run(KernelLauncher&, const Conv2dShape&, const uint16_t*, const uint16_t*,
                       uint16_t*, bool) {
  throw_no_cuda("CudnnConvF16::run");
}

void nchw_f32_to_nhwc_f16(KernelLauncher&, int64_t, int64_t, int64_t, int64_t, const float*,
                          uint16_t*) {
  throw_no_cuda("nchw_f32_to_nhwc_f16");
}
void nhwc_f16_to_nchw_f32(KernelLauncher&, int64_t, int64_t, int64_t, int64_t, const uint16_t*,
                          float*) {
  throw_no_cuda("nhwc_f16_to_nchw_f32");
}

}  // namespace dgs::gpu
