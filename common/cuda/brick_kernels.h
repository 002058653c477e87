#pragma once
// Merged execution of a chain of 3-D convolutions (Conv + bias + ReLU per layer) with the brick
// layout on the GPU: one persistent kernel for padded bricks (each output brick computes the
// enlarged regions of every layer in per-block scratch, halos recomputed) and one for memoized
// bricks (a state array of three-state tags per intermediate; a block claims a brick with
// atomicCAS 0 -> 1, recursively claims and computes the bricks it depends on (an explicit stack,
// not device recursion), spins with atomicCAS(2, 2) on a brick another block is computing, and
// releases its brick with atomicExch(2) after a __threadfence; intermediates are read with
// __ldcg, through the coherent L2). Atomic counts as on the CPU (reproductions' merged_exec.h):
// the winning CAS and the release are compulsory, every other CAS conflicting.
//
// Layout on the device (common/brick/brick_layout.h, spatial bricks of a (1, C, D, H, W)
// activation): bricks of edge B over (D, H, W), all C channels in a brick, C x B^3 floats per
// brick, row-major inside the brick, the identity brick map (row-major brick order), partial
// bricks zero-masked. Batch 1 (the proxies' case). to_bricks_3d / from_bricks_3d convert.
//
// The kernels' arithmetic (the layout's addressing, one layer over a box of its output) is
// brick_conv_box.h, plain C++ that the CPU tests run too. The cuDNN baseline for the same chain is
// CudnnConv3dChain (cudnn_conv3d.h).
//
// This header has no CUDA types; without CUDA every entry point throws "no CUDA support", except
// the host-only brick_chain_dims and bricked_floats (brick_chain_dims.cpp, built in both).
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/cuda/runtime.h"

namespace dgs::gpu {

inline constexpr int kMaxBrickChainLayers = 8;

struct BrickConvLayer {
  int64_t in_channels = 0, out_channels = 0;
  int64_t kernel = 3, stride = 1, pad = 0, dilation = 1;
  bool relu = true;
  const float* weight = nullptr;  // device, [out, in, k, k, k]
  const float* bias = nullptr;    // device, [out]
};

// Spatial extents of every tensor of the chain: [0] the input, [l] layer l's output. Throws
// dgs::Error when a layer's output is empty.
std::vector<std::array<int64_t, 3>> brick_chain_dims(const std::vector<BrickConvLayer>& layers,
                                                     const std::array<int64_t, 3>& input);

// Floats of a bricked (1, C, dims) tensor with edge B (whole bricks).
int64_t bricked_floats(int64_t channels, const std::array<int64_t, 3>& dims, int64_t edge);
void to_bricks_3d(KernelLauncher& l, const float* ncdhw, float* bricked, int64_t channels,
                  const std::array<int64_t, 3>& dims, int64_t edge);
void from_bricks_3d(KernelLauncher& l, const float* bricked, float* ncdhw, int64_t channels,
                    const std::array<int64_t, 3>& dims, int64_t edge);

struct BrickAtomicCounts {
  int64_t compulsory = 0;
  int64_t conflicting = 0;
  int64_t bricks = 0;  // tagged bricks (all intermediates and the output)
};

// The device buffers of one chain (bricked activations, tags, scratch) and its two kernels.
class BrickChainRunner {
 public:
  // `blocks`: the persistent grid (0 = 4 per SM).
  BrickChainRunner(std::vector<BrickConvLayer> layers, std::array<int64_t, 3> input_dims,
                   int64_t edge, int blocks = 0);
  ~BrickChainRunner();
  BrickChainRunner(const BrickChainRunner&) = delete;
  BrickChainRunner& operator=(const BrickChainRunner&) = delete;

  float* bricked_input() const;  // write with to_bricks_3d
  // Reads the chain's input from `bricked` (same channels, dims and edge) instead of its own
  // buffer: the previous subgraph's bricked output, with no conversion between subgraphs.
  void use_bricked_input(float* bricked);
  float* bricked_output() const;  // read with from_bricks_3d
  const std::vector<std::array<int64_t, 3>>& dims() const;

  void run_padded(KernelLauncher& l);
  // Resets the tags (a memset, part of the run) and runs the memoized kernel.
  void run_memoized(KernelLauncher& l);
  // Of the last memoized run (synchronises and downloads the counters).
  BrickAtomicCounts atomic_counts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgs::gpu
