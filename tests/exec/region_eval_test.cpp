// compute_op_region: partial sums over reduction slices add up to the whole op (grouped and
// depthwise convolutions whose output region spans several groups, Gemm with beta * C, batched
// MatMul), regions equal the whole op cut, and which ops are evaluated in proportion to the region.
#include "common/exec/region_eval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/exec/executor.h"

namespace dgs {
namespace {

// Sums compute_op_region over `slices` of `axis` for output region `out` of op `op`.
TensorData sum_of_slices(const Graph& g, int op, const Region& out, const TensorValues& v,
                         const std::string& axis, const std::vector<Interval>& slices) {
  std::vector<TensorPiece> pieces;
  for (int in : g.op(op).inputs) pieces.push_back(in < 0 ? TensorPiece{} : whole_piece(v.at(in)));
  TensorData sum;
  for (const Interval& r : slices) {
    const ReductionRange range{axis, r};
    const TensorData part = compute_op_region(g, op, out, pieces, 0, &range);
    if (sum.f.empty()) {
      sum = part;
    } else {
      for (size_t k = 0; k < sum.f.size(); ++k) sum.f[k] += part.f[k];
    }
  }
  return sum;
}

void expect_slices_add_up(const Graph& g, int op, const std::string& axis,
                          const std::vector<Interval>& slices, const Region& out) {
  const TensorValues v = run_graph(g, {}, 5);
  const TensorData want = extract_region(v.at(g.op(op).outputs[0]), out);
  const Comparison c = compare_tensors(sum_of_slices(g, op, out, v, axis, slices), want);
  EXPECT_TRUE(c.passed) << g.op(op).name << " " << region_str(out) << ": " << c.str();
}

TEST(RegionEval, GroupedConvPartialSumsOverRegionsSpanningGroups) {
  Graph g;
  const int x = g.add_input("x", {2, 12, 9, 7});
  const int w = g.add_weight("w", {18, 4, 3, 3});  // 3 groups: 4 in, 6 out channels each
  const int b = g.add_weight("b", {18});
  const int conv = g.add_op(OpKind::Conv, "conv", {x, w, b},
                            {{"group", int64_t{3}},
                             {"kernel_shape", std::vector<int64_t>{3, 3}},
                             {"strides", std::vector<int64_t>{2, 1}},
                             {"pads", std::vector<int64_t>{1, 0, 1, 2}}});
  g.mark_output(g.op(conv).outputs[0]);
  const Shape& y = g.tensor(g.op(conv).outputs[0]).shape;
  // Channels 4..15 touch all three groups; rows and columns at both borders.
  expect_slices_add_up(g, conv, "c_in", {{0, 1}, {1, 3}, {3, 4}},
                       {{1, 2}, {4, 16}, {0, y[2]}, {0, y[3]}});
  expect_slices_add_up(g, conv, "c_in", {{0, 2}, {2, 4}},
                       {{0, 2}, {5, 7}, {1, 3}, {y[3] - 2, y[3]}});
  expect_slices_add_up(g, conv, "c_in", {{0, 4}}, full_region(y));
}

TEST(RegionEval, GemmAndBatchedMatMulPartialSums) {
  Graph g;
  const int a = g.add_input("a", {7, 5});
  const int bw = g.add_weight("bw", {9, 5});
  const int c = g.add_weight("c", {9});
  const int gemm = g.add_op(OpKind::Gemm, "gemm", {a, bw, c},
                            {{"transB", int64_t{1}}, {"alpha", 0.5}, {"beta", 2.0}});
  const int m1 = g.add_input("m1", {3, 1, 4, 6});
  const int m2 = g.add_input("m2", {2, 6, 5});
  const int mm = g.add_op(OpKind::MatMul, "mm", {m1, m2});
  g.mark_output(g.op(gemm).outputs[0]);
  g.mark_output(g.op(mm).outputs[0]);
  expect_slices_add_up(g, gemm, "k", {{0, 2}, {2, 5}}, {{1, 6}, {2, 9}});
  expect_slices_add_up(g, mm, "k", {{0, 1}, {1, 4}, {4, 6}}, {{1, 3}, {0, 2}, {2, 4}, {1, 5}});
}

TEST(RegionEval, RegionsEqualTheWholeOpCut) {
  // Max and average pooling with ceil_mode and asymmetric pads, LayerNorm over its last axes.
  Graph g;
  const int x = g.add_input("x", {1, 3, 10, 11});
  const int mp = g.add_op(OpKind::MaxPool, "mp", {x},
                          {{"kernel_shape", std::vector<int64_t>{3, 2}},
                           {"strides", std::vector<int64_t>{2, 2}},
                           {"pads", std::vector<int64_t>{1, 0, 0, 1}},
                           {"ceil_mode", int64_t{1}}});
  const int ap = g.add_op(OpKind::AveragePool, "ap", {x},
                          {{"kernel_shape", std::vector<int64_t>{3, 3}},
                           {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                           {"count_include_pad", int64_t{1}}});
  const int s = g.add_weight("s", {10, 11});
  const int ln = g.add_op(OpKind::LayerNormalization, "ln", {x, s}, {{"axis", int64_t{2}}});
  for (int op : {mp, ap, ln}) g.mark_output(g.op(op).outputs[0]);
  const TensorValues v = run_graph(g, {}, 9);
  std::mt19937_64 rng(3);
  for (int op : {mp, ap, ln}) {
    const Shape& ys = g.tensor(g.op(op).outputs[0]).shape;
    EXPECT_TRUE(region_eval_is_proportional(g, op));
    for (int rep = 0; rep < 20; ++rep) {
      Region r;
      for (int64_t d : ys) {
        const int64_t lo = static_cast<int64_t>(rng() % static_cast<uint64_t>(d));
        r.push_back({lo, lo + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(d - lo))});
      }
      std::vector<TensorPiece> pieces;
      for (int in : g.op(op).inputs) pieces.push_back(whole_piece(v.at(in)));
      const Comparison c = compare_tensors(compute_op_region(g, op, r, pieces),
                                           extract_region(v.at(g.op(op).outputs[0]), r));
      EXPECT_TRUE(c.passed) << g.op(op).name << " " << region_str(r) << ": " << c.str();
    }
  }
}

// The work (output elements computed) follows the region for the ops evaluated by region, and is
// the whole output for the ops computed whole.
TEST(RegionEval, WorkIsProportionalToTheRegion) {
  Graph g;
  const int x = g.add_input("x", {1, 16, 32, 32});
  const int w = g.add_weight("w", {16, 16, 3, 3});
  const int conv = g.add_op(
      OpKind::Conv, "conv", {x, w},
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const int c = g.op(conv).outputs[0];
  const int sm = g.add_op(OpKind::Softmax, "sm", {c}, {{"axis", int64_t{3}}});
  const int wt = g.add_weight("wt", {16, 16, 2, 2});
  const int ct = g.add_op(
      OpKind::ConvTranspose, "ct", {c, wt},
      {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  g.mark_output(g.op(sm).outputs[0]);
  g.mark_output(g.op(ct).outputs[0]);
  const TensorValues v = run_graph(g, {}, 2);
  auto work = [&](int op, const Region& r) {
    std::vector<TensorPiece> pieces;
    for (int in : g.op(op).inputs) pieces.push_back(whole_piece(v.at(in)));
    int64_t n = 0;
    const TensorData y = compute_op_region(g, op, r, pieces, 0, nullptr, &n);
    EXPECT_TRUE(compare_tensors(y, extract_region(v.at(g.op(op).outputs[0]), r)).passed);
    return n;
  };
  // A 2x3 corner of 4 channels of the conv: 24 elements, not the 16K of the whole output.
  EXPECT_EQ(work(conv, {{0, 1}, {0, 4}, {0, 2}, {29, 32}}), 24);
  // Softmax over the last axis computes whole rows: 2 rows of 32 for a 2x5 region.
  EXPECT_EQ(work(sm, {{0, 1}, {3, 4}, {7, 9}, {10, 15}}), 64);
  // ConvTranspose is computed whole (its 64x64 output), however small the region.
  EXPECT_EQ(work(ct, {{0, 1}, {0, 1}, {0, 1}, {0, 1}}), 16 * 64 * 64);
}

TEST(RegionEval, WhichOpsAreProportional) {
  Graph g;
  const int x = g.add_input("x", {1, 4, 6, 6});
  const int w = g.add_weight("w", {4, 4, 2, 2});
  const int ct = g.add_op(
      OpKind::ConvTranspose, "ct", {x, w},
      {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  const int r = g.add_op(OpKind::Relu, "r", {g.op(ct).outputs[0]});
  const int sh = g.add_constant_ints("sh", {1, 4, 144});
  const int rs = g.add_op(OpKind::Reshape, "rs", {g.op(r).outputs[0], sh});
  g.mark_output(g.op(rs).outputs[0]);
  EXPECT_FALSE(region_eval_is_proportional(g, ct));  // computed whole, region cut out
  EXPECT_TRUE(region_eval_is_proportional(g, r));
  EXPECT_TRUE(region_eval_is_proportional(g, rs));
}

TEST(RegionEval, MissingElementsAreNanAndBadRegionsAreRefused) {
  const TensorData t = TensorData::floats({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorPiece right_col{{{0, 2}, {2, 3}}, nullptr};
  TensorData col = extract_region(t, {{0, 2}, {2, 3}});
  const TensorPiece piece{{{0, 2}, {2, 3}}, &col};
  const TensorData cut = cut_piece(piece, {{1, 2}, {1, 3}}, "t");
  EXPECT_TRUE(std::isnan(cut.f[0]));
  EXPECT_EQ(cut.f[1], 6.0f);
  EXPECT_THROW(cut_piece(right_col, {{0, 1}, {0, 1}}, "t"), Error);
  Graph g;
  const int x = g.add_input("x", {2, 3});
  const int relu = g.add_op(OpKind::Relu, "relu", {x});
  g.mark_output(g.op(relu).outputs[0]);
  try {
    compute_op_region(g, relu, {{0, 2}, {0, 4}}, {whole_piece(t)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("op 'relu' (Relu): region [0:2,0:4] is outside output 0"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace dgs
