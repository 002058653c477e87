#pragma once
// A network of tile programs (common/tileprog/network_program.h) on the GPU: one device buffer per
// tensor the kernels touch, one persistent-grid launch per program in order. The GPU side of
// run_network_host: any scheduler's fused groups, compiled to tile programs, run here one kernel
// launch each. CUDA-free header: in a build without CUDA, every device call throws (runtime.h).
#include <cstdint>
#include <map>
#include <vector>

#include "common/cuda/runtime.h"
#include "common/cuda/tile_program_gpu.h"
#include "common/exec/executor.h"
#include "common/tileprog/network_program.h"

namespace dgs::gpu {

// Device memory all blocks of one kernel may use for scratch (assumption: 2 GiB leaves the rest of
// an 80 GiB-class GPU to the network's tensors; fused groups of the zoo's networks need at most a
// few hundred thousand floats per block).
inline constexpr int64_t kTpScratchBudgetBytes = int64_t{2} << 30;

// Blocks program `p` runs with: a persistent grid of the resident blocks (`sm_count` SMs x
// `blocks_per_sm`, gpu::tile_program_resident_blocks_per_sm() on the live GPU), never more than
// its tiles, and no more than the scratch budget holds (at least 1; a program whose one block
// exceeds the budget is refused).
int tile_program_blocks(const TileProgram& p, int sm_count, int blocks_per_sm);

// A compiled schedule on the device: a buffer per tensor the kernels touch (views share their
// base tensor's buffer), inputs/weights/constants uploaded from `feeds` (the reference executor's
// values, make_graph_feeds), every other buffer filled with NaN, one DeviceTileProgram per kernel
// and one scratch buffer shared by the kernels (they run one after another on one stream).
class DeviceNetwork {
 public:
  DeviceNetwork(const Graph& g, const NetworkProgram& np, const TensorValues& feeds, int sm_count);
  // Every kernel once, in the schedule's order (one launch each).
  void run(gpu::KernelLauncher& l) const;
  // Kernel i alone (one launch; its inputs are whatever the buffers hold: after run(), the
  // network's values), for timing the schedule kernel by kernel.
  void run_kernel(gpu::KernelLauncher& l, size_t i) const;
  size_t kernel_count() const { return programs_.size(); }
  // The value of tensor t (a view is downloaded from its base buffer with t's shape).
  TensorData download(int t) const;
  int64_t device_bytes() const { return bytes_; }

 private:
  const Graph* g_;
  const NetworkProgram* np_;
  std::map<int, gpu::DeviceBuffer> bufs_;
  std::vector<gpu::DeviceTileProgram> programs_;
  std::vector<int> blocks_;
  gpu::DeviceBuffer scratch_;
  int64_t bytes_ = 0;
};

}  // namespace dgs::gpu
