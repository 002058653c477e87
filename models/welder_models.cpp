// The Welder (OSDI'23) networks that the other papers do not share: ViT-S/32, Swin-T, NAFNet,
// the NeRF MLP, Conformer, MobileViT-S, Restormer, BSRN, and, for Tables 6-7, UNet and the VGG-16
// convolution body.
// Shapes and configurations follow the authors' artifact (github.com/microsoft/nnfusion, branch
// osdi2023welder, artifacts/model/pytorch/__init__.py), as extracted in research/welder.md §4.2.
//
// Export form: the artifact traced the PyTorch models to ONNX opset 11, which has no
// LayerNormalization and no Gelu; LayerNorm is therefore built here as PyTorch exports it
// (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) and GELU as Div, Erf, Add, Mul, Mul
// (the pattern Welder's Table 4 lists). torch.chunk is built as two Slices (one op per output).
#include <cmath>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

namespace {

constexpr double kTorchLayerNormEps = 1e-5;  // PyTorch's nn.LayerNorm default (1e-6 in timm ViT)

// LayerNorm over the last axis, as ONNX opset 11 exports nn.LayerNorm.
int layernorm_decomposed(ModelBuilder& b, int x, int64_t axis, const std::string& name) {
  auto s = b.scope(name);
  const int64_t c = b.dim(x, axis);
  const int mean = b.reduce_mean(x, {axis}, true, "mean");
  const int d = b.sub(x, mean, "sub");
  const int sq = b.pow(d, b.const_scalar(b.op_name("two", "const"), 2.0f), "pow");
  const int var = b.reduce_mean(sq, {axis}, true, "var");
  const int ve = b.add_scalar(var, static_cast<float>(kTorchLayerNormEps), "add_eps");
  const int sd = b.op(OpKind::Sqrt, {ve}, {}, "sqrt");
  const int n = b.div(d, sd, "div");
  Shape ps(static_cast<size_t>(b.rank(x)), 1);
  const int64_t ax = axis < 0 ? axis + b.rank(x) : axis;
  ps[static_cast<size_t>(ax)] = c;
  if (ax == b.rank(x) - 1) ps = {c};
  const int w = b.weight(b.op_name("weight", "w"), ps);
  const int bb = b.weight(b.op_name("bias", "b"), ps);
  return b.add(b.mul(n, w, "mul"), bb, "add");
}

int mlp_block(ModelBuilder& b, int x, int64_t hidden, const std::string& name) {
  auto s = b.scope(name);
  const int64_t c = b.dim(x, -1);
  int h = b.linear(x, hidden, true, "fc1");
  h = b.gelu(h, "gelu");
  return b.linear(h, c, true, "fc2");
}

}  // namespace

// ViT-S/32 (timm vit_small_patch32_224): embed 384, 12 layers, 6 heads, MLP 1536, patch 32.
Graph build_vit_s32(const ZooOptions& opts) {
  check_zoo_options(opts, "vit_s32");
  const int64_t img = zoo_image_size(opts, 224), B = opts.batch, D = 384, P = 32;
  ModelBuilder b("vit_s32", opts.dtype);
  int x = b.input("image", {B, 3, img, img});
  x = b.conv2d(x, D, P, P, 0, 1, true, "patch_embed");
  const int64_t n = (img / P) * (img / P);
  x = b.reshape(x, {B, D, n}, "patch_flatten");
  x = b.transpose(x, {0, 2, 1}, "patch_transpose");
  const int cls = b.weight("cls_token", {1, 1, D});
  const int cls_b =
      b.op(OpKind::Expand, {cls, b.const_ints("cls_shape", {B, 1, D})}, {}, "cls_expand");
  x = b.concat({cls_b, x}, 1, "cls_concat");
  x = b.add(x, b.weight("pos_embed", {1, n + 1, D}), "pos_add");
  for (int l = 0; l < 12; ++l) {
    auto s = b.scope("blocks." + std::to_string(l));
    int h = layernorm_decomposed(b, x, -1, "norm1");
    h = b.self_attention(h, 6, -1, "attn");
    x = b.add(x, h, "residual1");
    h = layernorm_decomposed(b, x, -1, "norm2");
    h = mlp_block(b, h, 4 * D, "mlp");
    x = b.add(x, h, "residual2");
  }
  x = layernorm_decomposed(b, x, -1, "norm");
  x = b.gather(x, b.const_ints("cls_index", {0}), 1, "cls_select");
  x = b.reshape(x, {B, D}, "cls_flatten");
  x = b.linear(x, 1000, true, "head");
  return b.finish({x});
}

