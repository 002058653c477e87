// NasNet-A Large (6 @ 4032) as the IOS authors define it in their model code
// (artifact: mit-han-lab/inter-operator-scheduler, python/models/nasnet.py):
// stem_filters 96, filters 168, input 3 x 331 x 331, Relu-SepConv schedule
// units (Relu, depthwise conv, pointwise 1x1 conv), Relu-Conv 1x1 units, 3x3
// pools, and "identity" units that add the values of each term and concatenate
// the terms (Add ops and one Concat). 374 schedule units (thesis Table 4.1).
//
// Op names are "<part>.<unit>.<op>": <part> is the cell ("stem_conv", "stem0",
// "stem1", "cell00".."cell17", "tail_relu", "tail_pool"), which the IOS
// scheduler uses as the explicit per-cell parts of the authors' single NasNet
// block (their get_parts with split_vars). Choices the authors' code makes and
// this file follows (they differ from the NASNet paper): stem1's right path
// sums (not concatenates) its two stride-2 1x1 convs; the reduction cell's
// concat repeats c1l + c1r as a separate term.
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/zoo.h"

namespace dgs {
namespace {

class NasNetBuilder {
 public:
  explicit NasNetBuilder(ModelBuilder& b) : b_(b) {}

  int channels(int x) const { return static_cast<int>(b_.dim(x, 1)); }

  int relu_conv(int x, int64_t out, int64_t stride, const std::string& unit) {
    auto s = b_.scope(unit);
    x = b_.relu(x, "relu");
    return b_.conv2d(x, out, 1, stride, 0, 1, true, "conv");
  }
  int relu_sep_conv(int x, int64_t out, int64_t k, int64_t stride, const std::string& unit) {
    auto s = b_.scope(unit);
    const int64_t in = channels(x);
    x = b_.relu(x, "relu");
    x = b_.conv2d(x, in, k, stride, k / 2, in, true, "dwconv");
    return b_.conv2d(x, out, 1, 1, 0, 1, true, "pwconv");
  }
  // branch_separable: Relu-SepConv(in -> in, stride) then Relu-SepConv(in ->
  // out, 1)
  int branch(int x, int64_t out, int64_t k, int64_t stride, const std::string& name) {
    const int64_t in = channels(x);
    x = relu_sep_conv(x, in, k, stride, name + "_a");
    return relu_sep_conv(x, out, k, 1, name + "_b");
  }
  // branch_separable_stem: Relu-SepConv(in -> out, stride) then
  // Relu-SepConv(out -> out, 1)
  int branch_stem(int x, int64_t out, int64_t k, int64_t stride, const std::string& name) {
    x = relu_sep_conv(x, out, k, stride, name + "_a");
    return relu_sep_conv(x, out, k, 1, name + "_b");
  }
  int max_pool(int x, int64_t stride, const std::string& unit) {
    auto s = b_.scope(unit);
    return b_.max_pool2d(x, 3, stride, 1, false, "maxpool");
  }
  int avg_pool(int x, int64_t stride, const std::string& unit) {
    auto s = b_.scope(unit);
    return b_.avg_pool2d(x, 3, stride, 1, false, false, "avgpool");
  }
  // The authors' Identity node: the values of each term are added, the terms
  // concatenated.
  int identity(const std::vector<std::vector<int>>& terms, const std::string& unit) {
    auto s = b_.scope(unit);
    std::vector<int> parts;
    int adds = 0;
    for (const auto& term : terms) {
      int v = term.at(0);
      for (size_t i = 1; i < term.size(); ++i)
        v = b_.add(v, term[i], "add" + std::to_string(adds++));
      parts.push_back(v);
    }
    if (parts.size() == 1) return parts[0];
    return b_.concat(parts, 1, "concat");
  }

