// Choosing the built-in config of the live GPU from what the CUDA runtime reports (fake devices).
#include "common/hw/live_gpu.h"

#include <gtest/gtest.h>

#include "common/hw/hardware.h"

namespace dgs {
namespace {

TEST(LiveGpu, AnH200IsTheH200Config) {
  const LiveGpuMatch m = match_live_gpu({"NVIDIA H200", 132, 90, 150754820096});
  EXPECT_EQ(m.config, "h200") << m.why;
  EXPECT_EQ(m.why, "the live GPU 'NVIDIA H200' is hw_configs/h200.json (132 SMs, sm_90)");
}

TEST(LiveGpu, NamesCompareWithoutCaseAndSurroundingSpaces) {
  EXPECT_EQ(match_live_gpu({"  nvidia h100 80gb hbm3 ", 132, 90, 0}).config, "h100");
  EXPECT_EQ(match_live_gpu({"Tesla V100-PCIE-32GB", 80, 70, 0}).config, "v100_pcie");
  EXPECT_EQ(match_live_gpu({"Tesla V100-SXM2-16GB", 80, 70, 0}).config, "v100");
}

TEST(LiveGpu, APcieH100IsNotTheSxm5Config) {
  const LiveGpuMatch m = match_live_gpu({"NVIDIA H100 PCIe", 114, 90, 0});
  EXPECT_EQ(m.config, "");
  EXPECT_NE(m.why.find("no built-in GPU config matches the live GPU 'NVIDIA H100 PCIe' (114 SMs, "
                       "sm_90)"),
            std::string::npos)
      << m.why;
}

TEST(LiveGpu, AConfigWhoseNumbersDisagreeIsRefused) {
  // The name of the H200 config, but another SM count (e.g. a partitioned device).
  const LiveGpuMatch m = match_live_gpu({"NVIDIA H200", 66, 90, 0});
  EXPECT_EQ(m.config, "");
  EXPECT_NE(m.why.find("h200 names it but says 132 SMs, the device has 66"), std::string::npos)
      << m.why;
  const LiveGpuMatch c = match_live_gpu({"NVIDIA H200", 132, 100, 0});
  EXPECT_NE(c.why.find("h200 names it but says compute capability 90, the device has 100"),
            std::string::npos)
      << c.why;
}

TEST(LiveGpu, DeviceNameAlternativesAreRead) {
  const GpuSpec v = load_gpu_spec("v100");
  EXPECT_EQ(v.device_names,
            (std::vector<std::string>{"Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB"}));
  EXPECT_TRUE(load_gpu_spec("mi50").device_names.empty());  // not a CUDA device
}

TEST(LiveGpu, TheH200ConfigIsTheH100DieWithHbm3e) {
  const GpuSpec h200 = load_gpu_spec("h200");
  const GpuSpec h100 = load_gpu_spec("h100");
  EXPECT_EQ(h200.sm_count, h100.sm_count);
  EXPECT_EQ(h200.core_clock_mhz, h100.core_clock_mhz);
  EXPECT_EQ(h200.l2_bytes, h100.l2_bytes);
  EXPECT_EQ(h200.dram_bandwidth_gbs, 4800);
  EXPECT_EQ(h200.dram_bytes, int64_t{141000000000});
  for (const auto& [field, source] : h200.sources) EXPECT_FALSE(source.empty()) << field;
}

}  // namespace
}  // namespace dgs
