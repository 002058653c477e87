// Region (tile) execution: bad tiles throw dgs::Error, and Constant inputs may
// be left out of run_op_region (default-constructed TensorData, empty region)
// so that their graph data is used.
#include <gtest/gtest.h>

#include <string>

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
