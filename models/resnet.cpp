// ResNet-18, ResNet-50 v1.5 and ResNet-152 v1.5, as in torchvision (He et al. 2016; v1.5 puts the
// stride of a downsampling bottleneck on its 3x3 convolution). Conv (no bias) + BatchNormalization
// + Relu; the classifier is GlobalAveragePool, Flatten and a Gemm (torchvision's
// AdaptiveAvgPool2d(1) is a GlobalAveragePool). Op names follow torchvision's module names
// ("layer1.0.conv1").
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {
namespace {

constexpr int64_t kResNetImageSize = 224;

int conv_bn(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t stride, int64_t pad,
            const std::string& conv_name, const std::string& bn_name) {
  x = b.conv2d(x, out, k, stride, pad, /*groups=*/1, /*bias=*/false, conv_name);
  return b.batchnorm(x, 1e-5, bn_name);
}

int downsample_if_needed(ModelBuilder& b, int x, int64_t out, int64_t stride) {
  if (stride == 1 && b.dim(x, 1) == out) return x;
  return conv_bn(b, x, out, 1, stride, 0, "downsample.0", "downsample.1");
}

int basic_block(ModelBuilder& b, int x, int64_t width, int64_t stride) {
  const int identity = downsample_if_needed(b, x, width, stride);
  int y = conv_bn(b, x, width, 3, stride, 1, "conv1", "bn1");
  y = b.relu(y, "relu1");
  y = conv_bn(b, y, width, 3, 1, 1, "conv2", "bn2");
  y = b.add(y, identity, "add");
  return b.relu(y, "relu2");
}

int bottleneck(ModelBuilder& b, int x, int64_t width, int64_t stride) {
  constexpr int64_t kExpansion = 4;
  const int identity = downsample_if_needed(b, x, width * kExpansion, stride);
  int y = conv_bn(b, x, width, 1, 1, 0, "conv1", "bn1");
  y = b.relu(y, "relu1");
  y = conv_bn(b, y, width, 3, stride, 1, "conv2", "bn2");  // v1.5: stride on the 3x3
  y = b.relu(y, "relu2");
  y = conv_bn(b, y, width * kExpansion, 1, 1, 0, "conv3", "bn3");
  y = b.add(y, identity, "add");
  return b.relu(y, "relu3");
}

Graph build_resnet(const ZooOptions& opts, const std::string& name, bool use_bottleneck,
                   const std::vector<int>& blocks_per_stage) {
  const int64_t image = zoo_image_size(opts, kResNetImageSize);
  ModelBuilder b(name, opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  x = conv_bn(b, x, 64, 7, 2, 3, "conv1", "bn1");
  x = b.relu(x, "relu");
  x = b.max_pool2d(x, 3, 2, 1, false, "maxpool");
  const int64_t widths[] = {64, 128, 256, 512};
  for (size_t stage = 0; stage < blocks_per_stage.size(); ++stage) {
    for (int i = 0; i < blocks_per_stage[stage]; ++i) {
      auto scope = b.scope("layer" + std::to_string(stage + 1) + "." + std::to_string(i));
      const int64_t stride = (stage > 0 && i == 0) ? 2 : 1;
      x = use_bottleneck ? bottleneck(b, x, widths[stage], stride)
                         : basic_block(b, x, widths[stage], stride);
    }
  }
  x = b.global_avg_pool(x, "avgpool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kImageNetClasses, true, "fc");
  return b.finish({x});
}

}  // namespace

Graph build_resnet18(const ZooOptions& opts) {
  return build_resnet(opts, "resnet18", false, {2, 2, 2, 2});
}

Graph build_resnet50(const ZooOptions& opts) {
  return build_resnet(opts, "resnet50", true, {3, 4, 6, 3});
}

Graph build_resnet152(const ZooOptions& opts) {
  return build_resnet(opts, "resnet152", true, {3, 8, 36, 3});
}

}  // namespace dgs
