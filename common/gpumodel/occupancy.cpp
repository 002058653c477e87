// Occupancy: resident blocks per SM and the resource that limits them.
#include "common/gpumodel/occupancy.h"

#include <limits>
#include <utility>

#include "common/gpumodel/model_internal.h"
#include "common/util/error.h"

namespace dgs {

using namespace gpu_model_internal;

std::string_view occupancy_limit_name(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::Threads:
      return "threads";
    case OccupancyLimit::Warps:
      return "warps";
    case OccupancyLimit::Registers:
      return "registers";
    case OccupancyLimit::SharedMemory:
      return "shared_memory";
    case OccupancyLimit::Blocks:
      return "blocks";
  }
  return "?";
}

namespace gpu_model_internal {
void check_spec(const GpuSpec& s) {
  if (s.sm_count <= 0 || s.max_threads_per_sm <= 0 || s.max_warps_per_sm <= 0 ||
      s.max_blocks_per_sm <= 0 || s.registers_per_sm <= 0 || s.warp_size <= 0 ||
      s.max_threads_per_block <= 0 || s.dram_bandwidth_gbs <= 0 || s.peak_fp32_tflops <= 0)
    throw Error("gpu model: GPU config '" + s.name + "' (" + s.file +
                ") lacks SM limits, peak FP32 or DRAM bandwidth; expected positive values");
}
}  // namespace gpu_model_internal

Occupancy occupancy(const GpuSpec& spec, const KernelLaunch& k) {
  check_spec(spec);
  auto fail = [&](const std::string& what, const std::string& expected) {
    throw Error("gpu model: kernel '" + k.name + "' on " + spec.name + ": " + what + "; expected " +
                expected);
  };
  if (k.grid_blocks < 1) fail("grid of " + std::to_string(k.grid_blocks) + " blocks", ">= 1");
  if (k.threads_per_block < 1 || k.threads_per_block > spec.max_threads_per_block)
    fail(std::to_string(k.threads_per_block) + " threads per block",
         "1.." + std::to_string(spec.max_threads_per_block));
  if (k.registers_per_thread < 0 ||
      (spec.max_registers_per_thread > 0 && k.registers_per_thread > spec.max_registers_per_thread))
    fail(std::to_string(k.registers_per_thread) + " registers per thread",
         "0.." + std::to_string(spec.max_registers_per_thread));
  if (k.shared_bytes_per_block < 0 ||
      (spec.shared_mem_per_block > 0 && k.shared_bytes_per_block > spec.shared_mem_per_block))
    fail(std::to_string(k.shared_bytes_per_block) + " shared bytes per block",
         "0.." + std::to_string(spec.shared_mem_per_block));

  Occupancy o;
  o.warps_per_block = static_cast<int>(ceil_div(k.threads_per_block, spec.warp_size));
  const int64_t regs_per_warp =
      round_up(int64_t{k.registers_per_thread} * spec.warp_size, spec.register_allocation_unit);
  o.registers_per_block = static_cast<int>(regs_per_warp * o.warps_per_block);
  o.shared_per_block = round_up(k.shared_bytes_per_block, kSharedAllocationUnit);

  const int64_t big = std::numeric_limits<int>::max();
  const int64_t by_threads = spec.max_threads_per_sm / k.threads_per_block;
  const int64_t by_warps = spec.max_warps_per_sm / o.warps_per_block;
  const int64_t by_regs =
      regs_per_warp == 0 ? big : (spec.registers_per_sm / regs_per_warp) / o.warps_per_block;
  const int64_t by_smem = o.shared_per_block == 0 || spec.shared_mem_per_sm <= 0
                              ? big
                              : spec.shared_mem_per_sm / o.shared_per_block;
  const int64_t by_blocks = spec.max_blocks_per_sm;
  // Smallest limit wins; ties resolved in the order threads, warps, registers, shared, blocks.
  const std::pair<int64_t, OccupancyLimit> limits[] = {{by_threads, OccupancyLimit::Threads},
                                                       {by_warps, OccupancyLimit::Warps},
                                                       {by_regs, OccupancyLimit::Registers},
                                                       {by_smem, OccupancyLimit::SharedMemory},
                                                       {by_blocks, OccupancyLimit::Blocks}};
  int64_t best = big;
  for (const auto& [n, why] : limits)
    if (n < best) best = n, o.limited_by = why;
  if (best < 1) {
    fail("a block needs " + std::to_string(o.registers_per_block) + " registers and " +
             std::to_string(o.shared_per_block) + " shared bytes, more than one SM has",
         "a block that fits on one SM");
  }
  o.blocks_per_sm = static_cast<int>(best);
  o.active_warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.occupancy = static_cast<double>(o.active_warps_per_sm) / spec.max_warps_per_sm;
  return o;
}

}  // namespace dgs
