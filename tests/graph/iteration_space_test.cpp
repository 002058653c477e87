// Regions of inputs needed by output tiles, checked against hand-computed values.
#include <gtest/gtest.h>

#include <optional>
#include <ostream>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/graph/reduction_slice.h"

namespace dgs {

// Readable failure messages for regions.
void PrintTo(const Interval& i, std::ostream* os) {
  *os << i.lo << ':' << i.hi;
}

namespace {

using I = std::vector<int64_t>;
using R = Region;

int out(const Graph& g, int op) {
  return g.op(op).outputs[0];
}

TEST(IterationSpace, Conv3x3Stride2Pad1EdgeAndInteriorTiles) {
  Graph g;
  int x = g.add_input("x", {1, 8, 15, 15});
  int w = g.add_weight("w", {4, 8, 3, 3});
  int b = g.add_weight("b", {4});
  int c = g.add_op(OpKind::Conv, "c", {x, w, b},
                   Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}));
  ASSERT_EQ(g.tensor(out(g, c)).shape, (Shape{1, 4, 8, 8}));
  // Top-left tile: rows 2*o + k - 1 for o in [0,1], k in [0,2] -> [-1, 3].
  auto edge = input_access_regions(g, c, R{{0, 1}, {1, 3}, {0, 2}, {0, 2}});
  EXPECT_EQ(edge[0].unclamped, (R{{0, 1}, {0, 8}, {-1, 4}, {-1, 4}}));
  EXPECT_EQ(edge[0].region, (R{{0, 1}, {0, 8}, {0, 4}, {0, 4}}));
  EXPECT_EQ(edge[1].region, (R{{1, 3}, {0, 8}, {0, 3}, {0, 3}}));
  EXPECT_EQ(edge[2].region, (R{{1, 3}}));
  // Interior tile: o in [3,4] -> [5, 9].
  auto interior = input_regions(g, c, R{{0, 1}, {0, 4}, {3, 5}, {3, 5}});
  EXPECT_EQ(interior[0], (R{{0, 1}, {0, 8}, {5, 10}, {5, 10}}));
  // Bottom-right tile: o = 7 -> [13, 15] with the padded row 15 clamped away.
  auto last = input_access_regions(g, c, R{{0, 1}, {0, 4}, {7, 8}, {7, 8}});
  EXPECT_EQ(last[0].unclamped, (R{{0, 1}, {0, 8}, {13, 16}, {13, 16}}));
  EXPECT_EQ(last[0].region, (R{{0, 1}, {0, 8}, {13, 15}, {13, 15}}));
  EXPECT_EQ(region_numel(last[0].unclamped) - region_numel(last[0].region), 8 * (9 - 4));
  // Iteration space: reduction over input channels and the 3x3 window.
  IterationSpace s = iteration_space(g, c);
  ASSERT_EQ(s.reduction_axes.size(), 3u);
  EXPECT_EQ(s.reduction_axes[0].extent, 8);
  EXPECT_EQ(s.reduction_axes[1].extent, 3);
}

