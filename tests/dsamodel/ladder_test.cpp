// A ladder of simple cases of the DSA model with hand-computed answers, each a GEMM A [M, C] x
// B [C, N] -> y on one engine of atomic_mesh (16 x 16 int8 PEs, 224 weight, 12 input and 24
// partial-sum registers, 128 KiB SRAM behind a 64-bit port, 500 MHz) with its 4 B/cycle share of
// the HBM (50 cycles latency): one that fits the buffer, one that must tile, one bound by the
// port, one bound by DRAM. Transfers stream at the narrowest bandwidth of their path (here the
// DRAM share); an untiled task loads, computes, then stores.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/dsamodel/array_nest.h"
#include "common/dsamodel/buffer_nest.h"
#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/layer_split_plan.h"
#include "tests/dsamodel/ladder_fixture.h"

namespace dgs {
namespace {

EvaluationResult run(const Graph& g, const Task& t, const DsaSpec& spec) {
  Plan p;
  p.scheduler = "ladder";
  p.stages.push_back(Stage{{t}});
  return evaluate_dsa_plan(g, p, spec);
}

double cycles(const EvaluationResult& r, const DsaSpec& spec) {
  return r.latency_us * spec.clock_mhz;
}

// 256 x 256 x 128: A 64 KiB, B 32 KiB, y 32 KiB fill the 128 KiB buffer exactly, untiled.
// The array: 256 rows x 8 output-column folds x 16 reduction folds = 32768 steps, + 30 fill and
// drain. Its port carries each operand at least once (131072 bytes) and, in the order 2 rows, 8
// column folds, 16 reduction folds, rows (2 x 8 partial sums of 24 stay through the reduction,
// the 128 folds' weights in the 224 registers, an input through the 8 column folds) no more:
// 16384 cycles, under the steps, so the mapper's choice (energy x cycles) is compute-bound too.
// Load A and B (98304 bytes at 4 B/cycle, + 50): 24626; compute 32798; store y (32768 bytes,
// + 50): 8242. Total 65666.
TEST(DsaLadder, AGemmThatFits) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(256, 256, 128);
  const DsaTaskDemand d = dsa_task_demand(g, ladder_task(), spec, {0});
  EXPECT_EQ(d.working_set_bytes, 131072);
  EXPECT_EQ(d.matrix_cycles, 32768 + 30);
  EXPECT_GE(d.operand_bytes, 65536 + 32768 + 32768);
  EXPECT_LE(d.operand_bytes, 32768 * 8);
  const EvaluationResult r = run(g, ladder_task(), spec);
  EXPECT_DOUBLE_EQ(cycles(r, spec), 24626 + 32798 + 8242);
  EXPECT_DOUBLE_EQ(value_of(r.busy_us_by_unit, "engine") * spec.clock_mhz, 32798);
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "hbm"), 65536 + 32768 + 32768);
  // One byte less of buffer and the task is refused.
  EXPECT_THROW(run(g, ladder_task(), dsa_with_local_bytes(spec, 131071)), Error);
}

// 1024 x 256 x 128 (A 256 KiB) in tiles of 128 rows: one loop, over the rows, that selects A's
// and y's tiles, not B's: B (32 KiB) stays for the whole task in one buffer, A's tiles (32 KiB)
// and y's (16 KiB) are double-buffered: 32768 + 2 x 32768 + 2 x 16384 = 131072 bytes. Every
// operand is loaded once (DRAM: 262144 + 32768 in, 131072 out). The array: 1024 x 8 x 16 =
// 131072 steps, + 30. The port carries the operands (the mapper's operand_bytes) and, while the
// 8 tiles run, the loads and stores (425984): compute = the longer of the steps and that, + 30.
// Loads: 294912 bytes at 4 B/cycle + 50 = 73778; compute starts after the first tile's (73778 /
// 8 = 9222.25); y (131072 bytes, 32818 cycles with the latency) streams out from the first tile
// on, and its last tile's eighth (4102.25) ends the task.
TEST(DsaLadder, AGemmThatMustTile) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(1024, 256, 128);
  EXPECT_THROW(run(g, ladder_task(), spec), Error);  // untiled: 425984 bytes
  const DsaTaskDemand d = dsa_task_demand(g, ladder_task({128, 128}), spec, {0});
  EXPECT_EQ(d.tiles, 8);
  EXPECT_EQ(d.working_set_bytes, 131072);
  EXPECT_EQ(d.reload, (std::vector<double>{1, 1}));  // A and B loaded once
  EXPECT_EQ(d.stays, (std::vector<bool>{false, true}));
  EXPECT_GE(d.operand_bytes, 262144 + 32768 + 131072);  // each operand at least once
  const double compute = std::max(131072.0, (d.operand_bytes + 425984) / 8) + 30;
  const EvaluationResult r = run(g, ladder_task({128, 128}), spec);
  EXPECT_DOUBLE_EQ(cycles(r, spec), 9222.25 + compute + 4102.25);
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "hbm"), 262144 + 32768 + 131072);
  EXPECT_DOUBLE_EQ(value_of(r.details, "peak_sram_bytes"), 131072);
  // The model's own tile search (dsa_fitting_tile) finds a tile that fits.
  const std::vector<int64_t> fit = dsa_fitting_tile(g, ladder_task(), spec, {0}, spec.local_bytes);
  EXPECT_LE(dsa_task_demand(g, ladder_task(fit), spec, {0}).working_set_bytes, spec.local_bytes);
}

