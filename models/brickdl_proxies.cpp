// BrickDL's (ICPP'24) 3-D networks: the six-layer and three-layer 3-D convolution proxies of §4.5
// and 3D ResNet-34 (Hara, Kataoka, Satoh, CVPR 2018, the network the paper cites as [15]).
//
// Proxies (§4.5.1, §4.5.2): a chain of 3-D convolutions with 64 channels, "stride = 0 [read: 1],
// padding = 0, dilation rate = 1", the first layer 112^3 (six layers) or 224^3 (three layers).
// The kernel size is not stated: 3x3x3, the filter of the paper's brick microbenchmark (§4.3.2).
// With padding 0 each layer shrinks by 2 (112 -> 110 -> ... -> 100). Every layer is Conv + bias
// + Relu (the paper fuses point-wise ops into the per-brick convolution, §3.3.4). The input has
// 64 channels (so every layer is 64 -> 64); opts.image_size sets the first layer's edge (tests run
// the same network at small sizes).
#include <string>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {
namespace {

constexpr int64_t kProxyChannels = 64;

Graph build_conv3d_chain(const ZooOptions& opts, const std::string& name, int layers,
                         int64_t default_edge) {
  check_zoo_options(opts, name);
  const int64_t e = zoo_image_size(opts, default_edge);
  ModelBuilder b(name, opts.dtype);
  int x = b.input("data", {opts.batch, kProxyChannels, e, e, e});
  for (int i = 0; i < layers; ++i) {
    const std::string n = "conv" + std::to_string(i + 1);
    x = b.conv3d(x, kProxyChannels, {3, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1, true, n);
    x = b.relu(x, "relu" + std::to_string(i + 1));
  }
  return b.finish({x});
}

// 3D ResNet-34: conv1 7x7x7 stride (1, 2, 2) pad 3 + BN + ReLU, max-pool 3x3x3 stride 2 pad 1,
// BasicBlocks [3, 4, 6, 3] of widths 64..512 (3x3x3 convs, stride 2 on the first block of stages
// 2-4, shortcut type B: 1x1x1 conv + BN where the shape changes), global average pool, fc to the
// 400 Kinetics classes. Input 3 x 16 x 112 x 112 (the clip of Hara et al.); opts.image_size sets
// H = W.
int conv3d_bn(ModelBuilder& b, int x, int64_t out, int64_t k, std::array<int64_t, 3> stride,
              int64_t pad, const std::string& conv_name, const std::string& bn_name) {
  x = b.conv3d(x, out, {k, k, k}, stride, {pad, pad, pad}, {1, 1, 1}, 1, false, conv_name);
  return b.batchnorm(x, 1e-5, bn_name);
}

int basic_block3d(ModelBuilder& b, int x, int64_t width, int64_t stride) {
  int identity = x;
  if (stride != 1 || b.dim(x, 1) != width)
    identity =
        conv3d_bn(b, x, width, 1, {stride, stride, stride}, 0, "downsample.0", "downsample.1");
  int y = conv3d_bn(b, x, width, 3, {stride, stride, stride}, 1, "conv1", "bn1");
  y = b.relu(y, "relu1");
  y = conv3d_bn(b, y, width, 3, {1, 1, 1}, 1, "conv2", "bn2");
  y = b.add(y, identity, "add");
  return b.relu(y, "relu2");
}

}  // namespace

Graph build_brickdl_proxy6(const ZooOptions& opts) {
  return build_conv3d_chain(opts, "brickdl_proxy6", 6, 112);
}

Graph build_brickdl_proxy3(const ZooOptions& opts) {
  return build_conv3d_chain(opts, "brickdl_proxy3", 3, 224);
}

Graph build_resnet3d_34(const ZooOptions& opts) {
  check_zoo_options(opts, "resnet3d_34");
  const int64_t image = zoo_image_size(opts, 112);
  constexpr int64_t kClipFrames = 16;
  constexpr int64_t kKineticsClasses = 400;
  ModelBuilder b("resnet3d_34", opts.dtype);
  int x = b.input("data", {opts.batch, 3, kClipFrames, image, image});
  x = b.conv3d(x, 64, {7, 7, 7}, {1, 2, 2}, {3, 3, 3}, {1, 1, 1}, 1, false, "conv1");
  x = b.batchnorm(x, 1e-5, "bn1");
  x = b.relu(x, "relu");
  x = b.max_pool3d(x, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, "maxpool");
  const int64_t widths[] = {64, 128, 256, 512};
  const int blocks[] = {3, 4, 6, 3};
  for (int stage = 0; stage < 4; ++stage)
    for (int i = 0; i < blocks[stage]; ++i) {
      auto scope = b.scope("layer" + std::to_string(stage + 1) + "." + std::to_string(i));
      x = basic_block3d(b, x, widths[stage], (stage > 0 && i == 0) ? 2 : 1);
    }
  x = b.global_avg_pool(x, "avgpool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kKineticsClasses, true, "fc");
  return b.finish({x});
}

}  // namespace dgs
