// Sliding axes (common/graph/sliding_axes.h): which output axes of an op they are, and the
// property that makes them worth knowing: a tile moved along them reads regions of the same
// shapes, moved on the driven dims and unchanged on every other, never clipped where moved.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/graph/sliding_axes.h"
#include "models/builder.h"
#include "models/zoo.h"
#include "tests/random_region.h"

namespace dgs {
namespace sliding_axes_test {

SlidingAxes of(const Graph& g, int tensor) {
  const int op = g.tensor(tensor).producer;
  return sliding_axes(g, op, iteration_space(g, op));
}

bool indexed_by(const AxisIndex& a, int axis) {
  for (const IndexTerm& t : a.terms)
    if (!t.reduction && t.axis == axis) return true;
  return false;
}

// Axis bits: N = 1, C = 2, H = 4, W = 8 for an NCHW output.
TEST(SlidingAxes, OfConvolutionsAnElementwiseOpAndAReshape) {
  ModelBuilder b("slides");
  const int x = b.input("x", {2, 8, 16, 16});
  const int c3 = b.conv2d(x, 8, 3, /*stride=*/1, /*pad=*/1);  // rows and columns have a halo
  const int c1 = b.conv2d(c3, 8, 1);                          // a 1x1 window: none
  const int c1s2 = b.conv2d(c1, 8, 1, /*stride=*/2);          // every other row: coefficient 2
  // Padding at the far end only: offset 0 and rows as long as the output's, but the window's last
  // rows fall outside at the bottom: rows and columns do not slide.
  const int far = b.conv2d(c1s2, 8, Conv2dSpec{.kernel = {3, 3}, .pads = {0, 0, 2, 2}});
  // Depthwise: each output channel reads its own input channel, which slides with it.
  const int dw = b.conv2d(far, 8, Conv2dSpec{.kernel = {3, 3}, .pads = {1, 1, 1, 1}, .groups = 8});
  const int r = b.relu(dw);
  const int f = b.flatten(r);  // a Custom map
  const Graph g = b.finish({f});
  const SlidingAxes s3 = of(g, c3), s1 = of(g, c1), s2 = of(g, c1s2), sr = of(g, r), sf = of(g, f);
  ASSERT_EQ(g.tensor(far).shape, (Shape{2, 8, 8, 8}));
  // The batch slides on the data (input 0); the output channels on the weights' dim 0 (and the
  // data's channel does not vary with them: one group).
  EXPECT_EQ(s3.output, 0b0011u);
  ASSERT_GE(s3.driven.size(), 2u);
  EXPECT_EQ(s3.driven[0], 0b0001u);
  EXPECT_EQ(s3.driven[1], 0b0001u);
  if (s3.driven.size() > 2) {
    EXPECT_EQ(s3.driven[2], 0b0001u);  // a bias
  }
  EXPECT_EQ(s1.output, 0b1111u);
  EXPECT_EQ(s1.driven[0], 0b1101u);  // N, H, W of the data (its C is the reduction)
  EXPECT_EQ(s2.output, 0b0011u);
  const SlidingAxes sfar = of(g, far), sdw = of(g, dw);
  EXPECT_EQ(sfar.output, 0b0011u);
  EXPECT_EQ(sdw.output, 0b0011u);
  EXPECT_EQ(sdw.driven[0], 0b0011u);  // the data's batch and channel
  EXPECT_EQ(sr.output, 0b1111u);
  EXPECT_EQ(sr.driven[0], 0b1111u);
  EXPECT_EQ(sf.output, 0u);
  for (uint64_t d : sf.driven) EXPECT_EQ(d, 0u);
}

// Every op of three zoo networks at batch 3, on random tiles (edges included): moved by a random
// step along each sliding axis, the tile reads, per input, the same region on every dim not
// driven and the region moved by that step on the driven ones, which equals its unclamped box
// there (no padding) before and after, with the same count of coordinates touched.
TEST(SlidingAxes, AMovedTileReadsMovedRegionsOfTheSameShapesOnEveryZooOp) {
  std::mt19937_64 rng(20261201);
  int64_t moves = 0, ops_with_axes = 0;
  for (const std::string net : {"resnet50", "inception_v3", "efficientnet_b0"}) {
    const Graph g = build_zoo_model(net, {.batch = 3});
    for (int op = 0; op < g.num_ops(); ++op) {
      const IterationSpace s = iteration_space(g, op);
      const SlidingAxes sl = sliding_axes(g, op, s);
      if (sl.output == 0) continue;
      ++ops_with_axes;
      const Shape& out = g.tensor(g.op(op).outputs[0]).shape;
      for (int k = 0; k < 4; ++k) {
        const Region tile = test::random_region(out, rng);
        const std::vector<AccessRegion> at = input_access_regions(g, op, tile);
        for (size_t ax = 0; ax < out.size(); ++ax) {
          if (((sl.output >> ax) & 1) == 0) continue;
          const int64_t room = out[ax] - tile[ax].size();
          if (room == 0) continue;
          const int64_t to = std::uniform_int_distribution<int64_t>(0, room)(rng);
          const int64_t step = to - tile[ax].lo;
          Region moved = tile;
          moved[ax] = {to, to + tile[ax].size()};
          const std::vector<AccessRegion> there = input_access_regions(g, op, moved);
          ASSERT_EQ(at.size(), there.size());
          ++moves;
          for (size_t i = 0; i < at.size(); ++i) {
            ASSERT_EQ(at[i].region.size(), there[i].region.size()) << net << " op " << op;
            EXPECT_EQ(at[i].touched, there[i].touched) << net << " op " << op << " input " << i;
            for (size_t d = 0; d < at[i].region.size(); ++d) {
              const bool driven = ((sl.driven[i] >> d) & 1) != 0;
              const Interval& a = at[i].region[d];
              const Interval& b = there[i].region[d];
              const std::string where = net + " op " + g.op(op).name + " axis " +
                                        std::to_string(ax) + " input " + std::to_string(i) +
                                        " dim " + std::to_string(d);
              if (!driven || !indexed_by(s.inputs[i].dims[d], static_cast<int>(ax))) {
                EXPECT_EQ(a, b) << where;  // not indexed by this axis
                continue;
              }
              EXPECT_EQ(b.lo, a.lo + step) << where;
              EXPECT_EQ(b.hi, a.hi + step) << where;
              EXPECT_EQ(a, at[i].unclamped[d]) << where;
              EXPECT_EQ(b, there[i].unclamped[d]) << where;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(ops_with_axes, 300);
  EXPECT_GT(moves, 1000);
}

}  // namespace sliding_axes_test
}  // namespace dgs
