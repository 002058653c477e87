// Tests of the GPU config loader (common/hw) and the built-in configs (hw_configs/*.json).
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/error_of.h"

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/hw/hardware.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {
namespace {

using nlohmann::json;
constexpr int64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;

json builtin_json(const std::string& name) {
  return json::parse(*builtin_resource("hw_configs/" + name + ".json"));
}

// Parses the built-in V100 config after `edit` changed it.
std::string error_after(const std::function<void(json&)>& edit) {
  json j = builtin_json("v100");
  edit(j);
  return error_of([&] { parse_gpu_spec(j.dump(2), "edited.json"); });
}

TEST(GpuConfigs, EveryBuiltinLoadsWithASourcePerField) {
  const std::vector<std::string> names = builtin_gpu_names();
  for (const char* expected :
       {"a100", "h100", "h200", "k80", "rtx2080ti", "rtx3090", "v100", "v100_pcie"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  for (const std::string& name : names) {
    const GpuSpec g = load_gpu_spec(name);
    EXPECT_EQ(g.file, "hw_configs/" + name + ".json");
    // every field has a source (device_name is optional: not on a GPU without CUDA)
    EXPECT_EQ(g.sources.size(), 25u + (g.device_names.empty() ? 0u : 1u) + g.efficiency.size())
        << name;
    for (const auto& [field, source] : g.sources)
      EXPECT_FALSE(source.empty()) << name << " " << field;
    // Peak FP32 lies between 64 and 192 FP32 lanes x 2 FLOP per clock per SM (Volta/Turing/
    // GA100 have 64 lanes, GA102 and Hopper 128, Kepler's SMX 192).
    EXPECT_LE(g.peak_fp32_tflops, g.sm_count * 192 * 2 * g.core_clock_mhz * 1e-6 * 1.001) << name;
    EXPECT_GT(g.peak_fp32_tflops, g.sm_count * 64 * 2 * g.core_clock_mhz * 1e-6 * 0.99) << name;
    EXPECT_EQ(g.max_warps_per_sm * g.warp_size, g.max_threads_per_sm);
    EXPECT_LE(g.shared_mem_per_block, g.shared_mem_per_sm);
  }
}

TEST(GpuConfigs, V100MatchesTheWhitepaper) {
  const GpuSpec g = load_gpu_spec("V100");  // names are case-insensitive
  EXPECT_EQ(g.name, "V100");
  EXPECT_EQ(g.architecture, "Volta");
  EXPECT_EQ(g.compute_capability, 70);
  EXPECT_EQ(g.sm_count, 80);
  EXPECT_EQ(g.core_clock_mhz, 1530);
  EXPECT_EQ(g.max_threads_per_sm, 2048);
  EXPECT_EQ(g.registers_per_sm, 65536);
  EXPECT_EQ(g.shared_mem_per_sm, 96 * kKiB);
  EXPECT_EQ(g.dram_bytes, 16 * kGiB);
  EXPECT_EQ(g.l2_bytes, 6 * kMiB);
  EXPECT_EQ(g.dram_bandwidth_gbs, 900);
  EXPECT_EQ(g.peak_fp32_tflops, 15.7);
  EXPECT_EQ(g.transaction_bytes, 32);
  // 5120 FP32 cores x 2 FLOP x 1.53 GHz = 15.67 TFLOPS.
  EXPECT_NEAR(g.sm_count * 64 * 2 * g.core_clock_mhz * 1e-6, g.peak_fp32_tflops, 0.05);
}

TEST(GpuConfigs, SpecificsOfOtherMachines) {
  EXPECT_EQ(load_gpu_spec("k80").peak_tensor_tflops, 0);  // Kepler has no tensor cores
  EXPECT_EQ(load_gpu_spec("k80").registers_per_sm, 131072);
  EXPECT_EQ(load_gpu_spec("a100").l2_bytes, 40 * kMiB);  // BrickDL §4: 40 MB L2
  EXPECT_EQ(load_gpu_spec("a100").sm_count, 108);        // BrickDL §4: 108 SMs
  EXPECT_EQ(load_gpu_spec("rtx3090").sm_count, 82);
  EXPECT_EQ(load_gpu_spec("rtx2080ti").max_threads_per_sm, 1024);
  EXPECT_EQ(load_gpu_spec("h100").shared_mem_per_sm, 228 * kKiB);
  EXPECT_EQ(hardware_config_kind("v100"), "gpu");
}

TEST(GpuConfigs, BrokenConfigsGiveOneLineNamingFileAndField) {
  EXPECT_EQ(error_after([](json& j) { j["fields"].erase("sm_count"); }),
            "edited.json: field 'sm_count': missing");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["dram_bandwidth_gbs"]["unit"] = "MB/s"; }),
            "edited.json: field 'dram_bandwidth_gbs': unit 'MB/s' is wrong (expected GB/s)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["sm_count"]["value"] = "80"; }),
            "edited.json: field 'sm_count': expected an integer, got string \"80\"");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["sm_count"]["value"] = 80.5; }),
            "edited.json: field 'sm_count': expected an integer, got number");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["sm_count"]["value"] = 0; }),
            "edited.json: field 'sm_count': value 0 out of range (expected a positive count)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["compute_capability"]["value"] = -1; }),
            "edited.json: field 'compute_capability': value -1 out of range (expected a "
            "non-negative count)");
  EXPECT_EQ(
      error_after([](json& j) { j["fields"]["peak_fp32_tflops"]["value"] = -1; }),
      "edited.json: field 'peak_fp32_tflops': value -1 out of range (expected a positive number)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["l2_bytes"]["unit"] = "MB"; }),
            "edited.json: field 'l2_bytes': unit 'MB' is not a size unit (expected bytes, KiB, MiB "
            "or GiB)");
  EXPECT_EQ(
      error_after([](json& j) {
        j["fields"]["l2_bytes"]["unit"] = "bytes";
        j["fields"]["l2_bytes"]["value"] = 1.5;
      }),
      "edited.json: field 'l2_bytes': value 1.5 bytes is not a positive whole number of bytes");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["sm_count"].erase("source"); }),
            "edited.json: field 'sm_count': missing 'source' (a datasheet, a paper, or "
            "\"assumption: <reason>\")");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["sm_count"]["unit"] = "SMs"; }),
            "edited.json: field 'sm_count': unexpected unit 'SMs' (a count has no unit)");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["kernel_launch_us"].erase("unit"); }),
            "edited.json: field 'kernel_launch_us': missing 'unit' (expected us)");
  EXPECT_EQ(
      error_after([](json& j) { j["fields"]["sm_cuont"] = j["fields"]["sm_count"]; }).substr(0, 44),
      "edited.json: unknown field 'sm_cuont' (expec");
  EXPECT_EQ(error_after([](json& j) { j["kind"] = "dsa"; }),
            "edited.json: kind 'dsa' is not a GPU config (expected \"gpu\")");
  EXPECT_EQ(error_after([](json& j) {
              j["efficiency"]["dram"] = {{"value", "high"}, {"source", "x"}};
            }),
            "edited.json: efficiency 'dram': expected a number, got string \"high\"");
  EXPECT_EQ(error_after([](json& j) { j["fields"]["max_warps_per_sm"]["value"] = 32; }),
            "edited.json: fields 'max_warps_per_sm' x 'warp_size' must equal 'max_threads_per_sm'");
  EXPECT_EQ(error_of([] { parse_gpu_spec("{\"name\": ", "cut.json"); }).substr(0, 25),
            "cut.json: not valid JSON:");
}

