// The tile-program interpreter kernel and its launcher (see tile_program_gpu.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/tile_program_gpu.h"
#include "common/tileprog/tile_program_interpreter.h"

namespace dgs::gpu {

namespace {

__global__ void __launch_bounds__(kTpThreadsPerBlock)
    tile_program_kernel(const TpOp* ops, int num_ops, const int64_t* regions, int64_t tiles,
                        float* scratch, int64_t scratch_floats, float* const* globals,
                        const int64_t* int_pool) {
  float* block_scratch = scratch + static_cast<int64_t>(blockIdx.x) * scratch_floats;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const TpTileView v = tp_tile_view(ops, num_ops, regions, t, block_scratch, globals, int_pool);
    for (int i = 0; i < num_ops; ++i) {
      tp_run_op(v, i, threadIdx.x, blockDim.x);
      __syncthreads();  // op i's region is complete before later ops (or the next tile) use it
    }
  }
}

template <typename T>
DeviceBuffer upload_vector(const std::vector<T>& v) {
  // One element at least: an empty buffer has no pointer to pass.
  DeviceBuffer b(std::max<size_t>(1, v.size()) * sizeof(T));
  if (!v.empty()) b.upload(v.data(), v.size() * sizeof(T));
  return b;
}

}  // namespace

int tile_program_resident_blocks_per_sm() {
  int blocks = 0;
  DGS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tile_program_kernel,
                                                               kTpThreadsPerBlock, 0));
  return std::max(1, blocks);
}

DeviceTileProgram::DeviceTileProgram(const TileProgram& p, const std::vector<float*>& globals)
    : num_ops_(static_cast<int>(p.ops.size())),
      tiles_(p.tiles),
      scratch_floats_(p.scratch_floats),
      name_(p.name) {
  if (globals.size() != p.global_shapes.size())
    throw Error("tile program '" + p.name + "': " + std::to_string(globals.size()) +
                " device pointers for " + std::to_string(p.global_shapes.size()) + " tensors");
  ops_ = upload_vector(p.ops);
  regions_ = upload_vector(p.regions);
  int_pool_ = upload_vector(p.int_pool);
  globals_ = upload_vector(globals);
}

void DeviceTileProgram::launch(KernelLauncher& l, int blocks, float* scratch) const {
  if (blocks < 1) throw Error("tile program '" + name_ + "': launch with no blocks");
  if (tiles_ == 0 || num_ops_ == 0)
    throw Error("tile program '" + name_ + "': no tiles or no operators; a kernel of the plan " +
                "would not launch");
  tile_program_kernel<<<blocks, kTpThreadsPerBlock, 0,
                        static_cast<cudaStream_t>(l.stream_handle())>>>(
      static_cast<const TpOp*>(ops_.data()), num_ops_, static_cast<const int64_t*>(regions_.data()),
      tiles_, scratch, scratch_floats_, static_cast<float* const*>(globals_.data()),
      static_cast<const int64_t*>(int_pool_.data()));
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

}  // namespace dgs::gpu
