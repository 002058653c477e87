// IOS measured mode without a GPU: the measured stage cost refuses in one line (it never
// invents a number). With a GPU the CUDA tests (tests/cuda) cover the executor itself.
#include <gtest/gtest.h>

#include <string>

#include "common/cuda/device.h"
#include "models/zoo.h"
#include "reproductions/ios/measured.h"
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

}  // namespace
}  // namespace dgs::ios