// 1024 x 16 x 16: one fold of 1024 rows (1024 steps + 30), but every row brings 16 input bytes
// and takes 16 output bytes through the 8 B/cycle port: A 16384 + B 256 + y 16384 = 33024
// bytes = 4128 cycles, + 30: the port, not the array, sets the compute (4158). Load 16640 bytes
// (4160 + 50), compute 4158, store 16384 (4096 + 50): 12514.
TEST(DsaLadder, AGemmBoundByThePort) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(1024, 16, 16);
  const DsaTaskDemand d = dsa_task_demand(g, ladder_task(), spec, {0});
  EXPECT_EQ(d.matrix_cycles, 1024 + 30);
  EXPECT_EQ(d.operand_bytes, 33024);
  const EvaluationResult r = run(g, ladder_task(), spec);
  EXPECT_DOUBLE_EQ(value_of(r.busy_us_by_unit, "matrix") * spec.clock_mhz, 1054);
  EXPECT_DOUBLE_EQ(value_of(r.busy_us_by_unit, "engine") * spec.clock_mhz, 4158);
  EXPECT_DOUBLE_EQ(cycles(r, spec), 4210 + 4158 + 4146);
}

// 64 x 512 x 256 in tiles of 32 output columns on an engine with 1 B/cycle of DRAM: the loop
// over the column tiles does not select A (32 KiB). Kept whole beside B's double-buffered tiles
// (16 KiB) and y's (2 KiB), 69632 bytes, the first tile's loads (50 KiB) come before any
// compute; the mapper instead runs the reduction outermost in 4 chunks ("1>R"), each chunk of A
// (8 KiB, double-buffered) loaded once beside B's chunk tiles (4 KiB, twice), the partial sums
// of all 8 output tiles (8 x 2048 x 4) and one y tile: 92160 bytes, the first loads 14 KiB.
// Either way every operand crosses DRAM once: 32768 + 131072 in,
// 16384 out = 180224 bytes = 180224 cycles at 1 B/cycle, far above the compute (the port's
// 106526 cycles). Loads end at 163840 + 50; y waits for the DRAM channel until the loads have
// passed (163840) and ends at 163840 + 50 + 16384 = 180274, which ends the task.
TEST(DsaLadder, AGemmBoundByDram) {
  const DsaSpec spec = ladder_engine(1);
  const Graph g = ladder_gemm(64, 512, 256);
  const DsaTaskDemand d = dsa_task_demand(g, ladder_task({64, 32}), spec, {0});
  EXPECT_EQ(d.loop_order, "1>R");
  EXPECT_EQ(d.tiles, 8 * 4);
  EXPECT_EQ(d.working_set_bytes, 2 * 8192 + 2 * 4096 + 8 * 2048 * 4 + 2048);
  EXPECT_EQ(d.reload, (std::vector<double>{1, 1}));
  const EvaluationResult r = run(g, ladder_task({64, 32}), spec);
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "hbm"), 180224);
  EXPECT_DOUBLE_EQ(cycles(r, spec), 180274);
  EXPECT_LT(value_of(r.busy_us_by_unit, "engine") * spec.clock_mhz, 180224);
}

// The same GEMM (4 B/cycle of DRAM) in 60000 bytes of buffer: double-buffered, 69632 bytes do not
// fit, so B's tile is held once (buffer_nest.h): 32768 + 16384 + 2 x 2048 = 53248 bytes. (Chunking
// the reduction would fit double-buffered but load A again for each of the 8 column tiles.) B's
// loads after its first tile, 131072 - 16384 = 114688 bytes, are serial to the array: 28672 cycles
// at 4 B/cycle, added to the compute; the port carries the operands and the other 65536 bytes
// loaded or stored. Loads: 163840 bytes + 50 = 41010 cycles, the first tile's eighth before the
// compute; y's last eighth (16384 bytes + 50: 4146 / 8) after it.
TEST(DsaLadder, ATileThatDoesNotFitTwiceIsHeldOnceAndTheArrayWaitsForItsLoads) {
  const DsaSpec spec = dsa_with_local_bytes(ladder_engine(), 60000);
  const Graph g = ladder_gemm(64, 512, 256);
  const DsaTaskDemand d = dsa_task_demand(g, ladder_task({64, 32}), spec, {0});
  EXPECT_EQ(d.tiles, 8);
  EXPECT_EQ(d.loop_order, "1");
  EXPECT_EQ(d.working_set_bytes, 32768 + 16384 + 2 * 2048);
  EXPECT_EQ(d.last_tile_bytes, 32768 + 16384 + 2048);
  EXPECT_EQ(d.held, (std::vector<double>{32768, 16384}));
  EXPECT_EQ(d.reload, (std::vector<double>{1, 1}));
  EXPECT_EQ(d.stays, (std::vector<bool>{true, false}));
  EXPECT_EQ(d.serial_bytes, 114688);
  EXPECT_EQ(d.stall_cycles, 28672);
  EXPECT_EQ(d.matrix_cycles, 32768 + 30);
  const double compute = std::max(32798.0, std::ceil((d.operand_bytes + 65536) / 8) + 30) + 28672;
  const EvaluationResult r = run(g, ladder_task({64, 32}), spec);
  EXPECT_DOUBLE_EQ(value_of(r.busy_us_by_unit, "engine") * spec.clock_mhz, compute);
  EXPECT_DOUBLE_EQ(cycles(r, spec), 41010.0 / 8 + compute + 4146.0 / 8);
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "hbm"), 180224);
  EXPECT_DOUBLE_EQ(value_of(r.details, "peak_sram_bytes"), 53248);
}

// 64 x 4096 x 64 in one output tile (the whole 64 x 64 output, 4096 bytes): A and B (262144
// bytes each) do not fit the 128 KiB buffer, so the buffer nest chunks the reduction (chunks of
// at least the array's 16 rows). The partial sums (64 x 64 x 4 bytes) stay in the buffer through
// every chunk and y is written once: DRAM carries A, B and y once each (528384 bytes) whatever
// the number of chunks the mapper picks.
TEST(DsaLadder, AReductionInChunksKeepsItsPartialSums) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(64, 4096, 64);
  const DsaTaskDemand d = dsa_task_demand(g, ladder_task({64, 64}), spec, {0});
  EXPECT_GT(d.tiles, 1);  // reduction chunks
  EXPECT_EQ(d.loop_order, "R");
  EXPECT_LE(d.working_set_bytes, spec.local_bytes);
  EXPECT_EQ(d.reload, (std::vector<double>{1, 1}));
  EXPECT_DOUBLE_EQ(value_of(run(g, ladder_task({64, 64}), spec).bytes_by_level, "hbm"),
                   262144 + 262144 + 4096);
}

