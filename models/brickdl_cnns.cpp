// The 2-D CNNs of BrickDL's (ICPP'24) Fig. 7 that the zoo lacked: DarkNet-53 (YOLOv3's backbone,
// Redmon & Farhadi 2018, as a 1000-class classifier), DRN-C-26 (Yu, Koltun, Funkhouser, CVPR
// 2017), Inception-v4 (Szegedy et al., AAAI 2017) and DeepCAM (Kurth et al., SC'18: a
// DeepLabv3+-style encoder-decoder with ASPP and deconvolutions on 16-channel 768 x 1152 climate
// images). The paper states none of their input sizes or batches; the defaults are the networks'
// own (256, 224, 299, 768 x 1152), and the batch is opts.batch.
#include <string>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {
namespace {

// ---- DarkNet-53 ---------------------------------------------------------------------------------
// Conv (no bias) + BN + LeakyRelu(0.1); stem conv 32; five stages, each a 3x3 stride-2 conv to C
// then [1, 2, 8, 8, 4] residual blocks (1x1 to C/2, 3x3 to C, add); global pool and fc.
int dark_conv(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t stride,
              const std::string& name) {
  x = b.conv2d(x, out, k, stride, k / 2, 1, false, name + ".conv");
  x = b.batchnorm(x, 1e-5, name + ".bn");
  Attributes a;
  a.set("alpha", 0.1);
  return b.op(OpKind::LeakyRelu, {x}, std::move(a), name + ".leaky");
}

// ---- DRN-C-26 -----------------------------------------------------------------------------------
// Conv + BN (+ ReLU), no bias, as drn.py's layers.
int drn_conv_bn(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t stride, int64_t dilation,
                const std::string& name) {
  Conv2dSpec s;
  s.kernel = {k, k};
  s.strides = {stride, stride};
  const int64_t p = dilation * (k / 2);
  s.pads = {p, p, p, p};
  s.dilations = {dilation, dilation};
  s.bias = false;
  x = b.conv2d(x, out, s, name + ".conv");
  return b.batchnorm(x, 1e-5, name + ".bn");
}

int drn_basic_block(ModelBuilder& b, int x, int64_t width, int64_t stride, int64_t dilation) {
  int identity = x;
  if (stride != 1 || b.dim(x, 1) != width) identity = drn_conv_bn(b, x, width, 1, stride, 1, "ds");
  int y = b.relu(drn_conv_bn(b, x, width, 3, stride, dilation, "c1"), "relu1");
  y = drn_conv_bn(b, y, width, 3, 1, dilation, "c2");
  return b.relu(b.add(y, identity, "add"), "relu2");
}

// ---- Inception-v4 -------------------------------------------------------------------------------
// BasicConv2d: Conv (no bias) + BN (eps 1e-3) + ReLU, rectangular kernels and pads.
int icv(ModelBuilder& b, int x, int64_t out, int64_t kh, int64_t kw, int64_t stride, int64_t ph,
        int64_t pw, const std::string& name) {
  x = b.conv2d(x, out, {kh, kw}, {stride, stride}, {ph, pw}, 1, false, name + ".conv");
  x = b.batchnorm(x, 1e-3, name + ".bn");
  return b.relu(x, name + ".relu");
}

int avgpool_same(ModelBuilder& b, int x, const std::string& name) {
  return b.avg_pool2d(x, 3, 1, 1, /*count_include_pad=*/false, false, name);
}

int v4_inception_a(ModelBuilder& b, int x) {
  const int b0 = icv(b, x, 96, 1, 1, 1, 0, 0, "b0");
  int b1 = icv(b, x, 64, 1, 1, 1, 0, 0, "b1.0");
  b1 = icv(b, b1, 96, 3, 3, 1, 1, 1, "b1.1");
  int b2 = icv(b, x, 64, 1, 1, 1, 0, 0, "b2.0");
  b2 = icv(b, b2, 96, 3, 3, 1, 1, 1, "b2.1");
  b2 = icv(b, b2, 96, 3, 3, 1, 1, 1, "b2.2");
  const int b3 = icv(b, avgpool_same(b, x, "b3.pool"), 96, 1, 1, 1, 0, 0, "b3.1");
  return b.concat({b0, b1, b2, b3}, 1, "concat");
}

int v4_inception_b(ModelBuilder& b, int x) {
  const int b0 = icv(b, x, 384, 1, 1, 1, 0, 0, "b0");
  int b1 = icv(b, x, 192, 1, 1, 1, 0, 0, "b1.0");
  b1 = icv(b, b1, 224, 1, 7, 1, 0, 3, "b1.1");
  b1 = icv(b, b1, 256, 7, 1, 1, 3, 0, "b1.2");
  int b2 = icv(b, x, 192, 1, 1, 1, 0, 0, "b2.0");
  b2 = icv(b, b2, 192, 7, 1, 1, 3, 0, "b2.1");
  b2 = icv(b, b2, 224, 1, 7, 1, 0, 3, "b2.2");
  b2 = icv(b, b2, 224, 7, 1, 1, 3, 0, "b2.3");
  b2 = icv(b, b2, 256, 1, 7, 1, 0, 3, "b2.4");
  const int b3 = icv(b, avgpool_same(b, x, "b3.pool"), 128, 1, 1, 1, 0, 0, "b3.1");
  return b.concat({b0, b1, b2, b3}, 1, "concat");
}

int v4_inception_c(ModelBuilder& b, int x) {
  const int b0 = icv(b, x, 256, 1, 1, 1, 0, 0, "b0");
  const int b1 = icv(b, x, 384, 1, 1, 1, 0, 0, "b1.0");
  const int b1a = icv(b, b1, 256, 1, 3, 1, 0, 1, "b1.1a");
  const int b1b = icv(b, b1, 256, 3, 1, 1, 1, 0, "b1.1b");
  int b2 = icv(b, x, 384, 1, 1, 1, 0, 0, "b2.0");
  b2 = icv(b, b2, 448, 3, 1, 1, 1, 0, "b2.1");
  b2 = icv(b, b2, 512, 1, 3, 1, 0, 1, "b2.2");
  const int b2a = icv(b, b2, 256, 1, 3, 1, 0, 1, "b2.3a");
  const int b2b = icv(b, b2, 256, 3, 1, 1, 1, 0, "b2.3b");
  const int b3 = icv(b, avgpool_same(b, x, "b3.pool"), 256, 1, 1, 1, 0, 0, "b3.1");
  return b.concat({b0, b1a, b1b, b2a, b2b, b3}, 1, "concat");
}

// ---- DeepCAM ------------------------------------------------------------------------------------
int dc_conv_bn_relu(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t stride,
                    int64_t dilation, const std::string& name) {
  return b.relu(drn_conv_bn(b, x, out, k, stride, dilation, name), name + ".relu");
}

int dc_bottleneck(ModelBuilder& b, int x, int64_t width, int64_t stride, int64_t dilation) {
  int identity = x;
  if (stride != 1 || b.dim(x, 1) != width * 4)
    identity = drn_conv_bn(b, x, width * 4, 1, stride, 1, "ds");
  int y = dc_conv_bn_relu(b, x, width, 1, 1, 1, "c1");
  y = dc_conv_bn_relu(b, y, width, 3, stride, dilation, "c2");
  y = drn_conv_bn(b, y, width * 4, 1, 1, 1, "c3");
  return b.relu(b.add(y, identity, "add"), "relu");
}

}  // namespace

