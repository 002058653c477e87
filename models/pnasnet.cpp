// PNASNet-5 Large (Liu et al., "Progressive Neural Architecture Search", ECCV 2018; N = 4,
// F = 216) as the reference PyTorch port defines it (Cadene's pretrained-models "pnasnet5large",
// also timm's): input 3 x 331 x 331; conv_0 3x3/2 (no padding) + BN; cell_stem_0, cell_stem_1
// (reduction) and cells 0-11 (cells 4 and 8 reduce; cell 4 with the port's zero padding), each
// cell concatenating five "comb_iter" sums of two branches; Relu, 11x11 average pool, Linear to
// 1000 classes (dropout omitted, an identity at inference). Units: ReluConvBn (Relu, Conv 1x1,
// BN); BranchSeparables (Relu, depthwise kxk, pointwise 1x1, BN, Relu, depthwise kxk, pointwise
// 1x1, BN); FactorizedReduction (Relu; two stride-2 1x1 average pools, the second on the input
// shifted by one pixel (Pad then Slice), each followed by a 1x1 conv to half the channels;
// Concat; BN); max pools 3x3 with padding 1. The port's ZeroPad2d + crop are Pad and Slice ops.
// Convolutions have no bias. Names follow the port ("cell_3.comb_iter_1_left.separable_1").
#include <string>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {
namespace {

constexpr int64_t kPnasNetImageSize = 331;
constexpr double kBnEpsilon = 1e-3;

class PnasnetBuilder {
 public:
  explicit PnasnetBuilder(ModelBuilder& b) : b_(b) {}

  int channels(int x) const { return static_cast<int>(b_.dim(x, 1)); }

  // ZeroPad2d((1, 0, 1, 0)) before, x[:, :, 1:, 1:] after.
  int pad_top_left(int x) { return b_.pad(x, {0, 0, 1, 1, 0, 0, 0, 0}, "constant", "zero_pad"); }
  int crop_top_left(int x, const std::string& name) {
    return b_.slice(x, {1, 1}, {b_.dim(x, 2), b_.dim(x, 3)}, {2, 3}, {}, name);
  }

  int relu_conv_bn(int x, int64_t out, int64_t stride, const std::string& unit) {
    auto s = b_.scope(unit);
    x = b_.relu(x, "relu");
    x = b_.conv2d(x, out, 1, stride, 0, 1, false, "conv");
    return b_.batchnorm(x, kBnEpsilon, "bn");
  }

  int separable(int x, int64_t out, int64_t k, int64_t stride, bool zero_pad,
                const std::string& name) {
    auto s = b_.scope(name);
    const int64_t in = channels(x);
    if (zero_pad) x = pad_top_left(x);
    x = b_.conv2d(x, in, k, stride, k / 2, in, false, "depthwise_conv2d");
    if (zero_pad) x = crop_top_left(x, "crop");
    return b_.conv2d(x, out, 1, 1, 0, 1, false, "pointwise_conv2d");
  }

  int branch(int x, int64_t out, int64_t k, int64_t stride, bool stem_cell, bool zero_pad,
             const std::string& unit) {
    auto s = b_.scope(unit);
    const int64_t middle = stem_cell ? out : channels(x);
    x = b_.relu(x, "relu_1");
    x = separable(x, middle, k, stride, zero_pad, "separable_1");
    x = b_.batchnorm(x, kBnEpsilon, "bn_sep_1");
    x = b_.relu(x, "relu_2");
    x = separable(x, out, k, 1, false, "separable_2");
    return b_.batchnorm(x, kBnEpsilon, "bn_sep_2");
  }

  int max_pool(int x, int64_t stride, bool zero_pad, const std::string& unit) {
    auto s = b_.scope(unit);
    if (zero_pad) x = pad_top_left(x);
    x = b_.max_pool2d(x, 3, stride, 1, false, "pool");
    return zero_pad ? crop_top_left(x, "crop") : x;
  }

  int factorized_reduction(int x, int64_t out, const std::string& unit) {
    auto s = b_.scope(unit);
    x = b_.relu(x, "relu");
    int p1 = b_.avg_pool2d(x, 1, 2, 0, false, false, "path_1.avgpool");
    p1 = b_.conv2d(p1, out / 2, 1, 1, 0, 1, false, "path_1.conv");
    int p2 = b_.pad(x, {0, 0, 0, 0, 0, 0, 1, 1}, "constant", "path_2.pad");
    p2 = crop_top_left(p2, "path_2.crop");
    p2 = b_.avg_pool2d(p2, 1, 2, 0, false, false, "path_2.avgpool");
    p2 = b_.conv2d(p2, out / 2, 1, 1, 0, 1, false, "path_2.conv");
    const int cat = b_.concat({p1, p2}, 1, "concat");
    return b_.batchnorm(cat, kBnEpsilon, "final_path_bn");
  }

