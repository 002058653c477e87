// Loading and validating DSA configs (hw_configs/*.json of kind "dsa").
//
// File format (every value carries its source, as GPU configs do):
//   {"name": "STCP920", "kind": "dsa", "description": "...", "notes": "...",
//    "fields": {"topology": {"value": "clusters", "source": "..."},
//               "clock": {"value": 1000, "unit": "MHz", "source": "..."}, ...}}
// dsa_fields() below lists every field, its quantity, unit and range. Fields marked
// "clusters only" / "mesh only" are required for that topology and refused for the other.
#include "common/hw/dsa_spec.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "common/hw/config_fields.h"
#include "common/hw/config_files.h"
#include "common/util/error.h"

namespace dgs {

namespace {

using nlohmann::json;
using Q = Quantity;

enum class Need : uint8_t { Always, Clusters, Mesh, Optional };

struct DsaField {
  FieldSpec spec;
  Need need;
  std::function<void(DsaSpec&, const FieldValue&)> set;
};

FieldSpec f(const char* name, Q q, FieldRange r = FieldRange::Positive,
            const char* unit = nullptr) {
  FieldSpec s{name, q, r, {}, false};
  if (unit) s.units = {unit};
  return s;
}

const std::vector<DsaField>& dsa_fields() {
  using R = FieldRange;
  static const std::vector<DsaField> fields = {
      {f("topology", Q::Text), Need::Always, [](DsaSpec&, const FieldValue&) {}},
      {f("clusters", Q::Count), Need::Clusters,
       [](DsaSpec& d, const FieldValue& v) { d.clusters = as_int(v); }},
      {f("cores_per_cluster", Q::Count), Need::Clusters,
       [](DsaSpec& d, const FieldValue& v) { d.cores_per_cluster = as_int(v); }},
      {f("mesh_columns", Q::Count), Need::Mesh,
       [](DsaSpec& d, const FieldValue& v) { d.mesh_columns = as_int(v); }},
      {f("mesh_rows", Q::Count), Need::Mesh,
       [](DsaSpec& d, const FieldValue& v) { d.mesh_rows = as_int(v); }},
      {f("clock", Q::Frequency), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.clock_mhz = v.value; }},
      {f("datatype", Q::Text), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.datatype = v.text; }},
      {f("matrix_tile_rows", Q::Count), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.matrix_tile_rows = as_int(v); }},
      {f("matrix_tile_columns", Q::Count), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.matrix_tile_columns = as_int(v); }},
      {f("matrix_macs_per_cycle_int8", Q::MacsPerCycle, R::NonNegative), Need::Always, {}},
      {f("matrix_macs_per_cycle_fp16", Q::MacsPerCycle, R::NonNegative), Need::Always, {}},
      {f("dataflows", Q::Text), Need::Always, [](DsaSpec&, const FieldValue&) {}},
      {f("dataflow", Q::Text), Need::Always, [](DsaSpec&, const FieldValue&) {}},
      {f("fold_overhead", Q::Cycles, R::NonNegative), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.fold_overhead_cycles = v.value; }},
      {f("pe_weight_registers", Q::Count), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.pe_weight_registers = as_int(v); }},
      {f("pe_input_registers", Q::Count), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.pe_input_registers = as_int(v); }},
      {f("pe_output_registers", Q::Count), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.pe_output_registers = as_int(v); }},
      {f("partial_sum_bytes", Q::Bytes), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.partial_sum_bytes = static_cast<int>(v.value); }},
      {f("register_energy", Q::EnergyPerBit, R::NonNegative), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.register_pj_per_bit = v.value; }},
      {f("vector_lanes", Q::Count, R::NonNegative), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.vector_lanes = as_int(v); }},
      {f("task_overhead", Q::Cycles, R::NonNegative), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.task_overhead_cycles = v.value; }},
      {f("weights_stay", Q::Count, R::NonNegative), Need::Optional,
       [](DsaSpec& d, const FieldValue& v) { d.weights_stay = v.value == 1; }},
      {f("loads_wait_for_releases", Q::Count, R::NonNegative), Need::Optional,
       [](DsaSpec& d, const FieldValue& v) { d.loads_wait_for_releases = v.value == 1; }},
      {f("local_buffer_level", Q::Text), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.local_level = v.text; }},
      {f("local_buffer_size", Q::Bytes), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.local_bytes = static_cast<int64_t>(v.value); }},
      {f("local_buffer_ports", Q::Count), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.local_ports = as_int(v); }},
      {f("local_buffer_bandwidth", Q::BytesPerCycle), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.local_bytes_per_cycle = v.value; }},
      {f("local_buffer_energy", Q::EnergyPerBit), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.local_pj_per_bit = v.value; }},
      {f("global_buffer_level", Q::Text), Need::Clusters,
       [](DsaSpec& d, const FieldValue& v) { d.global_level = v.text; }},
      {f("global_buffer_size", Q::Bytes), Need::Clusters,
       [](DsaSpec& d, const FieldValue& v) { d.global_bytes = static_cast<int64_t>(v.value); }},
      {f("global_buffer_bandwidth", Q::BytesPerCycle), Need::Clusters,
       [](DsaSpec& d, const FieldValue& v) { d.global_bytes_per_cycle = v.value; }},
      {f("global_buffer_energy", Q::EnergyPerBit), Need::Clusters,
       [](DsaSpec& d, const FieldValue& v) { d.global_pj_per_bit = v.value; }},
      {f("dma_engines", Q::Count), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.dma_engines = as_int(v); }},
      {f("dma_bandwidth", Q::BytesPerCycle), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.dma_bytes_per_cycle = v.value; }},
      {f("dram_level", Q::Text), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.dram_level = v.text; }},
      {f("dram_size", Q::Bytes), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.dram_bytes = static_cast<int64_t>(v.value); }},
      {f("dram_bandwidth", Q::Bandwidth), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.dram_bandwidth_gbs = v.value; }},
      {f("dram_efficiency", Q::Ratio, R::Fraction), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.dram_efficiency = v.value; }},
      {f("dram_latency", Q::Cycles, R::NonNegative), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.dram_latency_cycles = v.value; }},
      {f("dram_energy", Q::EnergyPerBit), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.dram_pj_per_bit = v.value; }},
      {f("noc_routing", Q::Text), Need::Mesh, [](DsaSpec&, const FieldValue&) {}},
      {f("noc_link_bandwidth", Q::BytesPerCycle), Need::Mesh,
       [](DsaSpec& d, const FieldValue& v) { d.noc_link_bytes_per_cycle = v.value; }},
      {f("noc_hop_latency", Q::Cycles), Need::Mesh,
       [](DsaSpec& d, const FieldValue& v) { d.noc_hop_cycles = v.value; }},
      {f("noc_energy", Q::EnergyPerBitHop), Need::Mesh,
       [](DsaSpec& d, const FieldValue& v) { d.noc_pj_per_bit_hop = v.value; }},
      {f("mac_energy", Q::Energy), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.mac_pj = v.value; }},
      {f("static_power_per_unit", Q::Power, R::NonNegative), Need::Always,
       [](DsaSpec& d, const FieldValue& v) { d.static_mw_per_unit = v.value; }},
  };
  return fields;
}

