// The regions of affine input maps (access_regions.cpp: one pass per coordinate, the divisions
// skipped for unit divisors and steps) against a brute-force oracle: every value a coordinate
// takes, enumerated from the values of its terms over the tile and the reduction axes. For every
// op of ResNet-50, Inception-v3 and EfficientNet-B0 on random tiles (edges included, so the
// padding of windows is crossed), whole and over random reduction slices:
//   unclamped: [min, max + 1) of all values;
//   region: [min, max + 1) of the in-bound values (empty if none);
//   touched: how many distinct in-bound values (the box's size where it has no gaps).
// Coordinates of more than two terms (a cover, iteration_space.h) and those with too many values
// to enumerate are left out; the test counts the coordinates it checked and those with gaps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/graph/reduction_slice.h"
#include "models/zoo.h"
#include "tests/random_region.h"

namespace dgs {
namespace affine_regions_oracle_test {

constexpr uint64_t kSeed = 20261130;  // fixed seed: the test is deterministic
constexpr int kTilesPerOp = 12;
constexpr int64_t kMaxValues = 1 << 16;  // coordinates with more combinations are left out

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

struct Counts {
  int64_t checked = 0;  // coordinates compared with the oracle
  int64_t gaps = 0;     // of them, with fewer values read than their box holds
};

// Compares `got` (input `i`'s access) with the oracle on space `s` and `tile`, dim by dim.
void check_access(const InputAccess& acc, const IterationSpace& s, const Region& tile,
                  const Shape& xs, const AccessRegion& got, Counts& counts) {
  ASSERT_EQ(got.region.size(), xs.size());
  bool empty = false;
  std::vector<Interval> boxes;
  std::vector<int64_t> distinct;
  std::vector<bool> compared;
  for (size_t d = 0; d < xs.size(); ++d) {
    const AxisIndex& a = acc.dims[d];
    boxes.push_back({0, xs[d]});
    distinct.push_back(xs[d]);
    compared.push_back(false);
    if (a.full || a.terms.size() > 2) continue;
    // The values of each term: coef * floor(v / divisor) over its axis's range.
    std::vector<std::vector<int64_t>> values;
    int64_t combos = 1;
    for (const IndexTerm& t : a.terms) {
      const Interval range = t.reduction
                                 ? Interval{0, s.reduction_axes[static_cast<size_t>(t.axis)].extent}
                                 : tile[static_cast<size_t>(t.axis)];
      std::vector<int64_t> v;
      for (int64_t q = floor_div(range.lo, t.divisor); q <= floor_div(range.hi - 1, t.divisor); ++q)
        v.push_back(t.coef * q);
      combos *= static_cast<int64_t>(v.size());
      values.push_back(std::move(v));
    }
    if (combos > kMaxValues || combos == 0) continue;
    std::set<int64_t> all;
    if (values.empty()) all.insert(a.offset);
    if (values.size() == 1)
      for (int64_t x : values[0]) all.insert(a.offset + x);
    if (values.size() == 2)
      for (int64_t x : values[0])
        for (int64_t y : values[1]) all.insert(a.offset + x + y);
    const Interval unclamped{*all.begin(), *all.rbegin() + 1};
    EXPECT_EQ(got.unclamped[d], unclamped) << "dim " << d;
    std::set<int64_t> in;
    for (int64_t x : all)
      if (x >= 0 && x < xs[d]) in.insert(x);
    compared[d] = true;
    ++counts.checked;
    if (in.empty()) {
      empty = true;
      continue;
    }
    boxes[d] = {*in.begin(), *in.rbegin() + 1};
    distinct[d] = static_cast<int64_t>(in.size());
    if (distinct[d] < boxes[d].size()) ++counts.gaps;
  }
  if (empty) {  // no element read: the empty region of the input's rank
    EXPECT_TRUE(region_empty(got.region)) << region_str(got.region);
    return;
  }
  for (size_t d = 0; d < xs.size(); ++d) {
    if (!compared[d]) continue;
    EXPECT_EQ(got.region[d], boxes[d]) << "dim " << d;
    const int64_t touched = got.touched.empty() ? got.region[d].size() : got.touched[d];
    EXPECT_EQ(touched, distinct[d]) << "dim " << d;
  }
}

Counts check_model(const std::string& name) {
  const Graph g = build_zoo_model(name, ZooOptions{.batch = 2});
  std::mt19937_64 rng(kSeed);
  Counts counts;
  for (int op = 0; op < g.num_ops(); ++op) {
    const Op& o = g.op(op);
    const IterationSpace whole = iteration_space(g, op);
    const Shape& y = whole.output_axes;
    // The op's splittable reduction axis (Conv's c_in, Gemm's and MatMul's k), if any.
    std::string axis;
    int64_t extent = 0;
    for (const ReductionAxis& ax : whole.reduction_axes)
      if (reduction_slice_error(g, op, {ax.name, {0, ax.extent}}).empty()) {
        axis = ax.name;
        extent = ax.extent;
      }
    for (int rep = 0; rep < kTilesPerOp; ++rep) {
      const Region tile = test::random_region(y, rng);
      ReductionRange slice;
      if (!axis.empty() && rep % 2 == 1) {
        std::uniform_int_distribution<int64_t> pick(0, extent - 1);
        int64_t a = pick(rng), b = pick(rng);
        if (a > b) std::swap(a, b);
        slice = {axis, {a, b + 1}};
      }
      SCOPED_TRACE(name + " op " + o.name + " tile " + region_str(tile) +
                   (slice.axis.empty()
                        ? std::string()
                        : " slice " + slice.axis + " " + std::to_string(slice.range.lo) + ":" +
                              std::to_string(slice.range.hi)));
      const IterationSpace s = slice.axis.empty() ? whole : iteration_space_for_slice(g, op, slice);
      const std::vector<AccessRegion> got =
          slice.axis.empty() ? input_access_regions(g, op, tile)
                             : input_access_regions_for_slice(g, op, tile, slice);
      EXPECT_EQ(got.size(), o.inputs.size());
      for (size_t i = 0; i < o.inputs.size() && i < got.size(); ++i) {
        if (o.inputs[i] < 0 || s.inputs[i].kind != InputAccess::Kind::Affine) continue;
        SCOPED_TRACE("input " + std::to_string(i));
        check_access(s.inputs[i], s, tile, g.tensor(o.inputs[i]).shape, got[i], counts);
      }
    }
  }
  return counts;
}

TEST(AffineRegionsOracle, ResNet50RegionsAreTheEnumeratedValues) {
  const Counts c = check_model("resnet50");
  EXPECT_GT(c.checked, 5000);
  EXPECT_GT(c.gaps, 0);  // the stride-2 1x1 convs of the downsampling shortcuts
}

TEST(AffineRegionsOracle, InceptionV3RegionsAreTheEnumeratedValues) {
  const Counts c = check_model("inception_v3");
  EXPECT_GT(c.checked, 5000);
}

TEST(AffineRegionsOracle, EfficientNetB0RegionsAreTheEnumeratedValues) {
  const Counts c = check_model("efficientnet_b0");
  EXPECT_GT(c.checked, 5000);
}

}  // namespace affine_regions_oracle_test
}  // namespace dgs
