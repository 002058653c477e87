// Inception V3 exactly as the IOS authors define it (mit-han-lab/inter-operator-scheduler,
// python/ios/models/inception_v3.py; research/ios.md "Block structures"), so that IOS's operator
// counts hold: 119 schedule units, each Conv (+bias) followed by its Relu counting as one unit,
// every pool and every Concat one unit.
//
// Deviations from torchvision's inception_v3, all inherited from the IOS definition: no
// BatchNormalization (Conv with bias + Relu), no auxiliary classifier, no final Dropout and Linear
// (the network ends at the global average pool, [B, 2048, 1, 1]), no input transform. Branch
// concatenation order and every kernel/stride/padding are those of the IOS code (which match
// torchvision's). Average pools count padding (torchvision's F.avg_pool2d default).
// Op names follow torchvision ("Mixed_5b.branch5x5_2"); each conv's Relu is "<conv>.relu".
#include <array>
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {

namespace {
constexpr int64_t kInceptionV3ImageSize = 299;

// Conv + bias + Relu: one IOS schedule unit.
int unit(ModelBuilder& b, int x, int64_t out, std::array<int64_t, 2> k, std::array<int64_t, 2> s,
         std::array<int64_t, 2> p, const std::string& name) {
  x = b.conv2d(x, out, k, s, p, 1, true, name);
  return b.relu(x, name + ".relu");
}
int unit(ModelBuilder& b, int x, int64_t out, int64_t k, int64_t s, int64_t p,
         const std::string& name) {
  return unit(b, x, out, {k, k}, {s, s}, {p, p}, name);
}
int avg_pool_3x3(ModelBuilder& b, int x, const std::string& name) {
  return b.avg_pool2d(x, 3, 1, 1, /*count_include_pad=*/true, false, name);
}

int inception_a(ModelBuilder& b, int x, int64_t pool_features) {
  const int b1 = unit(b, x, 64, 1, 1, 0, "branch1x1");
  int b5 = unit(b, x, 48, 1, 1, 0, "branch5x5_1");
  b5 = unit(b, b5, 64, 5, 1, 2, "branch5x5_2");
  int b3 = unit(b, x, 64, 1, 1, 0, "branch3x3dbl_1");
  b3 = unit(b, b3, 96, 3, 1, 1, "branch3x3dbl_2");
  b3 = unit(b, b3, 96, 3, 1, 1, "branch3x3dbl_3");
  int bp = avg_pool_3x3(b, x, "avg_pool");
  bp = unit(b, bp, pool_features, 1, 1, 0, "branch_pool");
  return b.concat({b1, b5, b3, bp}, 1, "concat");
}

int inception_b(ModelBuilder& b, int x) {
  const int b3 = unit(b, x, 384, 3, 2, 0, "branch3x3");
  int bd = unit(b, x, 64, 1, 1, 0, "branch3x3dbl_1");
  bd = unit(b, bd, 96, 3, 1, 1, "branch3x3dbl_2");
  bd = unit(b, bd, 96, 3, 2, 0, "branch3x3dbl_3");
  const int bp = b.max_pool2d(x, 3, 2, 0, false, "max_pool");
  return b.concat({b3, bd, bp}, 1, "concat");
}

int inception_c(ModelBuilder& b, int x, int64_t c7) {
  const int b1 = unit(b, x, 192, 1, 1, 0, "branch1x1");
  int b7 = unit(b, x, c7, 1, 1, 0, "branch7x7_1");
  b7 = unit(b, b7, c7, {1, 7}, {1, 1}, {0, 3}, "branch7x7_2");
  b7 = unit(b, b7, 192, {7, 1}, {1, 1}, {3, 0}, "branch7x7_3");
  int bd = unit(b, x, c7, 1, 1, 0, "branch7x7dbl_1");
  bd = unit(b, bd, c7, {7, 1}, {1, 1}, {3, 0}, "branch7x7dbl_2");
  bd = unit(b, bd, c7, {1, 7}, {1, 1}, {0, 3}, "branch7x7dbl_3");
  bd = unit(b, bd, c7, {7, 1}, {1, 1}, {3, 0}, "branch7x7dbl_4");
  bd = unit(b, bd, 192, {1, 7}, {1, 1}, {0, 3}, "branch7x7dbl_5");
  int bp = avg_pool_3x3(b, x, "avg_pool");
  bp = unit(b, bp, 192, 1, 1, 0, "branch_pool");
  return b.concat({b1, b7, bd, bp}, 1, "concat");
}

int inception_d(ModelBuilder& b, int x) {
  int b3 = unit(b, x, 192, 1, 1, 0, "branch3x3_1");
  b3 = unit(b, b3, 320, 3, 2, 0, "branch3x3_2");
  int b7 = unit(b, x, 192, 1, 1, 0, "branch7x7x3_1");
  b7 = unit(b, b7, 192, {1, 7}, {1, 1}, {0, 3}, "branch7x7x3_2");
  b7 = unit(b, b7, 192, {7, 1}, {1, 1}, {3, 0}, "branch7x7x3_3");
  b7 = unit(b, b7, 192, 3, 2, 0, "branch7x7x3_4");
  const int bp = b.max_pool2d(x, 3, 2, 0, false, "max_pool");
  return b.concat({b3, b7, bp}, 1, "concat");
}

int inception_e(ModelBuilder& b, int x) {
  const int b1 = unit(b, x, 320, 1, 1, 0, "branch1x1");
  const int b3 = unit(b, x, 384, 1, 1, 0, "branch3x3_1");
  const int b3a = unit(b, b3, 384, {1, 3}, {1, 1}, {0, 1}, "branch3x3_2a");
  const int b3b = unit(b, b3, 384, {3, 1}, {1, 1}, {1, 0}, "branch3x3_2b");
  int bd = unit(b, x, 448, 1, 1, 0, "branch3x3dbl_1");
  bd = unit(b, bd, 384, 3, 1, 1, "branch3x3dbl_2");
  const int bda = unit(b, bd, 384, {1, 3}, {1, 1}, {0, 1}, "branch3x3dbl_3a");
  const int bdb = unit(b, bd, 384, {3, 1}, {1, 1}, {1, 0}, "branch3x3dbl_3b");
  int bp = avg_pool_3x3(b, x, "avg_pool");
  bp = unit(b, bp, 192, 1, 1, 0, "branch_pool");
  return b.concat({b1, b3a, b3b, bda, bdb, bp}, 1, "concat");
}
}  // namespace

Graph build_inception_v3(const ZooOptions& opts) {
  const int64_t image = zoo_image_size(opts, kInceptionV3ImageSize);
  ModelBuilder b("inception_v3", opts.dtype);
  int x = b.input("data", {opts.batch, 3, image, image});
  // Front (IOS block 1): 3x299x299 -> 192x35x35.
  x = unit(b, x, 32, 3, 2, 0, "Conv2d_1a_3x3");
  x = unit(b, x, 32, 3, 1, 0, "Conv2d_2a_3x3");
  x = unit(b, x, 64, 3, 1, 1, "Conv2d_2b_3x3");
  x = b.max_pool2d(x, 3, 2, 0, false, "maxpool1");
  x = unit(b, x, 80, 1, 1, 0, "Conv2d_3b_1x1");
  x = unit(b, x, 192, 3, 1, 0, "Conv2d_4a_3x3");
  x = b.max_pool2d(x, 3, 2, 0, false, "maxpool2");
  const std::pair<const char*, int64_t> a_blocks[] = {
      {"Mixed_5b", 32}, {"Mixed_5c", 64}, {"Mixed_5d", 64}};
  for (const auto& [name, pool_features] : a_blocks) {
    auto s = b.scope(name);
    x = inception_a(b, x, pool_features);
  }
  {
    auto s = b.scope("Mixed_6a");
    x = inception_b(b, x);
  }
  const std::pair<const char*, int64_t> c_blocks[] = {
      {"Mixed_6b", 128}, {"Mixed_6c", 160}, {"Mixed_6d", 160}, {"Mixed_6e", 192}};
  for (const auto& [name, c7] : c_blocks) {
    auto s = b.scope(name);
    x = inception_c(b, x, c7);
  }
  {
    auto s = b.scope("Mixed_7a");
    x = inception_d(b, x);
  }
  for (const char* name : {"Mixed_7b", "Mixed_7c"}) {
    auto s = b.scope(name);
    x = inception_e(b, x);
  }
  x = b.global_avg_pool(x, "avgpool");
  return b.finish({x});
}

}  // namespace dgs