// Tiles narrower than a fold of the array: each buffer tile is its own array nest, its folds
// rounded up per tile (array_nest.h, tiled_array_nest). KC-P: 64 x 16 x 32 (A 64 x 16, B 16 x
// 32), one reduction fold of 16 channels, the 64 rows streamed one per step. Untiled: 2 folds of
// 16 output columns, 2 x 64 = 128 steps, + 30 fill and drain (the folds overlap: 224 weight
// registers per PE). In tiles of 8 columns each tile uses 8 of the 16 columns for a fold of its
// own: 4 tiles x 64 = 256 steps, + 30 (once: the next tile's weights are preloaded as a next
// fold's are). Tiles of 16 are whole folds: 2 x 64 = 128, as untiled. Tiles of 12 (12, 12 and
// the edge tile 8): 3 folds, 192 steps.
TEST(DsaLadder, ATileNarrowerThanAFoldUsesPartOfTheArrayKC) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(64, 16, 32);
  auto matrix = [&](std::vector<int64_t> tile) {
    return dsa_task_demand(g, ladder_task(std::move(tile)), spec, {0}).matrix_cycles;
  };
  EXPECT_EQ(dsa_task_demand(g, ladder_task(), spec, {0}).matrix_cycles, 128 + 30);
  EXPECT_EQ(matrix({64, 32}), 128 + 30);
  EXPECT_EQ(matrix({64, 16}), 128 + 30);
  EXPECT_EQ(matrix({64, 8}), 256 + 30);
  EXPECT_EQ(matrix({64, 12}), 192 + 30);
  const DsaTaskDemand d = dsa_task_demand(g, ladder_task({64, 8}), spec, {0});
  EXPECT_EQ(d.fill_cycles, 30);
  EXPECT_EQ(d.tiles, 4);
  EXPECT_DOUBLE_EQ(d.macs, 64 * 16 * 32);
}

// What a tile's registers hold whole stays there across the tiles that do not change it (the
// buffer's loop-order rule, buffer_nest.h). KC-P, 64 x 16 x 32: B (512 bytes) is 2 folds of
// weights, which the 224 registers per PE hold; untiled, the port carries each operand once:
// A 1024 + B 512 + y 2048 = 3584 bytes. In tiles of 16 rows (A's and y's tiles change, B's does
// not) B is read into the registers once, not per tile: 3584 too. In tiles of 16 columns B's
// tiles change, and A (1024 rows x channels; a row's 12 input registers hold no more) is read
// again for each: 2 x 1024 + 512 + 2048 = 4608. In 16 x 16 tiles with the rows inner, each
// column tile's weights stay through its 4 row tiles: 4608 as well.
TEST(DsaLadder, AnOperandTheRegistersHoldStaysAcrossTiles) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(64, 16, 32);
  auto operand_bytes = [&](std::vector<int64_t> tile) {
    return dsa_task_demand(g, ladder_task(std::move(tile)), spec, {0}).operand_bytes;
  };
  EXPECT_EQ(operand_bytes({64, 32}), 3584);
  EXPECT_EQ(operand_bytes({16, 32}), 3584);
  EXPECT_EQ(operand_bytes({64, 16}), 4608);
  EXPECT_EQ(operand_bytes({16, 16}), 4608);
  EXPECT_EQ(dsa_task_demand(g, ladder_task({16, 16}), spec, {0}).loop_order, "0>1");
}

// YX-P: a 1x1 convolution x [1, 16, 14, 14] -> [1, 8, 14, 14]. Untiled, the 14 x 14 output
// pixels are one fold of the 16 x 16 PEs (196 used), stepping over 8 output channels x 16 input
// channels: 128 steps, + 30 fill and drain (once: 24 partial sums per PE let the folds overlap).
// In tiles of 7 x 7 pixels each tile is a fold of its own on 49 of the 256 PEs: 4 tiles x 128 =
// 512 steps, + 30. Tiles of 4 rows x 14 columns (4, 4, 4 and the edge tile 2): 4 folds, 512.
Graph conv1x1_16_to_8() {
  Graph g;
  g.name = "conv1x1";
  const int x = g.add_input("x", {1, 16, 14, 14});
  const int w = g.add_weight("w", {8, 16, 1, 1});
  const int o = g.add_op(OpKind::Conv, "conv", {x, w},
                         {{"kernel_shape", std::vector<int64_t>{1, 1}},
                          {"strides", std::vector<int64_t>{1, 1}},
                          {"pads", std::vector<int64_t>{0, 0, 0, 0}}},
                         1, {"y"});
  g.mark_output(g.op(o).outputs[0]);
  return g;
}

TEST(DsaLadder, ATileNarrowerThanAFoldUsesPartOfTheArrayYX) {
  const DsaSpec spec = dsa_with_dataflow(ladder_engine(), DsaDataflow::YX);
  const Graph g = conv1x1_16_to_8();
  auto matrix = [&](std::vector<int64_t> tile) {
    return dsa_task_demand(g, ladder_task(std::move(tile)), spec, {0}).matrix_cycles;
  };
  EXPECT_EQ(dsa_task_demand(g, ladder_task(), spec, {0}).matrix_cycles, 128 + 30);
  EXPECT_EQ(matrix({1, 8, 14, 14}), 128 + 30);
  EXPECT_EQ(matrix({1, 8, 7, 7}), 512 + 30);
  EXPECT_EQ(matrix({1, 8, 4, 14}), 512 + 30);
  EXPECT_EQ(matrix({1, 4, 14, 14}), 128 + 30);  // output channels are steps under yx, not PEs
}