  int stem0(int x, int64_t f) {
    auto s = b_.scope("stem0");
    const int x1 = relu_conv(x, f, 1, "x1");
    const int c0l = branch(x1, f, 5, 2, "c0l");
    const int c0r = branch_stem(x, f, 7, 2, "c0r");
    const int c0 = identity({{c0l, c0r}}, "c0");
    const int c1l = max_pool(x1, 2, "c1l");
    const int c1r = branch_stem(x, f, 7, 2, "c1r");
    const int c1 = identity({{c1l, c1r}}, "c1");
    const int c2l = avg_pool(x1, 2, "c2l");
    const int c2r = branch_stem(x, f, 5, 2, "c2r");
    const int c3r = avg_pool(c0, 1, "c3r");
    const int c4l = branch(c0, f, 3, 1, "c4l");
    const int c4r = max_pool(x1, 2, "c4r");
    return identity({{c1}, {c2l, c2r}, {c3r, c0}, {c4l, c4r}}, "out");
  }

  int stem1(int hp, int h, int64_t f) {
    auto s = b_.scope("stem1");
    const int x_left = relu_conv(hp, f, 1, "x_left");
    const int xr1 = relu_conv(h, f / 2, 2, "x_right_1");
    const int xr2 = relu_conv(h, f / 2, 2, "x_right_2");
    const int x_right = identity({{xr1, xr2}}, "x_right");
    const int c0l = branch(x_left, f, 5, 2, "c0l");
    const int c0r = branch(x_right, f, 7, 2, "c0r");
    const int c0 = identity({{c0l, c0r}}, "c0");
    const int c1l = max_pool(x_left, 2, "c1l");
    const int c1r = branch(x_right, f, 7, 2, "c1r");
    const int c1 = identity({{c1l, c1r}}, "c1");
    const int c2l = avg_pool(x_left, 2, "c2l");
    const int c2r = branch(x_right, f, 5, 2, "c2r");
    const int c3r = avg_pool(c0, 1, "c3r");
    const int c4l = branch(c0, f, 3, 1, "c4l");
    const int c4r = max_pool(x_left, 2, "c4r");
    return identity({{c1}, {c2l, c2r}, {c3r, c1}, {c4l, c4r}}, "out");
  }

  int first_cell(int x, int x_prev, int64_t left, int64_t right, const std::string& name) {
    auto s = b_.scope(name);
    const int xl1 = relu_conv(x_prev, left, 2, "x_left_1");
    const int xl2 = relu_conv(x_prev, left, 2, "x_left_2");
    const int x_left = identity({{xl1}, {xl2}}, "x_left");
    const int x_right = relu_conv(x, right, 1, "x_right");
    const int c0l = branch(x_right, right, 5, 1, "c0l");
    const int c0r = branch(x_right, right, 3, 1, "c0r");
    const int c1l = branch(x_left, right, 5, 1, "c1l");
    const int c1r = branch(x_left, right, 3, 1, "c1r");
    const int c2l = avg_pool(x_right, 1, "c2l");
    const int c3l = avg_pool(x_left, 1, "c3l");
    const int c3r = avg_pool(x_left, 1, "c3r");
    const int c4l = branch(x_right, right, 3, 1, "c4l");
    return identity({{x_left}, {c0l, c0r}, {c1l, c1r}, {c2l, x_left}, {c3l, c3r}, {c4l, x_right}},
                    "out");
  }

  int normal_cell(int x, int x_prev, int64_t left, int64_t right, const std::string& name) {
    auto s = b_.scope(name);
    const int x_left = relu_conv(x_prev, left, 1, "x_left");
    const int x_right = relu_conv(x, right, 1, "x_right");
    const int c0l = branch(x_right, right, 5, 1, "c0l");
    const int c0r = branch(x_left, left, 3, 1, "c0r");
    const int c1l = branch(x_left, left, 5, 1, "c1l");
    const int c1r = branch(x_left, left, 3, 1, "c1r");
    const int c2l = avg_pool(x_right, 1, "c2l");
    const int c3l = avg_pool(x_left, 1, "c3l");
    const int c3r = avg_pool(x_left, 1, "c3r");
    const int c4l = branch(x_right, right, 3, 1, "c4l");
    return identity({{c0l, c0r}, {c1l, c1r}, {c2l, x_left}, {c3l, c3r}, {c4l, x_right}}, "out");
  }

