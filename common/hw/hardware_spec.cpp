// Hardware descriptions dispatched on the config's kind.
#include "common/hw/hardware_spec.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/hw/config_fields.h"
#include "common/util/error.h"

namespace dgs {

namespace {

struct KindLoader {
  std::string_view kind;
  HardwareSpec (*parse)(const std::string& json_text, const std::string& origin);
};

HardwareSpec parse_gpu_hardware(const std::string& json_text, const std::string& origin) {
  return gpu_hardware_spec(parse_gpu_spec(json_text, origin));
}

HardwareSpec parse_dsa_hardware(const std::string& json_text, const std::string& origin) {
  return dsa_hardware_spec(parse_dsa_spec(json_text, origin));
}

// One line per config kind.
constexpr KindLoader kKindLoaders[] = {
    {"gpu", &parse_gpu_hardware},
    {"dsa", &parse_dsa_hardware},
};

// A spec of `kind` with the config's name and file; the caller fills in the rest.
HardwareSpec named_spec(const char* kind, const std::string& name, const std::string& file) {
  HardwareSpec h;
  h.kind = kind;
  h.name = name;
  h.file = file;
  return h;
}

}  // namespace

bool HardwareSpec::has_memory_level(std::string_view level) const {
  return std::find(memory_levels.begin(), memory_levels.end(), level) != memory_levels.end();
}

std::optional<int64_t> HardwareSpec::unit_count(std::string_view unit_kind) const {
  for (const PlacementUnit& u : units)
    if (u.kind == unit_kind) return u.count;
  return std::nullopt;
}

std::vector<std::string> HardwareSpec::unit_kinds() const {
  std::vector<std::string> kinds;
  for (const PlacementUnit& u : units) kinds.push_back(u.kind);
  return kinds;
}

HardwareSpec gpu_hardware_spec(const GpuSpec& spec) {
  using namespace gpu_hardware;
  HardwareSpec h = named_spec("gpu", spec.name, spec.file);
  h.memory_levels = {std::string(kRegister), std::string(kShared), std::string(kL2),
                     std::string(kDram), std::string(kHost)};
  h.units = {{std::string(kStream), PlacementUnit::kUnbounded, {}},
             {std::string(kSm), int64_t{spec.sm_count}, {}}};
  h.gpu = spec;
  return h;
}

HardwareSpec dsa_hardware_spec(const DsaSpec& spec) {
  using namespace dsa_hardware;
  HardwareSpec h = named_spec("dsa", spec.name, spec.file);
  h.memory_levels.push_back(spec.local_level);
  if (!spec.global_level.empty()) h.memory_levels.push_back(spec.global_level);
  h.memory_levels.push_back(spec.dram_level);
  if (spec.topology == DsaTopology::Mesh) {
    h.units = {{std::string(kEngine), int64_t{spec.units()}, {spec.mesh_columns, spec.mesh_rows}}};
  } else {
    h.units = {
        {std::string(kCluster), int64_t{spec.clusters}, {}},
        {std::string(kCore), int64_t{spec.units()}, {spec.clusters, spec.cores_per_cluster}}};
  }
  h.dsa = spec;
  return h;
}

std::vector<std::string> known_hardware_kinds() {
  std::vector<std::string> kinds;
  for (const KindLoader& k : kKindLoaders) kinds.emplace_back(k.kind);
  return kinds;
}

HardwareSpec parse_hardware(const std::string& json_text, const std::string& origin) {
  const nlohmann::json j = parse_config_json(json_text, origin);
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
    throw Error(origin +
                ": missing \"kind\" (expected one of: " + comma_list(known_hardware_kinds()) + ")");
  const std::string kind = j["kind"].get<std::string>();
  for (const KindLoader& k : kKindLoaders)
    if (k.kind == kind) return k.parse(json_text, origin);
  throw Error(origin + ": kind '" + kind +
              "' is not known (known kinds: " + comma_list(known_hardware_kinds()) + ")");
}

HardwareSpec load_hardware(const std::string& name_or_path) {
  const HardwareConfigText c = read_hardware_config(name_or_path);
  return parse_hardware(c.text, c.origin);
}

}  // namespace dgs
