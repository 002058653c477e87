// Operator tests of the CPU reference executor: hand-computed tiny cases and comparisons with
// naive loop references on random inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"

namespace dgs {
namespace {

Op make_op(OpKind kind, Attributes attrs = {}) {
  Op op;
  op.name = std::string(op_kind_name(kind)) + "_test";
  op.kind = kind;
  op.attrs = std::move(attrs);
  return op;
}

TensorData run1(const Op& op, const std::vector<const TensorData*>& in) {
  return compute_op(op, in, 1).at(0);
}

TensorData iota_tensor(const Shape& s) {
  TensorData t = TensorData::zeros(s);
  for (size_t k = 0; k < t.f.size(); ++k) t.f[k] = static_cast<float>(k);
  return t;
}

void expect_close(const TensorData& got, const TensorData& want) {
  const Comparison c = compare_tensors(got, want);
  EXPECT_TRUE(c.passed) << c.str() << " got " << tensor_data_str(got) << " want "
                        << tensor_data_str(want);
}

// Naive direct convolution (2-D, groups, stride, dilation, padding): the loop nest of the
// definition, independent of im2col/GEMM.
TensorData naive_conv2d(const TensorData& x, const TensorData& w, const TensorData& b,
                        int64_t group, int64_t stride, int64_t dil, int64_t pad) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t m = w.shape[0], cg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const int64_t oh = (h + 2 * pad - ((kh - 1) * dil + 1)) / stride + 1;
  const int64_t ow = (wd + 2 * pad - ((kw - 1) * dil + 1)) / stride + 1;
  const int64_t mg = m / group;
  TensorData y = TensorData::zeros({n, m, oh, ow});
  for (int64_t in = 0; in < n; ++in)
    for (int64_t om = 0; om < m; ++om) {
      const int64_t g = om / mg;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double s = b.f[om];
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t a = 0; a < kh; ++a)
              for (int64_t e = 0; e < kw; ++e) {
                const int64_t ih = i * stride - pad + a * dil, iw = j * stride - pad + e * dil;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                s += static_cast<double>(x.f[((in * c + g * cg + ic) * h + ih) * wd + iw]) *
                     w.f[((om * cg + ic) * kh + a) * kw + e];
              }
          y.f[((in * m + om) * oh + i) * ow + j] = static_cast<float>(s);
        }
    }
  (void)c;
  return y;
}

TEST(ExecConv, StridePadHandComputed) {
  // ONNX Conv example: 5x5 ramp, 3x3 ones, stride 2, pad 1. Each output is the sum of the
  // in-range 3x3 window, e.g. centre (2,2): 6+7+8+11+12+13+16+17+18 = 108.
  const TensorData x = iota_tensor({1, 1, 5, 5});
  TensorData w = TensorData::zeros({1, 1, 3, 3});
  std::fill(w.f.begin(), w.f.end(), 1.0f);
  Attributes a;
  a.set("strides", std::vector<int64_t>{2, 2});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const TensorData y = run1(make_op(OpKind::Conv, a), {&x, &w});
  expect_close(y, TensorData::floats({1, 1, 3, 3}, {12, 27, 24, 63, 108, 81, 72, 117, 84}));
}

TEST(ExecConv, BiasAndOneByOne) {
  // 1x1 conv (the direct path without im2col): y[m] = sum_c w[m,c] x[c] + b[m].
  const TensorData x = TensorData::floats({1, 2, 1, 2}, {1, 2, 3, 4});
  const TensorData w = TensorData::floats({2, 2, 1, 1}, {1, 10, -1, 0.5});
  const TensorData b = TensorData::floats({2}, {100, 0});
  const TensorData y = run1(make_op(OpKind::Conv), {&x, &w, &b});
  expect_close(y, TensorData::floats({1, 2, 1, 2}, {131, 142, 0.5, 0}));
}

