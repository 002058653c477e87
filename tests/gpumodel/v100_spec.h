#pragma once
// A hand-built V100 SXM2 GpuSpec for the GPU-model tests (datasheet values; the hw_configs files
// are tested separately), so these tests do not depend on the config files' other fields.
#include "common/hw/hardware.h"

namespace dgs::test {

inline GpuSpec hand_v100() {
  GpuSpec s;
  s.name = "V100-test";
  s.file = "tests/gpumodel/v100_spec.h";
  s.architecture = "Volta";
  s.compute_capability = 70;
  s.sm_count = 80;
  s.core_clock_mhz = 1530;
  s.max_threads_per_sm = 2048;
  s.max_threads_per_block = 1024;
  s.max_blocks_per_sm = 32;
  s.max_warps_per_sm = 64;
  s.warp_size = 32;
  s.registers_per_sm = 65536;
  s.max_registers_per_thread = 255;
  s.register_allocation_unit = 256;
  s.shared_mem_per_sm = 96 * 1024;
  s.shared_mem_per_block = 48 * 1024;
  s.peak_fp32_tflops = 15.7;
  s.peak_fp16_tflops = 31.4;
  s.peak_tensor_tflops = 125;
  s.dram_bytes = int64_t{16} << 30;
  s.dram_bandwidth_gbs = 900;
  s.l2_bytes = 6 << 20;
  s.l2_bandwidth_gbs = 2155;
  s.kernel_launch_us = 5;
  s.stage_sync_us = 10;
  // Explicit model factors, so the hand computations in the tests do not depend on defaults.
  s.efficiency = {{"gemm_fp32", 0.7},
                  {"gemm_fp16", 0.7},
                  {"gemm_tensor", 0.5},
                  {"direct_conv", 0.5},
                  {"memory_bound", 0.5},
                  {"fused", 0.6},
                  {"dram_bandwidth", 0.8},
                  {"l2_bandwidth", 0.7},
                  {"compute_saturation_warps_per_sm", 8},
                  {"dram_saturation_warps_per_sm", 32},
                  {"l2_saturation_warps_per_sm", 8},
                  {"block_min_us", 0.5}};
  return s;
}

}  // namespace dgs::test
