// resolve_window: kernels, strides, dilations, pads and output sizes of conv/pool windows, against
// hand-computed values, and its errors.
#include "common/graph/window.h"

#include <gtest/gtest.h>

#include <string>

namespace dgs {
namespace {

using I = std::vector<int64_t>;

Op make_op(OpKind kind, Attributes attrs, const std::string& name = "w") {
  Op op;
  op.name = name;
  op.kind = kind;
  op.attrs = std::move(attrs);
  return op;
}

// Expects `fn` to throw dgs::Error whose one-line message contains every string in `parts`.
template <typename F>
void expect_error(F&& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    FAIL() << "expected dgs::Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

TEST(Window, ConvExplicitPadsAndStrides) {
  // 7x5 input, 3x3 kernel, stride 2, pad 1: (7+2-3)/2+1 = 4, (5+2-3)/2+1 = 3 (ONNX's test_conv).
  const Window w = resolve_window(
      make_op(OpKind::Conv, Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}})), {7, 5},
      {3, 3});
  EXPECT_EQ(w.spatial_dims(), 2u);
  EXPECT_EQ(w.kernel, (I{3, 3}));
  EXPECT_EQ(w.strides, (I{2, 2}));
  EXPECT_EQ(w.dilations, (I{1, 1}));
  EXPECT_EQ(w.pads_begin, (I{1, 1}));
  EXPECT_EQ(w.pads_end, (I{1, 1}));
  EXPECT_EQ(w.out_spatial, (Shape{4, 3}));
  EXPECT_EQ(w.auto_pad, AutoPad::NotSet);
  EXPECT_EQ(w.group, 1);
  EXPECT_FALSE(w.ceil_mode);
  EXPECT_TRUE(w.symmetric_pads());
  EXPECT_EQ(w.output_padding, (I{0, 0}));
}

TEST(Window, AsymmetricPadsAndGroup) {
  // pads [top, left, bottom, right] = [0, 1, 2, 1] on 8x8 with 3x3: 8+2-3+1 = 8, 8+2-3+1 = 8.
  const Window w = resolve_window(
      make_op(OpKind::Conv, Attributes({{"pads", I{0, 1, 2, 1}}, {"group", int64_t{4}}})), {8, 8},
      {3, 3});
  EXPECT_EQ(w.pads_begin, (I{0, 1}));
  EXPECT_EQ(w.pads_end, (I{2, 1}));
  EXPECT_EQ(w.out_spatial, (Shape{8, 8}));
  EXPECT_EQ(w.group, 4);
  EXPECT_FALSE(w.symmetric_pads());
}

TEST(Window, SameUpperPutsTheOddPadAtTheEndSameLowerAtTheBeginning) {
  // in 6, kernel 3, stride 2: out = ceil(6/2) = 3, total = (3-1)*2 + 3 - 6 = 1.
  // in 7, kernel 4, stride 1: out = 7, total = 6 + 4 - 7 = 3.
  const Op upper = make_op(
      OpKind::Conv, Attributes({{"auto_pad", std::string("SAME_UPPER")}, {"strides", I{2, 1}}}));
  const Op lower = make_op(
      OpKind::Conv, Attributes({{"auto_pad", std::string("SAME_LOWER")}, {"strides", I{2, 1}}}));
  const Window u = resolve_window(upper, {6, 7}, {3, 4});
  const Window l = resolve_window(lower, {6, 7}, {3, 4});
  EXPECT_EQ(u.auto_pad, AutoPad::SameUpper);
  EXPECT_EQ(l.auto_pad, AutoPad::SameLower);
  EXPECT_EQ(u.out_spatial, (Shape{3, 7}));
  EXPECT_EQ(l.out_spatial, (Shape{3, 7}));
  EXPECT_EQ(u.pads_begin, (I{0, 1}));
  EXPECT_EQ(u.pads_end, (I{1, 2}));
  EXPECT_EQ(l.pads_begin, (I{1, 2}));
  EXPECT_EQ(l.pads_end, (I{0, 1}));
  // SAME never pads more than needed: in 8, kernel 1, stride 2 -> out 4, total max(0, 6+1-8) = 0.
  const Window z = resolve_window(upper, {8, 8}, {1, 1});
  EXPECT_EQ(z.out_spatial, (Shape{4, 8}));
  EXPECT_EQ(z.pads_begin, (I{0, 0}));
  EXPECT_EQ(z.pads_end, (I{0, 0}));
}