TEST(ExecConv, GroupedDilatedMatchesNaivePerGroup) {
  struct Case {
    int64_t c, m, group, stride, dil, pad, k;
  };
  for (const Case& cs : {Case{4, 6, 2, 1, 1, 1, 3}, Case{6, 6, 6, 2, 1, 1, 3},
                         Case{8, 4, 4, 2, 2, 2, 3}, Case{3, 5, 1, 3, 1, 0, 5}}) {
    const TensorData x = random_tensor({2, cs.c, 9, 11}, DType::F32, 1);
    const TensorData w = random_tensor({cs.m, cs.c / cs.group, cs.k, cs.k}, DType::F32, 2);
    const TensorData b = random_tensor({cs.m}, DType::F32, 3);
    Attributes a;
    a.set("group", cs.group);
    a.set("strides", std::vector<int64_t>{cs.stride, cs.stride});
    a.set("dilations", std::vector<int64_t>{cs.dil, cs.dil});
    a.set("pads", std::vector<int64_t>{cs.pad, cs.pad, cs.pad, cs.pad});
    const TensorData y = run1(make_op(OpKind::Conv, a), {&x, &w, &b});
    SCOPED_TRACE("group " + std::to_string(cs.group) + " stride " + std::to_string(cs.stride));
    expect_close(y, naive_conv2d(x, w, b, cs.group, cs.stride, cs.dil, cs.pad));
  }
}

TEST(ExecConv, OneDAndThreeDMatchTwoDEmbedding) {
  // A 1-D conv equals a 2-D conv with a height-1 image and kernel; a 3-D conv with depth 1 too.
  const TensorData x1 = random_tensor({1, 3, 10}, DType::F32, 4);
  const TensorData w1 = random_tensor({2, 3, 3}, DType::F32, 5);
  Attributes a1;
  a1.set("pads", std::vector<int64_t>{1, 1});
  a1.set("strides", std::vector<int64_t>{2});
  TensorData y1 = run1(make_op(OpKind::Conv, a1), {&x1, &w1});
  TensorData x2 = x1, w2 = w1;
  x2.shape = {1, 3, 1, 10};
  w2.shape = {2, 3, 1, 3};
  Attributes a2;
  a2.set("pads", std::vector<int64_t>{0, 1, 0, 1});
  a2.set("strides", std::vector<int64_t>{1, 2});
  TensorData y2 = run1(make_op(OpKind::Conv, a2), {&x2, &w2});
  y2.shape = y1.shape;
  expect_close(y1, y2);
  TensorData x3 = x1, w3 = w1;
  x3.shape = {1, 3, 1, 1, 10};
  w3.shape = {2, 3, 1, 1, 3};
  Attributes a3;
  a3.set("pads", std::vector<int64_t>{0, 0, 1, 0, 0, 1});
  a3.set("strides", std::vector<int64_t>{1, 1, 2});
  TensorData y3 = run1(make_op(OpKind::Conv, a3), {&x3, &w3});
  y3.shape = y1.shape;
  expect_close(y3, y1);
  EXPECT_EQ(y1.shape, (Shape{1, 2, 5}));  // (10 + 2 - 3) / 2 + 1
}

TEST(ExecConvTranspose, MatchesNaiveScatter) {
  const int64_t c = 4, m = 6, group = 2, s = 2, k = 3, pad = 1, h = 5;
  const TensorData x = random_tensor({1, c, h, h}, DType::F32, 6);
  const TensorData w = random_tensor({c, m / group, k, k}, DType::F32, 7);
  Attributes a;
  a.set("group", group);
  a.set("strides", std::vector<int64_t>{s, s});
  a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  const TensorData y = run1(make_op(OpKind::ConvTranspose, a), {&x, &w});
  const int64_t oh = s * (h - 1) + k - 2 * pad;
  ASSERT_EQ(y.shape, (Shape{1, m, oh, oh}));
  TensorData ref = TensorData::zeros(y.shape);
  const int64_t cg = c / group, mg = m / group;
  for (int64_t ic = 0; ic < c; ++ic)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < h; ++j)
        for (int64_t om = 0; om < mg; ++om)
          for (int64_t a2 = 0; a2 < k; ++a2)
            for (int64_t e = 0; e < k; ++e) {
              const int64_t oi = i * s - pad + a2, oj = j * s - pad + e;
              if (oi < 0 || oi >= oh || oj < 0 || oj >= oh) continue;
              const int64_t oc = (ic / cg) * mg + om;
              ref.f[(oc * oh + oi) * oh + oj] +=
                  x.f[(ic * h + i) * h + j] * w.f[((ic * mg + om) * k + a2) * k + e];
            }
  expect_close(y, ref);
}

