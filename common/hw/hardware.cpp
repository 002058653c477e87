// Loading and validating GPU configs (hw_configs/*.json).
//
// File format (every value carries its source):
//   {"name": "V100", "kind": "gpu", "description": "...",
//    "fields": {"sm_count": {"value": 80, "source": "..."},
//               "dram_bandwidth_gbs": {"value": 900, "unit": "GB/s", "source": "..."}, ...},
//    "efficiency": {"<factor>": {"value": 0.8, "source": "..."}, ...}}
// Every GpuSpec field is required in "fields". Counts carry no unit; sizes take "bytes", "KiB",
// "MiB" or "GiB"; rates and times take the one unit named in kFields below.
#include "common/hw/hardware.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

using nlohmann::json;

constexpr const char* kConfigFolder = "hw_configs/";

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string json_type(const json& j) {
  if (j.is_string()) return "string " + j.dump();
  if (j.is_boolean()) return "boolean";
  if (j.is_null()) return "null";
  if (j.is_object()) return "object";
  if (j.is_array()) return "array";
  if (j.is_number_integer() || j.is_number_unsigned()) return "integer";
  return "number";
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// ----- The fields of GpuSpec as they appear in the file -----
enum class Kind {
  Text,         // a string
  Count,        // a positive integer, no unit
  CountOrZero,  // a non-negative integer, no unit (compute_capability: 0 = not an NVIDIA GPU)
  Size,         // bytes; unit bytes/KiB/MiB/GiB
  Rate,         // a positive number in the unit named
  RateOrZero,   // a non-negative number in the unit named (0 = the GPU has none)
};

struct FieldSpec {
  const char* name;
  Kind kind;
  const char* unit;                                        // for Rate/RateOrZero
  std::function<void(GpuSpec&, const json&, double)> set;  // value (Text/Count) or scaled number
};

const std::vector<FieldSpec>& field_specs() {
  static const std::vector<FieldSpec> specs = {
      {"architecture", Kind::Text, "",
       [](GpuSpec& g, const json& v, double) { g.architecture = v.get<std::string>(); }},
      {"compute_capability", Kind::CountOrZero, "",
       [](GpuSpec& g, const json&, double x) { g.compute_capability = static_cast<int>(x); }},
      {"sm_count", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.sm_count = static_cast<int>(x); }},
      {"core_clock_mhz", Kind::Rate, "MHz",
       [](GpuSpec& g, const json&, double x) { g.core_clock_mhz = x; }},
      {"max_threads_per_sm", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.max_threads_per_sm = static_cast<int>(x); }},
      {"max_threads_per_block", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.max_threads_per_block = static_cast<int>(x); }},
      {"max_blocks_per_sm", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.max_blocks_per_sm = static_cast<int>(x); }},
      {"max_warps_per_sm", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.max_warps_per_sm = static_cast<int>(x); }},
      {"warp_size", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.warp_size = static_cast<int>(x); }},
      {"registers_per_sm", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.registers_per_sm = static_cast<int>(x); }},
      {"max_registers_per_thread", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.max_registers_per_thread = static_cast<int>(x); }},
      {"register_allocation_unit", Kind::Count, "",
       [](GpuSpec& g, const json&, double x) { g.register_allocation_unit = static_cast<int>(x); }},
      {"shared_mem_per_sm", Kind::Size, "",
       [](GpuSpec& g, const json&, double x) { g.shared_mem_per_sm = static_cast<int64_t>(x); }},
      {"shared_mem_per_block", Kind::Size, "",
       [](GpuSpec& g, const json&, double x) { g.shared_mem_per_block = static_cast<int64_t>(x); }},
      {"peak_fp32_tflops", Kind::Rate, "TFLOPS",
       [](GpuSpec& g, const json&, double x) { g.peak_fp32_tflops = x; }},
      {"peak_fp16_tflops", Kind::Rate, "TFLOPS",
       [](GpuSpec& g, const json&, double x) { g.peak_fp16_tflops = x; }},
      {"peak_tensor_tflops", Kind::RateOrZero, "TFLOPS",
       [](GpuSpec& g, const json&, double x) { g.peak_tensor_tflops = x; }},
      {"dram_bytes", Kind::Size, "",
       [](GpuSpec& g, const json&, double x) { g.dram_bytes = static_cast<int64_t>(x); }},
      {"dram_bandwidth_gbs", Kind::Rate, "GB/s",
       [](GpuSpec& g, const json&, double x) { g.dram_bandwidth_gbs = x; }},
      {"l2_bytes", Kind::Size, "",
       [](GpuSpec& g, const json&, double x) { g.l2_bytes = static_cast<int64_t>(x); }},
      {"l2_bandwidth_gbs", Kind::Rate, "GB/s",
       [](GpuSpec& g, const json&, double x) { g.l2_bandwidth_gbs = x; }},
      {"transaction_bytes", Kind::Size, "",
       [](GpuSpec& g, const json&, double x) { g.transaction_bytes = static_cast<int>(x); }},
      {"pcie_bandwidth_gbs", Kind::Rate, "GB/s",
       [](GpuSpec& g, const json&, double x) { g.pcie_bandwidth_gbs = x; }},
      {"kernel_launch_us", Kind::Rate, "us",
       [](GpuSpec& g, const json&, double x) { g.kernel_launch_us = x; }},
      {"stage_sync_us", Kind::Rate, "us",
       [](GpuSpec& g, const json&, double x) { g.stage_sync_us = x; }},
  };
  return specs;
}