namespace {
// torch.roll along one axis, as exported: two Slices and a Concat.
int roll(ModelBuilder& b, int x, int64_t shift, int64_t axis, const std::string& name) {
  const int64_t n = b.dim(x, axis);
  const int64_t s = ((shift % n) + n) % n;
  if (s == 0) return x;
  const int a = b.slice(x, {n - s}, {n}, {axis}, {}, name + ".tail");
  const int c = b.slice(x, {0}, {n - s}, {axis}, {}, name + ".head");
  return b.concat({a, c}, axis, name + ".concat");
}

int swin_block(ModelBuilder& b, int x, int64_t H, int64_t W, int64_t heads, int64_t window,
               bool shifted, const std::string& name) {
  auto s = b.scope(name);
  const int64_t B = b.dim(x, 0), C = b.dim(x, 2);
  const int64_t ws = std::min(window, H);
  const int64_t shift = shifted && ws < H ? ws / 2 : 0;
  int h = layernorm_decomposed(b, x, -1, "norm1");
  h = b.reshape(h, {B, H, W, C}, "to_image");
  if (shift) h = roll(b, roll(b, h, -shift, 1, "roll_h"), -shift, 2, "roll_w");
  const int64_t nh = H / ws, nw = W / ws;
  h = b.reshape(h, {B, nh, ws, nw, ws, C}, "window_split");
  h = b.transpose(h, {0, 1, 3, 2, 4, 5}, "window_transpose");
  h = b.reshape(h, {B * nh * nw, ws * ws, C}, "window_flatten");
  // Relative position bias [heads, ws^2, ws^2] added to the scores. Simplification (named in the
  // notes): the shifted windows' -100 attention mask is not added separately.
  const int bias = b.weight(b.op_name("relative_position_bias", "w"), {heads, ws * ws, ws * ws});
  h = b.self_attention(h, heads, bias, "attn");
  h = b.reshape(h, {B, nh, nw, ws, ws, C}, "window_merge");
  h = b.transpose(h, {0, 1, 3, 2, 4, 5}, "window_untranspose");
  h = b.reshape(h, {B, H, W, C}, "from_windows");
  if (shift) h = roll(b, roll(b, h, shift, 1, "unroll_h"), shift, 2, "unroll_w");
  h = b.reshape(h, {B, H * W, C}, "to_tokens");
  x = b.add(x, h, "residual1");
  h = layernorm_decomposed(b, x, -1, "norm2");
  h = mlp_block(b, h, 4 * C, "mlp");
  return b.add(x, h, "residual2");
}
}  // namespace

// Swin-T (timm SwinTransformer defaults): embed 96, depths 2-2-6-2, heads 3-6-12-24, window 7.
Graph build_swin_t(const ZooOptions& opts) {
  check_zoo_options(opts, "swin_t");
  const int64_t img = zoo_image_size(opts, 224), B = opts.batch;
  ModelBuilder b("swin_t", opts.dtype);
  int x = b.input("image", {B, 3, img, img});
  x = b.conv2d(x, 96, 4, 4, 0, 1, true, "patch_embed");
  int64_t H = img / 4, W = img / 4, C = 96;
  x = b.reshape(x, {B, C, H * W}, "patch_flatten");
  x = b.transpose(x, {0, 2, 1}, "patch_transpose");
  x = layernorm_decomposed(b, x, -1, "patch_norm");
  const int depths[4] = {2, 2, 6, 2};
  const int heads[4] = {3, 6, 12, 24};
  for (int st = 0; st < 4; ++st) {
    auto s = b.scope("layers." + std::to_string(st));
    for (int d = 0; d < depths[st]; ++d)
      x = swin_block(b, x, H, W, heads[st], 7, d % 2 == 1, "blocks." + std::to_string(d));
    if (st < 3) {  // patch merging
      auto m = b.scope("downsample");
      int im = b.reshape(x, {B, H, W, C}, "to_image");
      const int x0 = b.slice(im, {0, 0}, {H, W}, {1, 2}, {2, 2}, "x0");
      const int x1 = b.slice(im, {1, 0}, {H, W}, {1, 2}, {2, 2}, "x1");
      const int x2 = b.slice(im, {0, 1}, {H, W}, {1, 2}, {2, 2}, "x2");
      const int x3 = b.slice(im, {1, 1}, {H, W}, {1, 2}, {2, 2}, "x3");
      im = b.concat({x0, x1, x2, x3}, 3, "concat");
      H /= 2;
      W /= 2;
      x = b.reshape(im, {B, H * W, 4 * C}, "to_tokens");
      x = layernorm_decomposed(b, x, -1, "norm");
      C *= 2;
      x = b.linear(x, C, false, "reduction");
    }
  }
  x = layernorm_decomposed(b, x, -1, "norm");
  x = b.reduce_mean(x, {1}, false, "avgpool");
  x = b.linear(x, 1000, true, "head");
  return b.finish({x});
}

