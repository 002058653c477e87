// The index of a tensor's regions (the DSA timeline's, Plan::check's)
// (common/graph/region_index.h): its candidates for a query are a superset of the regions
// overlapping it (the timeline tests each exactly), whatever axes its buckets use, and
// last_candidate finds what a scan of every region finds.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "common/graph/region_index.h"
#include "tests/random_region.h"

namespace dgs {
namespace {

// The atoms of a batch-20 layer: every sample cut into 4 x 7 x 7 boxes of [64, 14, 14], the
// first region splitting the batch (1/20) and the channels (1/4) finest.
std::vector<Region> atom_grid() {
  std::vector<Region> v;
  for (int64_t n = 0; n < 20; ++n)
    for (int64_t c = 0; c < 64; c += 16)
      for (int64_t h = 0; h < 14; h += 7)
        for (int64_t w = 0; w < 14; w += 7)
          v.push_back({{n, n + 1}, {c, c + 16}, {h, h + 7}, {w, w + 7}});
  return v;
}

std::set<uint32_t> candidates(const RegionIndex& index, const Region& q) {
  std::set<uint32_t> c;
  index.for_each_candidate(q,
                           [&](uint32_t i) { EXPECT_TRUE(c.insert(i).second) << "twice: " << i; });
  return c;
}

// Every region overlapping the query is a candidate, for the regions of an atom grid and then
// random boxes (longer than the first region's buckets on every axis, and some whole), queried by
// random boxes; and the index is selective where the regions are a grid.
TEST(RegionIndex, EveryOverlappingRegionIsACandidate) {
  const Shape shape = {20, 64, 14, 14};
  std::mt19937_64 rng(7);
  RegionIndex index(shape);
  std::vector<Region> regions = atom_grid();
  for (const Region& r : regions) index.add(r);
  int64_t tested = 0, overlapping = 0;
  for (int q = 0; q < 2000; ++q) {
    const Region query = test::random_region(shape, rng);
    const std::set<uint32_t> c = candidates(index, query);
    for (uint32_t i = 0; i < regions.size(); ++i)
      if (overlap_numel(regions[i], query) != 0) {
        ++overlapping;
        EXPECT_TRUE(c.count(i)) << "query " << q << " misses region " << i;
      }
    tested += static_cast<int64_t>(c.size());
  }
  // One sample's atom (a read of the next layer's atom): its own 1 of 320 regions, and few more.
  const std::set<uint32_t> one = candidates(index, {{3, 4}, {16, 32}, {7, 14}, {0, 7}});
  EXPECT_EQ(one.count(3 * 16 + 1 * 4 + 1 * 2 + 0), 1u);
  // Its sample's regions of two channel blocks (a region starting up to 15 channels before the
  // query's may reach it): 8; one axis alone (the batch) gave all 16 of the sample's regions.
  EXPECT_EQ(one.size(), 8u);
  EXPECT_GT(overlapping, 0);
  EXPECT_LT(tested, 2000 * static_cast<int64_t>(regions.size()));
  for (int k = 0; k < 500; ++k) {  // larger regions after the buckets were sized
    regions.push_back(test::random_region(shape, rng));
    index.add(regions.back());
  }
  regions.push_back({{-1, 2}, {0, 64}, {0, 14}, {0, 14}});  // starts outside: every query's
  index.add(regions.back());
  for (int q = 0; q < 2000; ++q) {
    const Region query = test::random_region(shape, rng);
    const std::set<uint32_t> c = candidates(index, query);
    for (uint32_t i = 0; i < regions.size(); ++i) {
      if (overlap_numel(regions[i], query) != 0) {
        EXPECT_TRUE(c.count(i)) << "query " << q << " misses region " << i;
      }
    }
  }
}

// last_candidate: the largest matching number, as a scan from the last region down finds it
// (with NoneBelow cutting a bucket's search at numbers below a bound).
TEST(RegionIndex, LastCandidateIsTheLastOverlappingRegionAScanFinds) {
  const Shape shape = {20, 64, 14, 14};
  std::mt19937_64 rng(11);
  RegionIndex index(shape);
  std::vector<Region> regions = atom_grid();
  for (int k = 0; k < 300; ++k) regions.push_back(test::random_region(shape, rng));
  for (const Region& r : regions) index.add(r);
  for (int q = 0; q < 2000; ++q) {
    const Region query = test::random_region(shape, rng);
    const uint32_t bound = static_cast<uint32_t>(q % 400);  // numbers below it never match
    int64_t scan = -1;
    for (int64_t i = static_cast<int64_t>(regions.size()) - 1; i >= bound && scan < 0; --i)
      if (overlap_numel(regions[static_cast<size_t>(i)], query) != 0) scan = i;
    const int64_t found = index.last_candidate(query, [&](uint32_t i) {
      if (i < bound) return RegionIndex::Match::NoneBelow;
      return overlap_numel(regions[i], query) != 0 ? RegionIndex::Match::Yes
                                                   : RegionIndex::Match::No;
    });
    EXPECT_EQ(found, scan) << "query " << q;
  }
}

// A tensor whose first region covers it whole gets one bucket: every region is a candidate of
// every query. On a 1-D tensor cut in tens, a query of [25, 35) gets the regions starting in
// (15, 35), bucket by bucket: those of 10, 20 and 30.
TEST(RegionIndex, AWholeFirstRegionMakesEveryRegionACandidate) {
  RegionIndex whole({4, 8});
  whole.add({{0, 4}, {0, 8}});
  whole.add({{0, 2}, {0, 8}});
  whole.add({{2, 4}, {0, 4}});
  EXPECT_EQ(candidates(whole, {{3, 4}, {7, 8}}).size(), 3u);
  RegionIndex line({100});
  for (int64_t i = 0; i < 100; i += 10) line.add({{i, i + 10}});
  EXPECT_EQ(candidates(line, {{25, 35}}), (std::set<uint32_t>{1, 2, 3}));
}

}  // namespace
}  // namespace dgs
