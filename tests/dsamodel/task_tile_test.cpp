// The DSA model's public tile search (task_estimate.h: dsa_task_tile), which schedulers tile
// tasks by without the model's internals: the model's own search on the placement's units, a
// tile that fits the budget it was given, and a placement the machine lacks refused; and the
// estimate's loads in bytes.
#include <gtest/gtest.h>

#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/task_estimate.h"
#include "common/util/error.h"

namespace dgs {
namespace {

// A [m, c] x B [c, n] -> y, as one task on engine [0, 0] of a one-engine atomic_mesh.
struct TileCase {
  DsaSpec spec;
  Graph g;
  Task t;
};

TileCase tile_case(int64_t m, int64_t c, int64_t n, UnitKind unit = UnitKind::Engine) {
  TileCase k;
  const DsaSpec mesh = load_dsa_spec("atomic_mesh");
  k.spec = dsa_with_mesh(mesh, 1, 1, mesh.matrix_tile_rows, mesh.matrix_tile_columns);
  k.g.name = "gemm";
  const int a = k.g.add_input("A", {m, c});
  const int b = k.g.add_weight("B", {c, n});
  const int op = k.g.add_op(OpKind::MatMul, "mm", {a, b}, {}, 1, {"y"});
  k.g.mark_output(k.g.op(op).outputs[0]);
  k.t.kind = TaskKind::Fused;
  k.t.ops = {op};
  k.t.placement.unit = unit;
  k.t.placement.index = {0, 0};
  return k;
}

// 1024 x 512 x 512 does not fit 128 KiB whole: the public search gives the model's own tile for
// unit 0, and that tile, mapped within the budget (Task::buffer_bytes, as task_estimate.h says
// to run it), fits it. Mapped within the whole buffer, the same tile may take more of it.
TEST(DsaTaskTile, IsTheModelsSearchOnThePlacementsUnitsAndFits) {
  TileCase k = tile_case(1024, 512, 512);
  const int64_t budget = k.spec.local_bytes / 2;
  const std::vector<int64_t> tile = dsa_task_tile(k.g, k.t, k.spec, budget);
  ASSERT_EQ(tile.size(), 2u);
  EXPECT_EQ(tile, dsa_fitting_tile(k.g, k.t, k.spec, {0}, budget));
  EXPECT_LT(tile[0] * tile[1], 1024 * 512);
  k.t.tile = tile;
  k.t.buffer_bytes = budget;
  EXPECT_LE(dsa_task_estimate(k.g, k.t, k.spec).working_set_bytes, budget);
  k.t.buffer_bytes = 0;
  EXPECT_LE(dsa_task_estimate(k.g, k.t, k.spec).working_set_bytes, k.spec.local_bytes);
}

// The same GEMM in tiles of 4 x 64 (256 row tiles, loop 0, selecting A; 8 column tiles, loop 1,
// selecting B), 1-byte elements: B's tile (512 x 64 = 32768) stays while the row tiles run
// inside ("0>1"), loaded once; A's (4 x 512 = 2048) is loaded again per column tile (8 times).
// Double-buffered: 2 x 2048 + 2 x 32768 + 2 x 256 (the output tile) = 70144, over half the
// buffer; within 65536 the mapper single-buffers B's tile and the output's (4096 + 32768 + 256 =
// 37120; with A's too the working set is smaller but its 8 sweeps become serial): serial, B's
// loads after its first tile (262144 - 32768) and the stores but the last tile's (524288 - 256):
// 753408 bytes. The one engine has the mesh's whole DRAM (256 B/cycle), so the port (8 B/cycle)
// is the narrowest and the bound: the serial bytes leave the port's bound and come back at its
// rate, and the cycles are those of the double-buffered mapping.
TEST(DsaTaskTile, ASingleBufferedTileOnAPortBoundMappingCostsNoCycles) {
  TileCase k = tile_case(1024, 512, 512);
  ASSERT_EQ(k.spec.local_bandwidth(), 8);
  k.t.tile = {4, 64};
  k.t.buffer_bytes = k.spec.local_bytes / 2;
  const DsaTaskDemand half = dsa_task_demand(k.g, k.t, k.spec, {0});
  EXPECT_EQ(half.loop_order, "0>1");
  EXPECT_EQ(half.reload, (std::vector<double>{8, 1}));
  EXPECT_EQ(half.working_set_bytes, 37120);
  EXPECT_EQ(half.held, (std::vector<double>{4096, 32768}));
  EXPECT_DOUBLE_EQ(half.serial_bytes, 753408);
  EXPECT_DOUBLE_EQ(half.stall_cycles, 753408 / 8);
  k.t.buffer_bytes = 0;
  const DsaTaskDemand whole = dsa_task_demand(k.g, k.t, k.spec, {0});
  EXPECT_EQ(whole.loop_order, "0>1");
  EXPECT_EQ(whole.working_set_bytes, 70144);
  EXPECT_DOUBLE_EQ(whole.serial_bytes, 0);
  EXPECT_DOUBLE_EQ(whole.nest_cycles, half.nest_cycles);
  EXPECT_DOUBLE_EQ(whole.nest_energy_pj, half.nest_energy_pj);
}

// loaded_bytes: each input's needed elements x touched share x reloads, in bytes.
TEST(DsaTaskTile, TheEstimatesLoadsInBytesAreItsElementsTimesTheElementSize) {
  TileCase k = tile_case(512, 256, 256);
  k.t.tile = {64, 64};
  const DsaTaskEstimate e = dsa_task_estimate(k.g, k.t, k.spec);
  EXPECT_GE(e.loaded_elements, 512 * 256 + 256 * 256);
  EXPECT_DOUBLE_EQ(e.loaded_bytes, e.loaded_elements * k.spec.element_bytes);
}

// A 3x3 conv of padding 1 (x [1, 4, 16, 8] -> y [1, 4, 16, 8], 1-byte elements) in tiles of 4
// output rows (4 tiles along the rows, loop 2, selecting x and y): the origin tile reads input
// rows 0..4 (its halo clipped by the padding: 5 rows, 4 x 5 x 8 = 160 bytes), the interior ones
// rows r-1..r+4 (6 rows, 192 bytes). The buffers hold the largest tile: x 2 x 192, w 144 (4 x 4 x
// 3 x 3, selected by no loop: loaded once, one buffer), y 2 x 128 (4 x 4 x 8): 784 bytes (720
// with the origin's 160). Every
// tile is loaded at that size: 4 x 192 = 768 bytes of x's 512, 1.5 times (the tiles' exact rows,
// 5 + 6 + 6 + 5 = 22, would be 704 bytes, 1.375 times; the origin's, 1.25).
TEST(DsaTaskTile, APaddedConvsTilesAreSizedByTheInteriorTilesHalo) {
  const DsaSpec mesh = load_dsa_spec("atomic_mesh");
  const DsaSpec spec = dsa_with_mesh(mesh, 1, 1, mesh.matrix_tile_rows, mesh.matrix_tile_columns);
  ASSERT_EQ(spec.element_bytes, 1);
  Graph g;
  g.name = "padded";
  const int x = g.add_input("x", {1, 4, 16, 8});
  const int w = g.add_weight("w", {4, 4, 3, 3});
  const int op = g.add_op(OpKind::Conv, "c", {x, w},
                          Attributes({{"strides", std::vector<int64_t>{1, 1}},
                                      {"pads", std::vector<int64_t>{1, 1, 1, 1}}}),
                          1, {"y"});
  g.mark_output(g.op(op).outputs[0]);
  ASSERT_EQ(g.tensor(g.op(op).outputs[0]).shape, (Shape{1, 4, 16, 8}));
  Task t;
  t.kind = TaskKind::Fused;
  t.ops = {op};
  t.placement.unit = UnitKind::Engine;
  t.placement.index = {0, 0};
  t.tile = {1, 4, 4, 8};
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, {0});
  ASSERT_EQ(d.inputs, (std::vector<int>{x, w}));
  EXPECT_EQ(d.tiles, 4);
  EXPECT_EQ(d.working_set_bytes, 2 * 192 + 144 + 2 * 128);
  EXPECT_EQ(d.held, (std::vector<double>{2 * 192, 144}));
  EXPECT_EQ(d.reload, (std::vector<double>{768.0 / 512, 1}));
  EXPECT_DOUBLE_EQ(dsa_task_estimate(g, t, spec).loaded_bytes, 768 + 144);
  // In tiles of 8 rows (2 trips) both tiles read 9 rows (0..8 and 7..15): 288 bytes, twice.
  t.tile = {1, 4, 8, 8};
  const DsaTaskDemand two = dsa_task_demand(g, t, spec, {0});
  EXPECT_EQ(two.tiles, 2);
  EXPECT_EQ(two.reload, (std::vector<double>{576.0 / 512, 1}));
  EXPECT_EQ(two.working_set_bytes, 2 * 288 + 144 + 2 * 256);
}

TEST(DsaTaskTile, APlacementTheMachineLacksIsRefused) {
  const TileCase k = tile_case(64, 64, 64, UnitKind::Core);
  EXPECT_THROW(dsa_task_tile(k.g, k.t, k.spec, k.spec.local_bytes), Error);
}

}  // namespace
}  // namespace dgs