namespace {
// NAFNet's LayerNorm2d (normalises over channels of NCHW), as exported.
int layernorm2d(ModelBuilder& b, int x, const std::string& name) {
  return layernorm_decomposed(b, x, 1, name);
}

int simple_gate(ModelBuilder& b, int x, const std::string& name) {
  const int64_t c = b.dim(x, 1) / 2;
  const int a = b.slice(x, {0}, {c}, {1}, {}, name + ".chunk0");
  const int d = b.slice(x, {c}, {2 * c}, {1}, {}, name + ".chunk1");
  return b.mul(a, d, name + ".mul");
}

int naf_block(ModelBuilder& b, int inp, const std::string& name) {
  auto s = b.scope(name);
  const int64_t c = b.dim(inp, 1);
  int x = layernorm2d(b, inp, "norm1");
  x = b.conv2d(x, 2 * c, 1, 1, 0, 1, true, "conv1");
  x = b.conv2d(x, 2 * c, 3, 1, 1, 2 * c, true, "conv2");
  x = simple_gate(b, x, "sg1");
  int a = b.global_avg_pool(x, "sca.pool");
  a = b.conv2d(a, c, 1, 1, 0, 1, true, "sca.conv");
  x = b.mul(x, a, "sca.mul");
  x = b.conv2d(x, c, 1, 1, 0, 1, true, "conv3");
  const int y =
      b.add(inp, b.mul(x, b.weight(b.op_name("beta", "w"), {1, c, 1, 1}), "beta_mul"), "res1");
  x = layernorm2d(b, y, "norm2");
  x = b.conv2d(x, 2 * c, 1, 1, 0, 1, true, "conv4");
  x = simple_gate(b, x, "sg2");
  x = b.conv2d(x, c, 1, 1, 0, 1, true, "conv5");
  return b.add(y, b.mul(x, b.weight(b.op_name("gamma", "w"), {1, c, 1, 1}), "gamma_mul"), "res2");
}
}  // namespace

// NAFNet(img_channel 3, width 16, middle_blk_num 1, enc_blk_nums [1,1,1], dec_blk_nums [1,1,1]).
Graph build_nafnet(const ZooOptions& opts) {
  check_zoo_options(opts, "nafnet");
  const int64_t img = zoo_image_size(opts, 256), B = opts.batch;
  ModelBuilder b("nafnet", opts.dtype);
  const int inp = b.input("image", {B, 3, img, img});
  int x = b.conv2d(inp, 16, 3, 1, 1, 1, true, "intro");
  std::vector<int> skips;
  int64_t c = 16;
  for (int l = 0; l < 3; ++l) {
    x = naf_block(b, x, "encoders." + std::to_string(l) + ".0");
    skips.push_back(x);
    x = b.conv2d(x, 2 * c, 2, 2, 0, 1, true, "downs." + std::to_string(l));
    c *= 2;
  }
  x = naf_block(b, x, "middle.0");
  for (int l = 0; l < 3; ++l) {
    x = b.conv2d(x, 2 * c, 1, 1, 0, 1, false, "ups." + std::to_string(l) + ".conv");
    x = b.depth_to_space(x, 2, "ups." + std::to_string(l) + ".pixel_shuffle");
    c /= 2;
    x = b.add(x, skips[static_cast<size_t>(2 - l)], "skip_add." + std::to_string(l));
    x = naf_block(b, x, "decoders." + std::to_string(l) + ".0");
  }
  x = b.conv2d(x, 3, 3, 1, 1, 1, true, "ending");
  x = b.add(x, inp, "global_residual");
  return b.finish({x});
}

// NeRF MLP (artifact): 7 bias-free Linear layers, 64 -> 64 hidden with ReLU between, 64 -> 3
// out, over one 1920x1080 frame of samples (the batch option is ignored, as in the artifact).
Graph build_nerf_mlp(const ZooOptions& opts) {
  check_zoo_options(opts, "nerf_mlp");
  constexpr int64_t kRays = 1920 * 1080;
  ModelBuilder b("nerf_mlp", opts.dtype);
  int x = b.input("samples", {kRays, 64});
  for (int l = 0; l < 6; ++l) {
    x = b.linear(x, 64, false, "fc" + std::to_string(l));
    x = b.relu(x, "relu" + std::to_string(l));
  }
  x = b.linear(x, 3, false, "fc6");
  return b.finish({x});
}

