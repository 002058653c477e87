// Built when nvcc was not found: the measured mode is unavailable.
#include "common/cuda/device.h"

namespace dgs {

bool cuda_gpu_available(std::string* why) {
  if (why) *why = "this build has no CUDA support (nvcc was not found at configure time)";
  return false;
}

bool cuda_device_properties(LiveGpuProperties*, std::string* why) {
  return cuda_gpu_available(why);
}

LoadedCudaVersions loaded_cuda_versions() {
  return {};
}

}  // namespace dgs