TEST(GpuConfigs, SizesAreConvertedFromTheirUnit) {
  json j = builtin_json("v100");
  j["fields"]["l2_bytes"] = {{"value", 6291456}, {"unit", "bytes"}, {"source", "s"}};
  j["fields"]["shared_mem_per_sm"] = {{"value", 0.09375}, {"unit", "MiB"}, {"source", "s"}};
  j["efficiency"]["dram"] = {{"value", 0.8}, {"source", "assumption: test"}};
  const GpuSpec g = parse_gpu_spec(j.dump(), "sizes.json");
  EXPECT_EQ(g.l2_bytes, 6 * kMiB);
  EXPECT_EQ(g.shared_mem_per_sm, 96 * kKiB);
  EXPECT_EQ(g.efficiency_or("dram", 1.0), 0.8);
  EXPECT_EQ(g.efficiency_or("absent", 0.5), 0.5);
  EXPECT_EQ(g.sources.at("efficiency.dram"), "assumption: test");
}

TEST(GpuConfigs, UserFileOnDiskOverridesTheBuiltin) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("dgs_hw_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  json j = builtin_json("v100");
  j["name"] = "V100-half";
  j["fields"]["sm_count"]["value"] = 40;
  const std::string path = (dir / "v100.json").string();
  write_file_atomic(path, j.dump(2));
  const GpuSpec g = load_gpu_spec(path);
  EXPECT_EQ(g.sm_count, 40);
  EXPECT_EQ(g.name, "V100-half");
  EXPECT_EQ(g.file, path);
  EXPECT_EQ(load_gpu_spec("v100").sm_count, 80);  // the name still means the built-in one
  std::filesystem::remove_all(dir);
}

TEST(GpuConfigs, UnknownNamesAndMissingFilesAreErrors) {
  const std::string msg = error_of([] { load_gpu_spec("v200"); });
  EXPECT_EQ(msg.rfind("no built-in hardware config 'v200' (built-in: a100, ", 0), 0u) << msg;
  EXPECT_EQ(error_of([] { load_gpu_spec("/nonexistent/gpu.json"); }),
            "no hardware config file /nonexistent/gpu.json (and no built-in one at that path)");
  // A path relative to the source root falls back to the built-in copy from any directory.
  EXPECT_EQ(load_gpu_spec("hw_configs/a100.json").sm_count, 108);
}

}  // namespace
}  // namespace dgs
