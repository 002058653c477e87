// IOS measured mode without a GPU: the measured stage cost refuses in one line (it never
// invents a number), and the executor is configured with the artifact's constants. With a GPU
// the CUDA tests (tests/cuda) cover the executor itself.
#include <gtest/gtest.h>

#include <string>

#include "common/cuda/device.h"
#include "models/zoo.h"
#include "reproductions/ios/experiments/measured.h"
#include "reproductions/ios/network.h"

namespace dgs::ios {
namespace {

TEST(IosMeasured, StageCostRefusesInOneLineWithoutAGpu) {
  std::string why;
  if (cuda_gpu_available(&why)) GTEST_SKIP() << "a GPU is present; tests/cuda cover this path";
  const Graph g = build_zoo_model("ios_fig1_2", ZooOptions{});
  const Network net = make_network(g, PartRule::Blocks);
  try {
    MeasuredIosStageCost cost(net, 1);
    FAIL() << "a measured stage cost was built without a GPU";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_FALSE(msg.empty());
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

// The executor runs with the IOS artifact's runtime constants, not the stage executor's generic
// defaults (research/ios.md §2.3-2.4: 10 contexts of 128 MiB workspace, warmup 2, repeat 6 of 6).
TEST(IosMeasured, ExecutorOptionsAreTheArtifacts) {
  const gpu::StageExecutorOptions o = ios_executor_options(42);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(o.max_streams, 10);
  EXPECT_EQ(o.workspace_bytes, size_t{128} * 1024 * 1024);
  EXPECT_EQ(o.timing.warmup, 2);
  EXPECT_EQ(o.timing.repeats, 6);
  EXPECT_EQ(o.timing.number, 6);
  EXPECT_FALSE(o.allow_tf32);
  EXPECT_TRUE(o.fuse_conv_relu);
  EXPECT_EQ(gpu::StageExecutorOptions{}.max_streams, 0);  // generic default: no limit
  // The DP's stage measurements: shortened by default, the artifact's with --full-protocol.
  const gpu::StageExecutorOptions search = ios_executor_options(42, true);
  EXPECT_EQ(search.timing.warmup, 1);
  EXPECT_EQ(search.timing.repeats, 3);
  EXPECT_EQ(search.timing.number, 3);
  EXPECT_EQ(ios_executor_options(42, true, true).timing.repeats, 6);
  EXPECT_EQ(ios_executor_options(42, true, true).timing.number, 6);
}

}  // namespace
}  // namespace dgs::ios
