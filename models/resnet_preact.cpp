// ResNet-1001 (He, Zhang, Ren, Sun, "Identity Mappings in Deep Residual Networks", ECCV 2016):
// the pre-activation bottleneck ResNet for CIFAR of the authors' code (KaimingHe/resnet-1k-layers,
// resnet-pre-act.lua): depth 1001 = 9 n + 2 with n = 111 bottleneck units per stage; a 3x3
// convolution to 16 channels (BN, Relu), three stages of bottleneck units with outputs 64, 128
// and 256 channels (bottleneck width a quarter) at 32x32, 16x16 and 8x8; a final BN and Relu,
// global average pooling and a Linear to 10 classes (CIFAR-10). Units are BN-Relu-Conv1x1,
// BN-Relu-Conv3x3, BN-Relu-Conv1x1 plus the identity; the first unit of a stage has a 1x1
// projection shortcut (stride 2 in stages 2 and 3, on the 1x1 as in the authors' code) and, in
// stages 2 and 3, shares its BN-Relu with the shortcut ('both_preact'; stage 1's first unit
// follows the stem's BN-Relu, 'no_preact'). Convolutions have no bias (as PyTorch ports write
// them); 10,178,490 convolution and Linear parameters: the paper's "10.2M".
#include <string>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {
namespace {

constexpr int64_t kCifarClasses = 10;
constexpr int64_t kPreactResNetImageSize = 32;
constexpr int kUnitsPerStage = 111;  // (1001 - 2) / 9

int bn_relu(ModelBuilder& b, int x, const std::string& name) {
  x = b.batchnorm(x, 1e-5, name + ".bn");
  return b.relu(x, name + ".relu");
}

// One bottleneck unit from `in` to `out` channels. `first` marks a stage's first unit (projection
// shortcut); `preact_shared` says whether that unit applies BN-Relu to its input itself.
int preact_bottleneck(ModelBuilder& b, int x, int64_t out, int64_t stride, bool first,
                      bool preact_shared) {
  const int64_t width = out / 4;
  int y = x;
  int shortcut = x;
  if (!first) {
    y = bn_relu(b, y, "preact1");
  } else if (preact_shared) {
    y = bn_relu(b, y, "preact");
    shortcut = y;
  }
  if (first) shortcut = b.conv2d(shortcut, out, 1, stride, 0, 1, false, "shortcut");
  y = b.conv2d(y, width, 1, stride, 0, 1, false, "conv1");
  y = bn_relu(b, y, "preact2");
  y = b.conv2d(y, width, 3, 1, 1, 1, false, "conv2");
  y = bn_relu(b, y, "preact3");
  y = b.conv2d(y, out, 1, 1, 0, 1, false, "conv3");
  return b.add(y, shortcut, "add");
}

}  // namespace

Graph build_resnet1001(const ZooOptions& opts) {
  const int64_t image = zoo_image_size(opts, kPreactResNetImageSize);
  ModelBuilder b("resnet1001", opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  x = b.conv2d(x, 16, 3, 1, 1, 1, false, "conv1");
  x = bn_relu(b, x, "stem");
  const int64_t outs[] = {64, 128, 256};
  for (int stage = 0; stage < 3; ++stage) {
    for (int i = 0; i < kUnitsPerStage; ++i) {
      auto scope = b.scope("stage" + std::to_string(stage + 1) + "." + std::to_string(i));
      const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      x = preact_bottleneck(b, x, outs[stage], stride, i == 0, stage > 0);
    }
  }
  x = bn_relu(b, x, "final");
  x = b.global_avg_pool(x, "avgpool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kCifarClasses, true, "fc");
  return b.finish({x});
}

}  // namespace dgs
