// The DSA model's public task estimate (task_estimate.h), which schedulers size tasks by: the
// same working set and cycles as the model's own demand, the loads hand-counted, and a placement
// the machine lacks refused; on the ladder test's engine and GEMM (ladder_fixture.h).
#include <gtest/gtest.h>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/task_estimate.h"
#include "common/util/error.h"
#include "tests/dsamodel/ladder_fixture.h"

namespace dgs {
namespace {

// 256 x 256 x 128 fits the buffer untiled: A and B are loaded once (65536 + 32768 elements), the
// working set is the whole 128 KiB, and the cycles are the demand's.
TEST(DsaTaskEstimate, AGemmThatFitsLoadsEachInputOnce) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(256, 256, 128);
  const Task t = ladder_task();
  const DsaTaskEstimate e = dsa_task_estimate(g, t, spec);
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, {0});
  EXPECT_EQ(e.working_set_bytes, 131072);
  EXPECT_EQ(e.working_set_bytes, d.working_set_bytes);
  EXPECT_DOUBLE_EQ(e.compute_cycles, d.compute_cycles());
  EXPECT_GT(e.compute_cycles, 32768);  // the array's steps at least
  EXPECT_DOUBLE_EQ(e.loaded_elements, 65536 + 32768);
}

// Tiled, the working set shrinks and what the loop nest loads again shows in the loads.
TEST(DsaTaskEstimate, TilingShrinksTheWorkingSetAndCanOnlyAddLoads) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(512, 256, 256);
  const DsaTaskEstimate whole = dsa_task_estimate(g, ladder_task(), spec);
  const DsaTaskEstimate tiled = dsa_task_estimate(g, ladder_task({64, 64}), spec);
  EXPECT_LT(tiled.working_set_bytes, whole.working_set_bytes);
  EXPECT_GE(tiled.loaded_elements, whole.loaded_elements);
  EXPECT_GE(whole.loaded_elements, 512 * 256 + 256 * 256);
}

TEST(DsaTaskEstimate, APlacementTheMachineLacksIsRefused) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(64, 64, 64);
  EXPECT_THROW(dsa_task_estimate(g, ladder_task({}, UnitKind::Core), spec), Error);
}

