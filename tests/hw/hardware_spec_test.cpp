// Tests of the hardware description dispatched on a config's kind (common/hw/hardware_spec.h).
#include "common/hw/hardware_spec.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/error_of.h"

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {
namespace {

using nlohmann::json;

TEST(HardwareSpec, AGpuConfigNamesItsLevelsAndUnits) {
  const HardwareSpec h = load_hardware("v100");
  EXPECT_EQ(h.kind, "gpu");
  EXPECT_EQ(h.name, "V100");
  EXPECT_EQ(h.file, "hw_configs/v100.json");
  EXPECT_EQ(h.memory_levels,
            (std::vector<std::string>{"register", "shared", "l2", "dram", "host"}));
  EXPECT_TRUE(h.has_memory_level("l2"));
  EXPECT_FALSE(h.has_memory_level("gb"));
  EXPECT_EQ(h.unit_kinds(), (std::vector<std::string>{"stream", "sm"}));
  EXPECT_EQ(h.unit_count("sm"), 80);
  EXPECT_EQ(h.unit_count("stream"), PlacementUnit::kUnbounded);
  EXPECT_FALSE(h.unit_count("core").has_value());
  ASSERT_TRUE(h.gpu.has_value());
  EXPECT_EQ(h.gpu->sm_count, 80);
  EXPECT_EQ(known_hardware_kinds(), (std::vector<std::string>{"gpu", "dsa"}));
}

TEST(HardwareSpec, EveryBuiltinGpuLoadsAsByLoadGpuSpec) {
  for (const std::string& name : builtin_gpu_names()) {
    const HardwareSpec h = load_hardware(name);
    const GpuSpec g = load_gpu_spec(name);
    ASSERT_TRUE(h.gpu.has_value()) << name;
    EXPECT_EQ(h.name, g.name);
    EXPECT_EQ(h.unit_count("sm"), g.sm_count) << name;
    EXPECT_EQ(h.gpu->sources, g.sources) << name;
    EXPECT_EQ(h.gpu->efficiency, g.efficiency) << name;
    EXPECT_EQ(h.gpu->dram_bandwidth_gbs, g.dram_bandwidth_gbs) << name;
    EXPECT_EQ(h.gpu->l2_bytes, g.l2_bytes) << name;
  }
}

TEST(HardwareSpec, KindsWithoutADescriptionAreOneLineErrors) {
  EXPECT_EQ(error_of([] {
              parse_hardware(R"({"name": "tpu", "kind": "tpu", "fields": {}})", "acc.json");
            }),
            "acc.json: kind 'tpu' is not known (known kinds: gpu, dsa)");
  EXPECT_EQ(error_of([] { parse_hardware(R"({"name": "x"})", "x.json"); }),
            "x.json: missing \"kind\" (expected one of: gpu, dsa)");
  EXPECT_EQ(error_of([] { parse_hardware("[1, 2]", "x.json"); }),
            "x.json: missing \"kind\" (expected one of: gpu, dsa)");
  EXPECT_EQ(error_of([] { parse_hardware("{", "cut.json"); }).rfind("cut.json: not valid JSON:", 0),
            0u);
  // A file on disk: the message names its path.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dgs_hardware_spec_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "mesh.json").string();
  write_file_atomic(path, R"({"name": "mesh", "kind": "mesh_accelerator", "fields": {}})");
  EXPECT_EQ(error_of([&] { load_hardware(path); }),
            path + ": kind 'mesh_accelerator' is not known (known kinds: gpu, dsa)");
  std::filesystem::remove_all(dir);
}

TEST(HardwareSpec, TheGpuLoadersErrorsPassThrough) {
  json j = json::parse(*builtin_resource("hw_configs/v100.json"));
  j["fields"]["sm_count"]["value"] = 0;
  EXPECT_EQ(error_of([&] { parse_hardware(j.dump(), "edited.json"); }),
            "edited.json: field 'sm_count': value 0 out of range (expected a positive count)");
}

}  // namespace
}  // namespace dgs
