// Networks of GraphTurbo's evaluation (OSDI'23 §5) that no other paper uses. The paper names the
// models but not their variants; the defaults are the common ones (see each comment).
//   ViT-B/16 (Dosovitskiy et al. 2021; "Vision_Transformer"): embed 768, 12 layers, 12 heads,
//     MLP 3072, patch 16, 224x224, class token, LayerNormalization and Erf-form GELU.
//   DenseNet-121 (Huang et al. 2017; "DenseNet"): growth 32, blocks 6-12-24-16, bottleneck 4k,
//     compression 0.5, BN-ReLU-Conv pre-activation, 224x224 (torchvision).
//   DLRM (MLPerf v2.0, Criteo 1TB): 13 dense features -> bottom MLP 512-256-128; 26 one-hot
//     sparse features, embeddings of dim 128 (every table kDlrmTableRows rows: a named default,
//     MLPerf's tables hold 3 to 40M rows; only the rows looked up are read); dot interaction of
//     the 27 vectors (the 351 pairs below the diagonal) concatenated with the bottom output;
//     top MLP 1024-1024-512-256-1 and a Sigmoid.
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

Graph build_vit_b16(const ZooOptions& opts) {
  check_zoo_options(opts, "vit_b16");
  const int64_t img = zoo_image_size(opts, 224), B = opts.batch, D = 768, P = 16;
  constexpr int kLayers = 12;
  constexpr int64_t kHeads = 12, kMlp = 3072, kClasses = 1000;
  constexpr double kEps = 1e-6;
  ModelBuilder b("vit_b16", opts.dtype);
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
  for (int l = 0; l < kLayers; ++l) {
    auto s = b.scope("blocks." + std::to_string(l));
    int h = b.layernorm(x, kEps, 1, "norm1");
    h = b.self_attention(h, kHeads, -1, "attn");
    x = b.add(x, h, "residual1");
    h = b.layernorm(x, kEps, 1, "norm2");
    h = b.linear(h, kMlp, true, "mlp.fc1");
    h = b.gelu(h, "mlp.gelu");
    h = b.linear(h, D, true, "mlp.fc2");
    x = b.add(x, h, "residual2");
  }
  x = b.layernorm(x, kEps, 1, "norm");
  x = b.gather(x, b.const_ints("cls_index", {0}), 1, "cls_select");
  x = b.reshape(x, {B, D}, "cls_flatten");
  x = b.linear(x, kClasses, true, "head");
  return b.finish({x});
}

namespace {

int bn_relu_conv(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t pad,
                 const std::string& n) {
  x = b.relu(b.batchnorm(x, 1e-5, n + ".norm"), n + ".relu");
  return b.conv2d(x, out, k, 1, pad, 1, false, n + ".conv");
}

}  // namespace

Graph build_densenet121(const ZooOptions& opts) {
  check_zoo_options(opts, "densenet121");
  const int64_t img = zoo_image_size(opts, 224);
  constexpr int64_t kGrowth = 32, kBottleneck = 4, kInit = 64, kClasses = 1000;
  const int blocks[] = {6, 12, 24, 16};
  ModelBuilder b("densenet121", opts.dtype);
  int x = b.input("data", {opts.batch, 3, img, img});
  x = b.conv2d(x, kInit, 7, 2, 3, 1, false, "features.conv0");
  x = b.relu(b.batchnorm(x, 1e-5, "features.norm0"), "features.relu0");
  x = b.max_pool2d(x, 3, 2, 1, false, "features.pool0");
  int64_t channels = kInit;
  for (int blk = 0; blk < 4; ++blk) {
    for (int l = 0; l < blocks[blk]; ++l) {
      const std::string n =
          "features.denseblock" + std::to_string(blk + 1) + ".layer" + std::to_string(l + 1);
      int h = bn_relu_conv(b, x, kBottleneck * kGrowth, 1, 0, n + ".1");
      h = bn_relu_conv(b, h, kGrowth, 3, 1, n + ".2");
      x = b.concat({x, h}, 1, n + ".concat");
      channels += kGrowth;
    }
    if (blk < 3) {
      const std::string n = "features.transition" + std::to_string(blk + 1);
      channels /= 2;
      x = bn_relu_conv(b, x, channels, 1, 0, n);
      x = b.avg_pool2d(x, 2, 2, 0, false, false, n + ".pool");
    }
  }
  x = b.relu(b.batchnorm(x, 1e-5, "features.norm5"), "features.relu5");
  x = b.global_avg_pool(x, "avgpool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kClasses, true, "classifier");
  return b.finish({x});
}

Graph build_dlrm(const ZooOptions& opts) {
  check_zoo_options(opts, "dlrm");
  constexpr int64_t kDense = 13, kSparse = 26, kDim = 128, kDlrmTableRows = 1000000;
  const int64_t B = opts.batch, n = kSparse + 1;
  ModelBuilder b("dlrm", opts.dtype);
  int x = b.input("dense", {B, kDense});
  const int ids = b.input("sparse", {B, kSparse}, DType::I64);
  for (int64_t w : {512, 256, 128}) {
    auto s = b.scope("bottom_mlp." + std::to_string(w));
    x = b.relu(b.linear(x, w, true, "linear"), "relu");
  }
  std::vector<int> vectors = {b.reshape(x, {B, 1, kDim}, "bottom_reshape")};
  for (int64_t f = 0; f < kSparse; ++f) {
    auto s = b.scope("emb." + std::to_string(f));
    const int idx = b.gather(ids, b.const_ints("emb." + std::to_string(f) + ".feature", {f}), 1,
                             "select");  // [B, 1]
    vectors.push_back(
        b.gather(b.weight("emb." + std::to_string(f) + ".weight", {kDlrmTableRows, kDim}), idx, 0,
                 "lookup"));  // [B, 1, 128]
  }
  const int t = b.concat(vectors, 1, "interaction.concat");  // [B, 27, 128]
  int z = b.matmul(t, b.transpose(t, {0, 2, 1}, "interaction.transpose"), "interaction.dot");
  z = b.reshape(z, {B, n * n}, "interaction.flatten");
  std::vector<int64_t> pairs;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) pairs.push_back(i * n + j);
  z = b.gather(z, b.const_ints("interaction.pairs", pairs), 1, "interaction.select");
  int y = b.concat({x, z}, 1, "top.concat");
  const int64_t top[] = {1024, 1024, 512, 256};
  for (size_t i = 0; i < 4; ++i) {
    auto s = b.scope("top_mlp." + std::to_string(i));
    y = b.relu(b.linear(y, top[i], true, "linear"), "relu");
  }
  y = b.sigmoid(b.linear(y, 1, true, "top_mlp.out"), "sigmoid");
  return b.finish({y});
}

}  // namespace dgs
