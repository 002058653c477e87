#pragma once
// The description of a machine of any kind, read from a hardware config and dispatched on its
// "kind": the memory levels it names, the placement units it offers, and the kind's own
// description (GpuSpec for kind "gpu"). Plans name these levels and units; evaluators read the
// kind's description.
//
// Kinds known here: "gpu" (common/hw/hardware.h) and "dsa" (common/hw/dsa_spec.h). An accelerator
// kind is added by adding its description type and a line to the table in hardware_spec.cpp.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/hw/dsa_spec.h"
#include "common/hw/hardware.h"

namespace dgs {

// The names of a GPU's memory levels and placement units.
namespace gpu_hardware {
inline constexpr std::string_view kRegister = "register";  // per-thread registers
inline constexpr std::string_view kShared = "shared";      // per-SM shared memory
inline constexpr std::string_view kL2 = "l2";              // the L2 cache, shared by all SMs
inline constexpr std::string_view kDram = "dram";          // device memory
inline constexpr std::string_view kHost = "host";          // host memory, across PCIe
inline constexpr std::string_view kStream = "stream";      // a CUDA stream (any number)
inline constexpr std::string_view kSm = "sm";              // a streaming multiprocessor
}  // namespace gpu_hardware

// The placement unit names of a DSA (its memory level names are the config's own: local,
// global, dram, e.g. l1/llb/ddr or sram/hbm).
namespace dsa_hardware {
inline constexpr std::string_view kCluster = "cluster";  // index [cluster]
inline constexpr std::string_view kCore = "core";        // index [cluster, core]
inline constexpr std::string_view kEngine = "engine";    // a mesh engine, index [x, y]
}  // namespace dsa_hardware

// A kind of unit a plan can place work on ("stream", "sm", "cluster", "core", "engine"), and how
// many the machine has.
struct PlacementUnit {
  // The count of a unit kind without a limit (a GPU's streams). Chosen as the largest count so
  // that "index < count" holds for every index.
  static constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
  std::string kind;
  int64_t count = 0;
  // The extent of each coordinate of a unit's index (a core: {clusters, cores per cluster}; a
  // mesh engine: {columns, rows}); empty = one coordinate of extent `count`.
  std::vector<int64_t> extents = {};
};

struct HardwareSpec {
  std::string kind;  // the config's "kind": "gpu", ...
  std::string name;  // the config's "name": "V100", ...
  std::string file;  // where it was read from (a path or the built-in path)
  // The memory levels, innermost first (GPU: register, shared, l2, dram, host).
  std::vector<std::string> memory_levels;
  // The placement unit kinds (GPU: stream, unbounded; sm, sm_count).
  std::vector<PlacementUnit> units;
  // The kind's own description: set when kind == "gpu".
  std::optional<GpuSpec> gpu;
  // Set when kind == "dsa".
  std::optional<DsaSpec> dsa;

  // Whether the machine has a memory level of that name.
  bool has_memory_level(std::string_view level) const;
  // How many units of kind `unit_kind` the machine has (PlacementUnit::kUnbounded for no limit);
  // std::nullopt if it offers no such kind.
  std::optional<int64_t> unit_count(std::string_view unit_kind) const;
  // The unit kinds, in order ("stream", "sm"), for messages.
  std::vector<std::string> unit_kinds() const;
};

// The description of a GPU config: levels register, shared, l2, dram, host; units stream
// (unbounded) and sm (sm_count); gpu = spec.
HardwareSpec gpu_hardware_spec(const GpuSpec& spec);

// The description of a DSA config: levels local, global (clusters only), dram as the config
// names them; units cluster {clusters} and core {clusters, cores per cluster}, or engine
// {columns, rows} on a mesh; dsa = spec.
HardwareSpec dsa_hardware_spec(const DsaSpec& spec);

// The config kinds load_hardware can read ("gpu", "dsa").
std::vector<std::string> known_hardware_kinds();

// Loads a config of any known kind (name_or_path as read_hardware_config resolves it). A config
// of a kind not known is refused in one line: "<file>: kind 'x' is not known (known kinds: gpu)";
// a config without a kind string: "<file>: missing \"kind\" (expected one of: gpu)". Other errors
// are the kind's loader's (one line naming the file and field).
HardwareSpec load_hardware(const std::string& name_or_path);

// The same, from JSON text; `origin` names it in error messages.
HardwareSpec parse_hardware(const std::string& json_text, const std::string& origin);

}  // namespace dgs
