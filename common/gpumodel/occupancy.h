#pragma once
// Occupancy: how many blocks of a kernel one SM holds, and which resource limits it.
#include <cstdint>
#include <string_view>

#include "common/gpumodel/kernel.h"
#include "common/hw/hardware.h"

namespace dgs {

// The per-SM resource limits of one block of a kernel.
enum class OccupancyLimit : uint8_t { Threads, Warps, Registers, SharedMemory, Blocks };
std::string_view occupancy_limit_name(OccupancyLimit l);

struct Occupancy {
  int blocks_per_sm = 0;  // resident blocks per SM when the kernel runs alone
  OccupancyLimit limited_by = OccupancyLimit::Blocks;
  int warps_per_block = 0;
  int registers_per_block = 0;   // after per-warp allocation rounding
  int64_t shared_per_block = 0;  // after allocation rounding
  int active_warps_per_sm = 0;   // blocks_per_sm * warps_per_block (theoretical)
  double occupancy = 0;          // active_warps_per_sm / max_warps_per_sm
};

// Occupancy of `k` on `spec`. Throws dgs::Error naming the kernel if a block cannot run at all
// (too many threads, registers per thread or shared memory per block).
Occupancy occupancy(const GpuSpec& spec, const KernelLaunch& k);

}  // namespace dgs