TEST(IterationSpace, StridedWindowsCountTheElementsTheyTouch) {
  Graph g;
  int x = g.add_input("x", {1, 8, 9, 9});
  // A 1x1 conv of stride 2 reads rows and columns 0, 2, ..., 8 of its box [0, 9): 5 of 9 each.
  int w = g.add_weight("w", {16, 8, 1, 1});
  int c1 = g.add_op(OpKind::Conv, "c1", {x, w}, Attributes({{"strides", I{2, 2}}}));
  ASSERT_EQ(g.tensor(out(g, c1)).shape, (Shape{1, 16, 5, 5}));
  auto whole = input_access_regions(g, c1, full_region(g.tensor(out(g, c1)).shape));
  EXPECT_EQ(whole[0].region, (R{{0, 1}, {0, 8}, {0, 9}, {0, 9}}));
  EXPECT_EQ(whole[0].touched, (std::vector<int64_t>{1, 8, 5, 5}));
  EXPECT_EQ(access_numel(whole[0]), 8 * 5 * 5);  // not the box's 8 * 9 * 9
  EXPECT_TRUE(whole[1].touched.empty());
  EXPECT_EQ(access_numel(whole[1]), 16 * 8);
  // Output rows 1..2, columns 0..4: input rows 2 and 4 of the box [2, 5).
  auto part = input_access_regions(g, c1, R{{0, 1}, {0, 16}, {1, 3}, {0, 5}});
  EXPECT_EQ(part[0].region, (R{{0, 1}, {0, 8}, {2, 5}, {0, 9}}));
  EXPECT_EQ(access_numel(part[0]), 8 * 2 * 5);
  // A 3x3 conv of stride 2 reads every row of its box: no gaps, the box's count.
  int w3 = g.add_weight("w3", {16, 8, 3, 3});
  int c3 = g.add_op(OpKind::Conv, "c3", {x, w3},
                    Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}));
  auto dense = input_access_regions(g, c3, full_region(g.tensor(out(g, c3)).shape));
  EXPECT_EQ(dense[0].region, (R{{0, 1}, {0, 8}, {0, 9}, {0, 9}}));
  EXPECT_TRUE(dense[0].touched.empty());
  EXPECT_EQ(access_numel(dense[0]), 8 * 9 * 9);
  // A 2x2 pool of stride 3: rows {0,1, 3,4, 6,7} of the box [0, 8).
  int p = g.add_op(OpKind::MaxPool, "p", {x},
                   Attributes({{"kernel_shape", I{2, 2}}, {"strides", I{3, 3}}}));
  auto pooled = input_access_regions(g, p, full_region(g.tensor(out(g, p)).shape));
  EXPECT_EQ(pooled[0].region, (R{{0, 1}, {0, 8}, {0, 8}, {0, 8}}));
  EXPECT_EQ(access_numel(pooled[0]), 8 * 6 * 6);
  // A dilated 3x3 window (dilation 2) over one output row reads rows r, r+2, r+4 of a box of 5.
  int wd = g.add_weight("wd", {4, 8, 3, 3});
  int cd = g.add_op(OpKind::Conv, "cd", {x, wd}, Attributes({{"dilations", I{2, 2}}}));
  auto row = input_access_regions(g, cd, R{{0, 1}, {0, 4}, {2, 3}, {0, 5}});
  EXPECT_EQ(row[0].region, (R{{0, 1}, {0, 8}, {2, 7}, {0, 9}}));
  EXPECT_EQ(row[0].touched, (std::vector<int64_t>{1, 8, 3, 9}));
  // Two reads of one tensor: the union's box, per dim at most both counts.
  AccessRegion both = access_union(part[0], whole[0]);
  EXPECT_EQ(both.region, whole[0].region);
  EXPECT_EQ(both.touched, (std::vector<int64_t>{1, 8, 7, 9}));  // min(box, 2 + 5), min(9, 5 + 5)
  EXPECT_EQ(access_union(whole[0], whole[0]).touched, whole[0].touched);
  EXPECT_TRUE(access_union(whole[0], dense[0]).touched.empty());
}

TEST(IterationSpace, DilatedConv) {
  Graph g;
  int x = g.add_input("x", {1, 2, 10, 10});
  int w = g.add_weight("w", {2, 2, 3, 3});
  int c = g.add_op(OpKind::Conv, "c", {x, w}, Attributes({{"dilations", I{2, 2}}}));
  ASSERT_EQ(g.tensor(out(g, c)).shape, (Shape{1, 2, 6, 6}));
  // rows o + 2k for o in [2,3], k in [0,2] -> [2, 7]
  EXPECT_EQ(input_regions(g, c, R{{0, 1}, {0, 2}, {2, 4}, {0, 1}})[0],
            (R{{0, 1}, {0, 2}, {2, 8}, {0, 5}}));
}

