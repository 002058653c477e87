// IOS's operator counts (thesis Table 4.1) from the generic layer grouping.
#include "reproductions/ios/operator_count.h"

#include <gtest/gtest.h>

#include "models/zoo.h"

namespace dgs::ios {
namespace {

// IOS thesis Table 4.1: 119 operators in Inception V3, 50 in SqueezeNet.
TEST(IosOperatorCount, ZooNetworksMatchTheThesisTable) {
  EXPECT_EQ(ios_operator_count(build_zoo_model("inception_v3")), 119);
  EXPECT_EQ(ios_operator_count(build_zoo_model("squeezenet")), 50);
  // RandWire (the authors' graphs): IOS's conventions for sums, its nodes' input sums are part
  // of the Relu-SepConv unit, the stage exits (the authors' Identity nodes) are sum units, the tail
  // Relu stands alone.
  EXPECT_EQ(ios_operator_count(build_zoo_model("randwire"), ios_sum_node_options()), 120);
}

}  // namespace
}  // namespace dgs::ios
