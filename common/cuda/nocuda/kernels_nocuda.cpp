// Built when nvcc was not found: the kernel entry points exist so that everything links; each
// throws "this build has no CUDA support".
#include "common/cuda/gemm_chain_kernels.h"
#include "common/cuda/gemm_kernels.h"
#include "common/cuda/gemm_softmax_kernels.h"
#include "common/cuda/nocuda/nocuda.h"
#include "common/cuda/tensor_kernels.h"

namespace dgs::gpu {

void strided_copy(KernelLauncher&, const std::vector<int64_t>&, const float*, const StridedView&,
                  float*, const StridedView&) {
  throw_no_cuda("strided_copy");
}
void fill(KernelLauncher&, float*, int64_t, float) {
  throw_no_cuda("fill");
}
void elementwise(KernelLauncher&, EwOp, const EwParams&, const std::vector<int64_t>&, const float*,
                 const StridedView&, const float*, const StridedView&, float*) {
  throw_no_cuda("elementwise");
}
void where_select(KernelLauncher&, const std::vector<int64_t>&, const float*, const StridedView&,
                  const float*, const StridedView&, const float*, const StridedView&, float*) {
  throw_no_cuda("where_select");
}
void gather_slices(KernelLauncher&, const float*, const int64_t*, int64_t, int64_t, float*) {
  throw_no_cuda("gather_slices");
}
void pool2d(KernelLauncher&, bool, bool, const Pool2dShape&, const float*, float*) {
  throw_no_cuda("pool2d");
}

void gemm(KernelLauncher&, const GemmTile&, int64_t, int64_t, int64_t, int64_t, const MatrixArg&,
          const MatrixArg&, const OutMatrixArg&, const Epilogue&) {
  throw_no_cuda("gemm");
}
void conv2d_implicit_gemm(KernelLauncher&, const GemmTile&, const Conv2dShape&, const float*,
                          const float*, float*, const Epilogue&) {
  throw_no_cuda("conv2d_implicit_gemm");
}
void gemm_softmax(KernelLauncher&, const SoftmaxTile&, int64_t, int64_t, int64_t, int64_t,
                  const MatrixArg&, const MatrixArg&, const OutMatrixArg&, const SoftmaxArgs&) {
  throw_no_cuda("gemm_softmax");
}
void row_softmax(KernelLauncher&, int, int64_t, int64_t, const float*, float*, const SoftmaxArgs&) {
  throw_no_cuda("row_softmax");
}
void mlp_chain(KernelLauncher&, int, int64_t, const std::vector<ChainLayer>&, const RowsArg&,
               const RowsOutArg&) {
  throw_no_cuda("mlp_chain");
}
void pointwise_conv_chain(KernelLauncher&, int, int64_t, int64_t, int64_t, int64_t,
                          const std::vector<ChainLayer>&, const float*, float*) {
  throw_no_cuda("pointwise_conv_chain");
}

}  // namespace dgs::gpu