double size_multiplier(const std::string& unit) {
  if (unit == "bytes") return 1;
  if (unit == "KiB") return 1024.0;
  if (unit == "MiB") return 1024.0 * 1024;
  if (unit == "GiB") return 1024.0 * 1024 * 1024;
  return 0;
}

// Reads field `f` of `entry` into `g`. `where` is "<origin>: field '<name>'".
void read_field(GpuSpec& g, const FieldSpec& f, const json& entry, const std::string& where) {
  if (!entry.is_object())
    throw Error(where + ": expected an object {\"value\": ..., \"source\": ...}, got " +
                json_type(entry));
  for (const auto& [k, v] : entry.items()) {
    (void)v;
    if (k != "value" && k != "unit" && k != "source") {
      throw Error(where + ": unknown key '" + k + "' (expected value, unit, source)");
    }
  }
  if (!entry.contains("source"))
    throw Error(where + ": missing 'source' (a datasheet, a paper, or \"assumption: <reason>\")");
  if (!entry["source"].is_string() || entry["source"].get<std::string>().empty()) {
    throw Error(where + ": 'source' must be a non-empty string");
  }
  g.sources[f.name] = entry["source"].get<std::string>();
  if (!entry.contains("value")) throw Error(where + ": missing 'value'");
  const json& v = entry["value"];
  const bool has_unit = entry.contains("unit");
  std::string unit;
  if (has_unit) {
    if (!entry["unit"].is_string())
      throw Error(where + ": 'unit' must be a string, got " + json_type(entry["unit"]));
    unit = entry["unit"].get<std::string>();
  }

  switch (f.kind) {
    case Kind::Text:
      if (!v.is_string() || v.get<std::string>().empty()) {
        throw Error(where + ": expected a non-empty string, got " + json_type(v));
      }
      if (has_unit) throw Error(where + ": unexpected unit '" + unit + "' (this field has none)");
      f.set(g, v, 0);
      return;
    case Kind::Count:
    case Kind::CountOrZero: {
      if (!v.is_number_integer()) throw Error(where + ": expected an integer, got " + json_type(v));
      if (has_unit) throw Error(where + ": unexpected unit '" + unit + "' (a count has no unit)");
      const int64_t x = v.get<int64_t>();
      const int64_t least = f.kind == Kind::Count ? 1 : 0;
      if (x < least || x > std::numeric_limits<int>::max()) {
        throw Error(where + ": value " + std::to_string(x) + " out of range (expected a " +
                    (f.kind == Kind::Count ? "positive" : "non-negative") + " count)");
      }
      f.set(g, v, static_cast<double>(x));
      return;
    }
    case Kind::Size: {
      if (!v.is_number()) throw Error(where + ": expected a number, got " + json_type(v));
      if (!has_unit) throw Error(where + ": missing 'unit' (expected bytes, KiB, MiB or GiB)");
      const double m = size_multiplier(unit);
      if (m == 0)
        throw Error(where + ": unit '" + unit +
                    "' is not a size unit (expected bytes, KiB, MiB or GiB)");
      const double bytes = v.get<double>() * m;
      if (!(bytes > 0) || bytes != std::floor(bytes) || bytes > 9.0e18) {
        throw Error(where + ": value " + v.dump() + " " + unit +
                    " is not a positive whole number of bytes");
      }
      f.set(g, v, bytes);
      return;
    }
    case Kind::Rate:
    case Kind::RateOrZero: {
      if (!v.is_number()) throw Error(where + ": expected a number, got " + json_type(v));
      if (!has_unit) throw Error(where + ": missing 'unit' (expected " + f.unit + ")");
      if (unit != f.unit)
        throw Error(where + ": unit '" + unit + "' is wrong (expected " + f.unit + ")");
      const double x = v.get<double>();
      const bool ok = f.kind == Kind::Rate ? x > 0 : x >= 0;
      if (!std::isfinite(x) || !ok) {
        throw Error(where + ": value " + v.dump() + " out of range (expected " +
                    (f.kind == Kind::Rate ? "a positive number" : "zero or a positive number") +
                    ")");
      }
      f.set(g, v, x);
      return;
    }
  }
}

