// The Welder (OSDI'23) networks that the other papers do not share: ViT-S/32, Swin-T, NAFNet,
// the NeRF MLP, Conformer, and, for Tables 6-7, UNet and the VGG-16 convolution body.
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

constexpr double kLayerNormEps = 1e-5;  // PyTorch's nn.LayerNorm default (1e-6 in timm ViT)

// LayerNorm over the last axis, as ONNX opset 11 exports nn.LayerNorm.
int layernorm_decomposed(ModelBuilder& b, int x, int64_t axis, const std::string& name) {
  auto s = b.scope(name);
  const int64_t c = b.dim(x, axis);
  const int mean = b.reduce_mean(x, {axis}, true, "mean");
  const int d = b.sub(x, mean, "sub");
  const int sq = b.pow(d, b.const_scalar(b.op_name("two", "const"), 2.0f), "pow");
  const int var = b.reduce_mean(sq, {axis}, true, "var");
  const int ve = b.add_scalar(var, static_cast<float>(kLayerNormEps), "add_eps");
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

}  // namespace dgs