// A task is mapped within the capacity its plan gives it (Task::buffer_bytes,
// dsa_task_capacity). A [64, 2048] x B [2048, 128] in output tiles of 64 x 32 (4 tiles along
// B's columns, one loop "1" that selects B only), 1-byte elements, 4-byte partial sums, the port
// 8 bytes a cycle, DRAM 4. Each reduction chunk boundary sends every partial sum of the array
// through the port and back (array_nest.h: 64 x 128 x 4 x 2 = 65536 bytes a boundary), so fewer
// chunks are cheaper wherever the loads are the same.
//  - the whole buffer (131072): the reduction outermost ("1>R", A loaded once) in 4 chunks: A's
//    chunk (32768, twice), B's tile chunk (65536 / 4 = 16384, twice), the partial sums of all 4
//    output tiles (4 x 2048 x 4 = 32768) and the store of one output tile (2048): 133120, over;
//    the output tile single-buffered (buffer_nest.h) fits: 131072, its stores but the last tile's
//    serial (8192 - 2048 = 6144 bytes at 4 a cycle: 1536 cycles stall). In 8 chunks all
//    double-buffered (83968) the 4 more boundaries cost 262144 port bytes (32768 cycles) against
//    the 1536. A and B loaded once (131072 + 262144).
//  - 40000 bytes: "1>R" needs in 32 chunks A 4096 x 2 + B 2048 x 2 + 32768 + 2048 = 47104 and
//    fits only with A, B and the output all single-buffered: 4096 + 2048 + 32768 = 38912 (16
//    chunks: 8192 + 4096 + 32768 = 45056 at least, over); serial: A's loads but the first
//    (131072 - 4096), B's (262144 - 2048) and the stores (6144): 393216 bytes, 98304 cycles. The
//    reduction innermost ("R>1", 16 chunks, below) fits double-buffered but loads A once per
//    output tile: 393216 bytes more at DRAM, energy 60.6 against 40.6 uJ, which outweighs the
//    stall by energy x cycles. A and B still loaded once.
//  - 34816 bytes: "1>R" needs 35840 at least (64 chunks, all single: 2048 + 1024 + 32768), so the
//    reduction runs innermost ("R>1") in 16 chunks: A's chunk (8192, twice), B's (4096, twice),
//    one tile's partial sums (8192) and its store (2048): 34816 bytes, A loaded again for each of
//    the 4 output tiles (524288 bytes).
TEST(DsaTaskEstimate, ATaskIsMappedWithinTheBufferBytesItsPlanGivesIt) {
  const DsaSpec spec = ladder_engine();
  ASSERT_EQ(spec.local_bytes, 131072);
  ASSERT_EQ(spec.element_bytes, 1);
  ASSERT_EQ(spec.partial_sum_bytes, 4);
  ASSERT_EQ(spec.local_bandwidth(), 8);
  const Graph g = ladder_gemm(64, 2048, 128);
  Task t = ladder_task({64, 32});
  EXPECT_EQ(dsa_task_capacity(t, spec), 131072);
  const DsaTaskDemand whole = dsa_task_demand(g, t, spec, {0});
  EXPECT_EQ(whole.loop_order, "1>R");
  EXPECT_EQ(whole.tiles, 4 * 4);
  EXPECT_EQ(whole.working_set_bytes, 131072);
  EXPECT_EQ(whole.held, (std::vector<double>{65536, 32768}));
  EXPECT_EQ(whole.reload, (std::vector<double>{1, 1}));
  EXPECT_DOUBLE_EQ(whole.serial_bytes, 6144);
  EXPECT_DOUBLE_EQ(whole.stall_cycles, 1536);
  EXPECT_DOUBLE_EQ(dsa_task_estimate(g, t, spec).loaded_bytes, 131072 + 262144);
  t.buffer_bytes = 1 << 20;  // more than the buffer: the whole buffer
  EXPECT_EQ(dsa_task_capacity(t, spec), 131072);
  EXPECT_EQ(dsa_task_demand(g, t, spec, {0}).tiles, 4 * 4);
  t.buffer_bytes = 40000;
  EXPECT_EQ(dsa_task_capacity(t, spec), 40000);
  const DsaTaskDemand part = dsa_task_demand(g, t, spec, {0});
  EXPECT_EQ(part.loop_order, "1>R");
  EXPECT_EQ(part.tiles, 4 * 32);
  EXPECT_EQ(part.working_set_bytes, 38912);
  EXPECT_EQ(part.held, (std::vector<double>{4096, 2048}));
  EXPECT_EQ(part.reload, (std::vector<double>{1, 1}));
  EXPECT_DOUBLE_EQ(part.serial_bytes, 393216);
  EXPECT_DOUBLE_EQ(part.stall_cycles, 98304);
  EXPECT_DOUBLE_EQ(dsa_task_estimate(g, t, spec).loaded_bytes, 131072 + 262144);
  t.buffer_bytes = 34816;
  const DsaTaskDemand inner = dsa_task_demand(g, t, spec, {0});
  EXPECT_EQ(inner.loop_order, "R>1");
  EXPECT_EQ(inner.tiles, 4 * 16);
  EXPECT_EQ(inner.working_set_bytes, 34816);
  EXPECT_EQ(inner.held, (std::vector<double>{16384, 8192}));
  EXPECT_EQ(inner.reload, (std::vector<double>{4, 1}));
  EXPECT_DOUBLE_EQ(inner.serial_bytes, 0);
  const DsaTaskEstimate e = dsa_task_estimate(g, t, spec);
  EXPECT_EQ(e.working_set_bytes, 34816);
  EXPECT_DOUBLE_EQ(e.loaded_bytes, 4 * 131072 + 262144);
  // The demand cache keys the capacity: the same task at the whole buffer is mapped again.
  DsaDemandCache cache;
  EXPECT_EQ(dsa_task_demand(g, t, spec, {0}, &cache).loop_order, "R>1");
  t.buffer_bytes = 0;
  EXPECT_EQ(dsa_task_demand(g, t, spec, {0}, &cache).loop_order, "1>R");
}