TEST(Window, ValidIgnoresPadsAttribute) {
  const Window w = resolve_window(
      make_op(OpKind::Conv,
              Attributes({{"auto_pad", std::string("VALID")}, {"pads", I{2, 2, 2, 2}}})),
      {10, 10}, {3, 3});
  EXPECT_EQ(w.pads_begin, (I{0, 0}));
  EXPECT_EQ(w.pads_end, (I{0, 0}));
  EXPECT_EQ(w.out_spatial, (Shape{8, 8}));
}

TEST(Window, Dilation) {
  // kernel 3, dilation 2: effective kernel 5; in 10 -> 10 - 5 + 1 = 6.
  // kernel 2, dilation 3: effective kernel 4; SAME_UPPER on 9 -> out 9, total 3 -> 1 / 2.
  const Window w =
      resolve_window(make_op(OpKind::Conv, Attributes({{"dilations", I{2}}})), {10}, {3});
  EXPECT_EQ(w.effective_kernel(0), 5);
  EXPECT_EQ(w.out_spatial, (Shape{6}));
  const Window s = resolve_window(
      make_op(OpKind::Conv,
              Attributes({{"dilations", I{3}}, {"auto_pad", std::string("SAME_UPPER")}})),
      {9}, {2});
  EXPECT_EQ(s.effective_kernel(0), 4);
  EXPECT_EQ(s.out_spatial, (Shape{9}));
  EXPECT_EQ(s.pads_begin, (I{1}));
  EXPECT_EQ(s.pads_end, (I{2}));
  // MaxPool and AveragePool (ONNX opset 19) honour dilations: kernel 2, dilation 2 on 5 -> 3.
  for (OpKind k : {OpKind::MaxPool, OpKind::AveragePool}) {
    const Window p =
        resolve_window(make_op(k, Attributes({{"kernel_shape", I{2}}, {"dilations", I{2}}})), {5});
    EXPECT_EQ(p.out_spatial, (Shape{3})) << op_kind_name(k);
  }
}

TEST(Window, CeilMode) {
  // 3x3/2 pool: on 109, (109-3)/2 = 53 exactly -> 54 either way; on 110, 107/2 = 53.5 -> 54 or 55.
  const Op floor_op =
      make_op(OpKind::MaxPool, Attributes({{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}}));
  const Op ceil_op = make_op(
      OpKind::MaxPool,
      Attributes({{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}, {"ceil_mode", int64_t{1}}}));
  EXPECT_EQ(resolve_window(floor_op, {109, 110}).out_spatial, (Shape{54, 54}));
  const Window c = resolve_window(ceil_op, {109, 110});
  EXPECT_TRUE(c.ceil_mode);
  EXPECT_EQ(c.out_spatial, (Shape{54, 55}));
  EXPECT_EQ(c.pads_end, (I{0, 0}));  // ceil mode does not turn into padding
  // ceil_mode belongs to pools: a Conv ignores it.
  EXPECT_FALSE(resolve_window(make_op(OpKind::Conv,
                                      Attributes({{"ceil_mode", int64_t{1}}, {"strides", I{2}}})),
                              {110}, {3})
                   .ceil_mode);
}

