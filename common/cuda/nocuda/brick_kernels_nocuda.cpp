// Built when nvcc was not found: the brick kernels' and microbenchmarks' entry points throw "no
// CUDA support" (brick_chain_dims and bricked_floats, host-only, are brick_chain_dims.cpp).
#include "common/cuda/brick_kernels.h"
#include "common/cuda/brick_microbench.h"
#include "common/cuda/cudnn_conv3d.h"
#include "common/cuda/nocuda/nocuda.h"

namespace dgs::gpu {

struct BrickChainRunner::Impl {};
struct CudnnConv3dChain::Impl {};

void to_bricks_3d(KernelLauncher&, const float*, float*, int64_t, const std::array<int64_t, 3>&,
                  int64_t) {
  throw_no_cuda("to_bricks_3d");
}
void from_bricks_3d(KernelLauncher&, const float*, float*, int64_t, const std::array<int64_t, 3>&,
                    int64_t) {
  throw_no_cuda("from_bricks_3d");
}
BrickChainRunner::BrickChainRunner(std::vector<BrickConvLayer>, std::array<int64_t, 3>, int64_t,
                                   int) {
  throw_no_cuda("BrickChainRunner");
}
BrickChainRunner::~BrickChainRunner() = default;
float* BrickChainRunner::bricked_input() const {
  throw_no_cuda("BrickChainRunner");
}
void BrickChainRunner::use_bricked_input(float*) {
  throw_no_cuda("BrickChainRunner");
}
float* BrickChainRunner::bricked_output() const {
  throw_no_cuda("BrickChainRunner");
}
const std::vector<std::array<int64_t, 3>>& BrickChainRunner::dims() const {
  throw_no_cuda("BrickChainRunner");
}
void BrickChainRunner::run_padded(KernelLauncher&) {
  throw_no_cuda("BrickChainRunner");
}
void BrickChainRunner::run_memoized(KernelLauncher&) {
  throw_no_cuda("BrickChainRunner");
}
BrickAtomicCounts BrickChainRunner::atomic_counts() const {
  throw_no_cuda("BrickChainRunner");
}

CudnnConv3dChain::CudnnConv3dChain(std::vector<BrickConvLayer>, std::array<int64_t, 3>,
                                   const Stream&, bool) {
  throw_no_cuda("CudnnConv3dChain");
}
CudnnConv3dChain::~CudnnConv3dChain() = default;
void CudnnConv3dChain::run(KernelLauncher&, const float*, float*) {
  throw_no_cuda("CudnnConv3dChain");
}
const std::vector<std::array<int64_t, 3>>& CudnnConv3dChain::dims() const {
  throw_no_cuda("CudnnConv3dChain");
}

double time_private_cas_ms(KernelLauncher&, int64_t, int64_t) {
  throw_no_cuda("time_private_cas_ms");
}
double time_brick_conv_ms(KernelLauncher&, int64_t, int64_t, int64_t, int64_t, int64_t) {
  throw_no_cuda("time_brick_conv_ms");
}

}  // namespace dgs::gpu
