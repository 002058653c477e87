// Kernels: the names of math units and kernel classes, and the efficiency factors' defaults.
#include "common/gpumodel/kernel.h"

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
