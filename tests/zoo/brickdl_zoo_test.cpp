// BrickDL's networks in the zoo: the 3-D proxies' shapes at default and reduced sizes, the conv
// counts of the 3-D ResNet-34, DarkNet-53, DRN-C-26 and Inception-v4, published parameter
// counts, and that the batch is a parameter.
#include <gtest/gtest.h>

#include <string>

#include "models/zoo.h"

namespace dgs {
namespace {

int count_ops(const Graph& g, OpKind k) {
  int n = 0;
  for (int i = 0; i < g.num_ops(); ++i) n += g.op(i).kind == k;
  return n;
}

int64_t trainable_params(const Graph& g) {
  int64_t n = 0;
  for (int t : g.weight_tensors()) {
    const std::string& name = g.tensor(t).name;
    if (name.ends_with(".running_mean") || name.ends_with(".running_var")) continue;
    n += g.tensor(t).numel();
  }
  return n;
}

const Shape& out_shape(const Graph& g) { return g.tensor(g.output_tensors().at(0)).shape; }

TEST(BrickdlZoo, ProxiesShrinkByTwoPerLayer) {
  const Graph six = build_zoo_model("brickdl_proxy6");
  EXPECT_EQ(count_ops(six, OpKind::Conv), 6);
  EXPECT_EQ(out_shape(six), (Shape{1, 64, 100, 100, 100}));  // 112 - 6 * 2
  const Graph three = build_zoo_model("brickdl_proxy3");
  EXPECT_EQ(out_shape(three), (Shape{1, 64, 218, 218, 218}));  // 224 - 3 * 2
  const Graph small = build_zoo_model("brickdl_proxy3", {.batch = 2, .image_size = 12});
  EXPECT_EQ(out_shape(small), (Shape{2, 64, 6, 6, 6}));
}

TEST(BrickdlZoo, ConvCountsAndPublishedParameters) {
  // 3D ResNet-34: conv1 + 16 blocks x 2 + 3 projection shortcuts = 36 Conv3d; 400 classes.
  const Graph r3 = build_zoo_model("resnet3d_34");
  EXPECT_EQ(count_ops(r3, OpKind::Conv), 36);
  EXPECT_EQ(out_shape(r3), (Shape{1, 400}));
  // DarkNet-53: 52 convolutions (1 + sum over stages of 1 + 2 * blocks) and the fc = 53 layers.
  const Graph dk = build_zoo_model("darknet53");
  EXPECT_EQ(count_ops(dk, OpKind::Conv), 52);
  EXPECT_EQ(count_ops(dk, OpKind::Add), 23);
  // DRN-C-26: 3 + 16 + 2 = 21 convs on the main path, 4 projections and the 1x1 classifier.
  const Graph drn = build_zoo_model("drn_c_26");
  EXPECT_EQ(count_ops(drn, OpKind::Conv), 26);
  // Inception-v4: stem 11 + 4 x 7 + 4 + 7 x 10 + 6 + 3 x 10 = 149 convolutions; 42,679,816
  // parameters (Cadene's pretrained-models inceptionv4, the reference PyTorch port).
  const Graph iv4 = build_zoo_model("inception_v4");
  EXPECT_EQ(count_ops(iv4, OpKind::Conv), 149);
  EXPECT_EQ(trainable_params(iv4), 42679816);
  // DeepCAM: per-pixel 3-class output at the input's resolution.
  const Graph dc = build_zoo_model("deepcam", {.batch = 2, .image_size = 64});
  EXPECT_EQ(out_shape(dc), (Shape{2, 3, 64, 96}));
}

TEST(BrickdlZoo, BatchIsAParameter) {
  for (const char* name : {"resnet3d_34", "darknet53", "drn_c_26", "inception_v4"}) {
    const Graph g = build_zoo_model(name, {.batch = 4});
    EXPECT_EQ(out_shape(g)[0], 4) << name;
  }
}

}  // namespace
}  // namespace dgs