DsaDataflow dataflow_from(const std::string& s, const std::string& where) {
  if (s == "kc") return DsaDataflow::KC;
  if (s == "yx") return DsaDataflow::YX;
  throw Error(where + ": dataflow '" + s + "' is not known (expected kc or yx)");
}

}  // namespace

std::string_view dsa_dataflow_name(DsaDataflow d) {
  return d == DsaDataflow::KC ? "kc" : "yx";
}

DsaSpec parse_dsa_spec(const std::string& json_text, const std::string& origin) {
  const json j = parse_config_json(json_text, origin);
  if (!j.is_object()) throw Error(origin + ": expected a JSON object at the top level");
  static const std::set<std::string> top = {"name", "kind", "description", "notes", "fields"};
  for (const auto& [k, v] : j.items()) {
    (void)v;
    if (!top.count(k))
      throw Error(origin + ": unknown top-level key '" + k +
                  "' (expected name, kind, description, notes, fields)");
  }
  if (!j.contains("kind") || j["kind"] != "dsa")
    throw Error(origin + ": kind is not \"dsa\" (expected \"dsa\")");
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
    throw Error(origin + ": missing \"name\" (a non-empty string)");
  if (!j.contains("fields") || !j["fields"].is_object())
    throw Error(origin + ": missing \"fields\" (an object)");
  const json& fields = j["fields"];

  std::vector<FieldSpec> specs;
  for (const DsaField& x : dsa_fields()) specs.push_back(x.spec);
  const std::map<std::string, FieldValue> values = read_fields(specs, fields, origin);
  auto field = [&](const std::string& name) { return origin + ": field '" + name + "'"; };
  if (!values.count("topology")) throw Error(field("topology") + ": missing");
  const std::string topo = values.at("topology").text;
  if (topo != "clusters" && topo != "mesh")
    throw Error(field("topology") + ": '" + topo + "' is not known (expected clusters or mesh)");
  DsaSpec d;
  d.name = j["name"].get<std::string>();
  d.file = origin;
  d.topology = topo == "mesh" ? DsaTopology::Mesh : DsaTopology::Clusters;
  for (const DsaField& x : dsa_fields()) {
    const bool wanted = x.need == Need::Always || x.need == Need::Optional ||
                        (x.need == Need::Clusters && d.topology == DsaTopology::Clusters) ||
                        (x.need == Need::Mesh && d.topology == DsaTopology::Mesh);
    const auto it = values.find(x.spec.name);
    if (it == values.end()) {
      if (wanted && x.need != Need::Optional)
        throw Error(field(x.spec.name) + ": missing (topology '" + topo + "' needs it)");
      continue;
    }
    if (!wanted) throw Error(field(x.spec.name) + ": not a field of topology '" + topo + "'");
    if (x.set) x.set(d, it->second);
    d.sources[x.spec.name] = it->second.source;
  }
  // Flags: 1 (on) or 0 (off).
  for (const char* flag : {"weights_stay", "loads_wait_for_releases"}) {
    const auto it = values.find(flag);
    if (it != values.end() && it->second.value != 0 && it->second.value != 1)
      throw Error(field(flag) + ": value " +
                  std::to_string(static_cast<int64_t>(it->second.value)) +
                  " is not 0 or 1 (a flag: 1 = on, 0 = off)");
  }
  if (d.topology == DsaTopology::Mesh) {
    d.clusters = 1;
    d.cores_per_cluster = d.mesh_columns * d.mesh_rows;
    if (values.at("noc_routing").text != "xy")
      throw Error(field("noc_routing") + ": '" + values.at("noc_routing").text +
                  "' is not supported (expected xy)");
  }
  if (d.datatype == "int8") {
    d.element_bytes = 1;
    d.matrix_macs_per_cycle = values.at("matrix_macs_per_cycle_int8").value;
  } else if (d.datatype == "fp16") {
    d.element_bytes = 2;
    d.matrix_macs_per_cycle = values.at("matrix_macs_per_cycle_fp16").value;
  } else {
    throw Error(field("datatype") + ": '" + d.datatype + "' is not known (expected int8 or fp16)");
  }
  // "kc,yx": the supported dataflows; "dataflow": one of them.
  std::string list = values.at("dataflows").text;
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    d.dataflows.push_back(dataflow_from(list.substr(at, comma - at), field("dataflows")));
    at = comma + 1;
  }
  d.dataflow = dataflow_from(values.at("dataflow").text, field("dataflow"));
  if (std::find(d.dataflows.begin(), d.dataflows.end(), d.dataflow) == d.dataflows.end())
    throw Error(field("dataflow") + ": '" + values.at("dataflow").text +
                "' is not among 'dataflows' (" + list + ")");
  const double array = static_cast<double>(d.matrix_tile_rows) * d.matrix_tile_columns;
  if (d.matrix_macs_per_cycle > 0 &&
      (d.matrix_macs_per_cycle < array ||
       d.matrix_macs_per_cycle / array != std::floor(d.matrix_macs_per_cycle / array)))
    throw Error(field("matrix_macs_per_cycle_" + d.datatype) + ": " +
                std::to_string(static_cast<int64_t>(d.matrix_macs_per_cycle)) +
                " MAC/cycle is not a whole multiple of matrix_tile_rows x matrix_tile_columns (" +
                std::to_string(static_cast<int64_t>(array)) + ")");
  if (d.matrix_macs_per_cycle == 0 && d.vector_lanes == 0)
    throw Error(field("vector_lanes") + ": 0 and no matrix unit either (a core computes nothing)");
  if (d.topology == DsaTopology::Clusters && d.local_bytes > d.global_bytes)
    throw Error(field("local_buffer_size") + ": larger than 'global_buffer_size'");
  if (d.local_bytes > d.dram_bytes)
    throw Error(field("local_buffer_size") + ": larger than 'dram_size'");
  return d;
}