// Conformer encoder (artifact: input_dim 512, 8 heads, FFN 512, 12 layers, depthwise kernel 31),
// input [B, frames, 512] with frames = seq_len (default 512). Conv1d is built as a Conv over
// [B, C, 1, T].
Graph build_conformer(const ZooOptions& opts) {
  check_zoo_options(opts, "conformer");
  const int64_t T = zoo_seq_len(opts, 512), B = opts.batch, D = 512;
  ModelBuilder b("conformer", opts.dtype);
  int x = b.input("features", {B, T, D});
  auto ffn = [&](int h, const std::string& name) {
    auto s = b.scope(name);
    h = layernorm_decomposed(b, h, -1, "norm");
    h = b.linear(h, 512, true, "fc1");
    h = b.silu(h, "silu");
    h = b.linear(h, D, true, "fc2");
    return b.mul_scalar(h, 0.5f, "half");
  };
  for (int l = 0; l < 12; ++l) {
    auto s = b.scope("layers." + std::to_string(l));
    x = b.add(x, ffn(x, "ffn1"), "res_ffn1");
    int h = layernorm_decomposed(b, x, -1, "attn_norm");
    h = b.self_attention(h, 8, -1, "attn");
    x = b.add(x, h, "res_attn");
    {
      auto cs = b.scope("conv");
      h = layernorm_decomposed(b, x, -1, "norm");
      h = b.transpose(h, {0, 2, 1}, "to_channels");
      h = b.unsqueeze(h, {2}, "to_2d");
      h = b.conv2d(h, 2 * D, 1, 1, 0, 1, true, "pointwise1");
      const int a = b.slice(h, {0}, {D}, {1}, {}, "glu.a");
      const int g = b.slice(h, {D}, {2 * D}, {1}, {}, "glu.b");
      h = b.mul(a, b.sigmoid(g, "glu.sigmoid"), "glu.mul");
      h = b.conv2d(h, D, {1, 31}, {1, 1}, {0, 15}, D, true, "depthwise");
      h = b.batchnorm(h, 1e-5, "bn");
      h = b.silu(h, "silu");
      h = b.conv2d(h, D, 1, 1, 0, 1, true, "pointwise2");
      h = b.squeeze(h, {2}, "from_2d");
      h = b.transpose(h, {0, 2, 1}, "to_time");
    }
    x = b.add(x, h, "res_conv");
    x = b.add(x, ffn(x, "ffn2"), "res_ffn2");
    x = layernorm_decomposed(b, x, -1, "final_norm");
  }
  return b.finish({x});
}

namespace {
int conv_relu(ModelBuilder& b, int x, int64_t c, const std::string& name) {
  return b.relu(b.conv2d(x, c, 3, 1, 1, 1, true, name), name + ".relu");
}
int double_conv(ModelBuilder& b, int x, int64_t c, const std::string& name) {
  auto s = b.scope(name);
  x = b.relu(b.batchnorm(b.conv2d(x, c, 3, 1, 1, 1, false, "conv1"), 1e-5, "bn1"), "relu1");
  return b.relu(b.batchnorm(b.conv2d(x, c, 3, 1, 1, 1, false, "conv2"), 1e-5, "bn2"), "relu2");
}
}  // namespace

// VGG-16 convolution body (Table 7): 5 stages of 2,2,3,3,3 3x3 convs + ReLU with 2x2 max-pools,
// no classifier; default 8192x8192, batch 1.
Graph build_vgg16_body(const ZooOptions& opts) {
  check_zoo_options(opts, "vgg16_body");
  const int64_t img = zoo_image_size(opts, 8192);
  ModelBuilder b("vgg16_body", opts.dtype);
  int x = b.input("image", {opts.batch, 3, img, img});
  const int convs[5] = {2, 2, 3, 3, 3};
  const int64_t chans[5] = {64, 128, 256, 512, 512};
  for (int st = 0; st < 5; ++st) {
    for (int i = 0; i < convs[st]; ++i)
      x = conv_relu(b, x, chans[st],
                    "stage" + std::to_string(st + 1) + ".conv" + std::to_string(i + 1));
    x = b.max_pool2d(x, 2, 2, 0, false, "stage" + std::to_string(st + 1) + ".pool");
  }
  return b.finish({x});
}

// UNet (milesial Pytorch-UNet, UNet(n_channels=3, n_classes=100), bilinear=False: DoubleConv with
// BN+ReLU, MaxPool down, ConvTranspose up + concat); default 8192x8192, batch 1 (Table 7).
Graph build_unet(const ZooOptions& opts) {
  check_zoo_options(opts, "unet");
  const int64_t img = zoo_image_size(opts, 8192);
  ModelBuilder b("unet", opts.dtype);
  int x = b.input("image", {opts.batch, 3, img, img});
  std::vector<int> skips;
  x = double_conv(b, x, 64, "inc");
  const int64_t chans[4] = {128, 256, 512, 1024};
  for (int l = 0; l < 4; ++l) {
    skips.push_back(x);
    x = b.max_pool2d(x, 2, 2, 0, false, "down" + std::to_string(l + 1) + ".pool");
    x = double_conv(b, x, chans[l], "down" + std::to_string(l + 1));
  }
  for (int l = 0; l < 4; ++l) {
    const int64_t c = b.dim(x, 1) / 2;
    const std::string n = "up" + std::to_string(l + 1);
    x = b.conv_transpose2d(x, c, 2, 2, 0, true, n + ".up");
    x = b.concat({skips[static_cast<size_t>(3 - l)], x}, 1, n + ".concat");
    x = double_conv(b, x, c, n);
  }
  x = b.conv2d(x, 100, 1, 1, 0, 1, true, "outc");
  return b.finish({x});
}

