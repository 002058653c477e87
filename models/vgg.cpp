// VGG-16 and VGG-19 (Simonyan & Zisserman 2015; torchvision "vgg16" and "vgg19", configurations
// D and E, no BatchNorm): 13 (16) Conv3x3(+bias)+Relu in five stages separated by MaxPool 2/2,
// then three Linear layers.
// Deviations from torchvision: its AdaptiveAvgPool2d((7,7)) is omitted (an identity at 224x224;
// at other sizes the first Linear takes the flattened feature map as it is) and its Dropout layers
// are omitted (identities at inference). Names follow torchvision ("features.0", "classifier.6").
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

namespace {
constexpr int64_t kVggImageSize = 224;
constexpr int64_t kClassifierWidth = 4096;
constexpr int64_t kPool = -1;  // marks a MaxPool in the configuration below
}  // namespace

namespace {
Graph build_vgg(const ZooOptions& opts, const std::string& name,
                const std::vector<int64_t>& config) {
  const int64_t image = zoo_image_size(opts, kVggImageSize);
  ModelBuilder b(name, opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  int index = 0;  // torchvision's index in `features`
  for (int64_t c : config) {
    if (c == kPool) {
      x = b.max_pool2d(x, 2, 2, 0, false, "features." + std::to_string(index++));
    } else {
      x = b.conv2d(x, c, 3, 1, 1, 1, true, "features." + std::to_string(index++));
      x = b.relu(x, "features." + std::to_string(index++));
    }
  }
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kClassifierWidth, true, "classifier.0");
  x = b.relu(x, "classifier.1");
  x = b.linear(x, kClassifierWidth, true, "classifier.3");
  x = b.relu(x, "classifier.4");
  x = b.linear(x, kImageNetClasses, true, "classifier.6");
  return b.finish({x});
}
}  // namespace

Graph build_vgg16(const ZooOptions& opts) {
  return build_vgg(opts, "vgg16",
                   {64, 64, kPool, 128, 128, kPool, 256, 256, 256, kPool, 512, 512, 512, kPool, 512,
                    512, 512, kPool});
}

Graph build_vgg19(const ZooOptions& opts) {
  return build_vgg(opts, "vgg19", {64,  64,  kPool, 128, 128,   kPool, 256, 256, 256, 256,  kPool,
                                   512, 512, 512,   512, kPool, 512,   512, 512, 512, kPool});
}

}  // namespace dgs