TEST(ExecNorm, SoftmaxHandComputed) {
  const TensorData x = TensorData::floats({2, 3}, {1, 2, 3, 0, 0, 0});
  const TensorData y = run1(make_op(OpKind::Softmax), {&x});
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  expect_close(
      y, TensorData::floats(
             {2, 3}, {static_cast<float>(std::exp(1.0) / z), static_cast<float>(std::exp(2.0) / z),
                      static_cast<float>(std::exp(3.0) / z), 1.0f / 3, 1.0f / 3, 1.0f / 3}));
  // axis 0: columns sum to 1.
  Attributes a;
  a.set("axis", int64_t{0});
  const TensorData y0 = run1(make_op(OpKind::Softmax, a), {&x});
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(y0.f[j] + y0.f[3 + j], 1.0, 1e-6);
}

TEST(ExecNorm, LayerNormHandComputed) {
  // [1,2,3,4]: mean 2.5, variance 1.25; scale 2, bias 1.
  const TensorData x = TensorData::floats({1, 4}, {1, 2, 3, 4});
  const TensorData sc = TensorData::floats({4}, {2, 2, 2, 2});
  const TensorData b = TensorData::floats({4}, {1, 1, 1, 1});
  Attributes a;
  a.set("epsilon", 0.0);
  const auto outs = compute_op(make_op(OpKind::LayerNormalization, a), {&x, &sc, &b}, 3);
  const float inv = static_cast<float>(1.0 / std::sqrt(1.25));
  expect_close(outs[0], TensorData::floats({1, 4}, {1 - 3 * inv, 1 - inv, 1 + inv, 1 + 3 * inv}));
  expect_close(outs[1], TensorData::floats({1, 1}, {2.5f}));
  expect_close(outs[2], TensorData::floats({1, 1}, {inv}));
}

TEST(ExecPool, AveragePoolCountIncludePad) {
  // 2x2 ones, kernel 3, pad 1: corner windows see 4 real values of 9 positions.
  TensorData x = TensorData::zeros({1, 1, 2, 2});
  std::fill(x.f.begin(), x.f.end(), 1.0f);
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  expect_close(run1(make_op(OpKind::AveragePool, a), {&x}),
               TensorData::floats({1, 1, 2, 2}, {1, 1, 1, 1}));
  a.set("count_include_pad", int64_t{1});
  const float q = 4.0f / 9.0f;
  expect_close(run1(make_op(OpKind::AveragePool, a), {&x}),
               TensorData::floats({1, 1, 2, 2}, {q, q, q, q}));
}

TEST(ExecMatMul, BroadcastBatchMatchesNaive) {
  const TensorData a = random_tensor({2, 1, 3, 4}, DType::F32, 8);
  const TensorData b = random_tensor({3, 4, 5}, DType::F32, 9);
  const TensorData y = run1(make_op(OpKind::MatMul), {&a, &b});
  ASSERT_EQ(y.shape, (Shape{2, 3, 3, 5}));
  TensorData ref = TensorData::zeros(y.shape);
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) {
          double s = 0;
          for (int k = 0; k < 4; ++k) s += a.f[(p * 3 + i) * 4 + k] * b.f[(q * 4 + k) * 5 + j];
          ref.f[((p * 3 + q) * 3 + i) * 5 + j] = static_cast<float>(s);
        }
  expect_close(y, ref);
}