DsaSpec load_dsa_spec(const std::string& name_or_path) {
  const HardwareConfigText c = read_hardware_config(name_or_path);
  return parse_dsa_spec(c.text, c.origin);
}

DsaSpec dsa_with_mesh(const DsaSpec& base, int columns, int rows, int pe_rows, int pe_columns) {
  if (base.topology != DsaTopology::Mesh)
    throw Error(base.file + ": dsa_with_mesh needs a mesh config");
  if (columns < 1 || rows < 1 || pe_rows < 1 || pe_columns < 1)
    throw Error(base.file + ": dsa_with_mesh needs positive mesh and PE array sizes");
  DsaSpec d = base;
  const double per_pe =
      base.matrix_macs_per_cycle / (base.matrix_tile_rows * base.matrix_tile_columns);
  d.mesh_columns = columns;
  d.mesh_rows = rows;
  d.cores_per_cluster = columns * rows;
  d.matrix_tile_rows = pe_rows;
  d.matrix_tile_columns = pe_columns;
  d.matrix_macs_per_cycle = per_pe * pe_rows * pe_columns;
  d.name = base.name + " " + std::to_string(columns) + "x" + std::to_string(rows) + " engines of " +
           std::to_string(pe_rows) + "x" + std::to_string(pe_columns) + " PEs";
  for (const char* k : {"mesh_columns", "mesh_rows", "matrix_tile_rows", "matrix_tile_columns"})
    d.sources[k] = "derived: dsa_with_mesh from " + base.file;
  return d;
}

DsaSpec dsa_with_local_bytes(const DsaSpec& base, int64_t bytes) {
  if (bytes < 1) throw Error(base.file + ": dsa_with_local_bytes needs a positive size");
  DsaSpec d = base;
  d.local_bytes = bytes;
  d.name = base.name + " " + std::to_string(bytes / 1024) + " KiB " + base.local_level;
  d.sources["local_buffer_size"] = "derived: dsa_with_local_bytes from " + base.file;
  return d;
}

DsaSpec dsa_with_dataflow(const DsaSpec& base, DsaDataflow dataflow) {
  if (std::find(base.dataflows.begin(), base.dataflows.end(), dataflow) == base.dataflows.end())
    throw Error(base.file + ": dataflow '" + std::string(dsa_dataflow_name(dataflow)) +
                "' is not supported by " + base.name);
  DsaSpec d = base;
  d.dataflow = dataflow;
  d.name = base.name + " (" + std::string(dsa_dataflow_name(dataflow)) + ")";
  d.sources["dataflow"] = "derived: dsa_with_dataflow from " + base.file;
  return d;
}

}  // namespace dgs