  // CellBase.cell_forward: the five sums of a cell and their concatenation. `left_0`, `right_0`
  // and `right_4` are the branches that differ between the stem cell and the others.
  struct Branches {
    int comb0_left, comb0_right, comb4_right;
  };
  int cell_body(int x_left, int x_right, int64_t out, int64_t stride, bool zero_pad,
                const Branches& br) {
    const int c0 = b_.add(br.comb0_left, br.comb0_right, "comb_iter_0");
    // Each branch is built in its own statement (as arguments of one call their order would be
    // the compiler's: gcc and clang built different op orders): right branch first, the order of
    // the committed models/onnx/pnasnet5_large.onnx.
    const int c1_right = max_pool(x_right, stride, zero_pad, "comb_iter_1_right");
    const int c1_left = branch(x_right, out, 7, stride, false, zero_pad, "comb_iter_1_left");
    const int c1 = b_.add(c1_left, c1_right, "comb_iter_1");
    const int c2_right = branch(x_right, out, 3, stride, false, zero_pad, "comb_iter_2_right");
    const int c2_left = branch(x_right, out, 5, stride, false, zero_pad, "comb_iter_2_left");
    const int c2 = b_.add(c2_left, c2_right, "comb_iter_2");
    const int c3_right = max_pool(x_right, stride, zero_pad, "comb_iter_3_right");
    const int c3_left = branch(c2, out, 3, 1, false, false, "comb_iter_3_left");
    const int c3 = b_.add(c3_left, c3_right, "comb_iter_3");
    // The stem cell's branch maps 96 channels to `out` in its first separable conv
    // (stem_cell=True); the other cells' left input has `out` channels already.
    const int c4_left = branch(x_left, out, 3, stride, /*stem_cell=*/channels(x_left) != out,
                               zero_pad, "comb_iter_4_left");
    const int c4 = b_.add(c4_left, br.comb4_right, "comb_iter_4");
    return b_.concat({c0, c1, c2, c3, c4}, 1, "concat");
  }

  int cell_stem_0(int x, int64_t out) {
    auto s = b_.scope("cell_stem_0");
    const int x_right = relu_conv_bn(x, out, 1, "conv_1x1");
    Branches br;
    br.comb0_left = branch(x, out, 5, 2, true, false, "comb_iter_0_left");
    {
      auto r = b_.scope("comb_iter_0_right");
      int y = max_pool(x, 2, false, "max_pool");
      y = b_.conv2d(y, out, 1, 1, 0, 1, false, "conv");
      br.comb0_right = b_.batchnorm(y, kBnEpsilon, "bn");
    }
    br.comb4_right = relu_conv_bn(x_right, out, 2, "comb_iter_4_right");
    return cell_body(x, x_right, out, 2, false, br);
  }

  int cell(int x_prev, int x, int64_t out, bool reduction, bool zero_pad, bool match_prev,
           const std::string& name) {
    auto s = b_.scope(name);
    const int64_t stride = reduction ? 2 : 1;
    const int x_left = match_prev ? factorized_reduction(x_prev, out, "conv_prev_1x1")
                                  : relu_conv_bn(x_prev, out, 1, "conv_prev_1x1");
    const int x_right = relu_conv_bn(x, out, 1, "conv_1x1");
    Branches br;
    br.comb0_left = branch(x_left, out, 5, stride, false, zero_pad, "comb_iter_0_left");
    br.comb0_right = max_pool(x_left, stride, zero_pad, "comb_iter_0_right");
    br.comb4_right = reduction ? relu_conv_bn(x_right, out, stride, "comb_iter_4_right") : x_right;
    return cell_body(x_left, x_right, out, stride, zero_pad, br);
  }

 private:
  ModelBuilder& b_;
};

}  // namespace

Graph build_pnasnet5_large(const ZooOptions& opts) {
  const int64_t image = zoo_image_size(opts, kPnasNetImageSize);
  ModelBuilder b("pnasnet5_large", opts.dtype);
  PnasnetBuilder p(b);
  int x = b.input("data", {opts.batch, 3, image, image});
  {
    auto s = b.scope("conv_0");
    x = b.conv2d(x, 96, 3, 2, 0, 1, false, "conv");
    x = b.batchnorm(x, kBnEpsilon, "bn");
  }
  const int conv0 = x;
  const int stem0 = p.cell_stem_0(conv0, 54);
  const int stem1 = p.cell(conv0, stem0, 108, true, false, true, "cell_stem_1");
  // (output channels per branch, reduction, zero padding, factorized reduction of the left input)
  struct CellSpec {
    int64_t out;
    bool reduction, zero_pad, match_prev;
  };
  const CellSpec cells[] = {
      {216, false, false, true},  {216, false, false, false}, {216, false, false, false},
      {216, false, false, false}, {432, true, true, false},   {432, false, false, true},
      {432, false, false, false}, {432, false, false, false}, {864, true, false, false},
      {864, false, false, true},  {864, false, false, false}, {864, false, false, false}};
  int prev = stem0;
  int cur = stem1;
  for (int i = 0; i < 12; ++i) {
    const CellSpec& c = cells[i];
    const int next = p.cell(prev, cur, c.out, c.reduction, c.zero_pad, c.match_prev,
                            "cell_" + std::to_string(i));
    prev = cur;
    cur = next;
  }
  x = b.relu(cur, "relu");
  x = b.avg_pool2d(x, b.dim(x, 2), 1, 0, false, false, "avg_pool");
  x = b.flatten(x, 1, "flatten");
  x = b.linear(x, kImageNetClasses, true, "last_linear");
  return b.finish({x});
}

}  // namespace dgs