TEST(ExecGraph, RunGraphIsDeterministicAndRunOpsMatches) {
  Graph g;
  g.name = "tiny";
  const int x = g.add_input("x", {1, 3, 8, 8});
  const int w = g.add_weight("w", {4, 3, 3, 3});
  Attributes ca;
  ca.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const int conv = g.add_op(OpKind::Conv, "conv", {x, w}, ca);
  const int relu = g.add_op(OpKind::Relu, "relu", {g.op(conv).outputs[0]});
  const int shape = g.add_constant_ints("shape", {1, -1});
  const int rs = g.add_op(OpKind::Reshape, "flat", {g.op(relu).outputs[0], shape});
  const int y = g.op(rs).outputs[0];
  g.mark_output(y);

  const TensorValues v1 = run_graph(g, {}, 42), v2 = run_graph(g, {}, 42),
                     v3 = run_graph(g, {}, 43);
  EXPECT_EQ(v1.at(y).f, v2.at(y).f);
  EXPECT_NE(v1.at(y).f, v3.at(y).f);
  EXPECT_EQ(v1.at(y).shape, (Shape{1, 256}));
  for (float v : v1.at(y).f) EXPECT_GE(v, 0.0f);

  // Evaluating the ops one by one from the inputs gives the same tensors.
  TensorValues partial = {{x, v1.at(x)}, {w, v1.at(w)}};
  run_ops(g, {conv, relu, rs}, partial);
  EXPECT_EQ(partial.at(y).f, v1.at(y).f);

  // Missing input value: a clear error naming the op and the tensor.
  TensorValues empty;
  try {
    run_ops(g, {relu}, empty);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("op 'relu'"), std::string::npos) << e.what();
  }
}

// "<prefix><i>" (appending avoids GCC 12's -Wrestrict false positive on "literal" + string).
std::string numbered(const char* prefix, int i) {
  std::string s = prefix;
  s += std::to_string(i);
  return s;
}

TEST(ExecGraph, RandomWeightsKeepDeepNetworksFinite) {
  // 40 conv+ReLU layers without normalisation, then a BatchNormalization: with He-uniform random
  // weights and positive random variances the output stays finite and of order one.
  Graph g;
  g.name = "deep";
  int cur = g.add_input("x", {1, 16, 8, 8});
  Attributes ca;
  ca.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  for (int l = 0; l < 40; ++l) {
    const int w = g.add_weight(numbered("w", l), {16, 16, 3, 3});
    const int c = g.add_op(OpKind::Conv, numbered("conv", l), {cur, w}, ca);
    cur = g.op(g.add_op(OpKind::Relu, numbered("relu", l), {g.op(c).outputs[0]})).outputs[0];
  }
  std::vector<int> bn_in = {cur};
  for (const char* n : {"scale", "bias", "mean", "var"}) bn_in.push_back(g.add_weight(n, {16}));
  const int bn = g.add_op(OpKind::BatchNormalization, "bn", bn_in);
  const int y = g.op(bn).outputs[0];
  g.mark_output(y);
  const TensorValues v = run_graph(g, {}, 3);
  for (float var : v.at(g.find_tensor("var")).f) EXPECT_GT(var, 0.0f);
  double sq = 0.0;
  for (float f : v.at(y).f) {
    ASSERT_TRUE(std::isfinite(f));
    sq += static_cast<double>(f) * f;
  }
  const double rms = std::sqrt(sq / static_cast<double>(v.at(y).f.size()));
  EXPECT_GT(rms, 1e-2);
  EXPECT_LT(rms, 1e2);
}

TEST(ExecRegion, ConvAndPoolTilesFromPropagatedRegions) {
  Graph g;
  g.name = "tiles";
  const int x = g.add_input("x", {1, 4, 12, 12});
  const int w = g.add_weight("w", {6, 2, 3, 3});
  Attributes ca;
  ca.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ca.set("strides", std::vector<int64_t>{2, 2});
  ca.set("group", int64_t{2});
  const int conv = g.add_op(OpKind::Conv, "conv", {x, w}, ca);
  Attributes pa;
  pa.set("kernel_shape", std::vector<int64_t>{3, 3});
  pa.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const int pool = g.add_op(OpKind::MaxPool, "pool", {g.op(conv).outputs[0]}, pa);
  g.mark_output(g.op(pool).outputs[0]);
  const TensorValues full = run_graph(g, {}, 5);

  for (int o : {conv, pool}) {
    const int out = g.op(o).outputs[0];
    const Region tile = {{0, 1}, {2, 5}, {1, 4}, {3, 6}};
    const std::vector<Region> regions = input_regions(g, o, tile);
    std::vector<TensorData> tiles;
    for (size_t i = 0; i < regions.size(); ++i) {
      tiles.push_back(extract_region(full.at(g.op(o).inputs[i]), regions[i]));
    }
    const TensorData got = run_op_region(g, o, regions, tiles, tile);
    expect_close(got, extract_region(full.at(out), tile));

    // One row short of what the tile needs: the tile depends on unknown (NaN) values.
    std::vector<Region> short_regions = regions;
    short_regions[0][2].hi -= 1;
    tiles[0] = extract_region(full.at(g.op(o).inputs[0]), short_regions[0]);
    const TensorData bad = run_op_region(g, o, short_regions, tiles, tile);
    EXPECT_FALSE(compare_tensors(bad, extract_region(full.at(out), tile)).passed)
        << g.op(o).name << " region " << region_str(short_regions[0]);
  }
}

