// Small graphs for tests (and for trying a scheduler by hand).
//   test_diamond:        conv a -> relu -> {conv b (3x3), conv c (1x1)} -> add -> relu
//   test_residual_block: a ResNet basic block with an identity shortcut
#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

namespace {
constexpr int64_t kDiamondChannels = 32;
constexpr int64_t kDiamondImage = 28;
constexpr int64_t kResidualChannels = 64;
constexpr int64_t kResidualImage = 56;
}  // namespace

Graph build_test_diamond(const ZooOptions& opts) {
  const int64_t image = zoo_image_size(opts, kDiamondImage);
  ModelBuilder b("test_diamond", opts.dtype);
  int x = b.input("data", {opts.batch, kDiamondChannels, image, image});
  x = b.conv2d(x, kDiamondChannels, 3, 1, 1, 1, true, "a");
  x = b.relu(x, "a.relu");
  const int l = b.conv2d(x, kDiamondChannels, 3, 1, 1, 1, true, "b");
  const int r = b.conv2d(x, kDiamondChannels, 1, 1, 0, 1, true, "c");
  x = b.add(l, r, "add");
  x = b.relu(x, "relu");
  return b.finish({x});
}

Graph build_test_residual_block(const ZooOptions& opts) {
  const int64_t image = zoo_image_size(opts, kResidualImage);
  ModelBuilder b("test_residual_block", opts.dtype);
  const int in = b.input("data", {opts.batch, kResidualChannels, image, image});
  int x = b.conv2d(in, kResidualChannels, 3, 1, 1, 1, false, "conv1");
  x = b.batchnorm(x, 1e-5, "bn1");
  x = b.relu(x, "relu1");
  x = b.conv2d(x, kResidualChannels, 3, 1, 1, 1, false, "conv2");
  x = b.batchnorm(x, 1e-5, "bn2");
  x = b.add(x, in, "add");
  x = b.relu(x, "relu2");
  return b.finish({x});
}

}  // namespace dgs
