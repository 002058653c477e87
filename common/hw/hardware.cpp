// Loading and validating GPU configs (hw_configs/*.json of kind "gpu").
//
// File format (every value carries its source):
//   {"name": "V100", "kind": "gpu", "description": "...",
//    "fields": {"sm_count": {"value": 80, "source": "..."},
//               "dram_bandwidth_gbs": {"value": 900, "unit": "GB/s", "source": "..."}, ...},
//    "efficiency": {"<factor>": {"value": 0.8, "source": "..."}, ...}}
// Every GpuSpec field is required in "fields" and read by the shared field reader
// (common/hw/config_fields.h). Counts carry no unit; sizes take "bytes", "KiB", "MiB" or "GiB";
// rates and times take the one unit named in gpu_fields() below, which is the canonical unit of
// their quantity, so the values are stored as written.
#include "common/hw/hardware.h"

#include <cmath>
#include <functional>
#include <set>

#include "common/hw/config_fields.h"
#include "common/util/error.h"

namespace dgs {

namespace {

using nlohmann::json;

// A GpuSpec field as it appears in the file: what it holds, and where it goes.
struct GpuField {
  FieldSpec spec;
  std::function<void(GpuSpec&, const FieldValue&)> set;
};

FieldSpec count(const char* name, FieldRange range = FieldRange::Positive) {
  return {name, Quantity::Count, range, {}, true};
}
FieldSpec bytes(const char* name) {
  return {name, Quantity::Bytes, FieldRange::Positive, {}, true};
}
FieldSpec rate(const char* name, Quantity q, const char* unit,
               FieldRange range = FieldRange::Positive) {
  return {name, q, range, {unit}, true};
}

int64_t as_int64(const FieldValue& v) {
  return static_cast<int64_t>(v.value);
}

// "A|B" -> {"A", "B"}, each trimmed; empty alternatives dropped.
std::vector<std::string> split_device_names(const std::string& text) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('|', begin);
    if (end == std::string::npos) end = text.size();
    std::string name = text.substr(begin, end - begin);
    const size_t a = name.find_first_not_of(" \t");
    const size_t b = name.find_last_not_of(" \t");
    if (a != std::string::npos) out.push_back(name.substr(a, b - a + 1));
    begin = end + 1;
  }
  return out;
}