// Every field of two demands, the position-dependent ones (units, regions) included.
void expect_same_demand(const DsaTaskDemand& a, const DsaTaskDemand& b) {
  EXPECT_EQ(a.units, b.units);
  EXPECT_EQ(a.needed, b.needed);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.written, b.written);
  EXPECT_EQ(a.kept, b.kept);
  EXPECT_EQ(a.reload, b.reload);
  EXPECT_EQ(a.stays, b.stays);
  EXPECT_EQ(a.held, b.held);
  EXPECT_EQ(a.density, b.density);
  EXPECT_EQ(a.tiles, b.tiles);
  EXPECT_EQ(a.matrix_cycles, b.matrix_cycles);
  EXPECT_EQ(a.fill_cycles, b.fill_cycles);
  EXPECT_EQ(a.vector_cycles, b.vector_cycles);
  EXPECT_EQ(a.move_cycles, b.move_cycles);
  EXPECT_EQ(a.macs, b.macs);
  EXPECT_EQ(a.operand_bytes, b.operand_bytes);
  EXPECT_EQ(a.register_bits, b.register_bits);
  EXPECT_EQ(a.working_set_bytes, b.working_set_bytes);
  EXPECT_EQ(a.last_tile_bytes, b.last_tile_bytes);
  EXPECT_EQ(a.serial_bytes, b.serial_bytes);
  EXPECT_EQ(a.stall_cycles, b.stall_cycles);
  EXPECT_EQ(a.loop_order, b.loop_order);
  EXPECT_EQ(a.array_mapping, b.array_mapping);
  EXPECT_EQ(a.nest_cycles, b.nest_cycles);
  EXPECT_EQ(a.nest_energy_pj, b.nest_energy_pj);
}

// The demand cache (DsaDemandCache): a task of the same shape elsewhere (rows 128-191 of y after
// rows 64-127, neither at an edge) takes the first one's entry and equals its demand computed
// without the cache, its own rows of A included; a task at the edge (rows 0-63) or with another
// tile is computed again. One cache serves every lookup (its key built in place each time).
TEST(DsaTaskEstimate, ACachedDemandEqualsAFreshOneAndAnotherShapeMisses) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(256, 512, 256);
  const int y = g.op(0).outputs[0];
  auto rows = [&](int64_t lo, std::vector<int64_t> tile) {
    Task t = ladder_task(std::move(tile));
    t.regions[y] = Region{{lo, lo + 64}, {0, 256}};
    return t;
  };
  DsaDemandCache cache;
  const Task first = rows(64, {32, 64});
  expect_same_demand(dsa_task_demand(g, first, spec, {0}, &cache),
                     dsa_task_demand(g, first, spec, {0}));
  ASSERT_EQ(cache.entries.size(), 1u);
  const Task second = rows(128, {32, 64});
  const DsaTaskDemand hit = dsa_task_demand(g, second, spec, {0}, &cache);
  EXPECT_EQ(cache.entries.size(), 1u);
  expect_same_demand(hit, dsa_task_demand(g, second, spec, {0}));
  EXPECT_EQ(hit.needed.at(0), (Region{{128, 192}, {0, 512}}));
  EXPECT_GT(hit.tiles, 1);
  const Task edge = rows(0, {32, 64});
  expect_same_demand(dsa_task_demand(g, edge, spec, {0}, &cache),
                     dsa_task_demand(g, edge, spec, {0}));
  EXPECT_EQ(cache.entries.size(), 2u);
  const Task other_tile = rows(128, {64, 64});
  const DsaTaskDemand miss = dsa_task_demand(g, other_tile, spec, {0}, &cache);
  EXPECT_EQ(cache.entries.size(), 3u);
  expect_same_demand(miss, dsa_task_demand(g, other_tile, spec, {0}));
  EXPECT_NE(miss.tiles, hit.tiles);
}

}  // namespace
}  // namespace dgs
