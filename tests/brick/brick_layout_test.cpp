// The brick layout: round trips on random data with odd sizes and any brick map, zero masking of
// partial bricks, the adjacency list against the grid, and the paper's Fig. 6 example.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "common/brick/brick_layout.h"
#include "tests/error_of.h"

namespace dgs {
namespace {

std::vector<float> random_values(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.5f, 1.5f);  // never zero: masks are visible
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  return v;
}

std::vector<int64_t> shuffled_map(int64_t n, uint64_t seed) {
  std::vector<int64_t> m(static_cast<size_t>(n));
  std::iota(m.begin(), m.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(m.begin(), m.end(), rng);
  return m;
}

TEST(BrickLayout, RoundTripsOddSizesForEveryEdgeAndMap) {
  const std::vector<Shape> shapes = {{1, 3, 13, 11, 9}, {2, 5, 7, 16}, {3, 2, 17}, {1, 1, 8, 8, 8}};
  uint64_t seed = 1;
  for (const Shape& s : shapes)
    for (int64_t edge : {1, 2, 3, 4, 8, 16, 32}) {
      for (bool shuffle : {false, true}) {
        BrickLayout base = spatial_brick_layout(s, edge);
        BrickLayout layout(
            s, base.brick_extent(),
            shuffle ? shuffled_map(base.num_bricks(), seed) : std::vector<int64_t>{});
        const auto v = random_values(numel(s), seed++);
        const auto b = to_bricks(v, layout);
        EXPECT_EQ(static_cast<int64_t>(b.size()), layout.storage_size());
        EXPECT_EQ(from_bricks(b, layout), v) << shape_str(s) << " edge " << edge;
        // Every element sits where offset() says, and the storage holds exactly the tensor's
        // values plus zeros (the masks of partial bricks).
        const int64_t nonzero = std::count_if(b.begin(), b.end(), [](float x) { return x != 0; });
        EXPECT_EQ(nonzero, numel(s));
      }
    }
}

TEST(BrickLayout, PartialBricksAreMaskedWithZeros) {
  const Shape s = {1, 2, 10, 6};
  BrickLayout layout = spatial_brick_layout(s, 4);
  EXPECT_EQ(layout.grid(), (std::vector<int64_t>{1, 1, 3, 2}));
  const auto b = to_bricks(random_values(numel(s), 7), layout);
  for (int64_t l = 0; l < layout.num_bricks(); ++l) {
    const Region r = layout.brick_region(l);
    const int64_t base = layout.physical(l) * layout.brick_volume();
    int64_t zeros = 0;
    for (int64_t k = 0; k < layout.brick_volume(); ++k)
      zeros += b[static_cast<size_t>(base + k)] == 0;
    EXPECT_EQ(zeros, layout.brick_volume() - layout.valid_elements(l));
    EXPECT_EQ(layout.valid_elements(l), 2 * r[2].size() * r[3].size());
  }
  // The corner brick (2, 1) holds rows 8..9 and columns 4..5 only.
  EXPECT_EQ(region_str(layout.brick_region(layout.logical_index({0, 0, 2, 1}))),
            "[0:1,0:2,8:10,4:6]");
}

TEST(BrickLayout, AdjacencyMatchesTheGridUnderAnyMap) {
  const Shape s = {2, 4, 9, 7, 5};
  BrickLayout base = spatial_brick_layout(s, 3);
  BrickLayout layout(s, base.brick_extent(), shuffled_map(base.num_bricks(), 3));
  // Batch (one sample per brick) and channels (whole) are not neighbour dims.
  EXPECT_EQ(layout.neighbour_dims(), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(layout.num_directions(), 27);
  int64_t missing = 0;
  for (int64_t l = 0; l < layout.num_bricks(); ++l) {
    const auto c = layout.brick_coords(l);
    const int64_t p = layout.physical(l);
    EXPECT_EQ(layout.neighbour(p, layout.self_direction()), p);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int64_t got = layout.neighbour(p, layout.direction_index({dz, dy, dx}));
          std::vector<int64_t> nc = {c[0], c[1], c[2] + dz, c[3] + dy, c[4] + dx};
          const bool inside =
              nc[2] >= 0 && nc[2] < 3 && nc[3] >= 0 && nc[3] < 3 && nc[4] >= 0 && nc[4] < 2;
          if (!inside) {
            EXPECT_EQ(got, kNoBrick);
            ++missing;
          } else {
            EXPECT_EQ(layout.logical(got), layout.logical_index(nc));
          }
        }
  }
  // Ordered pairs of bricks within one step per dim, per sample.
  const int64_t reachable = 2 * 18 * 27 - missing;
  // Along a dim of n bricks there are n + 2(n-1) such pairs: 7 * 7 * 4 = 196 per sample.
  EXPECT_EQ(reachable, 2 * 7 * 7 * 4);
}

TEST(BrickLayout, Fig6FourByFourBricksOfASixteenBySixteenArray) {
  // The paper's Fig. 6: a 16x16 array in 4x4 bricks; the brick map sends logical (1, 1) to
  // physical 0, and brick 0's neighbours are the 8 bricks around (1, 1).
  std::vector<int64_t> map(16);
  std::iota(map.begin(), map.end(), 0);
  std::swap(map[0], map[5]);  // logical 5 = (1, 1)
  BrickLayout layout({16, 16}, {4, 4}, map);
  EXPECT_EQ(layout.num_bricks(), 16);
  EXPECT_EQ(layout.logical(0), layout.logical_index({1, 1}));
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int64_t n = layout.neighbour(0, layout.direction_index({dy, dx}));
      EXPECT_EQ(layout.brick_coords(layout.logical(n)), (std::vector<int64_t>{1 + dy, 1 + dx}));
    }
  EXPECT_EQ(layout.offset({4, 4}), 0);  // element (4, 4) is the first of physical brick 0
  EXPECT_EQ(layout.offset({5, 6}), 6);
}

TEST(BrickLayout, BricksOverlappingARegion) {
  BrickLayout layout = spatial_brick_layout({1, 1, 10, 10}, 4);
  const auto b = layout.bricks_overlapping({{0, 1}, {0, 1}, {3, 5}, {7, 12}});
  // rows 3..4 -> brick rows 0, 1; columns 7..9 -> brick columns 1, 2.
  EXPECT_EQ(b, (std::vector<int64_t>{1, 2, 4, 5}));
}

TEST(BrickLayout, BadArgumentsAreNamed) {
  EXPECT_EQ(error_of([] {
              BrickLayout({4, 4}, {2});
            }),
            "brick layout: brick extent has rank 1, tensor [4,4] has rank 2");
  EXPECT_EQ(error_of([] {
              BrickLayout({4, 4}, {2, 2}, {0, 1, 1, 3});
            }),
            "brick layout: brick map is not a permutation of 0..3 (entry 2 = 1)");
  EXPECT_EQ(error_of([] { to_bricks(std::vector<float>(3), BrickLayout({4}, {2})); }),
            "to_bricks: 3 values for tensor [4]");
}

}  // namespace
}  // namespace dgs