// ResNet-50's layer3.0.downsample.0: a 1x1 convolution of stride 2, x [1, 512, 28, 28] ->
// [1, 1024, 14, 14], weights [1024, 512, 1, 1]. It reads a quarter of x's pixels: 512 x 14 x 14 =
// 100352 bytes, the weights 524288 bytes, and writes 200704 bytes. The whole does not fit the
// 128 KiB buffer, but x does: in tiles of 16 output channels x 14 x 14 one loop runs, over the
// output channels, and it selects the weights' tiles and the output's, not x's (x's channel index
// does not vary with the output channel when there is one group): x stays (100352), the weights'
// tiles (16 x 512 = 8192) and the output's (16 x 196 = 3136) are double-buffered: 123008 bytes,
// and every operand crosses DRAM once: 825344 bytes. But each tile is its own array nest (one
// fold of 16 output columns): it reads all of x from the buffer into the rows' registers, 64
// times over the tiles: the port carries 64 x 100352 + 524288 + 200704 = 7147520 operand bytes.
// The tile search (dsa_fitting_tile, every combination of the axes' halvings, by energy x
// cycles) weighs that against DRAM: its tile has no larger energy x cycles than this one, and
// fewer bytes through the port.
Graph downsample() {
  Graph g;
  g.name = "layer3.0.downsample.0";
  const int x = g.add_input("x", {1, 512, 28, 28});
  const int w = g.add_weight("w", {1024, 512, 1, 1});
  const int o = g.add_op(OpKind::Conv, "conv", {x, w},
                         {{"kernel_shape", std::vector<int64_t>{1, 1}},
                          {"strides", std::vector<int64_t>{2, 2}},
                          {"pads", std::vector<int64_t>{0, 0, 0, 0}}},
                         1, {"y"});
  g.mark_output(g.op(o).outputs[0]);
  return g;
}

TEST(DsaLadder, AStridedConvolutionHoldsItsInput) {
  const DsaSpec spec = ladder_engine();
  const Graph g = downsample();
  EXPECT_THROW(run(g, ladder_task(), spec), Error);  // untiled: 825344 bytes
  const DsaTaskDemand d = dsa_task_demand(g, ladder_task({1, 16, 14, 14}), spec, {0});
  EXPECT_EQ(d.tiles, 64);
  EXPECT_EQ(d.working_set_bytes, 100352 + 2 * 8192 + 2 * 3136);
  EXPECT_EQ(d.reload, (std::vector<double>{1, 1}));  // x and w loaded once
  EXPECT_EQ(d.stays, (std::vector<bool>{true, false}));
  EXPECT_DOUBLE_EQ(value_of(run(g, ladder_task({1, 16, 14, 14}), spec).bytes_by_level, "hbm"),
                   825344);
  EXPECT_DOUBLE_EQ(d.operand_bytes, 64 * 100352 + 524288 + 200704);
  const std::vector<int64_t> fit = dsa_fitting_tile(g, ladder_task(), spec, {0}, spec.local_bytes);
  const DsaTaskDemand f = dsa_task_demand(g, ladder_task(fit), spec, {0});
  EXPECT_LE(f.working_set_bytes, spec.local_bytes);
  EXPECT_LE(f.nest_cycles * f.nest_energy_pj, d.nest_cycles * d.nest_energy_pj);
  EXPECT_LT(f.operand_bytes, d.operand_bytes);
}

// A pinned weight in a tiled task: 1024 x 256 x 128, rows 0-511 in one task, 512-1023 in a
// later one on the same engine, tiles of 64 rows x 32 columns (two loops: the rows select A's
// and y's tiles, the columns B's and y's). The first task pins B (Task::pinned): B is resident
// for its whole run (it is whole in the buffer by its end, and stays for the later task), so it
// is loaded once and counted whole (32768) beside A's tiles (16384, double-buffered, loaded once
// with the columns inside the rows) and y's (2048, double-buffered): 69632 bytes; streamed in
// column tiles it would count 2 x 8192. With 64 KiB of buffer the pinning task does not fit
// (unpinned it does: 53248 bytes at most). The later task reads B in place: its buffer need is
// its working set less what that counts for B (B is counted once, resident).
TEST(DsaLadder, APinnedWeightCountsWholeInATiledTask) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(1024, 256, 128);
  const int y = g.op(0).outputs[0], b = g.op(0).inputs[1];
  Task first = ladder_task({64, 32});
  first.regions[y] = {{0, 512}, {0, 128}};
  Task later = ladder_task({64, 32});
  later.regions[y] = {{512, 1024}, {0, 128}};
  first.pinned = {b};
  const DsaTaskDemand d = dsa_task_demand(g, first, spec, {0});
  EXPECT_EQ(d.held, (std::vector<double>{2 * 16384, 32768}));
  EXPECT_EQ(d.reload, (std::vector<double>{1, 1}));
  EXPECT_EQ(d.stays, (std::vector<bool>{false, true}));
  EXPECT_EQ(d.working_set_bytes, 2 * 16384 + 32768 + 2 * 2048);
  Task unpinned = first;
  unpinned.pinned.clear();
  EXPECT_LE(dsa_task_demand(g, unpinned, spec, {0}).working_set_bytes, 53248);

  Plan p;
  p.scheduler = "ladder";
  p.stages = {Stage{{first}}, Stage{{later}}};
  p.options.prefetch_across_stages = false;  // one task in the buffer at a time
  const EvaluationResult r = evaluate_dsa_plan(g, p, spec);
  const DsaTaskDemand l = dsa_task_demand(g, later, spec, {0});
  EXPECT_DOUBLE_EQ(value_of(r.details, "peak_sram_bytes"),
                   std::max(69632.0, 32768 + l.working_set_bytes - l.held[1]));
  EXPECT_DOUBLE_EQ(value_of(r.bytes_by_level, "hbm"), 262144 + 32768 + 131072);  // B once
  const DsaSpec small = dsa_with_local_bytes(spec, 65536);
  EXPECT_THROW(evaluate_dsa_plan(g, p, small), Error);
  Plan streamed = p;
  streamed.stages[0].tasks[0].pinned.clear();
  EXPECT_NO_THROW(evaluate_dsa_plan(g, streamed, small));
}

