// cuda_gpu_available for the CUDA build: a device must exist, be new enough for the
// architectures this build was compiled for, and cuDNN must initialise on it. On a machine without
// a GPU, cudaGetDeviceCount returns cudaErrorInsufficientDriver or cudaErrorNoDevice and
// cudnnCreate returns CUDNN_STATUS_NOT_INITIALIZED: both mean "no GPU here", never a crash.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <mutex>
#include <string>

#include "common/cuda/device.h"

namespace dgs {

namespace {

// The oldest SASS/PTX architecture in this build ("75" from CMAKE_CUDA_ARCHITECTURES 75;80;90):
// nvcc defines __CUDA_ARCH_LIST__ as the ascending list of virtual architectures (750,800,900).
constexpr int oldest_built_arch() {
#ifdef __CUDA_ARCH_LIST__
  constexpr int archs[] = {__CUDA_ARCH_LIST__};
  return archs[0] / 10;
#else
  return 0;
#endif
}

struct Availability {
  bool ok = false;
  std::string why;
};

Availability probe() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (err == cudaErrorInsufficientDriver) {
      return {false,
              "no usable CUDA driver (cudaErrorInsufficientDriver: no NVIDIA driver, or "
              "one older than this build's CUDA runtime)"};
    }
    if (err == cudaErrorNoDevice) return {false, "no CUDA device (cudaErrorNoDevice)"};
    return {false, std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(err) + " (" +
                       cudaGetErrorString(err) + ")"};
  }
  if (n == 0) return {false, "no CUDA device (cudaGetDeviceCount returned 0)"};
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    return {false, "cudaGetDeviceProperties(0) failed"};
  }
  const int cc = p.major * 10 + p.minor;
  if (cc < oldest_built_arch()) {
    return {false, std::string("device 0 (") + p.name + ") is sm_" + std::to_string(cc) +
                       ", older than the oldest architecture this build targets (sm_" +
                       std::to_string(oldest_built_arch()) + ")"};
  }
  cudnnHandle_t h = nullptr;
  const cudnnStatus_t st = cudnnCreate(&h);
  if (st != CUDNN_STATUS_SUCCESS) {
    return {false, std::string("cuDNN does not initialise on device 0 (") + p.name +
                       "): " + cudnnGetErrorString(st)};
  }
  cudnnDestroy(h);
  return {true, std::string("device 0: ") + p.name + " (sm_" + std::to_string(cc) + ")"};
}

}  // namespace

bool cuda_gpu_available(std::string* why) {
  // Probed once per process: cudnnCreate costs hundreds of milliseconds.
  static std::once_flag once;
  static Availability result;
  std::call_once(once, [] { result = probe(); });
  if (why) *why = result.why;
  return result.ok;
}

bool cuda_device_properties(LiveGpuProperties* out, std::string* why) {
  if (!cuda_gpu_available(why)) return false;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    if (why) *why = "cudaGetDeviceProperties(0) failed";
    return false;
  }
  out->name = p.name;
  out->sm_count = p.multiProcessorCount;
  out->compute_capability = p.major * 10 + p.minor;
  out->total_memory_bytes = static_cast<int64_t>(p.totalGlobalMem);
  return true;
}

LoadedCudaVersions loaded_cuda_versions() {
  LoadedCudaVersions v;
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
    v.driver_api = cuda_version_text(driver);
  (void)cudaGetLastError();
  v.cudnn = cudnn_version_text(static_cast<int>(cudnnGetVersion()));
  return v;
}

}  // namespace dgs
