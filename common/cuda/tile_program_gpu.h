#pragma once
// Tile programs (common/tileprog/tile_program.h) on the GPU: ONE kernel launch per program, the
// interpreter of common/tileprog/tile_program_interpreter.h in every thread. A persistent grid:
// block b computes tiles b, b + gridDim.x, ...; for each tile the block's threads share the
// elements of one op's output region, then synchronise (__syncthreads) before the next op reads
// them, so the intermediates of a tile stay in the block's slice of a scratch buffer in global
// memory (L1/L2 resident for small tiles; not shared memory: regions of the networks' fused groups
// exceed it).
//
// CUDA-free header; in a build without CUDA the constructor and launch throw the suite's one-line
// "this build has no CUDA support" error (common/cuda/nocuda/).
#include <cstdint>
#include <string>
#include <vector>

#include "common/cuda/runtime.h"
#include "common/tileprog/tile_program.h"

namespace dgs::gpu {

// Threads per block of the interpreter kernel: 8 warps share one op's region of a tile (regions
// are hundreds to thousands of elements); the kernel is compiled for this block size.
inline constexpr int kTpThreadsPerBlock = 256;

// Blocks of the interpreter kernel resident at once on one SM of the current device
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor: its registers and kTpThreadsPerBlock decide):
// a persistent grid launches exactly that many per SM, so no block waits for another to finish.
int tile_program_resident_blocks_per_sm();

// A program's arrays on the device, bound to the device pointers of its global tensors.
// Move-only (it owns device buffers).
class DeviceTileProgram {
 public:
  // Uploads ops, per-tile regions, Gather indices and the pointer table (globals[i]: device
  // memory of p.global_shapes[i], row-major). Throws dgs::Error if globals has the wrong size.
  DeviceTileProgram(const TileProgram& p, const std::vector<float*>& globals);
  int64_t tiles() const { return tiles_; }
  int64_t scratch_floats() const { return scratch_floats_; }
  const std::string& name() const { return name_; }
  // Launches the program as one kernel of `blocks` blocks on l's stream and counts the launch;
  // `scratch` must hold blocks * scratch_floats() floats (block b uses the b-th slice).
  void launch(KernelLauncher& l, int blocks, float* scratch) const;

 private:
  DeviceBuffer ops_, regions_, int_pool_, globals_;
  [[maybe_unused]] int num_ops_ = 0;  // read by the CUDA build only
  int64_t tiles_ = 0;
  int64_t scratch_floats_ = 0;
  std::string name_;
};

}  // namespace dgs::gpu