// Register reads (array_nest.h): a register is read once while consecutive steps use the same
// datum, and a loop of one trip does not end that run. YX-P, the 1x1 convolution x [1, 16, 14,
// 14] -> [1, 8, 14, 14] untiled: one fold (196 PEs), 8 output channels x 16 input channels = 128
// steps, the pixel loop of one trip. The mapping keeps the 8 output channels innermost (an input
// stays in its PE through them) and the channels outside: per step 196 partial sums read and
// written (2 x 128 x 196 x 32 bits = 1605632), the broadcast weight read once (128 x 8 = 1024),
// each PE's input read once per 8 steps (128 / 8 x 196 x 8 = 25088), and every byte through the
// port written into a register once: the weights (128), the fold's input window per channel
// (16 x 196 = 3136) and the outputs (8 x 196 = 1568), 4832 x 8 = 38656. 1670400 bits (before,
// the pixel loop's one trip ended the inputs' run: 128 x 196 x 8 = 200704 for the inputs).
TEST(DsaLadder, ARegisterIsReadOnceWhileConsecutiveStepsUseItsDatum) {
  const DsaSpec spec = dsa_with_dataflow(ladder_engine(), DsaDataflow::YX);
  const Graph g = conv1x1_16_to_8();
  const Region all = {{0, 1}, {0, 8}, {0, 14}, {0, 14}};
  const ArrayNest a = array_nest(matrix_shape(g, 0, all, spec), spec);
  EXPECT_EQ(a.steps, 128);
  EXPECT_EQ(a.port_bytes(), 128 + 3136 + 1568);
  EXPECT_EQ(a.register_bits, 1605632 + 1024 + 25088 + 38656);
}

