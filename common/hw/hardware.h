#pragma once
// The GPU description read from a hw_configs/*.json file of kind "gpu" (validated; every value
// carries its source in the file). The description of a config of any kind, dispatched on its
// kind, is HardwareSpec (common/hw/hardware_spec.h); finding config files is in config_files.h.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/hw/config_files.h"

namespace dgs {

struct GpuSpec {
  std::string name;  // "V100"
  // The names the CUDA runtime reports for this GPU (cudaGetDeviceProperties' name; optional
  // field "device_name", alternatives separated by '|'): how measured mode finds the config of
  // the live GPU (common/hw/live_gpu.h). Empty: no device matches it.
  std::vector<std::string> device_names;
  std::string file;            // where it was read from ("hw_configs/v100.json" or a user path)
  std::string architecture;    // "Volta"
  int compute_capability = 0;  // 70 for sm_70; 0 for a GPU that is not NVIDIA's (e.g. MI50)

  // Streaming multiprocessors
  int sm_count = 0;
  double core_clock_mhz = 0;  // boost clock used for the peak rates
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int max_warps_per_sm = 0;
  int warp_size = 32;
  int registers_per_sm = 0;  // 32-bit registers
  int max_registers_per_thread = 0;
  int register_allocation_unit = 256;  // registers are allocated per warp in units of this
  int64_t shared_mem_per_sm = 0;       // bytes usable by blocks
  int64_t shared_mem_per_block = 0;    // bytes, the largest a block may request

  // Peak rates (whole GPU)
  double peak_fp32_tflops = 0;
  double peak_fp16_tflops = 0;    // SIMT FP16
  double peak_tensor_tflops = 0;  // FP16 tensor cores, dense (0 if none)

  // Memory
  int64_t dram_bytes = 0;
  double dram_bandwidth_gbs = 0;  // GB/s (1e9 bytes/s)
  int64_t l2_bytes = 0;
  double l2_bandwidth_gbs = 0;
  int transaction_bytes = 32;     // DRAM/L2 sector size (nvprof counts 32-byte transactions)
  double pcie_bandwidth_gbs = 0;  // host<->device, per direction

  // Software overheads
  double kernel_launch_us = 0;  // per kernel launch
  double stage_sync_us = 0;     // synchronising streams between two stages

  // Named global efficiency factors of the performance model ("achieved fraction of peak"),
  // each with the one experiment it was calibrated on or "assumption: <reason>" in the file.
  std::map<std::string, double> efficiency;

  // Sources, one per field name, as written in the file.
  std::map<std::string, std::string> sources;

  double efficiency_or(const std::string& key, double def) const {
    auto it = efficiency.find(key);
    return it == efficiency.end() ? def : it->second;
  }
};

// Loads a GPU config. `name_or_path` is either a file path (read from disk) or the name of a
// built-in config ("v100", "a100", "rtx2080ti", "rtx3090", "k80", "h100", "h200";
// case-insensitive), read
// from the configs compiled into the executable. Throws dgs::Error naming the file and field for a
// missing field, a wrong type or unit, or an out-of-range value.
GpuSpec load_gpu_spec(const std::string& name_or_path);

// Parses a GPU config from JSON text; `origin` names it in error messages.
GpuSpec parse_gpu_spec(const std::string& json_text, const std::string& origin);

// The names of the built-in GPU configs (builtin_hardware_names_of_kind("gpu")).
std::vector<std::string> builtin_gpu_names();

}  // namespace dgs
