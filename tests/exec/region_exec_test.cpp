// Region (tile) execution: bad tiles throw dgs::Error, and Constant inputs may
// be left out of run_op_region (default-constructed TensorData, empty region)
// so that their graph data is used.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "common/util/error.h"

namespace dgs {
namespace {

// Expects `fn` to throw dgs::Error whose message contains `needle`.
template <class F>
void expect_error(F fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no dgs::Error thrown; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(RegionExec, InsertRegionRejectsTileOfOtherRank) {
  TensorData t = TensorData::zeros({4, 6});
  const Region r = {{0, 2}, {1, 4}};
  // Rank 3 tile with the same element count as the rank 2 region.
  expect_error([&] { insert_region(t, r, TensorData::zeros({2, 3, 1})); }, "rank");
  // Rank 1 tile.
  expect_error([&] { insert_region(t, r, TensorData::zeros({6})); }, "rank");
  // Default TensorData (shape [], no values) into a rank-2 region.
  expect_error([&] { insert_region(t, r, TensorData{}); }, "rank");
  // Nothing was written by the failed calls.
  for (float v : t.f) EXPECT_EQ(v, 0.0f);
}

TEST(RegionExec, InsertRegionRejectsTileWithoutValues) {
  // A scalar target: region rank 0 matches the default TensorData's rank 0, but
  // the tile stores no value (numel() says 1). This used to read past the
  // tile's values.
  TensorData scalar = TensorData::floats({}, {7.0f});
  expect_error([&] { insert_region(scalar, Region{}, TensorData{}); }, "0 values");
  EXPECT_EQ(scalar.f.at(0), 7.0f);
  // Right shape, too few stored values.
  TensorData t = TensorData::zeros({4, 6});
  TensorData tile = TensorData::zeros({2, 3});
  tile.f.pop_back();
  expect_error([&] { insert_region(t, {{0, 2}, {0, 3}}, tile); }, "5 values");
}

TEST(RegionExec, InsertThenExtractRoundTrips) {
  TensorData t = TensorData::zeros({3, 5});
  const TensorData tile = TensorData::floats({2, 2}, {1, 2, 3, 4});
  insert_region(t, {{1, 3}, {2, 4}}, tile);
  EXPECT_EQ(t.f[1 * 5 + 2], 1.0f);
  EXPECT_EQ(t.f[2 * 5 + 3], 4.0f);
  EXPECT_TRUE(compare_tensors(extract_region(t, {{1, 3}, {2, 4}}), tile).passed);
}

// copy_region against an element-by-element copy written here: every element of the box lands
// at its place and nothing else changes, for boxes that span inner dims whole (copied as one run)
// or not, offset differently in the two tensors, of rank 0 to 4, float and integer.
TEST(RegionExec, CopyRegionEqualsAnElementByElementCopy) {
  struct Case {
    Shape src, dst;
    Region from, to;
  };
  const std::vector<Case> cases = {
      {{}, {}, {}, {}},
      {{7}, {5}, {{2, 6}}, {{1, 5}}},
      {{3, 5}, {4, 6}, {{1, 3}, {2, 4}}, {{0, 2}, {3, 5}}},
      // Inner dims whole in both: one run per outer index.
      {{2, 3, 4, 5},
       {3, 3, 4, 5},
       {{0, 2}, {1, 3}, {0, 4}, {0, 5}},
       {{1, 3}, {0, 2}, {0, 4}, {0, 5}}},
      // Whole in the source only, whole in the destination only.
      {{2, 3, 4, 5},
       {2, 3, 6, 5},
       {{1, 2}, {0, 3}, {0, 4}, {0, 5}},
       {{0, 1}, {0, 3}, {1, 5}, {0, 5}}},
      {{2, 3, 6, 7},
       {2, 3, 4, 5},
       {{0, 2}, {0, 3}, {2, 6}, {1, 6}},
       {{0, 2}, {0, 3}, {0, 4}, {0, 5}}},
      // Width-1 rows.
      {{2, 4, 3}, {3, 4, 2}, {{0, 2}, {1, 4}, {2, 3}}, {{1, 3}, {0, 3}, {0, 1}}},
      // Empty box: nothing is written.
      {{3, 4}, {3, 4}, {{1, 1}, {0, 4}}, {{2, 2}, {0, 4}}},
  };
  for (const bool floats : {true, false}) {
    for (const Case& c : cases) {
      const DType dt = floats ? DType::F32 : DType::I64;
      TensorData src = TensorData::zeros(c.src, dt), dst = TensorData::zeros(c.dst, dt);
      for (int64_t k = 0; k < src.numel(); ++k) {
        if (floats)
          src.f[static_cast<size_t>(k)] = static_cast<float>(k + 1);
        else
          src.i[static_cast<size_t>(k)] = k + 1;
      }
      for (int64_t k = 0; k < dst.numel(); ++k) {
        if (floats)
          dst.f[static_cast<size_t>(k)] = -1.0f;
        else
          dst.i[static_cast<size_t>(k)] = -1;
      }
      TensorData want = dst;
      // The element-by-element copy.
      const size_t rank = c.src.size();
      const int64_t n = region_numel(c.from);
      std::vector<int64_t> idx(rank, 0);
      for (int64_t k = 0; k < n; ++k) {
        int64_t s = 0, t = 0;
        for (size_t d = 0; d < rank; ++d) {
          s = s * c.src[d] + c.from[d].lo + idx[d];
          t = t * c.dst[d] + c.to[d].lo + idx[d];
        }
        if (floats)
          want.f[static_cast<size_t>(t)] = src.f[static_cast<size_t>(s)];
        else
          want.i[static_cast<size_t>(t)] = src.i[static_cast<size_t>(s)];
        for (size_t d = rank; d-- > 0;) {
          if (++idx[d] < c.from[d].size()) break;
          idx[d] = 0;
        }
      }
      copy_region(src, c.from, dst, c.to);
      EXPECT_EQ(dst.f, want.f) << region_str(c.from) << " -> " << region_str(c.to);
      EXPECT_EQ(dst.i, want.i) << region_str(c.from) << " -> " << region_str(c.to);
    }
  }
}

TEST(RegionExec, CopyRegionRejectsBoxesThatDoNotFit) {
  const TensorData src = TensorData::zeros({3, 4});
  TensorData dst = TensorData::zeros({4, 4});
  expect_error([&] { copy_region(src, {{0, 2}, {0, 3}}, dst, {{0, 2}, {0, 2}}); }, "does not fit");
  expect_error([&] { copy_region(src, {{0, 4}, {0, 3}}, dst, {{0, 4}, {0, 3}}); }, "source");
  expect_error([&] { copy_region(src, {{0, 2}, {0, 3}}, dst, {{3, 5}, {0, 3}}); }, "destination");
  TensorData ints = TensorData::zeros({4, 4}, DType::I64);
  expect_error([&] { copy_region(src, {{0, 2}, {0, 3}}, ints, {{0, 2}, {0, 3}}); }, "does not fit");
  for (float v : dst.f) EXPECT_EQ(v, 0.0f);
}

TEST(RegionExec, ConstantInputsMayBeLeftOut) {
  // y = x + c with c a float Constant of shape [4] and a rank-0 Constant s: z =
  // y * s.
  Graph g;
  g.name = "const_tiles";
  const int x = g.add_input("x", {3, 4});
  const int c = g.add_constant_floats("c", {4}, {1.0f, 2.0f, 3.0f, 4.0f});
  const int s = g.add_constant_floats("s", {}, {0.5f});
  const int add = g.add_op(OpKind::Add, "add", {x, c});
  const int mul = g.add_op(OpKind::Mul, "mul", {g.op(add).outputs[0], s});
  g.mark_output(g.op(mul).outputs[0]);
  const TensorValues full = run_graph(g, {}, 11);

  const Region tile = {{1, 3}, {1, 3}};
  // Add: the Constant c left out (empty region, default TensorData).
  {
    const std::vector<Region> regions = {tile, Region{}};
    const std::vector<TensorData> tiles = {extract_region(full.at(x), tile), TensorData{}};
    const TensorData got = run_op_region(g, add, regions, tiles, tile);
    const Comparison cmp =
        compare_tensors(got, extract_region(full.at(g.op(add).outputs[0]), tile));
    EXPECT_TRUE(cmp.passed) << cmp.str();
  }
  // Mul: the rank-0 Constant s left out; its empty region is also its full
  // region, so only the missing values tell it apart from a given scalar.
  {
    const int y = g.op(add).outputs[0];
    const std::vector<Region> regions = {tile, Region{}};
    const std::vector<TensorData> tiles = {extract_region(full.at(y), tile), TensorData{}};
    const TensorData got = run_op_region(g, mul, regions, tiles, tile);
    const Comparison cmp =
        compare_tensors(got, extract_region(full.at(g.op(mul).outputs[0]), tile));
    EXPECT_TRUE(cmp.passed) << cmp.str();
    // Given explicitly with another value, the given value is used (not the
    // graph data).
    const std::vector<TensorData> given = {extract_region(full.at(y), tile),
                                           TensorData::floats({}, {2.0f})};
    const TensorData doubled = run_op_region(g, mul, regions, given, tile);
    const TensorData want = extract_region(full.at(y), tile);
    for (size_t k = 0; k < want.f.size(); ++k) EXPECT_FLOAT_EQ(doubled.f[k], 2.0f * want.f[k]);
  }
  // A non-Constant input cannot be left out: a clear error, not a crash.
  {
    const std::vector<Region> regions = {Region{}, Region{}};
    const std::vector<TensorData> tiles = {TensorData{}, TensorData{}};
    expect_error([&] { run_op_region(g, add, regions, tiles, tile); },
                 "input 0 'x' region [] has rank 0; the tensor has rank 2");
  }
}

}  // namespace
}  // namespace dgs
