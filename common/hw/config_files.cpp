// Finding and reading hardware config files: by path (disk first, then the built-in copy) or by
// built-in name.
#include "common/hw/config_files.h"
#include "common/hw/config_fields.h"
#include "common/hw/config_reads.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>

#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/resources.h"
#include "common/util/text.h"

namespace dgs {

namespace {

using nlohmann::json;

constexpr const char* kConfigFolder = "hw_configs/";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string config_name(const std::string& builtin_path) {
  std::string n = builtin_path.substr(std::string(kConfigFolder).size());
  if (ends_with(n, ".json")) n.resize(n.size() - 5);
  return n;
}

}  // namespace

json parse_config_json(const std::string& text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error; out_of_range: a number over double's range
    std::string msg = e.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] "; keep the rest.
    if (const size_t at = msg.find("] "); at != std::string::npos) msg = msg.substr(at + 2);
    throw Error(origin + ": not valid JSON: " + msg);
  }
}

namespace {
std::mutex g_reads_mutex;
std::vector<HardwareConfigRead> g_reads;  // every config returned, in order

HardwareConfigText recorded(HardwareConfigText c) {
  const std::lock_guard<std::mutex> lock(g_reads_mutex);
  g_reads.push_back({c.origin, fnv1a_hex(c.text)});
  return c;
}
}  // namespace

std::vector<HardwareConfigRead> hardware_configs_read() {
  const std::lock_guard<std::mutex> lock(g_reads_mutex);
  return g_reads;
}

HardwareConfigText read_hardware_config(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos ||
      ends_with(ascii_lower(name_or_path), ".json")) {
    if (std::filesystem::exists(name_or_path))
      return recorded({name_or_path, read_file(name_or_path)});
    std::string rel = name_or_path;
    if (rel.rfind("./", 0) == 0) rel = rel.substr(2);
    if (const auto b = builtin_resource(rel)) return recorded({rel, std::string(*b)});
    throw Error("no hardware config file " + name_or_path + " (and no built-in one at that path)");
  }
  const std::string path = kConfigFolder + ascii_lower(name_or_path) + ".json";
  if (const auto b = builtin_resource(path)) return recorded({path, std::string(*b)});
  throw Error("no built-in hardware config '" + name_or_path +
              "' (built-in: " + comma_list(builtin_hardware_names()) + "; or give a .json file)");
}

std::string hardware_config_kind(const std::string& name_or_path) {
  const HardwareConfigText c = read_hardware_config(name_or_path);
  const json j = parse_config_json(c.text, c.origin);
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) {
    throw Error(c.origin + ": missing \"kind\" (expected a string such as \"gpu\")");
  }
  return j["kind"].get<std::string>();
}

std::vector<std::string> builtin_hardware_names() {
  std::vector<std::string> names;
  for (const std::string& p : builtin_resources_under(kConfigFolder)) {
    if (ends_with(p, ".json")) names.push_back(config_name(p));
  }
  return names;
}

std::vector<std::string> builtin_hardware_names_of_kind(const std::string& kind) {
  std::vector<std::string> names;
  for (const std::string& p : builtin_resources_under(kConfigFolder)) {
    if (!ends_with(p, ".json")) continue;
    try {
      const json j = json::parse(*builtin_resource(p));
      if (j.is_object() && j.value("kind", std::string()) == kind) names.push_back(config_name(p));
    } catch (const json::exception&) {
      // A malformed built-in config is reported when it is loaded, not here.
    }
  }
  return names;
}

}  // namespace dgs
