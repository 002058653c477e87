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

}  // namespace dgs