TEST(ExecTensorData, CompareDefinitionAndHalf) {
  const TensorData e = TensorData::floats({3}, {1.0f, 0.0f, 100.0f});
  // |a-e| <= 1e-5 + 1e-4 |e|: 1.00005 passes (error 5e-5/1.1), 0 + 2e-5 fails near zero.
  EXPECT_TRUE(compare_tensors(TensorData::floats({3}, {1.00005f, 0.0f, 100.0f}), e).passed);
  const Comparison c = compare_tensors(TensorData::floats({3}, {1.0f, 2e-5f, 100.0f}), e);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_NEAR(c.max_error, 2e-5 / 0.1, 1e-9);
  EXPECT_FALSE(compare_tensors(TensorData::floats({2}, {1, 2}), e).shape_matches);
  EXPECT_EQ(half_bits_to_float(0x3c00), 1.0f);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(1.0f + 1.0f / 2048), 0x3c00);  // tie: to even
  EXPECT_EQ(float_to_half_bits(1.0f + 3.0f / 2048), 0x3c02);  // tie: to even
  EXPECT_EQ(half_bits_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(random_tensor({4}, DType::F32, 7).f, random_tensor({4}, DType::F32, 7).f);
}

TEST(ExecErrors, UnsupportedFeatureNamesOp) {
  const TensorData x = TensorData::floats({1, 1, 2, 2}, {1, 2, 3, 4});
  const TensorData roi = TensorData::floats({0}, {});
  const TensorData scales = TensorData::floats({4}, {1, 1, 2, 2});
  Attributes a;
  a.set("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
  EXPECT_THROW(run1(make_op(OpKind::Resize, a), {&x, &roi, &scales}), UnsupportedFeature);
  Attributes ok;
  ok.set("mode", std::string("nearest"));
  const TensorData y = run1(make_op(OpKind::Resize, ok), {&x, &roi, &scales});
  EXPECT_EQ(y.shape, (Shape{1, 1, 4, 4}));
}

TEST(ExecCast, TargetsFromTheOnnxDTypeMapping) {
  const TensorData x = TensorData::floats({4}, {1.5f, -2.7f, 0.0f, 3.0f});
  const TensorData i = run1(make_op(OpKind::Cast, Attributes({{"to", int64_t{7}}})), {&x});
  EXPECT_EQ(i.dtype, DType::I64);
  EXPECT_EQ(i.i, (std::vector<int64_t>{1, -2, 0, 3}));
  const TensorData b = run1(make_op(OpKind::Cast, Attributes({{"to", int64_t{9}}})), {&x});
  EXPECT_EQ(b.dtype, DType::Bool);
  EXPECT_EQ(b.i, (std::vector<int64_t>{1, 1, 0, 1}));
  // Double is computed in float32.
  const TensorData d = run1(make_op(OpKind::Cast, Attributes({{"to", int64_t{11}}})), {&x});
  EXPECT_EQ(d.dtype, DType::F32);
  EXPECT_EQ(d.f, x.f);
  try {
    run1(make_op(OpKind::Cast, Attributes({{"to", int64_t{2}}})), {&x});
    FAIL() << "expected UnsupportedFeature";
  } catch (const UnsupportedFeature& e) {
    EXPECT_NE(std::string(e.what()).find("Cast to ONNX data type 2 (uint8)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace dgs