std::string config_name(const std::string& builtin_path) {
  std::string n = builtin_path.substr(std::string(kConfigFolder).size());
  if (ends_with(n, ".json")) n.resize(n.size() - 5);
  return n;
}

json parse_json(const std::string& text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string msg = e.what();
    // nlohmann's message starts with "[json.exception.parse_error.101] "; keep the rest.
    if (const size_t at = msg.find("] "); at != std::string::npos) msg = msg.substr(at + 2);
    throw Error(origin + ": not valid JSON: " + msg);
  }
}

}  // namespace

HardwareConfigText read_hardware_config(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || ends_with(lower(name_or_path), ".json")) {
    if (std::filesystem::exists(name_or_path)) return {name_or_path, read_file(name_or_path)};
    std::string rel = name_or_path;
    if (rel.rfind("./", 0) == 0) rel = rel.substr(2);
    if (const auto b = builtin_resource(rel)) return {rel, std::string(*b)};
    throw Error("no hardware config file " + name_or_path + " (and no built-in one at that path)");
  }
  const std::string path = kConfigFolder + lower(name_or_path) + ".json";
  if (const auto b = builtin_resource(path)) return {path, std::string(*b)};
  throw Error("no built-in hardware config '" + name_or_path +
              "' (built-in: " + join(builtin_hardware_names()) + "; or give a .json file)");
}

