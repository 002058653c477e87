// Built when nvcc was not found: the measured mode is unavailable.
#include "common/cuda/device.h"

namespace dgs {

bool cuda_gpu_available(std::string* why) {
  if (why) *why = "this build has no CUDA support (nvcc was not found at configure time)";
  return false;
}

}  // namespace dgs