TEST(IterationSpace, GroupedConvChannelTile) {
  Graph g;
  int x = g.add_input("x", {1, 8, 5, 5});
  int w = g.add_weight("w", {12, 2, 1, 1});
  int c = g.add_op(OpKind::Conv, "c", {x, w}, Attributes({{"group", int64_t{4}}}));
  // 3 output channels and 2 input channels per group: outputs [3,6) are group 1 -> inputs [2,4).
  auto r = input_regions(g, c, R{{0, 1}, {3, 6}, {0, 5}, {0, 5}});
  EXPECT_EQ(r[0], (R{{0, 1}, {2, 4}, {0, 5}, {0, 5}}));
  EXPECT_EQ(r[1], (R{{3, 6}, {0, 2}, {0, 1}, {0, 1}}));
  // Outputs [2,4) span groups 0 and 1 -> inputs [0,4).
  EXPECT_EQ(input_regions(g, c, R{{0, 1}, {2, 4}, {1, 2}, {1, 2}})[0],
            (R{{0, 1}, {0, 4}, {1, 2}, {1, 2}}));
  // Depthwise: output channel m reads input channel m only.
  int wd = g.add_weight("wd", {8, 1, 3, 3});
  int d = g.add_op(OpKind::Conv, "d", {x, wd},
                   Attributes({{"group", int64_t{8}}, {"pads", I{1, 1, 1, 1}}}));
  EXPECT_EQ(input_regions(g, d, R{{0, 1}, {5, 7}, {0, 5}, {0, 5}})[0],
            (R{{0, 1}, {5, 7}, {0, 5}, {0, 5}}));
}

TEST(IterationSpace, ConvSameUpperPadding) {
  Graph g;
  int x = g.add_input("x", {1, 1, 8, 8});
  int w = g.add_weight("w", {1, 1, 4, 4});
  int c = g.add_op(OpKind::Conv, "c", {x, w},
                   Attributes({{"auto_pad", std::string("SAME_UPPER")}, {"strides", I{2, 2}}}));
  // out 4; total pad = 3*2 + 4 - 8 = 2 -> begin 1. Row o=0 reads [-1, 2].
  EXPECT_EQ(input_access_regions(g, c, R{{0, 1}, {0, 1}, {0, 1}, {0, 1}})[0].unclamped,
            (R{{0, 1}, {0, 1}, {-1, 3}, {-1, 3}}));
}