std::string hardware_config_kind(const std::string& name_or_path) {
  const HardwareConfigText c = read_hardware_config(name_or_path);
  const json j = parse_json(c.text, c.origin);
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

std::vector<std::string> builtin_gpu_names() {
  std::vector<std::string> names;
  for (const std::string& p : builtin_resources_under(kConfigFolder)) {
    if (!ends_with(p, ".json")) continue;
    try {
      const json j = json::parse(*builtin_resource(p));
      if (j.is_object() && j.value("kind", std::string()) == "gpu") names.push_back(config_name(p));
    } catch (const json::exception&) {
      // A malformed built-in config is reported when it is loaded, not here.
    }
  }
  return names;
}

GpuSpec parse_gpu_spec(const std::string& json_text, const std::string& origin) {
  const json j = parse_json(json_text, origin);
  if (!j.is_object()) throw Error(origin + ": expected a JSON object at the top level");
  static const std::set<std::string> top_keys = {"name",  "kind",   "description",
                                                 "notes", "fields", "efficiency"};
  for (const auto& [k, v] : j.items()) {
    (void)v;
    if (!top_keys.count(k)) {
      throw Error(origin + ": unknown top-level key '" + k +
                  "' (expected name, kind, description, notes, fields, efficiency)");
    }
  }
  if (!j.contains("kind") || !j["kind"].is_string())
    throw Error(origin + ": missing \"kind\" (expected \"gpu\")");
  if (j["kind"] != "gpu") {
    throw Error(origin + ": kind '" + j["kind"].get<std::string>() +
                "' is not a GPU config (expected \"gpu\")");
  }
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty()) {
    throw Error(origin + ": missing \"name\" (a non-empty string)");
  }
  if (!j.contains("fields") || !j["fields"].is_object())
    throw Error(origin + ": missing \"fields\" (an object)");

  GpuSpec g;
  g.name = j["name"].get<std::string>();
  g.file = origin;
  const json& fields = j["fields"];
  std::vector<std::string> known;
  for (const FieldSpec& f : field_specs()) known.push_back(f.name);
  for (const auto& [k, v] : fields.items()) {
    (void)v;
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      throw Error(origin + ": unknown field '" + k + "' (expected one of: " + join(known) + ")");
    }
  }
  for (const FieldSpec& f : field_specs()) {
    const std::string where = origin + ": field '" + f.name + "'";
    if (!fields.contains(f.name)) throw Error(where + ": missing");
    read_field(g, f, fields[f.name], where);
  }

  if (j.contains("efficiency")) {
    const json& eff = j["efficiency"];
    if (!eff.is_object())
      throw Error(origin + ": \"efficiency\" must be an object, got " + json_type(eff));
    for (const auto& [k, entry] : eff.items()) {
      const std::string where = origin + ": efficiency '" + k + "'";
      if (!entry.is_object() || !entry.contains("value") || !entry.contains("source")) {
        throw Error(where + ": expected {\"value\": <number>, \"source\": \"...\"}");
      }
      if (!entry["value"].is_number())
        throw Error(where + ": expected a number, got " + json_type(entry["value"]));
      if (!entry["source"].is_string() || entry["source"].get<std::string>().empty()) {
        throw Error(where + ": 'source' must be a non-empty string");
      }
      const double x = entry["value"].get<double>();
      if (!std::isfinite(x) || x < 0)
        throw Error(where + ": value " + entry["value"].dump() + " out of range (expected >= 0)");
      g.efficiency[k] = x;
      g.sources["efficiency." + k] = entry["source"].get<std::string>();
    }
  }

  // Consistency between fields.
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) throw Error(origin + ": " + what);
  };
  check(g.max_warps_per_sm * g.warp_size == g.max_threads_per_sm,
        "fields 'max_warps_per_sm' x 'warp_size' must equal 'max_threads_per_sm'");
  check(g.max_threads_per_block <= g.max_threads_per_sm,
        "field 'max_threads_per_block' exceeds 'max_threads_per_sm'");
  check(g.shared_mem_per_block <= g.shared_mem_per_sm,
        "field 'shared_mem_per_block' exceeds 'shared_mem_per_sm'");
  check(g.l2_bytes < g.dram_bytes, "field 'l2_bytes' is not smaller than 'dram_bytes'");
  return g;
}

GpuSpec load_gpu_spec(const std::string& name_or_path) {
  const HardwareConfigText c = read_hardware_config(name_or_path);
  return parse_gpu_spec(c.text, c.origin);
}

}  // namespace dgs