Graph build_darknet53(const ZooOptions& opts) {
  check_zoo_options(opts, "darknet53");
  const int64_t image = zoo_image_size(opts, 256);
  ModelBuilder b("darknet53", opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  x = dark_conv(b, x, 32, 3, 1, "stem");
  const int64_t widths[] = {64, 128, 256, 512, 1024};
  const int blocks[] = {1, 2, 8, 8, 4};
  for (int s = 0; s < 5; ++s) {
    auto scope = b.scope("stage" + std::to_string(s + 1));
    x = dark_conv(b, x, widths[s], 3, 2, "down");
    for (int i = 0; i < blocks[s]; ++i) {
      auto block = b.scope("block" + std::to_string(i));
      int y = dark_conv(b, x, widths[s] / 2, 1, 1, "c1");
      y = dark_conv(b, y, widths[s], 3, 1, "c2");
      x = b.add(x, y, "add");
    }
  }
  x = b.global_avg_pool(x, "avgpool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kImageNetClasses, true, "fc");
  return b.finish({x});
}

// DRN-C-26 (drn.py, arch 'C', BasicBlock, layers [1, 1, 2, 2, 2, 2, 1, 1], channels 16, 32, 64,
// 128, 256, 512, 512, 512): layer0 conv 7x7 16; layers 1-2 conv+BN+ReLU (stride 1, 2); layers
// 3-4 residual stride 2; layers 5-6 residual with dilation 2 and 4 (output stride 8); layers 7-8
// conv+BN+ReLU with dilation 2 and 1; global pool and a 1x1 conv classifier (as drn.py's fc).
Graph build_drn_c_26(const ZooOptions& opts) {
  check_zoo_options(opts, "drn_c_26");
  const int64_t image = zoo_image_size(opts, 224);
  ModelBuilder b("drn_c_26", opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  x = b.relu(drn_conv_bn(b, x, 16, 7, 1, 1, "layer0"), "layer0.relu");
  x = b.relu(drn_conv_bn(b, x, 16, 3, 1, 1, "layer1"), "layer1.relu");
  x = b.relu(drn_conv_bn(b, x, 32, 3, 2, 1, "layer2"), "layer2.relu");
  const int64_t widths[] = {64, 128, 256, 512};
  const int64_t strides[] = {2, 2, 1, 1};
  const int64_t dilations[] = {1, 1, 2, 4};
  for (int l = 0; l < 4; ++l)
    for (int i = 0; i < 2; ++i) {
      auto scope = b.scope("layer" + std::to_string(l + 3) + "." + std::to_string(i));
      x = drn_basic_block(b, x, widths[l], i == 0 ? strides[l] : 1, dilations[l]);
    }
  x = b.relu(drn_conv_bn(b, x, 512, 3, 1, 2, "layer7"), "layer7.relu");
  x = b.relu(drn_conv_bn(b, x, 512, 3, 1, 1, "layer8"), "layer8.relu");
  x = b.global_avg_pool(x, "avgpool");
  x = b.conv2d(x, kImageNetClasses, 1, 1, 0, 1, true, "fc");
  x = b.flatten(x, 1, "flatten");
  return b.finish({x});
}

Graph build_inception_v4(const ZooOptions& opts) {
  check_zoo_options(opts, "inception_v4");
  const int64_t image = zoo_image_size(opts, 299);
  ModelBuilder b("inception_v4", opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  {
    auto scope = b.scope("stem");
    x = icv(b, x, 32, 3, 3, 2, 0, 0, "c1");
    x = icv(b, x, 32, 3, 3, 1, 0, 0, "c2");
    x = icv(b, x, 64, 3, 3, 1, 1, 1, "c3");
    x = b.concat({b.max_pool2d(x, 3, 2, 0, false, "m3a.pool"), icv(b, x, 96, 3, 3, 2, 0, 0, "m3a")},
                 1, "m3a.concat");
    int b0 = icv(b, x, 64, 1, 1, 1, 0, 0, "m4a.b0.0");
    b0 = icv(b, b0, 96, 3, 3, 1, 0, 0, "m4a.b0.1");
    int b1 = icv(b, x, 64, 1, 1, 1, 0, 0, "m4a.b1.0");
    b1 = icv(b, b1, 64, 1, 7, 1, 0, 3, "m4a.b1.1");
    b1 = icv(b, b1, 64, 7, 1, 1, 3, 0, "m4a.b1.2");
    b1 = icv(b, b1, 96, 3, 3, 1, 0, 0, "m4a.b1.3");
    x = b.concat({b0, b1}, 1, "m4a.concat");
    x = b.concat(
        {icv(b, x, 192, 3, 3, 2, 0, 0, "m5a"), b.max_pool2d(x, 3, 2, 0, false, "m5a.pool")}, 1,
        "m5a.concat");
  }
  for (int i = 0; i < 4; ++i) {
    auto scope = b.scope("inception_a" + std::to_string(i));
    x = v4_inception_a(b, x);
  }
  {
    auto scope = b.scope("reduction_a");
    const int b0 = icv(b, x, 384, 3, 3, 2, 0, 0, "b0");
    int b1 = icv(b, x, 192, 1, 1, 1, 0, 0, "b1.0");
    b1 = icv(b, b1, 224, 3, 3, 1, 1, 1, "b1.1");
    b1 = icv(b, b1, 256, 3, 3, 2, 0, 0, "b1.2");
    x = b.concat({b0, b1, b.max_pool2d(x, 3, 2, 0, false, "b2.pool")}, 1, "concat");
  }
  for (int i = 0; i < 7; ++i) {
    auto scope = b.scope("inception_b" + std::to_string(i));
    x = v4_inception_b(b, x);
  }
  {
    auto scope = b.scope("reduction_b");
    int b0 = icv(b, x, 192, 1, 1, 1, 0, 0, "b0.0");
    b0 = icv(b, b0, 192, 3, 3, 2, 0, 0, "b0.1");
    int b1 = icv(b, x, 256, 1, 1, 1, 0, 0, "b1.0");
    b1 = icv(b, b1, 256, 1, 7, 1, 0, 3, "b1.1");
    b1 = icv(b, b1, 320, 7, 1, 1, 3, 0, "b1.2");
    b1 = icv(b, b1, 320, 3, 3, 2, 0, 0, "b1.3");
    x = b.concat({b0, b1, b.max_pool2d(x, 3, 2, 0, false, "b2.pool")}, 1, "concat");
  }
  for (int i = 0; i < 3; ++i) {
    auto scope = b.scope("inception_c" + std::to_string(i));
    x = v4_inception_c(b, x);
  }
  x = b.global_avg_pool(x, "avgpool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kImageNetClasses, true, "fc");
  return b.finish({x});
}

// DeepCAM as a DeepLabv3+-style network (the research note's default reading): a ResNet-50
// encoder (stages [3, 4, 6, 3], the last dilated: output stride 16), ASPP (1x1 and 3x3 dilated 12,
// 24, 36, 256 channels each, and an image-pooling branch upsampled by Resize), a decoder that
// upsamples by deconvolutions (ConvTranspose 4x4 stride 2), joins the stage-1 features (1x1 to
// 48), two 3x3 convs, deconvolves to full resolution and classifies 3 classes per pixel.
// Input 16 x 768 x 1152 (opts.image_size sets the height; the width stays 1.5x).
Graph build_deepcam(const ZooOptions& opts) {
  check_zoo_options(opts, "deepcam");
  const int64_t h = zoo_image_size(opts, 768);
  const int64_t w = h * 3 / 2;
  ModelBuilder b("deepcam", opts.dtype);
  int x = b.input("data", {opts.batch, 16, h, w});
  x = dc_conv_bn_relu(b, x, 64, 7, 2, 1, "stem");
  x = b.max_pool2d(x, 3, 2, 1, false, "stem.pool");
  const int64_t widths[] = {64, 128, 256, 512};
  const int blocks[] = {3, 4, 6, 3};
  int low_level = -1;
  for (int s = 0; s < 4; ++s) {
    for (int i = 0; i < blocks[s]; ++i) {
      auto scope = b.scope("layer" + std::to_string(s + 1) + "." + std::to_string(i));
      const int64_t stride = (i == 0 && (s == 1 || s == 2)) ? 2 : 1;
      x = dc_bottleneck(b, x, widths[s], stride, s == 3 ? 2 : 1);
    }
    if (s == 0) low_level = x;
  }
  {
    auto scope = b.scope("aspp");
    std::vector<int> branches = {dc_conv_bn_relu(b, x, 256, 1, 1, 1, "b0")};
    const int64_t rates[] = {12, 24, 36};
    const char* names[] = {"b1", "b2", "b3"};
    for (int r = 0; r < 3; ++r)
      branches.push_back(dc_conv_bn_relu(b, x, 256, 3, 1, rates[r], names[r]));
    int pooled = b.global_avg_pool(x, "pool");
    pooled = dc_conv_bn_relu(b, pooled, 256, 1, 1, 1, "pool_proj");
    pooled = b.resize(
        pooled, {1.0f, 1.0f, static_cast<float>(b.dim(x, 2)), static_cast<float>(b.dim(x, 3))},
        "nearest", "pool_up");
    branches.push_back(pooled);
    x = b.concat(branches, 1, "concat");
    x = dc_conv_bn_relu(b, x, 256, 1, 1, 1, "proj");
  }
  {
    auto scope = b.scope("decoder");
    x = b.relu(b.conv_transpose2d(x, 256, 4, 2, 1, true, "up1"), "up1.relu");
    x = b.relu(b.conv_transpose2d(x, 256, 4, 2, 1, true, "up2"), "up2.relu");
    const int skip = dc_conv_bn_relu(b, low_level, 48, 1, 1, 1, "skip");
    x = b.concat({x, skip}, 1, "concat");
    x = dc_conv_bn_relu(b, x, 256, 3, 1, 1, "c1");
    x = dc_conv_bn_relu(b, x, 256, 3, 1, 1, "c2");
    x = b.relu(b.conv_transpose2d(x, 64, 4, 2, 1, true, "up3"), "up3.relu");
    x = b.conv_transpose2d(x, 3, 4, 2, 1, true, "up4");
  }
  return b.finish({x});
}

}  // namespace dgs
