#pragma once
// The hardware configs this process has read: what a run's environment fingerprint names as the
// hardware configs used (cli/run_info.h).
#include <string>
#include <vector>

namespace dgs {

// Every config that read_hardware_config (config_files.h) returned in this process, in the order
// read (repeats included): its origin ("hw_configs/v100.json" or the user's path) and an FNV-1a
// hash of its text, so that a user's file with a built-in's name is told apart. Thread-safe.
struct HardwareConfigRead {
  std::string origin;
  std::string text_hash;  // 16 hex digits
};
std::vector<HardwareConfigRead> hardware_configs_read();

}  // namespace dgs
