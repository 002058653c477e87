#pragma once
// Which built-in GPU config describes the GPU a measured run is on. The CUDA runtime reports the
// device's name, SM count and compute capability (cudaGetDeviceProperties; common/cuda/runtime.h
// fills LiveGpuProperties from it); a built-in config matches when one of its `device_name`
// alternatives equals that name (case-insensitive, surrounding spaces ignored) and its SM count
// and compute capability agree with the device's (a config of the SXM part is never used for a
// PCIe part of the same name stem, and a config whose numbers disagree with the device is refused
// rather than used).
#include <cstdint>
#include <string>
#include <vector>

namespace dgs {

// What the CUDA runtime says about a device (a plain struct, so the matching is tested without
// a GPU on fake values).
struct LiveGpuProperties {
  std::string name;            // cudaDeviceProp::name, e.g. "NVIDIA H200"
  int sm_count = 0;            // multiProcessorCount
  int compute_capability = 0;  // major * 10 + minor
  int64_t total_memory_bytes = 0;
};

struct LiveGpuMatch {
  std::string config;  // the built-in config's name ("h200"); empty when none matches
  std::string why;     // one line: what matched, or why nothing did
};

// The built-in config of the device `p` among `candidates` (built-in GPU config names; default:
// all of them). Never throws for a device without a config: `config` is then empty and `why`
// says which configs were considered and what disagreed.
LiveGpuMatch match_live_gpu(const LiveGpuProperties& p,
                            const std::vector<std::string>& candidates = {});

}  // namespace dgs
