// kc's register-refill stall (array_nest.h), hand-computed on one engine of atomic_mesh (16 x 16
// PEs, KC-P; 224 weight registers per PE, 12 input registers per row, 24 partial sums per column;
// 1-byte elements; a 64-bit port, 8 bytes a cycle). A register file holding a set of w of its R
// entries preloads only R - w of the next set while the set is in use; with R / 2 < w <= R the
// other (2w - R) / w of each refill cross the port after the last pass frees their registers, and
// the array waits for what does not fit in that pass.
#include <gtest/gtest.h>

#include <string>

#include "common/dsamodel/array_nest.h"
#include "tests/dsamodel/ladder_fixture.h"

namespace dgs {
namespace {

// x [1, cin, h, w] -> y [1, cout, h, w] by a 3x3 kernel of pad 1 (op 0).
Graph refill_conv3x3(int64_t cin, int64_t cout, int64_t h, int64_t w) {
  Graph g;
  const int x = g.add_input("x", {1, cin, h, w});
  const int wt = g.add_weight("w", {cout, cin, 3, 3});
  const int o = g.add_op(OpKind::Conv, "conv", {x, wt},
                         {{"kernel_shape", std::vector<int64_t>{3, 3}},
                          {"strides", std::vector<int64_t>{1, 1}},
                          {"dilations", std::vector<int64_t>{1, 1}},
                          {"pads", std::vector<int64_t>{1, 1, 1, 1}}},
                         1, {"y"});
  g.mark_output(g.op(o).outputs[0]);
  return g;
}

std::string refill_nest_order(const ArrayNest& a) {
  return std::string(a.order.begin(), a.order.end());
}

// VGG-19's features.10 (128 -> 256 channels, 56 x 56) on the validation's buffer tile of 64 output
// channels x 14 x 7 pixels (tools/validate_dsa README (g)): 98 pixels x 4 output- x 8 reduction-
// channel folds x 9 taps = 28224 steps, mapped P7 K2 FX3 CTPK (the loops, inner to outer: P7 K2
// FX3 C8 T3 P14 K2). A PE's weights: K2 x FX3 x C8 x T3 = 144 of 224 held; the pixels' outer
// loop P14 does not select them, the output channels' K2 above does not fit (288): 2 passes,
// every weight read once (288 x 256 PEs = 73728 bytes, 36864 a refill). w = 144 > 112: only 80
// of the next set preload; the other 64 a PE (64/144 of 36864 = 16384 bytes, 2048 cycles at 8
// bytes a cycle) wait for the last pass of P14, 7 x 2 x 3 x 8 x 3 = 1008 cycles: 1040 stall
// cycles a refill, one refill in the tile. The partial sums: P7 x K2 = 14 of 24 a column, 28
// passes (P14 x K2) with FX3 C8 T3 on top: the last pass 14 cycles; 6272 output bytes over 28
// passes = 224 a refill, 4/14 of it 64 bytes = 8 cycles: no stall. Inputs (the window, 9 of 21,
// re-read per K2): 96768 bytes; the port 73728 + 96768 + 6272 = 176768 bytes = 22096 cycles,
// below 28224 + 1040; + 30 fill and drain.
TEST(DsaLadder, AWeightSetOverHalfTheRegistersStallsItsRefillKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayShape s =
      matrix_shape(refill_conv3x3(128, 256, 56, 56), 0, {{0, 1}, {0, 64}, {0, 14}, {0, 7}}, spec);
  const ArrayNest a = array_nest(s, spec);
  EXPECT_EQ(a.pixels_inner, 7);
  EXPECT_EQ(a.channels_inner, 2);
  EXPECT_EQ(a.kernel_columns_inner, 3);
  EXPECT_EQ(refill_nest_order(a), "CTPK");
  EXPECT_EQ(a.steps, 28224);  // the steps stay the array's (the validation compares them)
  EXPECT_EQ(a.weight_bytes, 73728);
  EXPECT_EQ(a.input_bytes, 96768);
  EXPECT_EQ(a.output_bytes, 6272);
  EXPECT_EQ(a.refill_each, 1040);
  EXPECT_EQ(a.refill_stall, 1040);
  EXPECT_EQ(a.chunked[0].refill_stall, 1040);
  EXPECT_EQ(a.cycles(spec.local_bandwidth()), 28224 + 1040 + 30);
  EXPECT_EQ(a.array_cycles(), 28224 + 1040 + 30);
  // The layer's 128 tiles (4 x 4 x 8 of 64 x 14 x 7): each next tile's first set is a refill as
  // well (it comes in as the tile before runs its last pass), 128 x 2 - 1 = 255 refills, 265200
  // cycles (ZigZag makes the whole refill wait: (4608 - 1008) x 255 = 918000).
  const ArrayNest layer = tiled_array_nest({{s, 128}}, spec);
  EXPECT_EQ(layer.steps, 128 * 28224);
  EXPECT_EQ(layer.refill_stall, 255 * 1040);
  EXPECT_EQ(layer.chunked[0].refill_stall, 255 * 1040);
}

// The same loops on 64 input channels (C4): a PE's weights K2 x FX3 x C4 x T3 = 72 of 224, two
// passes, but 72 <= 112 registers preload all of the next set while the set is in use: no stall.
// 14112 steps; the port (36864 + 48384 + 6272 bytes = 11440 cycles) below them; + 30.
TEST(DsaLadder, AWeightSetOfHalfTheRegistersOrLessIsDoubleBufferedKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayNest a = array_nest(
      matrix_shape(refill_conv3x3(64, 64, 56, 56), 0, {{0, 1}, {0, 64}, {0, 14}, {0, 7}}, spec),
      spec);
  EXPECT_EQ(a.pixels_inner, 7);
  EXPECT_EQ(a.channels_inner, 2);
  EXPECT_EQ(refill_nest_order(a), "CTPK");
  EXPECT_EQ(a.steps, 14112);
  EXPECT_EQ(a.weight_bytes, 36864);  // 144 a PE, each read once: 2 passes of 72
  EXPECT_EQ(a.refill_each, 0);
  EXPECT_EQ(a.refill_stall, 0);
  EXPECT_EQ(a.cycles(spec.local_bandwidth()), 14112 + 30);
}

// w = R: the partial sums of a GEMM of 64 rows, 32 reduction and 48 output channels (64 pixel
// steps x 3 output- x 2 reduction-channel folds = 384 steps), mapped P8 K1 KCPT (the loops P8, K3,
// C2, P8): a column's registers hold P8 x K3 = 24 of 24 outputs through the reduction's C2 on top,
// 8 passes. No register is free to preload, so a whole refill (3072 output bytes / 8 = 384, 48
// cycles) crosses after the last C pass (8 x 3 = 24 cycles) frees it: 24 stall cycles a refill, 7
// refills, 168. The port (1536 + 2048 + 3072 bytes = 832 cycles) is longer than 384 + 168: the
// cycles stay the port's, + 30.
TEST(DsaLadder, ASetFillingTheRegistersStallsItsWholeRefillKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayNest a =
      array_nest(matrix_shape(ladder_gemm(64, 32, 48), 0, {{0, 64}, {0, 48}}, spec), spec);
  EXPECT_EQ(a.pixels_inner, 8);
  EXPECT_EQ(a.channels_inner, 1);
  EXPECT_EQ(refill_nest_order(a), "KCPT");
  EXPECT_EQ(a.steps, 384);
  EXPECT_EQ(a.output_bytes, 3072);
  EXPECT_EQ(a.refill_each, 24);
  EXPECT_EQ(a.refill_stall, 7 * 24);
  EXPECT_EQ(a.cycles(spec.local_bandwidth()), 832 + 30);
}

}  // namespace
}  // namespace dgs
