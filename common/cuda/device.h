#pragma once
// Whether this process can use an NVIDIA GPU. Built with or without CUDA: without CUDA (no nvcc at
// build time) it always answers "no" with reason "built without CUDA".
#include <string>

#include "common/hw/live_gpu.h"

namespace dgs {

// True when a CUDA device is present and usable (and cuDNN initialises). Otherwise false, with a
// one-line reason in *why ("no CUDA driver (cudaErrorInsufficientDriver)", "no CUDA device",
// "built without CUDA", ...). Never crashes on a machine without a GPU.
bool cuda_gpu_available(std::string* why);

// The live device 0's name, SM count, compute capability and memory (cudaGetDeviceProperties), for
// choosing its hardware config (match_live_gpu). False, with the reason in *why, where
// cuda_gpu_available is false.
bool cuda_device_properties(LiveGpuProperties* out, std::string* why);

// The versions of the libraries this process loaded, which can differ from the headers it was
// built with (build_info: the build machine's): the CUDA driver API version
// (cudaDriverGetVersion) and the cuDNN library's (cudnnGetVersion), as "13.0" and "9.14.0"; "" for
// one not known (no driver, a build without CUDA).
struct LoadedCudaVersions {
  std::string driver_api;
  std::string cudnn;
};
LoadedCudaVersions loaded_cuda_versions();

// cudaDriverGetVersion's number as text: 1000 * major + 10 * minor ("13.0" for 13000).
inline std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}
// cudnnGetVersion's number as text: 10000 * major + 100 * minor + patch from cuDNN 9 on
// ("9.14.0" for 91400), 1000 * major + 100 * minor + patch before ("8.9.6" for 8906).
inline std::string cudnn_version_text(int version) {
  const int major_unit = version >= 90000 ? 10000 : 1000;
  return std::to_string(version / major_unit) + "." + std::to_string(version % major_unit / 100) +
         "." + std::to_string(version % 100);
}

}  // namespace dgs
