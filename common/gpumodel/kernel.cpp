// Kernels: the names of math units and kernel classes, and the efficiency factors' defaults.
#include "common/gpumodel/kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/gpumodel/model_internal.h"
#include "common/util/error.h"

namespace dgs {

using namespace gpu_model_internal;

namespace gpu_efficiency {
double default_value(std::string_view key) {
  for (const auto& d : kEfficiencyDefaults)
    if (d.key == key) return d.value;
  throw Error("gpu model: unknown efficiency key '" + std::string(key) + "'");
}
double get(const GpuSpec& spec, std::string_view key) {
  // A scan of the (short) section instead of find(std::string(key)): no string is built on this
  // path, which every stage simulation takes several times.
  for (const auto& [k, v] : spec.efficiency)
    if (k == key) return v;
  return default_value(key);
}
std::vector<std::string_view> all_keys() {
  std::vector<std::string_view> keys;
  for (const auto& d : kEfficiencyDefaults) keys.push_back(d.key);
  return keys;
}
}  // namespace gpu_efficiency

TileOperandTraffic tile_operand_traffic(const GemmTile& t, int threads, int registers,
                                        bool per_warp, int warp_size) {
  TileOperandTraffic r;
  if (t.m <= 0 || t.n <= 0) return r;
  const double m = static_cast<double>(t.m), n = static_cast<double>(t.n);
  const double outputs = m * n;
  const double least = outputs / std::max(1, threads);  // all threads hold outputs
  double q = std::max(least, std::min(std::max(1, registers) / 2.0, outputs));
  if (per_warp) q = std::min(q * std::max(1, warp_size), outputs);  // a warp's accumulators
  r.threads = outputs / q;
  double a = std::sqrt(q), b = a;
  if (a > m) a = m, b = q / m;
  if (b > n) b = n, a = q / n;
  r.register_tile_a = a;
  r.register_tile_b = b;
  r.shared_bytes_per_step = (m + n + r.threads * (a + b)) * std::max(1, t.element_bytes);
  r.flops_per_step = 2 * outputs;
  return r;
}

double tile_operand_rate_cap(const GpuSpec& spec, const KernelLaunch& k) {
  const TileOperandTraffic t =
      tile_operand_traffic(k.tile, k.threads_per_block, k.registers_per_thread,
                           k.math == MathUnit::Tensor, spec.warp_size);
  // No tile, or a config without a clock: no cap.
  if (!(t.shared_bytes_per_step > 0) || !(spec.core_clock_mhz > 0))
    return std::numeric_limits<double>::infinity();
  // bytes per microsecond of one SM's shared memory
  const double shared_rate = shared_bytes_per_clock(spec) * spec.core_clock_mhz;
  return t.flops_per_step / t.shared_bytes_per_step * shared_rate;
}

std::string_view math_unit_name(MathUnit u) {
  switch (u) {
    case MathUnit::Fp32:
      return "fp32";
    case MathUnit::Fp16:
      return "fp16";
    case MathUnit::Tensor:
      return "tensor";
  }
  return "?";
}

std::string_view kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::Gemm:
      return "gemm";
    case KernelClass::Direct:
      return "direct";
    case KernelClass::Memory:
      return "memory";
    case KernelClass::Fused:
      return "fused";
  }
  return "?";
}

}  // namespace dgs