// UNet of Welder's host-memory experiment (Table 7), as the authors' artifact defines it
// (experimental/host_device/host_unet.py and unet_arch.py): DoubleConv = two 3x3 convs with bias
// and ReLU (no BatchNorm), MaxPool down, UpConv = ConvTranspose(k2, s2, bias) to half the
// channels, concat [skip, up], DoubleConv; no output conv (forward returns up4's output, 64
// channels). Default 8192x8192, batch 1.
Graph build_unet_host(const ZooOptions& opts) {
  check_zoo_options(opts, "unet_host");
  const int64_t img = zoo_image_size(opts, 8192);
  ModelBuilder b("unet_host", opts.dtype);
  int x = b.input("image", {opts.batch, 3, img, img});
  auto double_conv_relu = [&](int in, int64_t c, const std::string& name) {
    return conv_relu(b, conv_relu(b, in, c, name + ".conv1"), c, name + ".conv2");
  };
  std::vector<int> skips;
  x = double_conv_relu(x, 64, "inc");
  const int64_t chans[4] = {128, 256, 512, 1024};
  for (int l = 0; l < 4; ++l) {
    skips.push_back(x);
    x = b.max_pool2d(x, 2, 2, 0, false, "down" + std::to_string(l + 1) + ".pool");
    x = double_conv_relu(x, chans[l], "down" + std::to_string(l + 1));
  }
  for (int l = 0; l < 4; ++l) {
    const int64_t c = b.dim(x, 1) / 2;
    const std::string n = "up" + std::to_string(l + 1);
    x = b.conv_transpose2d(x, c, 2, 2, 0, true, n + ".up");
    x = b.concat({skips[static_cast<size_t>(3 - l)], x}, 1, n + ".concat");
    x = double_conv_relu(x, c, n);
  }
  return b.finish({x});
}

namespace {
int conv_bn_silu(ModelBuilder& b, int x, int64_t c, int64_t k, int64_t stride, int64_t groups,
                 const std::string& name) {
  auto s = b.scope(name);
  x = b.conv2d(x, c, k, stride, k / 2, groups, false, "conv");
  return b.silu(b.batchnorm(x, 1e-5, "bn"), "silu");
}

// MobileNetV2 inverted residual as MobileViT uses it (expansion 4, SiLU).
int mv2_block(ModelBuilder& b, int x, int64_t out, int64_t stride, const std::string& name) {
  auto s = b.scope(name);
  const int64_t in = b.dim(x, 1), hid = 4 * in;
  int h = conv_bn_silu(b, x, hid, 1, 1, 1, "expand");
  h = conv_bn_silu(b, h, hid, 3, stride, hid, "dw");
  h = b.batchnorm(b.conv2d(h, out, 1, 1, 0, 1, false, "project"), 1e-5, "project_bn");
  return stride == 1 && in == out ? b.add(x, h, "residual") : h;
}

// MobileViT block: local 3x3 + 1x1 projection, 2x2 patches unfolded into [B*4, N, d], `layers`
// transformer layers (pre-LN, 4 heads, SiLU FFN), fold, 1x1 back, concat with the input, 3x3.
int mobilevit_block(ModelBuilder& b, int x, int64_t d, int layers, int64_t ffn,
                    const std::string& name) {
  auto s = b.scope(name);
  const int64_t B = b.dim(x, 0), C = b.dim(x, 1), H = b.dim(x, 2), W = b.dim(x, 3);
  const int64_t nh = H / 2, nw = W / 2;
  int h = conv_bn_silu(b, x, C, 3, 1, 1, "local_conv");
  h = b.conv2d(h, d, 1, 1, 0, 1, false, "local_proj");
  h = b.reshape(h, {B, d, nh, 2, nw, 2}, "unfold_split");
  h = b.transpose(h, {0, 3, 5, 2, 4, 1}, "unfold_transpose");
  h = b.reshape(h, {B * 4, nh * nw, d}, "unfold");
  for (int l = 0; l < layers; ++l) {
    auto ls = b.scope("transformer." + std::to_string(l));
    int a = layernorm_decomposed(b, h, -1, "norm1");
    a = b.self_attention(a, 4, -1, "attn");
    h = b.add(h, a, "residual1");
    a = layernorm_decomposed(b, h, -1, "norm2");
    a = b.linear(a, ffn, true, "fc1");
    a = b.silu(a, "silu");
    a = b.linear(a, d, true, "fc2");
    h = b.add(h, a, "residual2");
  }
  h = layernorm_decomposed(b, h, -1, "norm");
  h = b.reshape(h, {B, 2, 2, nh, nw, d}, "fold_split");
  h = b.transpose(h, {0, 5, 3, 1, 4, 2}, "fold_transpose");
  h = b.reshape(h, {B, d, H, W}, "fold");
  h = conv_bn_silu(b, h, C, 1, 1, 1, "fusion_proj");
  h = b.concat({x, h}, 1, "concat");
  return conv_bn_silu(b, h, C, 3, 1, 1, "fusion_conv");
}
}  // namespace