TEST(IterationSpace, MaxPoolAndGlobalPool) {
  Graph g;
  int x = g.add_input("x", {1, 3, 8, 8});
  int p = g.add_op(
      OpKind::MaxPool, "p", {x},
      Attributes({{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}));
  ASSERT_EQ(g.tensor(out(g, p)).shape, (Shape{1, 3, 4, 4}));
  auto r = input_access_regions(g, p, R{{0, 1}, {1, 2}, {1, 3}, {0, 1}});
  EXPECT_EQ(r[0].region, (R{{0, 1}, {1, 2}, {1, 6}, {0, 2}}));
  EXPECT_EQ(r[0].unclamped, (R{{0, 1}, {1, 2}, {1, 6}, {-1, 2}}));
  int gp = g.add_op(OpKind::GlobalAveragePool, "gp", {x});
  EXPECT_EQ(input_regions(g, gp, R{{0, 1}, {2, 3}, {0, 1}, {0, 1}})[0],
            (R{{0, 1}, {2, 3}, {0, 8}, {0, 8}}));
}

TEST(IterationSpace, MatMulWithBatchBroadcastAndTransposedGemm) {
  Graph g;
  int a = g.add_input("a", {2, 1, 4, 6});
  int b = g.add_input("b", {3, 6, 5});
  int m = g.add_op(OpKind::MatMul, "m", {a, b});
  ASSERT_EQ(g.tensor(out(g, m)).shape, (Shape{2, 3, 4, 5}));
  auto r = input_regions(g, m, R{{1, 2}, {0, 2}, {1, 3}, {2, 5}});
  EXPECT_EQ(r[0], (R{{1, 2}, {0, 1}, {1, 3}, {0, 6}}));
  EXPECT_EQ(r[1], (R{{0, 2}, {0, 6}, {2, 5}}));
  EXPECT_EQ(iteration_space(g, m).reduction_axes.at(0).extent, 6);
  // Matrix-vector: B is 1-D.
  int v = g.add_input("v", {6});
  int mv = g.add_op(OpKind::MatMul, "mv", {a, v});
  EXPECT_EQ(input_regions(g, mv, R{{0, 1}, {0, 1}, {2, 3}})[1], (R{{0, 6}}));
  EXPECT_EQ(input_regions(g, mv, R{{0, 1}, {0, 1}, {2, 3}})[0],
            (R{{0, 1}, {0, 1}, {2, 3}, {0, 6}}));

  int at = g.add_input("at", {6, 4});   // [K, M]
  int bt = g.add_weight("bt", {5, 6});  // [N, K]
  int c = g.add_weight("c", {5});
  int gm = g.add_op(OpKind::Gemm, "gm", {at, bt, c},
                    Attributes({{"transA", int64_t{1}}, {"transB", int64_t{1}}}));
  auto q = input_regions(g, gm, R{{1, 3}, {0, 2}});
  EXPECT_EQ(q[0], (R{{0, 6}, {1, 3}}));
  EXPECT_EQ(q[1], (R{{0, 2}, {0, 6}}));
  EXPECT_EQ(q[2], (R{{0, 2}}));
}

TEST(IterationSpace, ElementwiseBroadcastSoftmaxReduceLayerNorm) {
  Graph g;
  int x = g.add_input("x", {2, 3, 4});
  int y = g.add_input("y", {3, 1});
  int add = g.add_op(OpKind::Add, "add", {x, y});
  auto r = input_regions(g, add, R{{1, 2}, {1, 3}, {2, 4}});
  EXPECT_EQ(r[0], (R{{1, 2}, {1, 3}, {2, 4}}));
  EXPECT_EQ(r[1], (R{{1, 3}, {0, 1}}));
  int sm = g.add_op(OpKind::Softmax, "sm", {x});
  EXPECT_EQ(input_regions(g, sm, R{{0, 1}, {1, 2}, {0, 1}})[0], (R{{0, 1}, {1, 2}, {0, 4}}));
  int rs = g.add_op(OpKind::ReduceSum, "rs", {x, g.add_constant_ints("ax", {1})},
                    Attributes({{"keepdims", int64_t{0}}}));
  ASSERT_EQ(g.tensor(out(g, rs)).shape, (Shape{2, 4}));
  auto rr = input_regions(g, rs, R{{1, 2}, {0, 2}});
  EXPECT_EQ(rr[0], (R{{1, 2}, {0, 3}, {0, 2}}));
  EXPECT_EQ(rr[1], (R{{0, 1}}));  // the axes constant is read whole
  int gamma = g.add_weight("gamma", {4});
  int ln = g.add_op(OpKind::LayerNormalization, "ln", {x, gamma});
  auto lr = input_regions(g, ln, R{{0, 1}, {2, 3}, {1, 2}});
  EXPECT_EQ(lr[0], (R{{0, 1}, {2, 3}, {0, 4}}));
  EXPECT_EQ(lr[1], (R{{1, 2}}));  // the scale applies per element: only the tile's columns
}

TEST(IterationSpace, RegionsOfRankEightBeyondTheInlineCapacity) {
  static_assert(kRegionInlineRank < 8);  // these regions live on the heap
  Graph g;
  int x = g.add_input("x", {2, 3, 4, 5, 1, 2, 3, 4});
  int y = g.add_input("y", {5, 1, 1, 3, 1});
  int add = g.add_op(OpKind::Add, "add", {x, y});
  const R tile{{1, 2}, {0, 3}, {1, 3}, {2, 5}, {0, 1}, {1, 2}, {0, 2}, {3, 4}};
  auto r = input_access_regions(g, add, tile);
  EXPECT_EQ(r[0].region, tile);
  EXPECT_EQ(r[0].unclamped, tile);
  EXPECT_EQ(r[1].region, (R{{2, 5}, {0, 1}, {0, 1}, {0, 2}, {0, 1}}));
  int t = g.add_op(OpKind::Transpose, "t", {x}, Attributes({{"perm", I{7, 6, 5, 4, 3, 2, 1, 0}}}));
  EXPECT_EQ(
      input_regions(g, t, R{{0, 1}, {1, 3}, {0, 2}, {0, 1}, {4, 5}, {3, 4}, {0, 3}, {1, 2}})[0],
      (R{{1, 2}, {0, 3}, {3, 4}, {4, 5}, {0, 1}, {0, 2}, {1, 3}, {0, 1}}));
  const R u = region_union(tile, R{{0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 2}});
  EXPECT_EQ(u, (R{{0, 2}, {0, 3}, {0, 3}, {0, 5}, {0, 1}, {0, 2}, {0, 2}, {0, 4}}));
  EXPECT_EQ(region_numel(u), 2 * 3 * 3 * 5 * 1 * 2 * 2 * 4);
  EXPECT_EQ(region_str(clamp_region(u, {1, 1, 1, 1, 1, 1, 1, 9})),
            "[0:1,0:1,0:1,0:1,0:1,0:1,0:1,0:4]");
}

TEST(IterationSpace, TransposeConcatSplitSlice) {
  Graph g;
  int x = g.add_input("x", {1, 3, 4, 5});
  int t = g.add_op(OpKind::Transpose, "t", {x}, Attributes({{"perm", I{0, 2, 3, 1}}}));
  ASSERT_EQ(g.tensor(out(g, t)).shape, (Shape{1, 4, 5, 3}));
  EXPECT_EQ(input_regions(g, t, R{{0, 1}, {1, 3}, {0, 5}, {2, 3}})[0],
            (R{{0, 1}, {2, 3}, {1, 3}, {0, 5}}));

  int a = g.add_input("a", {1, 4, 2, 2});
  int b = g.add_input("b", {1, 6, 2, 2});
  int cat = g.add_op(OpKind::Concat, "cat", {a, b}, Attributes({{"axis", int64_t{1}}}));
  auto both = input_regions(g, cat, R{{0, 1}, {2, 7}, {0, 2}, {1, 2}});
  EXPECT_EQ(both[0], (R{{0, 1}, {2, 4}, {0, 2}, {1, 2}}));
  EXPECT_EQ(both[1], (R{{0, 1}, {0, 3}, {0, 2}, {1, 2}}));
  auto second = input_regions(g, cat, R{{0, 1}, {5, 8}, {0, 2}, {0, 2}});
  EXPECT_TRUE(region_empty(second[0]));
  EXPECT_EQ(second[1], (R{{0, 1}, {1, 4}, {0, 2}, {0, 2}}));

  int sp = g.add_op(OpKind::Split, "sp", {b, g.add_constant_ints("sizes", {2, 4})},
                    Attributes({{"axis", int64_t{1}}}), 2);
  EXPECT_EQ(input_regions(g, sp, R{{0, 1}, {1, 3}, {0, 2}, {0, 2}}, 1)[0],
            (R{{0, 1}, {3, 5}, {0, 2}, {0, 2}}));

  // Slice rows 1,4,7 (step 3) and columns 18,14,10,6,2 (step -4).
  int m = g.add_input("m", {10, 20});
  int sl = g.add_op(OpKind::Slice, "sl",
                    {m, g.add_constant_ints("st", {1, -2}), g.add_constant_ints("en", {9, 0}),
                     g.add_constant_ints("axs", {0, 1}), g.add_constant_ints("stp", {3, -4})});
  ASSERT_EQ(g.tensor(out(g, sl)).shape, (Shape{3, 5}));
  EXPECT_EQ(input_regions(g, sl, R{{1, 3}, {1, 4}})[0], (R{{4, 8}, {6, 15}}));
}

TEST(IterationSpace, ReshapeAndFlatten) {
  Graph g;
  int x = g.add_input("x", {2, 3, 4, 5});
  int r = g.add_op(OpKind::Reshape, "r", {x, g.add_constant_ints("s", {2, 3, 20})});
  // Positions 5..11 of the merged H*W dim: rows 1..2 of H, all of W.
  auto a = input_access_regions(g, r, R{{0, 1}, {1, 3}, {5, 12}});
  EXPECT_EQ(a[0].region, (R{{0, 1}, {1, 3}, {1, 3}, {0, 5}}));
  EXPECT_TRUE(a[0].exact);
  // Positions 5..9: exactly row 1.
  EXPECT_EQ(input_regions(g, r, R{{0, 2}, {0, 3}, {5, 10}})[0],
            (R{{0, 2}, {0, 3}, {1, 2}, {0, 5}}));
  int f = g.add_op(OpKind::Flatten, "f", {x});
  ASSERT_EQ(g.tensor(out(g, f)).shape, (Shape{2, 60}));
  EXPECT_EQ(input_regions(g, f, R{{1, 2}, {20, 40}})[0], (R{{1, 2}, {1, 2}, {0, 4}, {0, 5}}));
  // [6,4] -> [2,3,4]: a tile of rows {1, 4} of the 6 is not contiguous: covered by rows 1..4.
  int y = g.add_input("y", {6, 4});
  int r2 = g.add_op(OpKind::Reshape, "r2", {y, g.add_constant_ints("s2", {2, 3, 4})});
  auto c = input_access_regions(g, r2, R{{0, 2}, {1, 2}, {0, 2}});
  EXPECT_EQ(c[0].region, (R{{1, 5}, {0, 2}}));
  EXPECT_FALSE(c[0].exact);
  int u = g.add_op(OpKind::Unsqueeze, "u", {y, g.add_constant_ints("ua", {0, 2})});
  ASSERT_EQ(g.tensor(out(g, u)).shape, (Shape{1, 6, 1, 4}));
  EXPECT_EQ(input_regions(g, u, R{{0, 1}, {2, 3}, {0, 1}, {1, 3}})[0], (R{{2, 3}, {1, 3}}));
}

TEST(IterationSpace, PadResizeDepthToSpaceGather) {
  Graph g;
  int x = g.add_input("x", {1, 1, 5});
  int pads = g.add_constant_ints("pads", {0, 0, 2, 0, 0, 2});
  int pr = g.add_op(OpKind::Pad, "pr", {x, pads}, Attributes({{"mode", std::string("reflect")}}));
  auto rr = input_access_regions(g, pr, R{{0, 1}, {0, 1}, {0, 2}});  // reads x[2], x[1]
  EXPECT_EQ(rr[0].region, (R{{0, 1}, {0, 1}, {1, 3}}));
  EXPECT_EQ(rr[0].unclamped, (R{{0, 1}, {0, 1}, {-2, 0}}));
  int pc = g.add_op(OpKind::Pad, "pc", {x, pads});
  EXPECT_TRUE(region_empty(input_regions(g, pc, R{{0, 1}, {0, 1}, {0, 2}})[0]));
  EXPECT_EQ(input_regions(g, pc, R{{0, 1}, {0, 1}, {1, 4}})[0], (R{{0, 1}, {0, 1}, {0, 2}}));
  int pe = g.add_op(OpKind::Pad, "pe", {x, pads}, Attributes({{"mode", std::string("edge")}}));
  EXPECT_EQ(input_regions(g, pe, R{{0, 1}, {0, 1}, {7, 9}})[0], (R{{0, 1}, {0, 1}, {4, 5}}));

  int img = g.add_input("img", {1, 1, 4, 4});
  int sc = g.add_constant_floats("sc", {4}, {1, 1, 2, 2});
  int up = g.add_op(OpKind::Resize, "up", {img, -1, sc});
  // half_pixel: x = (o + 0.5) / 2 - 0.5: o=2 -> 0.75, o=4 -> 1.75; nearest rounds to 1 and 2.
  EXPECT_EQ(input_regions(g, up, R{{0, 1}, {0, 1}, {2, 5}, {0, 8}})[0],
            (R{{0, 1}, {0, 1}, {1, 3}, {0, 4}}));
  int lin =
      g.add_op(OpKind::Resize, "lin", {img, -1, sc}, Attributes({{"mode", std::string("linear")}}));
  EXPECT_EQ(input_regions(g, lin, R{{0, 1}, {0, 1}, {2, 5}, {0, 1}})[0],
            (R{{0, 1}, {0, 1}, {0, 3}, {0, 1}}));

  int d = g.add_input("d", {1, 8, 2, 2});
  int d2s = g.add_op(OpKind::DepthToSpace, "d2s", {d}, Attributes({{"blocksize", int64_t{2}}}));
  // DCR: out[c, 2h+bh, 2w+bw] = in[(2bh+bw)*2 + c, h, w]; bh = 0, bw in {0,1}, c = 1 -> {1, 3}.
  EXPECT_EQ(input_regions(g, d2s, R{{0, 1}, {1, 2}, {0, 1}, {0, 2}})[0],
            (R{{0, 1}, {1, 4}, {0, 1}, {0, 1}}));

  int table = g.add_weight("table", {10, 4});
  Tensor idx;
  idx.name = "idx";
  idx.shape = {2, 2};
  idx.dtype = DType::I64;
  idx.role = TensorRole::Constant;
  idx.int_data = {7, 2, 5, 9};
  int it = g.add_tensor(idx);
  int ga = g.add_op(OpKind::Gather, "ga", {table, it});
  ASSERT_EQ(g.tensor(out(g, ga)).shape, (Shape{2, 2, 4}));
  auto gr = input_access_regions(g, ga, R{{1, 2}, {0, 2}, {1, 3}});  // indices 5, 9
  EXPECT_EQ(gr[0].region, (R{{5, 10}, {1, 3}}));
  EXPECT_TRUE(gr[0].exact);
  EXPECT_EQ(gr[1].region, (R{{1, 2}, {0, 2}}));
}

TEST(IterationSpace, ReductionSlicesNarrowTheAxisInPlace) {
  Graph g;
  int x = g.add_input("x", {1, 8, 9, 9});
  int c = g.add_op(OpKind::Conv, "c", {x, g.add_weight("w", {4, 8, 3, 3}), g.add_weight("b", {4})},
                   Attributes({{"pads", I{1, 1, 1, 1}}}));
  // Rows o + k - 1 for o in [2,3] -> [1,4]; columns -1..7; input channels 2..4.
  const R tile{{0, 1}, {1, 3}, {2, 4}, {0, 7}};
  auto conv = input_access_regions_for_slice(g, c, tile, {"c_in", {2, 5}});
  EXPECT_EQ(conv[0].region, (R{{0, 1}, {2, 5}, {1, 5}, {0, 8}}));
  EXPECT_EQ(conv[0].unclamped, (R{{0, 1}, {2, 5}, {1, 5}, {-1, 8}}));
  EXPECT_EQ(conv[1].region, (R{{1, 3}, {2, 5}, {0, 3}, {0, 3}}));
  EXPECT_EQ(conv[2].region, (R{{1, 3}}));
  int a = g.add_input("a", {2, 6, 10});
  int m = g.add_op(OpKind::MatMul, "m", {a, g.add_weight("bm", {10, 5})});
  auto mm = input_regions_for_slice(g, m, R{{0, 2}, {1, 3}, {0, 5}}, {"k", {4, 7}});
  EXPECT_EQ(mm[0], (R{{0, 2}, {1, 3}, {4, 7}}));
  EXPECT_EQ(mm[1], (R{{4, 7}, {0, 5}}));
  // A grouped, strided, dilated conv: the same as the regions over the narrowed space's copy,
  // with and without a memo of the spaces.
  int gc = g.add_op(OpKind::Conv, "gc", {x, g.add_weight("gw", {6, 4, 3, 3})},
                    Attributes({{"group", int64_t{2}},
                                {"strides", I{2, 2}},
                                {"dilations", I{2, 1}},
                                {"pads", I{2, 1, 2, 1}}}));
  ASSERT_EQ(g.tensor(out(g, gc)).shape, (Shape{1, 6, 5, 5}));
  for (const R& t : {R{{0, 1}, {2, 4}, {0, 2}, {3, 5}}, R{{0, 1}, {0, 6}, {4, 5}, {0, 1}}}) {
    for (const Interval slice : {Interval{0, 1}, Interval{1, 3}, Interval{3, 4}}) {
      const ReductionRange r{"c_in", slice};
      const auto want = input_access_regions(g, gc, iteration_space_for_slice(g, gc, r), t);
      for (bool memo : {false, true}) {
        std::optional<IterationSpaceMemo> spaces;
        if (memo) spaces.emplace(g);
        const auto got = input_access_regions_for_slice(g, gc, t, r);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i].region, want[i].region) << region_str(t) << " input " << i;
          EXPECT_EQ(got[i].unclamped, want[i].unclamped) << region_str(t) << " input " << i;
          EXPECT_EQ(got[i].touched, want[i].touched) << region_str(t) << " input " << i;
          EXPECT_EQ(got[i].exact, want[i].exact);
        }
      }
    }
  }
  EXPECT_THROW(input_access_regions_for_slice(g, c, tile, {"c_in", {5, 9}}), Error);
  EXPECT_THROW(input_access_regions_for_slice(g, c, tile, {"k", {0, 1}}), Error);
}

