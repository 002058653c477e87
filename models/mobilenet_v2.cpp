// MobileNet V2 (Sandler et al. 2018; torchvision "mobilenet_v2", width 1.0): Conv (no bias) +
// BatchNormalization + ReLU6 (Clip 0..6); inverted residual blocks (expand 1x1, depthwise 3x3,
// project 1x1, identity Add when stride 1 and channels match); 1x1 conv to 1280, global average
// pool, Linear. Dropout is omitted (an identity at inference). Names follow torchvision
// ("features.2.conv.1.0").
#include <string>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

namespace {
constexpr int64_t kMobileNetV2ImageSize = 224;
constexpr int64_t kMobileNetV2LastChannels = 1280;

int conv_bn_relu6(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t stride, int64_t groups,
                  const std::string& prefix) {
  x = b.conv2d(x, out, k, stride, (k - 1) / 2, groups, false, prefix + ".0");
  x = b.batchnorm(x, 1e-5, prefix + ".1");
  return b.relu6(x, prefix + ".2");
}
}  // namespace

Graph build_mobilenet_v2(const ZooOptions& opts) {
  const int64_t image = zoo_image_size(opts, kMobileNetV2ImageSize);
  ModelBuilder b("mobilenet_v2", opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  x = conv_bn_relu6(b, x, 32, 3, 2, 1, "features.0");
  // (expansion t, output channels c, repeats n, first stride s), Table 2 of the paper.
  const int64_t settings[][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int feature = 1;
  for (const auto& s : settings) {
    for (int64_t i = 0; i < s[2]; ++i, ++feature) {
      auto scope = b.scope("features." + std::to_string(feature));
      const int64_t in = b.dim(x, 1);
      const int64_t hidden = in * s[0];
      const int64_t stride = i == 0 ? s[3] : 1;
      int y = x;
      int layer = 0;
      if (s[0] != 1) y = conv_bn_relu6(b, y, hidden, 1, 1, 1, "conv." + std::to_string(layer++));
      y = conv_bn_relu6(b, y, hidden, 3, stride, hidden, "conv." + std::to_string(layer++));
      y = b.conv2d(y, s[1], 1, 1, 0, 1, false, "conv." + std::to_string(layer++));
      y = b.batchnorm(y, 1e-5, "conv." + std::to_string(layer++));
      if (stride == 1 && in == s[1]) y = b.add(x, y, "add");
      x = y;
    }
  }
  x = conv_bn_relu6(b, x, kMobileNetV2LastChannels, 1, 1, 1, "features." + std::to_string(feature));
  x = b.global_avg_pool(x, "avgpool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kImageNetClasses, true, "classifier.1");
  return b.finish({x});
}

}  // namespace dgs