// MobileViT-S (Mehta & Rastegari, ICLR'22; timm/cvnets mobilevit_s): stem 16, MV2 stages
// 32/64/96/128/160, MobileViT blocks d = 144/192/240 with 2/4/3 layers and FFN 2d, 1x1 to 640,
// classifier. 256x256.
Graph build_mobilevit_s(const ZooOptions& opts) {
  check_zoo_options(opts, "mobilevit_s");
  const int64_t img = zoo_image_size(opts, 256), B = opts.batch;
  ModelBuilder b("mobilevit_s", opts.dtype);
  int x = b.input("image", {B, 3, img, img});
  x = conv_bn_silu(b, x, 16, 3, 2, 1, "stem");
  x = mv2_block(b, x, 32, 1, "layer1.0");
  x = mv2_block(b, x, 64, 2, "layer2.0");
  x = mv2_block(b, x, 64, 1, "layer2.1");
  x = mv2_block(b, x, 64, 1, "layer2.2");
  x = mv2_block(b, x, 96, 2, "layer3.0");
  x = mobilevit_block(b, x, 144, 2, 288, "layer3.1");
  x = mv2_block(b, x, 128, 2, "layer4.0");
  x = mobilevit_block(b, x, 192, 4, 384, "layer4.1");
  x = mv2_block(b, x, 160, 2, "layer5.0");
  x = mobilevit_block(b, x, 240, 3, 480, "layer5.1");
  x = conv_bn_silu(b, x, 640, 1, 1, 1, "final_conv");
  x = b.global_avg_pool(x, "pool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, 1000, true, "classifier");
  return b.finish({x});
}

namespace {
// Restormer's WithBias LayerNorm over channels: to_3d (b c h w -> b (h w) c), LayerNorm, to_4d.
int restormer_norm(ModelBuilder& b, int x, const std::string& name) {
  auto s = b.scope(name);
  const int64_t B = b.dim(x, 0), C = b.dim(x, 1), H = b.dim(x, 2), W = b.dim(x, 3);
  int h = b.reshape(x, {B, C, H * W}, "to_3d_reshape");
  h = b.transpose(h, {0, 2, 1}, "to_3d");
  h = layernorm_decomposed(b, h, -1, "ln");
  h = b.transpose(h, {0, 2, 1}, "to_4d");
  return b.reshape(h, {B, C, H, W}, "to_4d_reshape");
}

// F.normalize(x, dim=-1): x / max(||x||_2, 1e-12), as ReduceL2-free ops (Mul, ReduceSum, Sqrt,
// Clip, Div).
int l2_normalize_last(ModelBuilder& b, int x, const std::string& name) {
  auto s = b.scope(name);
  const int sq = b.mul(x, x, "square");
  Attributes a;
  a.set("keepdims", int64_t{1});
  const int sum = b.op(OpKind::ReduceSum, {sq, b.const_ints(b.op_name("axes", "c"), {-1})},
                       std::move(a), "sum");
  const int n = b.op(OpKind::Sqrt, {sum}, {}, "norm");
  return b.div(x, b.clip(n, 1e-12f, 3.0e38f, "clamp"), "div");
}

// Multi-DConv head transposed attention (channel attention).
int mdta(ModelBuilder& b, int x, int64_t heads, const std::string& name) {
  auto s = b.scope(name);
  const int64_t B = b.dim(x, 0), C = b.dim(x, 1), H = b.dim(x, 2), W = b.dim(x, 3);
  int qkv = b.conv2d(x, 3 * C, 1, 1, 0, 1, false, "qkv");
  qkv = b.conv2d(qkv, 3 * C, 3, 1, 1, 3 * C, false, "qkv_dwconv");
  int q = b.slice(qkv, {0}, {C}, {1}, {}, "q");
  int k = b.slice(qkv, {C}, {2 * C}, {1}, {}, "k");
  int v = b.slice(qkv, {2 * C}, {3 * C}, {1}, {}, "v");
  const Shape hs = {B, heads, C / heads, H * W};
  q = l2_normalize_last(b, b.reshape(q, hs, "q_heads"), "q_norm");
  k = l2_normalize_last(b, b.reshape(k, hs, "k_heads"), "k_norm");
  v = b.reshape(v, hs, "v_heads");
  int att = b.matmul(q, b.transpose(k, {0, 1, 3, 2}, "k_t"), "qk");
  att = b.mul(att, b.weight(b.op_name("temperature", "w"), {heads, 1, 1}), "temperature_mul");
  att = b.softmax(att, -1, "softmax");
  int o = b.matmul(att, v, "av");
  o = b.reshape(o, {B, C, H, W}, "merge_heads");
  return b.conv2d(o, C, 1, 1, 0, 1, false, "project_out");
}

// Gated-Dconv feed-forward network, expansion 2.66.
int gdfn(ModelBuilder& b, int x, const std::string& name) {
  auto s = b.scope(name);
  const int64_t C = b.dim(x, 1);
  const auto hid = static_cast<int64_t>(static_cast<double>(C) * 2.66);
  int h = b.conv2d(x, 2 * hid, 1, 1, 0, 1, false, "project_in");
  h = b.conv2d(h, 2 * hid, 3, 1, 1, 2 * hid, false, "dwconv");
  const int x1 = b.slice(h, {0}, {hid}, {1}, {}, "x1");
  const int x2 = b.slice(h, {hid}, {2 * hid}, {1}, {}, "x2");
  h = b.mul(b.gelu(x1, "gelu"), x2, "gate");
  return b.conv2d(h, C, 1, 1, 0, 1, false, "project_out");
}

int restormer_block(ModelBuilder& b, int x, int64_t heads, const std::string& name) {
  auto s = b.scope(name);
  x = b.add(x, mdta(b, restormer_norm(b, x, "norm1"), heads, "attn"), "residual1");
  return b.add(x, gdfn(b, restormer_norm(b, x, "norm2"), "ffn"), "residual2");
}

int restormer_level(ModelBuilder& b, int x, int blocks, int64_t heads, const std::string& name) {
  for (int i = 0; i < blocks; ++i) x = restormer_block(b, x, heads, name + "." + std::to_string(i));
  return x;
}

// PixelUnshuffle(2) as exported: Reshape, Transpose, Reshape.
int pixel_unshuffle2(ModelBuilder& b, int x, const std::string& name) {
  const int64_t B = b.dim(x, 0), C = b.dim(x, 1), H = b.dim(x, 2), W = b.dim(x, 3);
  x = b.reshape(x, {B, C, H / 2, 2, W / 2, 2}, name + ".split");
  x = b.transpose(x, {0, 1, 3, 5, 2, 4}, name + ".transpose");
  return b.reshape(x, {B, 4 * C, H / 2, W / 2}, name + ".merge");
}
}  // namespace

// Restormer (Zamir et al., CVPR'22) defaults: dim 48, blocks 4-6-6-8, 4 refinement blocks,
// heads 1-2-4-8, FFN expansion 2.66, no biases, WithBias LayerNorm. 256x256.
Graph build_restormer(const ZooOptions& opts) {
  check_zoo_options(opts, "restormer");
  const int64_t img = zoo_image_size(opts, 256), B = opts.batch;
  ModelBuilder b("restormer", opts.dtype);
  const int inp = b.input("image", {B, 3, img, img});
  int x = b.conv2d(inp, 48, 3, 1, 1, 1, false, "patch_embed");
  const int e1 = restormer_level(b, x, 4, 1, "encoder_level1");
  x = pixel_unshuffle2(b, b.conv2d(e1, 24, 3, 1, 1, 1, false, "down1_2.conv"), "down1_2");
  const int e2 = restormer_level(b, x, 6, 2, "encoder_level2");
  x = pixel_unshuffle2(b, b.conv2d(e2, 48, 3, 1, 1, 1, false, "down2_3.conv"), "down2_3");
  const int e3 = restormer_level(b, x, 6, 4, "encoder_level3");
  x = pixel_unshuffle2(b, b.conv2d(e3, 96, 3, 1, 1, 1, false, "down3_4.conv"), "down3_4");
  x = restormer_level(b, x, 8, 8, "latent");
  x = b.depth_to_space(b.conv2d(x, 768, 3, 1, 1, 1, false, "up4_3.conv"), 2, "up4_3.shuffle");
  x = b.conv2d(b.concat({x, e3}, 1, "concat3"), 192, 1, 1, 0, 1, false, "reduce_chan_level3");
  x = restormer_level(b, x, 6, 4, "decoder_level3");
  x = b.depth_to_space(b.conv2d(x, 384, 3, 1, 1, 1, false, "up3_2.conv"), 2, "up3_2.shuffle");
  x = b.conv2d(b.concat({x, e2}, 1, "concat2"), 96, 1, 1, 0, 1, false, "reduce_chan_level2");
  x = restormer_level(b, x, 6, 2, "decoder_level2");
  x = b.depth_to_space(b.conv2d(x, 192, 3, 1, 1, 1, false, "up2_1.conv"), 2, "up2_1.shuffle");
  x = b.concat({x, e1}, 1, "concat1");
  x = restormer_level(b, x, 4, 1, "decoder_level1");
  x = restormer_level(b, x, 4, 1, "refinement");
  x = b.conv2d(x, 3, 3, 1, 1, 1, false, "output");
  x = b.add(x, inp, "global_residual");
  return b.finish({x});
}

namespace {
// BSConvU: pointwise 1x1 (no bias) then depthwise k x k (bias).
int bsconv_u(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t stride, int64_t pad,
             const std::string& name) {
  auto s = b.scope(name);
  x = b.conv2d(x, out, 1, 1, 0, 1, false, "pw");
  return b.conv2d(x, out, k, stride, pad, out, true, "dw");
}

// ESA (enhanced spatial attention, BSRN's version, f = C/4): the 1x1 projections are nn.Linear
// on channels-last permutes (exported as Transpose, MatMul, Add), the 3x3 convolutions BSConvU;
// stride-2 conv, 7x7/3 max-pool, conv_max + GELU, conv3 + GELU, conv3_, bilinear upsampling back
// to HxW (a Resize with explicit sizes: the pooled size does not divide HxW), sigmoid gate.
int esa(ModelBuilder& b, int x, const std::string& name) {
  auto s = b.scope(name);
  const int64_t B = b.dim(x, 0), C = b.dim(x, 1), H = b.dim(x, 2), W = b.dim(x, 3), f = C / 4;
  const int c1_ = b.linear(b.transpose(x, {0, 2, 3, 1}, "to_nhwc"), f, true, "conv1");
  int c1 = bsconv_u(b, b.transpose(c1_, {0, 3, 1, 2}, "c1_to_nchw"), f, 3, 2, 0, "conv2");
  c1 = b.max_pool2d(c1, 7, 3, 0, false, "max_pool");
  int c3 = b.gelu(bsconv_u(b, c1, f, 3, 1, 1, "conv_max"), "gelu_max");
  c3 = b.gelu(bsconv_u(b, c3, f, 3, 1, 1, "conv3"), "gelu3");
  c3 = bsconv_u(b, c3, f, 3, 1, 1, "conv3_");
  Attributes ra;
  ra.set("mode", std::string("linear"));
  c3 = b.op(OpKind::Resize, {c3, -1, -1, b.const_ints(b.op_name("sizes", "c"), {B, f, H, W})},
            std::move(ra), "upsample");
  const int cf = b.linear(c1_, f, true, "conv_f");
  const int sum = b.add(b.transpose(c3, {0, 2, 3, 1}, "c3_to_nhwc"), cf, "add");
  const int c4 = b.transpose(b.linear(sum, C, true, "conv4"), {0, 3, 1, 2}, "c4_to_nchw");
  return b.mul(x, b.sigmoid(c4, "sigmoid"), "mul");
}

// CCA: channel attention on contrast (std over HxW) + mean, reduction 16.
int cca(ModelBuilder& b, int x, const std::string& name) {
  auto s = b.scope(name);
  const int64_t C = b.dim(x, 1);
  const int mean = b.reduce_mean(x, {2, 3}, true, "mean");
  const int d = b.sub(x, mean, "sub");
  const int sq = b.pow(d, b.const_scalar(b.op_name("two", "const"), 2.0f), "pow");
  const int sd = b.op(OpKind::Sqrt, {b.reduce_mean(sq, {2, 3}, true, "var")}, {}, "std");
  int y = b.add(sd, b.global_avg_pool(x, "avg_pool"), "contrast");
  y = b.relu(b.conv2d(y, C / 16, 1, 1, 0, 1, true, "conv_du1"), "relu");
  y = b.sigmoid(b.conv2d(y, C, 1, 1, 0, 1, true, "conv_du2"), "sigmoid");
  return b.mul(x, y, "mul");
}

// ESDB: three distillation steps (1x1 distilled + BSConvU refined, GELU), a BSConvU to dc
// channels, concat, 1x1, ESA, CCA, residual.
int esdb(ModelBuilder& b, int x, const std::string& name) {
  auto s = b.scope(name);
  const int64_t C = b.dim(x, 1), dc = C / 2;
  std::vector<int> distilled;
  int r = x;
  for (int i = 1; i <= 3; ++i) {
    const std::string n = std::to_string(i);
    distilled.push_back(b.gelu(b.conv2d(r, dc, 1, 1, 0, 1, true, "c" + n + "_d"), "act_d" + n));
    const int rr = bsconv_u(b, r, C, 3, 1, 1, "c" + n + "_r");
    r = b.gelu(b.add(rr, r, "add" + n), "act_r" + n);
  }
  distilled.push_back(b.gelu(bsconv_u(b, r, dc, 3, 1, 1, "c4"), "act4"));
  int out = b.conv2d(b.concat(distilled, 1, "concat"), C, 1, 1, 0, 1, true, "c5");
  out = cca(b, esa(b, out, "esa"), "cca");
  return b.add(out, x, "residual");
}
}  // namespace

// BSRN (Li et al., CVPRW'22) defaults: 64 features, 8 ESDBs, BSConvU, x4 pixelshuffledirect.
// 256x256 input (output 1024x1024).
Graph build_bsrn(const ZooOptions& opts) {
  check_zoo_options(opts, "bsrn");
  const int64_t img = zoo_image_size(opts, 256), B = opts.batch;
  ModelBuilder b("bsrn", opts.dtype);
  const int inp = b.input("image", {B, 3, img, img});
  const int x4 = b.concat({inp, inp, inp, inp}, 1, "input_repeat");
  const int fea = bsconv_u(b, x4, 64, 3, 1, 1, "fea_conv");
  std::vector<int> outs;
  int x = fea;
  for (int i = 1; i <= 8; ++i) {
    x = esdb(b, x, std::string("B").append(std::to_string(i)));
    outs.push_back(x);
  }
  x = b.conv2d(b.concat(outs, 1, "trunk"), 64, 1, 1, 0, 1, true, "c1");
  x = b.gelu(x, "gelu");
  x = b.add(bsconv_u(b, x, 64, 3, 1, 1, "c2"), fea, "out_lr");
  x = b.conv2d(x, 3 * 16, 3, 1, 1, 1, true, "upsampler.conv");
  x = b.depth_to_space(x, 4, "upsampler.pixel_shuffle");
  return b.finish({x});
}

}  // namespace dgs