TEST(Window, ThreeDimensional) {
  // in [4, 9, 6], kernel [3, 3, 3], pads [1,0,2 | 1,0,2], strides [1,2,3], dilations [1,2,1]:
  // d0: 4+2-3 = 3 -> 4; d1: ek 5, 9-5 = 4 -> 4/2+1 = 3; d2: 6+4-3 = 7 -> 7/3+1 = 3.
  const Window w = resolve_window(make_op(OpKind::Conv, Attributes({{"pads", I{1, 0, 2, 1, 0, 2}},
                                                                    {"strides", I{1, 2, 3}},
                                                                    {"dilations", I{1, 2, 1}}})),
                                  {4, 9, 6}, {3, 3, 3});
  EXPECT_EQ(w.spatial_dims(), 3u);
  EXPECT_EQ(w.out_spatial, (Shape{4, 3, 3}));
  EXPECT_EQ(w.pads_begin, (I{1, 0, 2}));
  // 3-D average pool, 2x2x2/2 with ceil mode on 5x5x5: (5-2)/2 = 1.5 -> 3.
  const Window p =
      resolve_window(make_op(OpKind::AveragePool, Attributes({{"kernel_shape", I{2, 2, 2}},
                                                              {"strides", I{2, 2, 2}},
                                                              {"ceil_mode", int64_t{1}}})),
                     {5, 5, 5});
  EXPECT_EQ(p.out_spatial, (Shape{3, 3, 3}));
}

TEST(Window, KernelShapeAgreesWithTheWeight) {
  const Op op = make_op(OpKind::Conv, Attributes({{"kernel_shape", I{3, 3}}}));
  EXPECT_EQ(resolve_window(op, {8, 8}).kernel, (I{3, 3}));  // no weight: kernel_shape
  EXPECT_EQ(resolve_window(op, {8, 8}, {3, 3}).out_spatial, (Shape{6, 6}));
  expect_error(
      [&] {
        resolve_window(op, {8, 8}, {5, 5});
      },
      {"op 'w' (Conv)", "'kernel_shape' [3,3] differs from the weight's spatial dims [5,5]"});
}

TEST(Window, ConvTransposeOutputPadding) {
  // in 7, kernel 3, stride 2, pads 1/1, output_padding 1: 2*6 + 1 + 3 - 2 = 14.
  const Window w = resolve_window(
      make_op(
          OpKind::ConvTranspose,
          Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}, {"output_padding", I{1, 0}}})),
      {7, 7}, {3, 3});
  EXPECT_EQ(w.output_padding, (I{1, 0}));
  EXPECT_EQ(w.out_spatial, (Shape{14, 13}));
  EXPECT_EQ(w.pads_begin, (I{1, 1}));
  EXPECT_EQ(w.pads_end, (I{1, 1}));
  // Dilation 2 on in 3, kernel 3, stride 1: 2 + 5 = 7.
  const Window d =
      resolve_window(make_op(OpKind::ConvTranspose, Attributes({{"dilations", I{2}}})), {3}, {3});
  EXPECT_EQ(d.out_spatial, (Shape{7}));
}

TEST(Window, ConvTransposeOutputShape) {
  // in 7, kernel 3, stride 2: full = 2*6 + 3 = 15. output_shape [15, 14]: total 0 and 1; without
  // SAME_UPPER the odd element goes to the beginning. Explicit pads are ignored.
  const Op op = make_op(
      OpKind::ConvTranspose,
      Attributes({{"strides", I{2, 2}}, {"pads", I{3, 3, 3, 3}}, {"output_shape", I{15, 14}}}));
  const Window w = resolve_window(op, {7, 7}, {3, 3});
  EXPECT_EQ(w.out_spatial, (Shape{15, 14}));
  EXPECT_EQ(w.pads_begin, (I{0, 1}));
  EXPECT_EQ(w.pads_end, (I{0, 0}));
  // With N and C included, and SAME_UPPER moving the odd element to the end.
  const Window u = resolve_window(
      make_op(OpKind::ConvTranspose, Attributes({{"strides", I{2, 2}},
                                                 {"auto_pad", std::string("SAME_UPPER")},
                                                 {"output_shape", I{1, 8, 15, 14}}})),
      {7, 7}, {3, 3});
  EXPECT_EQ(u.out_spatial, (Shape{15, 14}));
  EXPECT_EQ(u.pads_begin, (I{0, 0}));
  EXPECT_EQ(u.pads_end, (I{0, 1}));
  // A larger output than `full` gives negative pads: 17 -> total -2 -> -1 / -1.
  const Window n = resolve_window(
      make_op(OpKind::ConvTranspose, Attributes({{"strides", I{2}}, {"output_shape", I{17}}})), {7},
      {3});
  EXPECT_EQ(n.out_spatial, (Shape{17}));
  EXPECT_EQ(n.pads_begin, (I{-1}));
  EXPECT_EQ(n.pads_end, (I{-1}));
}

