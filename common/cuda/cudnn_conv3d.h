#pragma once
// The cuDNN per-layer baseline of a 3-D convolution chain (brick_kernels.h's BrickConvLayer): one
// cudnnConvolutionBiasActivationForward per layer (Conv + bias + ReLU in one call) on NCDHW FP32
// tensors, the algorithm chosen by cuDNN's own search (cudnnFindConvolutionForwardAlgorithm), math
// CUDNN_FMA_MATH (FP32 on CUDA cores). CUDA-free header; without CUDA it throws.
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/cuda/brick_kernels.h"
#include "common/cuda/runtime.h"

namespace dgs::gpu {

// The cuDNN per-layer baseline on NCDHW tensors (every layer must have relu = true, as
// cudnnConvolutionBiasActivationForward fuses bias and ReLU).
class CudnnConv3dChain {
 public:
  // find_fastest: cuDNN's search (cudnnFindConvolutionForwardAlgorithm: every algorithm run
  // once, seconds per layer at the proxies' sizes); false: cuDNN's heuristic ranking
  // (cudnnGetConvolutionForwardAlgorithm_v7), its first algorithm that succeeds.
  CudnnConv3dChain(std::vector<BrickConvLayer> layers, std::array<int64_t, 3> input_dims,
                   const Stream& stream, bool find_fastest = true);
  ~CudnnConv3dChain();
  CudnnConv3dChain(const CudnnConv3dChain&) = delete;
  CudnnConv3dChain& operator=(const CudnnConv3dChain&) = delete;
  // Runs every layer: input -> intermediates (owned) -> output.
  void run(KernelLauncher& l, const float* input, float* output);
  const std::vector<std::array<int64_t, 3>>& dims() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgs::gpu