// The input window of a fold that is narrower than the array (array_nest.h, matrix_shape):
// YX-P, each fold reads its own window per channel, and the nest takes their mean. The 1x1
// convolution x [1, 16, 28, 14] -> [1, 8, 28, 14] untiled runs two folds, of 16 x 14 and 12 x 14
// pixels: windows of 224 and 168 inputs per channel, a mean of 196 (before, the first fold's
// 224 for both: 7168 input bytes through the port where the folds read 16 x 392 = 6272). A 3x3
// convolution of pad 1, x [1, 16, 20, 16] -> [1, 8, 20, 16]: its first fold (rows 0-15) reads
// input rows 0-16 (the padding clips row -1) of 16 columns, 272; its second (rows 16-19) rows
// 15-19, 80: a mean of 176 (before, 272).
TEST(DsaLadder, AFoldNarrowerThanTheArrayReadsItsOwnInputWindowYX) {
  const DsaSpec spec = dsa_with_dataflow(ladder_engine(), DsaDataflow::YX);
  auto conv = [](int64_t h, int64_t w, int64_t kernel, int64_t pad) {
    Graph g;
    const int x = g.add_input("x", {1, 16, h, w});
    const int wt = g.add_weight("w", {8, 16, kernel, kernel});
    const int o = g.add_op(OpKind::Conv, "conv", {x, wt},
                           {{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
                            {"strides", std::vector<int64_t>{1, 1}},
                            {"pads", std::vector<int64_t>{pad, pad, pad, pad}}},
                           1, {"y"});
    g.mark_output(g.op(o).outputs[0]);
    return g;
  };
  const Graph g = conv(28, 14, 1, 0);
  const ArrayShape s = matrix_shape(g, 0, {{0, 1}, {0, 8}, {0, 28}, {0, 14}}, spec);
  EXPECT_EQ(s.input_window, 196);
  EXPECT_EQ(array_nest(s, spec).input_bytes, 16 * 392);
  const Graph g3 = conv(20, 16, 3, 1);
  EXPECT_EQ(matrix_shape(g3, 0, {{0, 1}, {0, 8}, {0, 20}, {0, 16}}, spec).input_window, 176);
  // Rows x columns: a 1x1 conv on 40 x 20 runs row folds of 16, 16 and 8 and column folds of 16
  // and 4, six folds reading their own 800 pixels: 800 / 6 per fold.
  const Graph g40 = conv(40, 20, 1, 0);
  EXPECT_DOUBLE_EQ(matrix_shape(g40, 0, {{0, 1}, {0, 8}, {0, 40}, {0, 20}}, spec).input_window,
                   800.0 / 6);
  // Four row folds with a short last one: a 7x7 conv of pad 3 on 49 x 16 runs row folds 0-15,
  // 16-31, 32-47 and 48, reading input rows 0-18 (19), 13-34 (22), 29-48 (20: the bottom padding
  // reaches the fold before the last) and 45-48 (4), each over the 16 columns: (19 + 22 + 20 + 4)
  // x 16 / 4 = 260 (charging the third fold the second's 22 rows would give 268).
  const Graph g7 = conv(49, 16, 7, 3);
  EXPECT_EQ(matrix_shape(g7, 0, {{0, 1}, {0, 8}, {0, 49}, {0, 16}}, spec).input_window, 260);
}

// Partial sums between reduction chunks (array_nest.h): a buffer level that runs the reduction
// in n chunks makes them the array's outermost loop, each chunk a nest of its own with the
// reduction loop at 1/n of its folds; every output goes to the buffer as a partial sum (4 bytes)
// after each chunk but the last and comes back, unless the registers hold every partial sum.
// KC-P, 32 x 4096 x 16: one output column fold, 32 pixels (rows), 256 reduction folds, 8192
// steps. A column's 24 partial-sum registers hold 16 of its 32 outputs. Unchunked, the mapping
// runs 16 pixels through the whole reduction, then the other 16: the weights (256 per PE, over
// the 224 registers) read twice, 131072 bytes; the inputs once (131072), the outputs once (512):
// 262656 bytes. In n >= 2 chunks a chunk's weights (256 / n per PE) fit: each chunk runs 16
// pixels through its folds, then the other 16, its weights read once (65536 bytes in all), and
// each output crosses once per chunk, 32 x 16 x 2 x 4 x (n - 1) = 4096 (n - 1) bytes more:
// 197120 + 4096 (n - 1) bytes. The register reads are the unchunked mapping's (a weight read
// once per 16 pixels: 8192 / 16 x 256; an input per step: 8192 x 16; a partial sum read and
// written per step: 2 x 8192 x 16 at 4 bytes), 10485760 bits, plus a register write per byte
// through the port. 1 x 4096 x 16: the 16 partial sums stay in the registers through the
// chunks (kept: 16 x 2 x 4 x (n - 1) bytes, ChunkedArray::sums_kept), nothing more crosses.
TEST(DsaLadder, PartialSumsCrossThePortBetweenReductionChunks) {
  const DsaSpec spec = ladder_engine();
  auto nest = [&](int64_t rows) {
    const Graph g = ladder_gemm(rows, 4096, 16);
    return array_nest(matrix_shape(g, 0, {{0, rows}, {0, 16}}, spec), spec);
  };
  const ArrayNest a = nest(32), one = nest(1);
  EXPECT_EQ(a.steps, 8192);
  EXPECT_EQ(a.weight_bytes, 131072);
  EXPECT_EQ(a.port_bytes(), 262656);
  EXPECT_EQ(a.register_bits, 10485760 + 8 * 262656);
  EXPECT_EQ(a.chunked[0].port_bytes, a.port_bytes());
  EXPECT_EQ(a.chunked[0].register_bits, a.register_bits);
  EXPECT_EQ(a.pixels_inner, 16);
  const double mac_pj = 32 * 4096 * 16 * spec.mac_pj;
  for (size_t i = 1; i < a.chunked.size(); ++i) {
    const double n = std::ldexp(1.0, static_cast<int>(i));
    const double port = 197120 + 4096 * (n - 1);
    const double bits = 10485760 + 8 * port;
    EXPECT_EQ(a.chunked[i].port_bytes, port) << i;
    EXPECT_EQ(a.chunked[i].register_bits, bits) << i;
    EXPECT_NEAR(a.chunked[i].energy_pj,
                mac_pj + bits * spec.register_pj_per_bit + port * 8 * spec.local_pj_per_bit, 1e-6)
        << i;
    EXPECT_EQ(a.chunked[i].weights_held, 65536) << i;  // a chunk's weights held whole
    EXPECT_EQ(a.chunked[i].sums_kept, 0) << i;
    EXPECT_EQ(one.chunked[i].port_bytes, one.port_bytes()) << i;
    EXPECT_EQ(one.chunked[i].sums_kept, 16 * 2 * 4 * (n - 1)) << i;
  }
}

// The defect of issue #23 fixed: each chunk count is priced on its own nest. A tile of ResNet-50's
// layer4.1.conv1 under KC-P (7 x 7 pixels, 128 of its output channels, 2048 reduction channels,
// 1x1): 49 pixel steps, 8 output-channel folds, 128 reduction folds, 50176 steps. In 8 chunks
// (16 reduction folds each) the mapping keeps 2 pixels innermost, then all 8 output-channel
// folds, inside the chunk's 16 reduction folds, inside the other 25 pixel trips: 8 x 16 = 128
// weights a PE, under the 224 registers, so a chunk's weights stay through the pixels and every
// weight is read once per tile (128 x 2048 = 262144 bytes; held whole: ChunkedArray::
// weights_held). The inputs: a row's 12 registers hold 2 pixels x 6 reduction folds through the
// 8 output folds, so each input is read once (49 x 128 x 16 = 100352). The outputs: 2 pixels x
// 8 folds (16 of a column's 24 registers) through the chunk, out after each chunk: 6272 written
// once and 6272 x 7 x 2 x 4 = 351232 of partial sums. 720000 bytes (priced as before, on the
// unchunked nest with the reduction loop at its 128 trips, the same loops hold 8 x 128 = 1024
// weights a PE, re-read for each of the 25 pixel trips: 6.5 MB). Unchunked: 1071232 bytes.
TEST(DsaLadder, AReductionChunkIsPricedOnItsOwnNest) {
  const DsaSpec spec = ladder_engine();
  ArrayShape s;
  s.pixels = 49;
  s.pixel_rows = 7;
  s.pixel_columns = 7;
  s.k = 128;
  s.c = 2048;
  const ArrayNest a = array_nest(s, spec);
  EXPECT_EQ(a.steps, 50176);
  EXPECT_EQ(a.port_bytes(), 1071232);
  const ChunkedArray& c = a.chunked[3];  // 8 chunks
  EXPECT_EQ(c.pixels_inner, 2);
  EXPECT_EQ(c.channels_inner, 1);
  EXPECT_EQ(std::string(c.order.begin(), c.order.end()), "KCPT");
  EXPECT_EQ(c.port_bytes, 262144 + 100352 + 6272 + 351232);
  EXPECT_EQ(c.weights_held, 262144);
  EXPECT_EQ(c.inputs_held, 0);
}

// The buffer level alone (map_buffer_nest, buffer_nest.h, the reduction loop at any position:
// reduction_anywhere) on a hand-made problem shaped like ResNet-50's layer4.1.conv1 under KC-P:
// an input X (64 KiB) that no output loop selects, weights W (128 KiB) in 4 output-channel tiles
// of 32 KiB, 1 KiB of output per tile, a reduction of 32
// channels (chunks of at least 16: 1 or 2), 40000 array steps, on one engine of the mesh (128 KiB,
// 8 B/cycle port, 4 B/cycle of DRAM). Unchunked, X stays (64 KiB) beside W's double-buffered
// tiles (64 KiB) and y's (2 KiB): 133120 bytes, too many. In 2 chunks:
//  - innermost (R>K): X's half (32 KiB, double-buffered) is loaded again for each of the 4
//    output tiles: 262144 + W 131072 + y 4096 = 397312 bytes, 99328 cycles of DRAM; working set
//    65536 + 32768 (W's half tiles) + 4096 (one tile's partial sums) + 1024 = 103424;
//  - outermost (K>R): each half of X is loaded once, the partial sums of all 4 output tiles
//    (4 x 1024 x 4 bytes) stay: 65536 + 131072 + 4096 = 200704 bytes, 50176 cycles; working set
//    65536 + 32768 + 16384 + 1024 = 115712.
// The first tile's loads and store: 1024 + 32768 + 16384 bytes at 4 B/cycle, 12544 cycles. The
// outermost order wins (62720 cycles against 111872, and less energy) where it fits; the array's
// registers that hold X's chunk (8192 bytes over the task) keep it across the 3 output tiles
// after the first, and the partial sums they would keep between chunks (2048 bytes) cross the
// port. With 110000 bytes the outermost order still fits with X's half and y's tile held once
// (81920 bytes): its 62720 cycles are DRAM's, and X's second half and y's stores (32768 + 3072
// bytes), serial, leave DRAM's overlapped time as much as they add (8960 cycles). With 60000
// bytes the innermost order is kept (below).
NestProblem conv_like_nest() {
  NestProblem p;
  p.trips = {4};
  p.inputs = {NestInput{65536, 65536, 0u, true, false}, NestInput{131072, 32768, 1u, true, false}};
  p.out_tile = 1024;
  p.out_bytes = 4096;
  p.reduction = 32;
  p.reduction_anywhere = true;
  p.array.steps = 40000;
  p.array.chunked[1].port_bytes = 65536;
  p.array.chunked[1].energy_pj = 1e6;
  p.array.chunked[1].sums_kept = 2048;
  HeldOperand x{0, 0u, true, {}};
  x.chunked[1] = 8192;
  p.array_held.push_back(x);
  return p;
}

TEST(DsaBufferNest, TheReductionOutermostLoadsTheInputOnceAndHoldsEveryPartialSum) {
  const DsaSpec spec = ladder_engine();
  const NestMapping m = map_buffer_nest(conv_like_nest(), spec, 131072);
  EXPECT_EQ(nest_order_name(m, {"K"}), "K>R");
  EXPECT_EQ(m.reduction_chunks, 2);
  EXPECT_EQ(m.tiles, 8);
  EXPECT_EQ(m.loaded, (std::vector<double>{65536, 131072}));
  EXPECT_EQ(m.held, (std::vector<double>{65536, 32768}));
  EXPECT_EQ(m.working_set, 115712);
  EXPECT_EQ(m.second_buffers, 32768 + 16384 + 1024);
  EXPECT_EQ(m.array_saved, 8192 * 3 / 4);
  EXPECT_EQ(m.array_sums, 2048);
  EXPECT_EQ(m.cycles, 50176 + 12544);  // DRAM-bound: the port's (65536 - 6144 + 2048 + 200704)
                                       // / 8 = 32768 and the steps are under it
  const double port_pj = 8 * spec.local_pj_per_bit;
  EXPECT_DOUBLE_EQ(m.energy_pj, 1e6 + (2048 - 6144) * (port_pj + 8 * spec.register_pj_per_bit) +
                                    200704 * 8 * (spec.local_pj_per_bit + spec.dram_pj_per_bit));
  EXPECT_EQ(m.single, (std::vector<bool>{false, false}));
  const NestMapping once = map_buffer_nest(conv_like_nest(), spec, 110000);
  EXPECT_EQ(nest_order_name(once, {"K"}), "K>R");
  EXPECT_EQ(once.single, (std::vector<bool>{true, false}));
  EXPECT_TRUE(once.single_output);
  EXPECT_EQ(once.working_set, 81920);
  EXPECT_EQ(once.stall_cycles, (32768 + 3072) / 4);
  EXPECT_EQ(once.cycles, 50176 + 12544);
}

// With 60000 bytes of buffer the outermost order does not fit even single-buffered (its partial
// sums 16384 + X's half 32768 + W's 16384 + y's 1024 = 66560... less y's second: 65536), nor does
// the unchunked one (X whole, 65536): the reduction stays innermost (R>K), whose double-buffered
// working set (103424) must lose at least 43424 bytes: X's and W's second halves (32768 + 16384:
// 54272), or those and y's (53248). X's loads after its first half (262144 - 32768) and W's
// (131072 - 16384), 344064 bytes, are serial at 4 B/cycle: 86016 cycles; the rest overlaps the
// array (40000 steps; the port's (65536 + 397312 - 344064) / 8 = 14848 and DRAM's 53248 / 4 =
// 13312 under them): 40000 + 12544 + 86016 = 138560. With y's too: 40000 + 12544 + 86784.
TEST(DsaBufferNest, WhereThePartialSumsOfEveryTileDoNotFitTheReductionStaysInnermost) {
  const DsaSpec spec = ladder_engine();
  const NestMapping m = map_buffer_nest(conv_like_nest(), spec, 60000);
  EXPECT_EQ(nest_order_name(m, {"K"}), "R>K");
  EXPECT_EQ(m.reduction_chunks, 2);
  EXPECT_EQ(m.loaded, (std::vector<double>{262144, 131072}));
  EXPECT_EQ(m.single, (std::vector<bool>{true, true}));
  EXPECT_FALSE(m.single_output);
  EXPECT_EQ(m.held, (std::vector<double>{32768, 16384}));
  EXPECT_EQ(m.working_set, 54272);
  EXPECT_EQ(m.second_buffers, 1024);
  EXPECT_EQ(m.array_saved, 0);  // X's chunk changes every tile
  EXPECT_EQ(m.array_sums, 0);   // one tile between chunks: its sums stay in the registers
  EXPECT_EQ(m.serial_bytes, 344064);
  EXPECT_EQ(m.stall_cycles, 86016);
  EXPECT_EQ(m.cycles, 40000 + 12544 + 86016);
  // The floor under every mapping (nest_edp_floor: each input loaded once) is under both.
  const double floor = nest_edp_floor(conv_like_nest(), spec, 1024);
  EXPECT_LE(floor, m.cycles * m.energy_pj);
  const NestMapping outer = map_buffer_nest(conv_like_nest(), spec, 131072);
  EXPECT_LE(floor, outer.cycles * outer.energy_pj);
  EXPECT_LE(nest_edp_floor_tiled(conv_like_nest(), spec), m.cycles * m.energy_pj);
}

// Single buffering alone (buffer_nest.h): an input X (64 KiB) that the one output loop (4 tiles)
// does not select stays; W (128 KiB) comes in 4 tiles of 32 KiB; 1 KiB of output per tile (4096
// in all); no reduction chunks; 40000 array steps whose port carries 65536 bytes. Every byte is
// loaded or stored once: 200704 bytes. Double-buffered the working set is 65536 + 2 x 32768 + 2 x
// 1024 = 133120, and its cycles the longest of the steps, the port's (65536 + 200704) / 8 =
// 33280 and DRAM's 200704 / 4 = 50176, plus the first tile's loads and the last store (1024 +
// 65536 + 32768 bytes at 4 B/cycle: 24832): 75008.
NestProblem streamed_weights_nest() {
  NestProblem p;
  p.trips = {4};
  p.inputs = {NestInput{65536, 65536, 0u, false, false},
              NestInput{131072, 32768, 1u, false, false}};
  p.out_tile = 1024;
  p.out_bytes = 4096;
  p.array.steps = 40000;
  p.array.chunked[0].port_bytes = 65536;
  p.array.chunked[0].energy_pj = 1e6;
  return p;
}

// In 128 KiB the double-buffered working set (133120) does not fit; W's tile held once does
// (100352; y's too: 99328). W's loads after its first tile (131072 - 32768 = 98304 bytes) stall
// the array: 24576 cycles at 4 B/cycle; the rest overlaps: the steps (40000) over the port's
// (65536 + 200704 - 98304) / 8 = 20992 and DRAM's 102400 / 4 = 25600: 40000 + 24832 + 24576 =
// 89408. With y's stores serial too: 40000 + 24832 + (98304 + 3072) / 4 = 90176, more: y stays
// double-buffered. The bytes and the energy are those of the double-buffered mapping.
TEST(DsaBufferNest, ATileThatDoesNotFitTwiceIsHeldOnceAndItsLoadsStall) {
  const DsaSpec spec = ladder_engine();
  const NestMapping m = map_buffer_nest(streamed_weights_nest(), spec, 131072);
  EXPECT_EQ(m.loaded, (std::vector<double>{65536, 131072}));
  EXPECT_EQ(m.once, (std::vector<bool>{true, false}));
  EXPECT_EQ(m.single, (std::vector<bool>{false, true}));
  EXPECT_FALSE(m.single_output);
  EXPECT_EQ(m.held, (std::vector<double>{65536, 32768}));
  EXPECT_EQ(m.working_set, 100352);
  EXPECT_EQ(m.second_buffers, 1024);  // y's
  EXPECT_EQ(m.serial_bytes, 98304);
  EXPECT_EQ(m.stall_cycles, 24576);
  EXPECT_EQ(m.cycles, 40000 + 24832 + 24576);
  EXPECT_DOUBLE_EQ(m.energy_pj, 1e6 + 200704 * 8 * (spec.local_pj_per_bit + spec.dram_pj_per_bit));
  // Below 99328 nothing fits: the smallest working set, everything held once.
  const NestMapping none = map_buffer_nest(streamed_weights_nest(), spec, 99000);
  EXPECT_EQ(none.single, (std::vector<bool>{false, true}));
  EXPECT_TRUE(none.single_output);
  EXPECT_EQ(none.working_set, 99328);
  EXPECT_EQ(none.cycles, 40000 + 24832 + (98304 + 3072) / 4);
}

// Where the double-buffered working set fits (140000 bytes), it is kept: holding W once would
// stall the array (89408 cycles above against 75008).
TEST(DsaBufferNest, WhereTheSecondBufferFitsTheTileStaysDoubleBuffered) {
  const DsaSpec spec = ladder_engine();
  const NestMapping m = map_buffer_nest(streamed_weights_nest(), spec, 140000);
  EXPECT_EQ(m.single, (std::vector<bool>{false, false}));
  EXPECT_FALSE(m.single_output);
  EXPECT_EQ(m.held, (std::vector<double>{65536, 65536}));
  EXPECT_EQ(m.working_set, 133120);
  EXPECT_EQ(m.second_buffers, 32768 + 1024);
  EXPECT_EQ(m.serial_bytes, 0);
  EXPECT_EQ(m.stall_cycles, 0);
  EXPECT_EQ(m.cycles, 50176 + 24832);
}

}  // namespace
}  // namespace dgs
