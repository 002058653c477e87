// The simulation's inputs: the model's per-GPU terms and each kernel prepared as per-block work.
#include <algorithm>

#include "common/gpumodel/model_internal.h"
#include "common/gpumodel/occupancy.h"
#include "common/util/error.h"

namespace dgs::gpu_model_internal {

Model make_model(const GpuSpec& spec) {
  check_spec(spec);
  Model m;
  m.sms = spec.sm_count;
  m.dram_bw = spec.dram_bandwidth_gbs * 1e3 * gpu_efficiency::get(spec, gpu_efficiency::kDram);
  m.l2_bw = spec.l2_bandwidth_gbs > 0
                ? spec.l2_bandwidth_gbs * 1e3 * gpu_efficiency::get(spec, gpu_efficiency::kL2)
                : 0;
  if (!(m.dram_bw > 0) || m.l2_bw < 0)
    throw Error("gpu model: GPU config '" + spec.name + "' (" + spec.file +
                "): efficiency.dram_bandwidth / l2_bandwidth give no bandwidth; expected > 0");
  m.compute_sat_warps = gpu_efficiency::get(spec, gpu_efficiency::kComputeSaturationWarps);
  const double dram_sat = gpu_efficiency::get(spec, gpu_efficiency::kDramSaturationWarps);
  m.dram_warp_cap = m.dram_bw / (dram_sat * spec.sm_count);
  const double l2_sat = gpu_efficiency::get(spec, gpu_efficiency::kL2SaturationWarps);
  m.l2_warp_cap = m.l2_bw / (l2_sat * spec.sm_count);
  // Kept positive so that every block's rate stays finite.
  m.block_min_us = std::max(gpu_efficiency::get(spec, gpu_efficiency::kBlockMinUs), 1e-6);
  m.launch_us = spec.kernel_launch_us;
  m.max_threads = spec.max_threads_per_sm;
  m.max_warps = spec.max_warps_per_sm;
  m.max_blocks = spec.max_blocks_per_sm;
  m.max_regs = spec.registers_per_sm;
  m.max_smem = spec.shared_mem_per_sm;
  return m;
}

double peak_tflops(const GpuSpec& spec, MathUnit u) {
  switch (u) {
    case MathUnit::Fp32:
      return spec.peak_fp32_tflops;
    case MathUnit::Fp16:
      return spec.peak_fp16_tflops > 0 ? spec.peak_fp16_tflops : spec.peak_fp32_tflops;
    case MathUnit::Tensor:
      if (spec.peak_tensor_tflops > 0) return spec.peak_tensor_tflops;
      return spec.peak_fp16_tflops > 0 ? spec.peak_fp16_tflops : spec.peak_fp32_tflops;
  }
  return spec.peak_fp32_tflops;
}

double class_efficiency(const GpuSpec& spec, const KernelLaunch& k) {
  if (k.compute_efficiency > 0) return k.compute_efficiency;
  switch (k.klass) {
    case KernelClass::Gemm:
      return gpu_efficiency::get(spec, k.math == MathUnit::Tensor ? gpu_efficiency::kGemmTensor
                                       : k.math == MathUnit::Fp16 ? gpu_efficiency::kGemmFp16
                                                                  : gpu_efficiency::kGemmFp32);
    case KernelClass::Direct:
      return gpu_efficiency::get(spec, gpu_efficiency::kDirect);
    case KernelClass::Memory:
      return gpu_efficiency::get(spec, gpu_efficiency::kMemory);
    case KernelClass::Fused:
      return gpu_efficiency::get(spec, gpu_efficiency::kFused);
  }
  return 1.0;
}

namespace {
template <typename T>
void append_raw(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof(v));
}
}  // namespace

SimKernel prepare(const GpuSpec& spec, const KernelLaunch& k, int stream, int index,
                  EfficiencyCache* efficiency) {
  const Occupancy o = occupancy(spec, k);
  SimKernel s;
  s.grid = k.grid_blocks;
  s.threads = k.threads_per_block;
  s.warps = o.warps_per_block;
  s.regs = o.registers_per_block;
  s.smem = o.shared_per_block;
  const double g = static_cast<double>(k.grid_blocks);
  s.flops_b = std::max(0.0, k.flops) / g;
  s.dram_b = std::max(0.0, k.dram_bytes) / g;
  s.l2_b = std::max(0.0, k.l2_bytes) / g;
  s.sm_rate = peak_tflops(spec, k.math) * 1e6 / spec.sm_count *
              (efficiency ? efficiency->get(spec, k) : class_efficiency(spec, k));
  // The operand rule (kernel.h): a tile's intensity against the SM's shared-memory bandwidth.
  if (k.tile.m > 0) s.sm_rate = std::min(s.sm_rate, tile_operand_rate_cap(spec, k));
  if (!(s.sm_rate > 0))
    throw Error("gpu model: kernel '" + k.name + "' on " + spec.name + ": compute efficiency of " +
                std::string(kernel_class_name(k.klass)) + " kernels is 0; expected > 0");
  s.floor_us = std::max(0.0, k.block_floor_us);
  if (k.warp_bytes_per_us > 0) s.dram_warp_cap = k.warp_bytes_per_us;
  if (k.saturation_warps > 0) s.sat_warps = k.saturation_warps;
  s.exclusive = k.exclusive;
  s.stream = stream;
  s.index = index;
  return s;
}

}  // namespace dgs::gpu_model_internal

namespace dgs {

// (block_simulation.h) What prepare and the occupancy read of a kernel.
void append_simulation_key(std::string& key, const KernelLaunch& k) {
  using gpu_model_internal::append_raw;
  append_raw(key, k.grid_blocks);
  append_raw(key, k.threads_per_block);
  append_raw(key, k.registers_per_thread);
  append_raw(key, k.shared_bytes_per_block);
  append_raw(key, k.flops);
  append_raw(key, k.dram_bytes);
  append_raw(key, k.l2_bytes);
  append_raw(key, k.math);
  append_raw(key, k.klass);
  append_raw(key, k.compute_efficiency);
  append_raw(key, k.tile.m);
  append_raw(key, k.tile.n);
  append_raw(key, k.tile.element_bytes);
  append_raw(key, k.block_floor_us);
  append_raw(key, k.warp_bytes_per_us);
  append_raw(key, k.saturation_warps);
  append_raw(key, k.exclusive);
}

}  // namespace dgs