TEST(IterationSpace, ConvTranspose) {
  Graph g;
  int x = g.add_input("x", {1, 4, 5, 5});
  int w = g.add_weight("w", {4, 3, 3, 3});
  int ct = g.add_op(OpKind::ConvTranspose, "ct", {x, w},
                    Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}));
  ASSERT_EQ(g.tensor(out(g, ct)).shape, (Shape{1, 3, 9, 9}));
  // out = 2*i + k - 1: outputs [3,5) come from i with 2i + k - 1 in [3,4] -> i in [1, 2].
  auto r = input_regions(g, ct, R{{0, 1}, {0, 3}, {3, 5}, {0, 1}});
  EXPECT_EQ(r[0], (R{{0, 1}, {0, 4}, {1, 3}, {0, 1}}));
  // Kernel taps: rows 3 and 4 use k = 0, 2 (from i = 2, 1) and k = 1 (i = 2); column 0 only
  // k = 1 (i = 0).
  EXPECT_EQ(r[1], (R{{0, 4}, {0, 3}, {0, 3}, {1, 2}}));
}

TEST(IterationSpace, ChainConvReluConvPropagatedBackwards) {
  Graph g;
  int x = g.add_input("x", {1, 4, 16, 16});
  int w1 = g.add_weight("w1", {8, 4, 3, 3});
  int c1 = g.add_op(OpKind::Conv, "c1", {x, w1}, Attributes({{"pads", I{1, 1, 1, 1}}}));
  int r = g.add_op(OpKind::Relu, "r", {out(g, c1)});
  int w2 = g.add_weight("w2", {8, 8, 3, 3});
  int c2 = g.add_op(OpKind::Conv, "c2", {out(g, r), w2},
                    Attributes({{"pads", I{1, 1, 1, 1}}, {"strides", I{2, 2}}}));
  ASSERT_EQ(g.tensor(out(g, c2)).shape, (Shape{1, 8, 8, 8}));
  auto regions = propagate_tile(g, {c1, r, c2}, c2, R{{0, 1}, {0, 8}, {2, 4}, {0, 8}});
  // c2 rows 2*o + k - 1 for o in [2,3] -> [3, 7]; columns [-1, 15] clamped to [0, 15].
  EXPECT_EQ(regions.at(out(g, r)).region, (R{{0, 1}, {0, 8}, {3, 8}, {0, 16}}));
  EXPECT_EQ(regions.at(out(g, r)).unclamped, (R{{0, 1}, {0, 8}, {3, 8}, {-1, 16}}));
  EXPECT_EQ(regions.at(out(g, c1)).region, (R{{0, 1}, {0, 8}, {3, 8}, {0, 16}}));
  // c1 rows o + k - 1 for o in [3,7] -> [2, 8].
  EXPECT_EQ(regions.at(x).region, (R{{0, 1}, {0, 4}, {2, 9}, {0, 16}}));
  EXPECT_EQ(regions.at(w1).region, full_region({8, 4, 3, 3}));
  EXPECT_EQ(regions.at(w2).region, full_region({8, 8, 3, 3}));
  EXPECT_EQ(regions.size(), 6u);  // x, w1, c1:0, r:0, w2, c2:0
}