const std::vector<GpuField>& gpu_fields() {
  using Q = Quantity;
  static const std::vector<GpuField> fields = {
      {{"architecture", Q::Text, FieldRange::Positive, {}, true},
       [](GpuSpec& g, const FieldValue& v) { g.architecture = v.text; }},
      {count("compute_capability", FieldRange::NonNegative),
       [](GpuSpec& g, const FieldValue& v) { g.compute_capability = as_int(v); }},
      {count("sm_count"), [](GpuSpec& g, const FieldValue& v) { g.sm_count = as_int(v); }},
      {rate("core_clock_mhz", Q::Frequency, "MHz"),
       [](GpuSpec& g, const FieldValue& v) { g.core_clock_mhz = v.value; }},
      {count("max_threads_per_sm"),
       [](GpuSpec& g, const FieldValue& v) { g.max_threads_per_sm = as_int(v); }},
      {count("max_threads_per_block"),
       [](GpuSpec& g, const FieldValue& v) { g.max_threads_per_block = as_int(v); }},
      {count("max_blocks_per_sm"),
       [](GpuSpec& g, const FieldValue& v) { g.max_blocks_per_sm = as_int(v); }},
      {count("max_warps_per_sm"),
       [](GpuSpec& g, const FieldValue& v) { g.max_warps_per_sm = as_int(v); }},
      {count("warp_size"), [](GpuSpec& g, const FieldValue& v) { g.warp_size = as_int(v); }},
      {count("registers_per_sm"),
       [](GpuSpec& g, const FieldValue& v) { g.registers_per_sm = as_int(v); }},
      {count("max_registers_per_thread"),
       [](GpuSpec& g, const FieldValue& v) { g.max_registers_per_thread = as_int(v); }},
      {count("register_allocation_unit"),
       [](GpuSpec& g, const FieldValue& v) { g.register_allocation_unit = as_int(v); }},
      {bytes("shared_mem_per_sm"),
       [](GpuSpec& g, const FieldValue& v) { g.shared_mem_per_sm = as_int64(v); }},
      {bytes("shared_mem_per_block"),
       [](GpuSpec& g, const FieldValue& v) { g.shared_mem_per_block = as_int64(v); }},
      {rate("peak_fp32_tflops", Q::ComputeRate, "TFLOPS"),
       [](GpuSpec& g, const FieldValue& v) { g.peak_fp32_tflops = v.value; }},
      {rate("peak_fp16_tflops", Q::ComputeRate, "TFLOPS"),
       [](GpuSpec& g, const FieldValue& v) { g.peak_fp16_tflops = v.value; }},
      {rate("peak_tensor_tflops", Q::ComputeRate, "TFLOPS", FieldRange::NonNegative),
       [](GpuSpec& g, const FieldValue& v) { g.peak_tensor_tflops = v.value; }},
      {bytes("dram_bytes"), [](GpuSpec& g, const FieldValue& v) { g.dram_bytes = as_int64(v); }},
      {rate("dram_bandwidth_gbs", Q::Bandwidth, "GB/s"),
       [](GpuSpec& g, const FieldValue& v) { g.dram_bandwidth_gbs = v.value; }},
      {bytes("l2_bytes"), [](GpuSpec& g, const FieldValue& v) { g.l2_bytes = as_int64(v); }},
      {rate("l2_bandwidth_gbs", Q::Bandwidth, "GB/s"),
       [](GpuSpec& g, const FieldValue& v) { g.l2_bandwidth_gbs = v.value; }},
      {bytes("transaction_bytes"),
       [](GpuSpec& g, const FieldValue& v) { g.transaction_bytes = as_int(v); }},
      {rate("pcie_bandwidth_gbs", Q::Bandwidth, "GB/s"),
       [](GpuSpec& g, const FieldValue& v) { g.pcie_bandwidth_gbs = v.value; }},
      {rate("kernel_launch_us", Q::Time, "us"),
       [](GpuSpec& g, const FieldValue& v) { g.kernel_launch_us = v.value; }},
      {rate("stage_sync_us", Q::Time, "us"),
       [](GpuSpec& g, const FieldValue& v) { g.stage_sync_us = v.value; }},
      // Optional: the names cudaGetDeviceProperties reports for this GPU, '|'-separated.
      {{"device_name", Q::Text, FieldRange::Positive, {}, false},
       [](GpuSpec& g, const FieldValue& v) { g.device_names = split_device_names(v.text); }},
  };
  return fields;
}

}  // namespace

std::vector<std::string> builtin_gpu_names() {
  return builtin_hardware_names_of_kind("gpu");
}

GpuSpec parse_gpu_spec(const std::string& json_text, const std::string& origin) {
  const json j = parse_config_json(json_text, origin);
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
  std::vector<FieldSpec> specs;
  for (const GpuField& f : gpu_fields()) specs.push_back(f.spec);
  const std::map<std::string, FieldValue> values = read_fields(specs, j["fields"], origin);
  for (const GpuField& f : gpu_fields()) {
    const auto it = values.find(f.spec.name);
    if (it == values.end()) continue;  // an optional field left out
    f.set(g, it->second);
    g.sources[f.spec.name] = it->second.source;
  }

  if (j.contains("efficiency")) {
    const json& eff = j["efficiency"];
    if (!eff.is_object())
      throw Error(origin + ": \"efficiency\" must be an object, got " + json_type_name(eff));
    for (const auto& [k, entry] : eff.items()) {
      const std::string where = origin + ": efficiency '" + k + "'";
      if (!entry.is_object() || !entry.contains("value") || !entry.contains("source")) {
        throw Error(where + ": expected {\"value\": <number>, \"source\": \"...\"}");
      }
      if (!entry["value"].is_number())
        throw Error(where + ": expected a number, got " + json_type_name(entry["value"]));
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
