// The tile search's shortcuts (dsa_tile_search.cpp, dsa_task.cpp, buffer_nest.cpp) against the
// direct computations they replace: its candidate tiles listed by number and sorted by their
// numbers (TileCandidates) against every combination of the halvings built and stably sorted
// as extents; a one-op task's regions per tile without the map of accesses (one_op_regions)
// against the task's needed regions (needed_regions, through the same tile_problem with the
// one-op path off), on every ResNet-50 matrix layer's first candidate tiles; and the buffer
// nest's mapper, whose scratch is kept per thread, against a fresh thread's.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "common/dsamodel/buffer_nest.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/dsa_task_internal.h"
#include "common/dsamodel/layer_split_plan.h"
#include "common/dsamodel/unit_cost.h"
#include "common/graph/iteration_space.h"
#include "models/zoo.h"

namespace dgs {
namespace {

using namespace dsa_task_internal;

// The candidates as the search listed them before: every combination (the first axis's halvings
// outermost), stably sorted by volume, the whole part put first.
std::vector<std::vector<int64_t>> direct_candidates(const std::vector<int64_t>& whole) {
  std::vector<std::vector<int64_t>> cands(1);
  for (int64_t e : whole) {
    std::vector<int64_t> halvings;
    for (int64_t x = std::max<int64_t>(1, e);; x = (x + 1) / 2) {
      halvings.push_back(x);
      if (x == 1) break;
    }
    std::vector<std::vector<int64_t>> next;
    for (const std::vector<int64_t>& c : cands)
      for (int64_t x : halvings) {
        next.push_back(c);
        next.back().push_back(x);
      }
    cands = std::move(next);
  }
  auto volume = [](const std::vector<int64_t>& c) {
    double v = 1;
    for (int64_t x : c) v *= static_cast<double>(x);
    return v;
  };
  std::stable_sort(cands.begin(), cands.end(),
                   [&](const auto& x, const auto& y) { return volume(x) < volume(y); });
  cands.insert(cands.begin(), whole);
  return cands;
}

// Parts of a batch-20 ResNet-50's layers (ties in volume: 20 x 64 x 56 x 56 has many), a GEMM's,
// odd extents (halvings rounded up: 7, 4, 2, 1), one axis and none.
TEST(TileSearchShortcuts, CandidatesAreEveryHalvingCombinationInTheDirectOrder) {
  for (const std::vector<int64_t>& whole : std::vector<std::vector<int64_t>>{{20, 64, 56, 56},
                                                                             {20, 2048, 7, 7},
                                                                             {1, 256, 28, 28},
                                                                             {1024, 512},
                                                                             {3, 5, 7},
                                                                             {13},
                                                                             {}}) {
    const std::vector<std::vector<int64_t>> direct = direct_candidates(whole);
    const std::vector<std::vector<int64_t>> listed = tile_candidates(whole);
    EXPECT_EQ(listed, direct) << whole.size() << " axes";
  }
  // A hand-checked case: {2, 3}: halvings {2, 1} and {3, 2, 1}; combinations (2,3) (2,2) (2,1)
  // (1,3) (1,2) (1,1) of volumes 6 4 2 3 2 1; by volume, ties in that order.
  const std::vector<std::vector<int64_t>> two_three = {{2, 3}, {1, 1}, {2, 1}, {1, 2},
                                                       {1, 3}, {2, 2}, {2, 3}};
  EXPECT_EQ(tile_candidates({2, 3}), two_three);
}

// Every field of the buffer level's problem that the regions decide.
void expect_same_problem(const TileProblem& a, const TileProblem& b, const std::string& where) {
  ASSERT_EQ(a.nest, b.nest) << where;
  EXPECT_EQ(a.tiles, b.tiles) << where;
  EXPECT_EQ(a.prob.trips, b.prob.trips) << where;
  ASSERT_EQ(a.prob.inputs.size(), b.prob.inputs.size()) << where;
  for (size_t i = 0; i < a.prob.inputs.size(); ++i) {
    EXPECT_EQ(a.prob.inputs[i].needed, b.prob.inputs[i].needed) << where << " input " << i;
    EXPECT_EQ(a.prob.inputs[i].tile, b.prob.inputs[i].tile) << where << " input " << i;
    EXPECT_EQ(a.prob.inputs[i].relevant, b.prob.inputs[i].relevant) << where << " input " << i;
    EXPECT_EQ(a.prob.inputs[i].reduced, b.prob.inputs[i].reduced) << where << " input " << i;
  }
  EXPECT_EQ(a.prob.out_tile, b.prob.out_tile) << where;
  EXPECT_EQ(a.prob.out_bytes, b.prob.out_bytes) << where;
  EXPECT_EQ(a.prob.kept_tile, b.prob.kept_tile) << where;
  EXPECT_EQ(a.prob.reduction, b.prob.reduction) << where;
  EXPECT_EQ(a.prob.array.steps, b.prob.array.steps) << where;
  EXPECT_EQ(a.prob.array.energy_pj, b.prob.array.energy_pj) << where;
  EXPECT_EQ(a.prob.array_held.size(), b.prob.array_held.size()) << where;
  EXPECT_EQ(a.loop_names, b.loop_names) << where;
}

// ResNet-50 at batch 2 on one engine of atomic_mesh: per matrix layer (its conv1's padding
// clips its tiles' halos, the 3x3 convs' too, the strided ones read every other row), the first
// 24 candidate tiles of its whole part, each at the origin and, through largest_tile_regions,
// one step inside: the one-op path's regions (one_op_regions) give the same problem as the
// task's needed regions.
TEST(TileSearchShortcuts, OneOpRegionsAreTheTasksNeededRegionsOnEveryResNet50Layer) {
  const Graph g = build_zoo_model("resnet50", {.batch = 2});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const IterationSpaceMemo spaces(g);
  const std::vector<int> units = {0};
  int layers = 0;
  for (int op = 0; op < g.num_ops(); ++op) {
    if (compute_unit_of(g, op) != ComputeUnit::Matrix) continue;
    Task t;
    t.kind = TaskKind::Fused;
    t.ops = {op};
    t.placement = dsa_unit_placement(spec, 0);
    std::set<int> produced;
    DsaTaskDemand regions = task_regions(g, t, produced);
    const UntiledDemand u =
        untiled_demand(g, t, spec, units, std::move(regions), std::move(produced), true);
    ASSERT_TRUE(u.one_op) << g.op(op).name;
    UntiledDemand direct = u;
    direct.one_op = false;
    const std::vector<std::vector<int64_t>> cands =
        tile_candidates(region_shape(unit_part(u.primary_region, u.split, 1)));
    for (size_t c = 0; c < cands.size() && c < 24; ++c) {
      t.tile = cands[c];
      const TileProblem fast = tile_problem(g, t, spec, u);
      const TileProblem slow = tile_problem(g, t, spec, direct);
      expect_same_problem(fast, slow, g.op(op).name + " candidate " + std::to_string(c));
    }
    ++layers;
  }
  EXPECT_EQ(layers, 54);  // 53 convolutions and the classifier's Gemm
}

// A problem of three inputs and four loops mapped first, then one of one input and one loop: the
// second's mapping on a thread whose scratch held the first equals a fresh thread's.
TEST(TileSearchShortcuts, TheMappersKeptScratchLeavesNoTrace) {
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  NestProblem big;
  big.trips = {2, 3, 4, 2};
  for (uint32_t i = 0; i < 3; ++i) {
    NestInput x;
    x.needed = 40000 * (i + 1);
    x.tile = 5000 * (i + 1);
    x.relevant = (1u << i) | 8u;
    x.reduced = i < 2;
    big.inputs.push_back(x);
  }
  big.out_tile = 4096;
  big.out_bytes = 4096 * 48;
  big.reduction = 512;
  NestProblem small;
  small.trips = {4};
  NestInput x;
  x.needed = 65536;
  x.tile = 16384;
  x.relevant = 1;
  small.inputs.push_back(x);
  small.out_tile = 2048;
  small.out_bytes = 8192;
  for (double capacity : {1e9, 30000.0, 20000.0}) {
    NestMapping fresh, after;
    std::thread([&] { fresh = map_buffer_nest(small, spec, capacity); }).join();
    std::thread([&] {
      map_buffer_nest(big, spec, 12000);  // over the capacity: single-buffered operands
      after = map_buffer_nest(small, spec, capacity);
    }).join();
    EXPECT_EQ(after.order, fresh.order) << capacity;
    EXPECT_EQ(after.loaded, fresh.loaded) << capacity;
    EXPECT_EQ(after.once, fresh.once) << capacity;
    EXPECT_EQ(after.held, fresh.held) << capacity;
    EXPECT_EQ(after.single, fresh.single) << capacity;
    EXPECT_EQ(after.single_output, fresh.single_output) << capacity;
    EXPECT_EQ(after.working_set, fresh.working_set) << capacity;
    EXPECT_EQ(after.cycles, fresh.cycles) << capacity;
    EXPECT_EQ(after.energy_pj, fresh.energy_pj) << capacity;
    EXPECT_EQ(after.serial_bytes, fresh.serial_bytes) << capacity;
  }
}

}  // namespace
}  // namespace dgs
