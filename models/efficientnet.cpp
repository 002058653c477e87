// EfficientNet-B0 (Tan & Le, ICML 2019; torchvision "efficientnet_b0", width and depth 1.0):
// Conv (no bias) + BatchNormalization + SiLU (Sigmoid and Mul, as PyTorch exports it); MBConv
// blocks (expand 1x1 when the ratio is not 1, depthwise kxk, squeeze-and-excitation with
// GlobalAveragePool, 1x1 Conv+bias to in/4 channels, SiLU, 1x1 Conv+bias back, Sigmoid, Mul;
// project 1x1 + BN; identity Add when stride 1 and channels match; stochastic depth and dropout
// are identities at inference and omitted); 1x1 conv to 1280, global average pool, Linear.
// Names follow torchvision ("features.2.0.block.1.0").
#include <algorithm>
#include <string>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

namespace {
constexpr int64_t kEfficientNetImageSize = 224;
constexpr int64_t kEfficientNetLastChannels = 1280;

int conv_bn_silu(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t stride, int64_t groups,
                 bool activation, const std::string& prefix) {
  x = b.conv2d(x, out, k, stride, (k - 1) / 2, groups, false, prefix + ".0");
  x = b.batchnorm(x, 1e-5, prefix + ".1");
  return activation ? b.silu(x, prefix + ".2") : x;
}

int squeeze_excitation(ModelBuilder& b, int x, int64_t squeeze, const std::string& prefix) {
  auto scope = b.scope(prefix);
  const int64_t channels = b.dim(x, 1);
  int s = b.global_avg_pool(x, "avgpool");
  s = b.conv2d(s, squeeze, 1, 1, 0, 1, true, "fc1");
  s = b.silu(s, "activation");
  s = b.conv2d(s, channels, 1, 1, 0, 1, true, "fc2");
  s = b.sigmoid(s, "scale_activation");
  return b.mul(s, x, "scale");
}
}  // namespace

Graph build_efficientnet_b0(const ZooOptions& opts) {
  const int64_t image = zoo_image_size(opts, kEfficientNetImageSize);
  ModelBuilder b("efficientnet_b0", opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  x = conv_bn_silu(b, x, 32, 3, 2, 1, true, "features.0");
  // (expand ratio, kernel, first stride, output channels, repeats): torchvision's B0 settings.
  const int64_t settings[][5] = {{1, 3, 1, 16, 1}, {6, 3, 2, 24, 2},  {6, 5, 2, 40, 2},
                                 {6, 3, 2, 80, 3}, {6, 5, 1, 112, 3}, {6, 5, 2, 192, 4},
                                 {6, 3, 1, 320, 1}};
  int stage = 1;
  for (const auto& s : settings) {
    for (int64_t i = 0; i < s[4]; ++i) {
      auto scope = b.scope("features." + std::to_string(stage) + "." + std::to_string(i));
      const int64_t in = b.dim(x, 1);
      const int64_t hidden = in * s[0];
      const int64_t stride = i == 0 ? s[2] : 1;
      int y = x;
      int layer = 0;
      if (hidden != in) {
        y = conv_bn_silu(b, y, hidden, 1, 1, 1, true, "block." + std::to_string(layer++));
      }
      y = conv_bn_silu(b, y, hidden, s[1], stride, hidden, true,
                       "block." + std::to_string(layer++));
      y = squeeze_excitation(b, y, std::max<int64_t>(1, in / 4),
                             "block." + std::to_string(layer++));
      y = conv_bn_silu(b, y, s[3], 1, 1, 1, false, "block." + std::to_string(layer++));
      if (stride == 1 && in == s[3]) y = b.add(y, x, "add");
      x = y;
    }
    ++stage;
  }
  x = conv_bn_silu(b, x, kEfficientNetLastChannels, 1, 1, 1, true, "features.8");
  x = b.global_avg_pool(x, "avgpool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kImageNetClasses, true, "classifier.1");
  return b.finish({x});
}

}  // namespace dgs
