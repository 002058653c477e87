#pragma once
// Finding and reading hardware config files (hw_configs/*.json, built in or given by path), of
// every kind.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dgs {

// How a config argument is resolved (by load_gpu_spec, load_hardware and every other loader): an
// argument that contains '/' or ends in ".json" is a path, read from disk if the file exists there
// (a user's file overrides the built-in one), else from the built-in copy at that relative path
// (so "hw_configs/v100.json" works from any directory); any other argument is the name of a
// built-in config, case-insensitive ("V100" -> built-in "hw_configs/v100.json").
struct HardwareConfigText {
  std::string origin;  // the path or the built-in path, for error messages
  std::string text;    // the JSON text
};
// Throws dgs::Error naming the argument and the built-in names if nothing matches.
HardwareConfigText read_hardware_config(const std::string& name_or_path);

// Parses a config's JSON text; a syntax error is one line "<origin>: not valid JSON: ...".
nlohmann::json parse_config_json(const std::string& text, const std::string& origin);

// The "kind" of a config ("gpu", or an accelerator kind added later). Throws dgs::Error if it
// cannot be read, is not JSON, or has no "kind" string.
std::string hardware_config_kind(const std::string& name_or_path);

// The names of all built-in hardware configs, of every kind, sorted ("a100", "h100", ...).
std::vector<std::string> builtin_hardware_names();

// The names of the built-in configs of one kind ("gpu", ...), sorted.
std::vector<std::string> builtin_hardware_names_of_kind(const std::string& kind);

}  // namespace dgs