TEST(Window, ConvTransposeSame) {
  // in 5, kernel 3, stride 2: full = 8 + 3 = 11, target 5 * 2 = 10, total 1.
  auto same = [](const std::string& mode) {
    return resolve_window(
        make_op(OpKind::ConvTranspose, Attributes({{"strides", I{2}}, {"auto_pad", mode}})), {5},
        {3});
  };
  const Window u = same("SAME_UPPER");
  const Window l = same("SAME_LOWER");
  EXPECT_EQ(u.out_spatial, (Shape{10}));
  EXPECT_EQ(l.out_spatial, (Shape{10}));
  EXPECT_EQ(u.pads_begin, (I{0}));
  EXPECT_EQ(u.pads_end, (I{1}));
  EXPECT_EQ(l.pads_begin, (I{1}));
  EXPECT_EQ(l.pads_end, (I{0}));
  // VALID: no padding, out = full.
  EXPECT_EQ(same("VALID").out_spatial, (Shape{11}));
}

TEST(Window, FromGraph) {
  Graph g;
  int x = g.add_input("x", {1, 8, 9, 9});
  int w = g.add_weight("w", {16, 4, 3, 3});
  int c =
      g.add_op(OpKind::Conv, "c", {x, w},
               Attributes({{"group", int64_t{2}}, {"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}));
  const Window win = resolve_window(g, c);
  EXPECT_EQ(win.kernel, (I{3, 3}));
  EXPECT_EQ(win.group, 2);
  EXPECT_EQ(win.out_spatial, (Shape{5, 5}));  // (9+2-3)/2+1
  const Shape& y = g.tensor(g.op(c).outputs[0]).shape;
  EXPECT_EQ(Shape(y.begin() + 2, y.end()), win.out_spatial);
  int p = g.add_op(OpKind::MaxPool, "p", {x}, Attributes({{"kernel_shape", I{2, 2}}}));
  EXPECT_EQ(resolve_window(g, p).out_spatial, (Shape{8, 8}));
  int r = g.add_op(OpKind::Relu, "r", {x});
  expect_error([&] { resolve_window(g, r); }, {"op 'r' (Relu)", "no sliding window"});
}

TEST(Window, Errors) {
  expect_error(
      [] {
        resolve_window(make_op(OpKind::MaxPool, {}, "mp"), {8, 8});
      },
      {"op 'mp' (MaxPool)", "'kernel_shape' is missing"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::Conv, Attributes({{"auto_pad", std::string("SAME")}})), {8},
                       {3});
      },
      {"op 'w' (Conv)", "'auto_pad' is 'SAME'", "SAME_UPPER"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::Conv, Attributes({{"strides", I{1, 1}}})), {8}, {3});
      },
      {"'strides' has 2 values", "1 values"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::Conv, Attributes({{"strides", I{0}}})), {8}, {3});
      },
      {"'strides' has a value below 1"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::Conv, Attributes({{"pads", I{-1, 0}}})), {8}, {3});
      },
      {"'pads' has a negative value"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::Conv, {}), {4, 4}, {5, 5});
      },
      {"op 'w' (Conv)", "smaller than the effective kernel 5"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::Conv, Attributes({{"group", int64_t{0}}})), {8}, {3});
      },
      {"'group' is 0", "group >= 1"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::Conv, {}), {8, 8}, {3});
      },
      {"1 spatial dims for an input with 2"});
  expect_error([] { resolve_window(make_op(OpKind::Conv, {}), {8}); },
               {"'kernel_shape' is missing and no weight shape is given"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::ConvTranspose, Attributes({{"output_shape", I{4, 4, 4}}})),
                       {8, 8}, {3, 3});
      },
      {"op 'w' (ConvTranspose)", "'output_shape' has 3 values", "2 spatial sizes"});
  expect_error(
      [] {
        resolve_window(make_op(OpKind::MaxPool, Attributes({{"kernel_shape", I{}}})), {});
      },
      {"no spatial dims"});
}

}  // namespace
}  // namespace dgs
