// Tests of the DSA config loader (common/hw/dsa_spec.h) and the built-in DSA configs.
#include "common/hw/dsa_spec.h"

#include <gtest/gtest.h>

#include "tests/error_of.h"

#include <nlohmann/json.hpp>

#include "common/hw/hardware_spec.h"
#include "common/util/resources.h"

namespace dgs {
namespace {

using nlohmann::json;

TEST(DsaSpec, Stcp920IsThePapersMachine) {
  const DsaSpec d = load_dsa_spec("stcp920");
  EXPECT_EQ(d.topology, DsaTopology::Clusters);
  EXPECT_EQ(d.clusters, 4);
  EXPECT_EQ(d.cores_per_cluster, 8);
  EXPECT_EQ(d.units(), 32);
  EXPECT_EQ(d.local_bytes, 64 * 1024);
  EXPECT_EQ(d.global_bytes, 8 * 1024 * 1024);
  EXPECT_EQ(d.dram_bandwidth_gbs, 136);
  EXPECT_EQ(d.clock_mhz, 1000);
  EXPECT_EQ(d.element_bytes, 2);
  EXPECT_EQ(d.matrix_macs_per_cycle, 2048);  // fp16
  EXPECT_DOUBLE_EQ(d.dram_bytes_per_cycle(), 136);
  const HardwareSpec h = load_hardware("stcp920");
  EXPECT_EQ(h.kind, "dsa");
  EXPECT_EQ(h.memory_levels, (std::vector<std::string>{"l1", "llb", "ddr"}));
  EXPECT_EQ(h.unit_kinds(), (std::vector<std::string>{"cluster", "core"}));
  EXPECT_EQ(h.unit_count("core"), 32);
  EXPECT_EQ(h.units[1].extents, (std::vector<int64_t>{4, 8}));
}

TEST(DsaSpec, AtomicMeshAndPrototype) {
  const DsaSpec m = load_dsa_spec("atomic_mesh");
  EXPECT_EQ(m.topology, DsaTopology::Mesh);
  EXPECT_EQ(m.mesh_columns * m.mesh_rows, 64);
  EXPECT_EQ(m.units(), 64);
  EXPECT_EQ(m.matrix_tile_rows * m.matrix_tile_columns, 256);
  EXPECT_EQ(m.local_bytes, 128 * 1024);
  EXPECT_EQ(m.local_bandwidth(), 8);  // a 64-bit port
  EXPECT_EQ(m.clock_mhz, 500);
  EXPECT_DOUBLE_EQ(m.dram_bytes_per_cycle(), 256);  // 128 GB/s at 500 MHz
  EXPECT_EQ(m.noc_pj_per_bit_hop, 0.61);
  EXPECT_EQ(m.dram_pj_per_bit, 7);
  EXPECT_EQ(m.dataflows, (std::vector<DsaDataflow>{DsaDataflow::KC, DsaDataflow::YX}));
  const HardwareSpec h = load_hardware("atomic_mesh");
  EXPECT_EQ(h.memory_levels, (std::vector<std::string>{"sram", "hbm"}));
  EXPECT_EQ(h.unit_kinds(), std::vector<std::string>{"engine"});
  EXPECT_EQ(h.units[0].extents, (std::vector<int64_t>{8, 8}));
  const DsaSpec p = load_dsa_spec("atomic_prototype");
  EXPECT_EQ(p.units(), 4);
  EXPECT_EQ(p.matrix_macs_per_cycle, 1024);
  EXPECT_EQ(p.clock_mhz, 600);
  EXPECT_EQ(p.datatype, "int8");
}

// The Atomic configs keep every buffer within its capacity at every moment; STCP920 (GraphTurbo)
// keeps the default.
TEST(DsaSpec, LoadsWaitForReleasesOnTheAtomicConfigsOnly) {
  EXPECT_TRUE(load_dsa_spec("atomic_mesh").loads_wait_for_releases);
  EXPECT_TRUE(load_dsa_spec("atomic_prototype").loads_wait_for_releases);
  EXPECT_FALSE(load_dsa_spec("stcp920").loads_wait_for_releases);
}

TEST(DsaSpec, EveryValueHasASource) {
  for (const char* name : {"stcp920", "atomic_mesh", "atomic_prototype"}) {
    const DsaSpec d = load_dsa_spec(name);
    const json j = json::parse(*builtin_resource("hw_configs/" + std::string(name) + ".json"));
    EXPECT_EQ(d.sources.size(), j["fields"].size()) << name;
    for (const auto& [field, source] : d.sources) EXPECT_FALSE(source.empty()) << name << field;
  }
}

TEST(DsaSpec, SweepsAreDerivedFromOneSpec) {
  const DsaSpec m = load_dsa_spec("atomic_mesh");
  const DsaSpec four = dsa_with_mesh(dsa_with_local_bytes(m, 512 * 1024), 4, 4, 32, 32);
  EXPECT_EQ(four.units(), 16);
  EXPECT_EQ(four.matrix_macs_per_cycle * four.units(), m.matrix_macs_per_cycle * m.units());
  EXPECT_EQ(four.local_bytes * four.units(), m.local_bytes * m.units());  // 8 MiB in all
  EXPECT_EQ(four.sources.at("mesh_columns"),
            "derived: dsa_with_mesh from hw_configs/atomic_mesh.json");
  EXPECT_EQ(dsa_with_dataflow(m, DsaDataflow::YX).dataflow, DsaDataflow::YX);
  EXPECT_EQ(error_of([] { dsa_with_dataflow(load_dsa_spec("stcp920"), DsaDataflow::YX); }),
            "hw_configs/stcp920.json: dataflow 'yx' is not supported by STCP920");
}

// The error of parsing atomic_mesh.json after `edit`.
std::string error_after(const std::function<void(json&)>& edit) {
  json j = json::parse(*builtin_resource("hw_configs/atomic_mesh.json"));
  edit(j);
  return error_of([&] { parse_dsa_spec(j.dump(), "mesh.json"); });
}

TEST(DsaSpec, BadConfigsAreOneLineNamingFileAndField) {
  EXPECT_EQ(error_after([](json&) {}), "<no error>");
  EXPECT_EQ(error_after([](json& j) { j["fields"].erase("clock"); }),
            "mesh.json: field 'clock': missing (topology 'mesh' needs it)");
  EXPECT_EQ(error_after([](json& j) { j["fields"].erase("noc_energy"); }),
            "mesh.json: field 'noc_energy': missing (topology 'mesh' needs it)");
  // Flags are 0 or 1.
  EXPECT_EQ(error_after([](json& j) { j["fields"]["weights_stay"]["value"] = 2; }),
            "mesh.json: field 'weights_stay': value 2 is not 0 or 1 (a flag: 1 = on, 0 = off)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["loads_wait_for_releases"]["value"] = 7; }),
            "mesh.json: field 'loads_wait_for_releases': value 7 is not 0 or 1 (a flag: 1 = on, "
            "0 = off)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["weights_stay"]["value"] = 0; }), "<no error>");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["clock"]["unit"] = "cycles"; }),
            "mesh.json: field 'clock': unit 'cycles' is wrong (expected MHz or GHz)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["noc_energy"]["unit"] = "pJ/bit"; }),
            "mesh.json: field 'noc_energy': unit 'pJ/bit' is wrong (expected pJ/bit/hop)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["local_buffer_size"]["value"] = -1; }),
            "mesh.json: field 'local_buffer_size': value -1 KiB is not a positive whole number "
            "of bytes");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["dram_efficiency"]["value"] = 1.5; }),
            "mesh.json: field 'dram_efficiency': value 1.5 out of range (expected a number from "
            "0 to 1)");
  EXPECT_EQ(error_after([](json& j) {
              j["fields"]["dataflows"]["value"] = "kc";
              j["fields"]["dataflow"]["value"] = "yx";
            }),
            "mesh.json: field 'dataflow': 'yx' is not among 'dataflows' (kc)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["matrix_macs_per_cycle_int8"]["value"] = 300; }),
            "mesh.json: field 'matrix_macs_per_cycle_int8': 300 MAC/cycle is not a whole multiple "
            "of matrix_tile_rows x matrix_tile_columns (256)");
  EXPECT_EQ(error_after([](json& j) {
              j["fields"]["local_buffer_size"]["value"] = 8;
              j["fields"]["local_buffer_size"]["unit"] = "GiB";
            }),
            "mesh.json: field 'local_buffer_size': larger than 'dram_size'");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["noc_routing"]["value"] = "yx"; }),
            "mesh.json: field 'noc_routing': 'yx' is not supported (expected xy)");
  EXPECT_EQ(error_after([](json& j) {
              j["fields"]["clusters"] = {{"value", 2}, {"source", "x"}};
            }),
            "mesh.json: field 'clusters': not a field of topology 'mesh'");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["clock"].erase("source"); }),
            "mesh.json: field 'clock': missing 'source' (a datasheet, a paper, or \"assumption: "
            "<reason>\")");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["mesh_rows"]["value"] = 0; }),
            "mesh.json: field 'mesh_rows': value 0 out of range (expected a positive count)");
}

}  // namespace
}  // namespace dgs