  int reduction_cell(int x, int x_prev, int64_t left, int64_t right, const std::string& name) {
    auto s = b_.scope(name);
    const int x_left = relu_conv(x_prev, left, 1, "x_left");
    const int x_right = relu_conv(x, right, 1, "x_right");
    const int c0l = branch(x_right, right, 5, 2, "c0l");
    const int c0r = branch(x_left, right, 7, 2, "c0r");
    const int c0 = identity({{c0l, c0r}}, "c0");
    const int c1l = max_pool(x_right, 2, "c1l");
    const int c1r = branch(x_left, right, 7, 2, "c1r");
    const int c1 = identity({{c1l, c1r}}, "c1");
    const int c2l = avg_pool(x_right, 2, "c2l");
    const int c2r = branch(x_left, right, 5, 2, "c2r");
    const int c3r = avg_pool(c0, 1, "c3r");
    const int c4l = branch(c0, right, 3, 1, "c4l");
    const int c4r = max_pool(x_right, 2, "c4r");
    return identity({{c1l, c1r}, {c2l, c2r}, {c1, c3r}, {c4l, c4r}}, "out");
  }

 private:
  ModelBuilder& b_;
};

std::string cell_name(int i) {
  return (i < 10 ? "cell0" : "cell") + std::to_string(i);
}

}  // namespace

Graph build_nasnet_large(const ZooOptions& opts) {
  check_zoo_options(opts, "nasnet_large");
  const int64_t size = zoo_image_size(opts, 331);
  const int64_t stem_filters = 96, filters = 168;
  ModelBuilder b("nasnet_large", opts.dtype);
  NasNetBuilder n(b);
  const int v0 = b.input("data", {opts.batch, 3, size, size});
  int v1;
  {
    auto s = b.scope("stem_conv");
    auto u = b.scope("conv");
    v1 = b.conv2d(v0, stem_filters, 3, 2, 0, 1, true, "conv");
  }
  const int v2 = n.stem0(v1, filters / 4);
  const int v3 = n.stem1(v2, v1, filters / 2);
  // 3 x [first cell + 5 normal cells] with a reduction cell between them
  // (authors' v4..v23).
  std::vector<int> v = {v0, v1, v2, v3};
  int cell = 0;
  int64_t mult = 1;
  for (int group = 0; group < 3; ++group) {
    if (group > 0) {
      // reduction cell on (previous, one before), then the first cell takes the
      // cell before that
      const int prev = static_cast<int>(v.size()) - 1;
      const int red =
          n.reduction_cell(v[static_cast<size_t>(prev)], v[static_cast<size_t>(prev - 1)],
                           2 * mult * filters, 2 * mult * filters, cell_name(cell++));
      v.push_back(red);
      const int first = n.first_cell(red, v[static_cast<size_t>(prev - 1)], mult * filters,
                                     2 * mult * filters, cell_name(cell++));
      v.push_back(first);
      mult *= 2;
    } else {
      v.push_back(n.first_cell(v3, v2, filters / 2, filters, cell_name(cell++)));
    }
    for (int i = 0; i < 5; ++i) {
      const size_t k = v.size();
      v.push_back(
          n.normal_cell(v[k - 1], v[k - 2], mult * filters, mult * filters, cell_name(cell++)));
    }
  }
  int out;
  {
    auto s = b.scope("tail_relu");
    auto u = b.scope("relu");
    out = b.relu(v.back(), "relu");
  }
  {
    auto s = b.scope("tail_pool");
    auto u = b.scope("pool");
    out = b.global_avg_pool(out, "gap");
  }
  return b.finish({out});
}

}  // namespace dgs