TEST(IterationSpace, PropagateUnionsBranches) {
  // x -> a (3x3 conv, pad 1) and x -> b (1x1 conv) -> add: x needs the 3x3 halo.
  Graph g;
  int x = g.add_input("x", {1, 2, 8, 8});
  int wa = g.add_weight("wa", {2, 2, 3, 3});
  int wb = g.add_weight("wb", {2, 2, 1, 1});
  int a = g.add_op(OpKind::Conv, "a", {x, wa}, Attributes({{"pads", I{1, 1, 1, 1}}}));
  int b = g.add_op(OpKind::Conv, "b", {x, wb});
  int add = g.add_op(OpKind::Add, "add", {out(g, a), out(g, b)});
  auto regions = propagate_tile(g, {a, b, add}, add, R{{0, 1}, {0, 2}, {4, 6}, {4, 6}});
  EXPECT_EQ(regions.at(x).region, (R{{0, 1}, {0, 2}, {3, 7}, {3, 7}}));
  EXPECT_EQ(regions.at(out(g, b)).region, (R{{0, 1}, {0, 2}, {4, 6}, {4, 6}}));
}

TEST(IterationSpace, BadTileNamesTheOp) {
  Graph g;
  int x = g.add_input("x", {1, 2, 4, 4});
  int r = g.add_op(OpKind::Relu, "act", {x});
  try {
    input_regions(g, r, R{{0, 1}, {0, 2}, {0, 4}});
    FAIL() << "expected dgs::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "op 'act' (Relu): tile [0:1,0:2,0:4] has rank 3; expected rank 4 (output "
              "[1,2,4,4])");
  }
  EXPECT_THROW(input_regions(g, r, R{{0, 1}, {0, 2}, {0, 5}, {0, 4}}), Error);
}

}  // namespace
}  // namespace dgs
