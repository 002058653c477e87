// SqueezeNet exactly as the IOS authors define it (mit-han-lab/inter-operator-scheduler,
// python/ios/models/squeezenet.py; research/ios.md "Block structures"): SqueezeNet v1.0 with the
// "complex bypass" of the SqueezeNet paper, so that IOS's count of 50 schedule units holds (each
// Conv (+bias) with its Relu one unit; pools, Concat and Add one unit each).
//
// A fire block is squeeze 1x1 -> {expand 3x3, expand 1x1} -> Concat (3x3 first, as in the IOS
// code), plus a bypass that is the block input when the channels match, else a 1x1 Conv+Relu to
// 2*expand channels; the bypass is added (Add, no Relu).
// Deviations from torchvision's squeezenet1_0, all inherited from the IOS definition: conv1 pads
// by 3 (torchvision: 0), pools use floor mode (torchvision: ceil_mode=True), the bypass
// connections exist, the concat order is [3x3, 1x1], and the classifier has no Dropout.
#include <string>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

namespace {
constexpr int64_t kSqueezeNetImageSize = 224;

int conv_relu(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t stride, int64_t pad,
              const std::string& name) {
  x = b.conv2d(x, out, k, stride, pad, 1, true, name);
  return b.relu(x, name + ".relu");
}

int fire(ModelBuilder& b, int x, int64_t squeeze, int64_t expand) {
  const int s = conv_relu(b, x, squeeze, 1, 1, 0, "squeeze");
  const int e3 = conv_relu(b, s, expand, 3, 1, 1, "expand3x3");
  const int e1 = conv_relu(b, s, expand, 1, 1, 0, "expand1x1");
  const int cat = b.concat({e3, e1}, 1, "concat");
  const int bypass = b.dim(x, 1) == 2 * expand ? x : conv_relu(b, x, 2 * expand, 1, 1, 0, "bypass");
  return b.add(cat, bypass, "add");
}
}  // namespace

Graph build_squeezenet(const ZooOptions& opts) {
  const int64_t image = zoo_image_size(opts, kSqueezeNetImageSize);
  ModelBuilder b("squeezenet", opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  x = conv_relu(b, x, 96, 7, 2, 3, "conv1");
  x = b.max_pool2d(x, 3, 2, 0, false, "maxpool1");
  struct Fire {
    const char* name;
    int64_t squeeze, expand;
    bool pool_before;
  };
  const Fire fires[] = {{"fire2", 16, 64, false},  {"fire3", 16, 64, false},
                        {"fire4", 32, 128, false}, {"fire5", 32, 128, true},
                        {"fire6", 48, 192, false}, {"fire7", 48, 192, false},
                        {"fire8", 64, 256, false}, {"fire9", 64, 256, true}};
  for (const Fire& f : fires) {
    if (f.pool_before) x = b.max_pool2d(x, 3, 2, 0, false, std::string("maxpool_") + f.name);
    auto s = b.scope(f.name);
    x = fire(b, x, f.squeeze, f.expand);
  }
  x = conv_relu(b, x, kImageNetClasses, 1, 1, 0, "conv10");
  x = b.global_avg_pool(x, "avgpool");
  return b.finish({x});
}

}  // namespace dgs
