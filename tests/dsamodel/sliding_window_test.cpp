// kc's sliding input window (array_nest.h), hand-computed on one engine of atomic_mesh (16 x 16
// PEs, KC-P: the reduction channels down the rows, the output channels across the columns; 224
// weight registers per PE, 12 input registers per row, 24 partial sums per column of 4 bytes;
// 1-byte elements; a 64-bit port, 8 bytes a cycle).
#include <gtest/gtest.h>

#include <string>

#include "common/dsamodel/array_nest.h"
#include "tests/dsamodel/ladder_fixture.h"

namespace dgs {
namespace {

// x [1, 16, h, w] -> y [1, 16, ...] by a k x k kernel (op 0).
Graph window_conv(int64_t h, int64_t w, int64_t kernel, int64_t stride, int64_t pad,
                  int64_t dilation = 1) {
  Graph g;
  const int x = g.add_input("x", {1, 16, h, w});
  const int wt = g.add_weight("w", {16, 16, kernel, kernel});
  const int o = g.add_op(OpKind::Conv, "conv", {x, wt},
                         {{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
                          {"strides", std::vector<int64_t>{stride, stride}},
                          {"dilations", std::vector<int64_t>{dilation, dilation}},
                          {"pads", std::vector<int64_t>{pad, pad, pad, pad}}},
                         1, {"y"});
  g.mark_output(g.op(o).outputs[0]);
  return g;
}

std::string nest_order(const ArrayNest& a) {
  return std::string(a.order.begin(), a.order.end());
}

// matrix_shape reads the kernel columns, the stride and the dilation along the pixel grid's
// columns from the op's iteration space (input column = output column x stride + kernel column x
// dilation).
TEST(DsaLadder, TheSlidingWindowsGeometryIsTheIterationSpaces) {
  const DsaSpec spec = ladder_engine();
  const ArrayShape s =
      matrix_shape(window_conv(8, 8, 3, 1, 1), 0, {{0, 1}, {0, 16}, {0, 8}, {0, 8}}, spec);
  EXPECT_EQ(s.taps, 9);
  EXPECT_EQ(s.kernel_columns, 3);
  EXPECT_EQ(s.column_stride, 1);
  EXPECT_EQ(s.column_dilation, 1);
  const ArrayShape s2 =
      matrix_shape(window_conv(16, 16, 3, 2, 1), 0, {{0, 1}, {0, 16}, {0, 8}, {0, 8}}, spec);
  EXPECT_EQ(s2.column_stride, 2);
  const ArrayShape d2 =
      matrix_shape(window_conv(8, 8, 3, 1, 2, 2), 0, {{0, 1}, {0, 16}, {0, 8}, {0, 8}}, spec);
  EXPECT_EQ(d2.column_dilation, 2);
  // A 1x1 convolution: one kernel column, no window.
  EXPECT_EQ(matrix_shape(window_conv(8, 8, 1, 1, 0), 0, {{0, 1}, {0, 16}, {0, 8}, {0, 8}}, spec)
                .kernel_columns,
            1);
}

// A 3x3 convolution of pad 1, 16 -> 16 channels on 8 x 8 pixels: 64 pixel steps x 1 output-
// and 1 reduction-channel fold x 9 taps = 576 steps; a step moves 256 weights, 16 inputs (one a
// row) and 16 partial sums (one a column). The weights (9 x 256 = 2304 bytes) fit the 224
// registers and are read once; the outputs (64 x 16 = 1024) are written once when the pixel loop
// that the partial-sum registers cannot hold (24 a column) lies above the taps. The taps as one
// loop (kernel_columns 1, as before the window): each input is read once per pixel and tap, 576
// x 16 = 9216 bytes, 12544 through the port: 1568 cycles on 576 steps (+ 30 of fill and drain),
// the mapping P16 K1 KCTP (a weight read once per 16 pixels: 576 / 16 x 256 register reads, an
// input per step 576 x 16, every partial sum read and written per step 2 x 576 x 16 x 32 bits,
// every byte through the port written once: 147456 + 589824 + 100352 = 837632 bits). With the
// window: 8 output columns (a whole row) and the 3 kernel columns inside, a row's registers hold
// (8 - 1) + (3 - 1) + 1 = 10 inputs where the taps as one loop hold 24; the kernel rows re-read
// it (10 x 3 > 12): inputs 9216 x 10 / 24 = 3840 bytes, 7168 through the port, 896 cycles; a
// weight read once per 8 pixels (576 / 8 x 256): 221184 + 589824 + 57344 = 868352 bits.
TEST(DsaLadder, AThreeByThreeConvReadsItsInputsOncePerSlidingWindowKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayShape s =
      matrix_shape(window_conv(8, 8, 3, 1, 1), 0, {{0, 1}, {0, 16}, {0, 8}, {0, 8}}, spec);
  const ArrayNest a = array_nest(s, spec);
  EXPECT_EQ(a.steps, 576);
  EXPECT_EQ(a.pixels_inner, 8);
  EXPECT_EQ(a.channels_inner, 1);
  EXPECT_EQ(a.kernel_columns_inner, 3);
  EXPECT_EQ(nest_order(a), "KCTP");
  EXPECT_EQ(a.weight_bytes, 2304);
  EXPECT_EQ(a.input_bytes, 3840);
  EXPECT_EQ(a.output_bytes, 1024);
  EXPECT_EQ(a.register_bits, 868352);
  EXPECT_EQ(a.cycles(spec.local_bandwidth()), 896 + 30);
  ArrayShape taps_one_loop = s;
  taps_one_loop.kernel_columns = 1;
  const ArrayNest b = array_nest(taps_one_loop, spec);
  EXPECT_EQ(b.pixels_inner, 16);
  EXPECT_EQ(b.kernel_columns_inner, 1);
  EXPECT_EQ(nest_order(b), "KCTP");
  EXPECT_EQ(b.input_bytes, 9216);
  EXPECT_EQ(b.port_bytes(), 12544);
  EXPECT_EQ(b.register_bits, 837632);
  EXPECT_EQ(b.cycles(spec.local_bandwidth()), 1568 + 30);
}

// Stride 2: the same convolution of 8 x 8 outputs on 16 x 16 inputs. A window of OX_b output
// columns and 3 kernel columns spans (OX_b - 1) x 2 + 3 inputs: at most 12 for OX_b <= 4, so 4
// output columns (9 inputs where the taps as one loop hold 12): inputs 9216 x 9 / 12 = 6912
// bytes, 10240 through the port, 1280 cycles; a weight read once per 4 pixels (576 / 4 x 256):
// 368640 + 589824 + 81920 = 1040384 bits.
TEST(DsaLadder, AStrideTwoWindowSpansTwiceTheOutputColumnsKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayNest a = array_nest(
      matrix_shape(window_conv(16, 16, 3, 2, 1), 0, {{0, 1}, {0, 16}, {0, 8}, {0, 8}}, spec), spec);
  EXPECT_EQ(a.steps, 576);
  EXPECT_EQ(a.pixels_inner, 4);
  EXPECT_EQ(a.kernel_columns_inner, 3);
  EXPECT_EQ(nest_order(a), "KCTP");
  EXPECT_EQ(a.weight_bytes, 2304);
  EXPECT_EQ(a.input_bytes, 6912);
  EXPECT_EQ(a.output_bytes, 1024);
  EXPECT_EQ(a.register_bits, 1040384);
  EXPECT_EQ(a.cycles(spec.local_bandwidth()), 1280 + 30);
}

// A window of 7 output columns (array_nest.h: any block of whole output columns of a row, not only
// a power of two). The 3x3 convolution of pad 1, 16 -> 16 channels on 7 x 7 pixels: 49 pixel steps
// x 9 taps = 441 steps. No power of two but 1 divides the 7 columns, so before the window of 7 the
// taps ran as one loop (as the stride-2 test below: 7056 input bytes). A block of the row's 7
// columns with the 3 kernel columns inside: a row's registers hold (7 - 1) + (3 - 1) + 1 = 9 <= 12
// inputs where the taps as one loop hold 21, so the inputs' fetches scale by 9 / 21: 441 x 16 x 9 /
// 21 = 3024 bytes (7 output rows x 3 kernel rows, each a window of 9 input columns x 16 channels).
// The weights (2304) fit the 224 registers and are read once; the outputs (49 x 16 = 784) are
// written once with the output rows above the kernel rows (KCTP: a row's 7 partial sums stay
// through its 3 kernel rows). 6112 bytes through the port: 764 cycles on 441 steps (+ 30 of fill
// and drain). Register bits: a weight read once per 7 pixels (441 / 7 x 256 = 16128), an input
// per step (441 x 16 = 7056), 23184 x 8 = 185472; every partial sum read and written per step, 2 x
// 441 x 16 x 32 = 451584; the port's bytes written once, 48896: 685952 bits.
TEST(DsaLadder, ASevenWideRowSlidesAWindowOfSevenColumnsKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayNest a = array_nest(
      matrix_shape(window_conv(7, 7, 3, 1, 1), 0, {{0, 1}, {0, 16}, {0, 7}, {0, 7}}, spec), spec);
  EXPECT_EQ(a.steps, 441);
  EXPECT_EQ(a.pixels_inner, 7);
  EXPECT_EQ(a.channels_inner, 1);
  EXPECT_EQ(a.kernel_columns_inner, 3);
  EXPECT_EQ(nest_order(a), "KCTP");
  EXPECT_EQ(a.weight_bytes, 2304);
  EXPECT_EQ(a.input_bytes, 3024);
  EXPECT_EQ(a.output_bytes, 784);
  EXPECT_EQ(a.register_bits, 685952);
  EXPECT_EQ(a.cycles(spec.local_bandwidth()), 764 + 30);
}

// On 14 x 14 pixels the blocks that divide the row are 2, 7 and 14 columns: 14's window, 13 + 2 +
// 1 = 16 inputs, is over the 12 registers; 2's holds 4 of 6 (inputs 1764 x 16 x 4 / 6 = 18816
// bytes), 7's 9 of 21: 1764 x 16 x 9 / 21 = 12096 bytes (14 rows x 2 blocks x 3 kernel rows x 9 x
// 16), chosen. With the weights once (2304) and the outputs once (196 x 16 = 3136): 17536 bytes,
// 2192 cycles on 1764 steps (+ 30); P2's window would take 24256 bytes, 3032 cycles. Register bits:
// weights 1764 / 7 x 256 = 64512 reads, inputs 1764 x 16 = 28224, 92736 x 8 = 741888; partial sums
// 2 x 1764 x 16 x 32 = 1806336; the port 8 x 17536 = 140288: 2688512 bits.
TEST(DsaLadder, AFourteenWideRowTakesTheSevenColumnWindowOverTheTwoKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayNest a = array_nest(
      matrix_shape(window_conv(14, 14, 3, 1, 1), 0, {{0, 1}, {0, 16}, {0, 14}, {0, 14}}, spec),
      spec);
  EXPECT_EQ(a.steps, 1764);
  EXPECT_EQ(a.pixels_inner, 7);
  EXPECT_EQ(a.kernel_columns_inner, 3);
  EXPECT_EQ(nest_order(a), "KCTP");
  EXPECT_EQ(a.weight_bytes, 2304);
  EXPECT_EQ(a.input_bytes, 12096);
  EXPECT_EQ(a.output_bytes, 3136);
  EXPECT_EQ(a.register_bits, 2688512);
  EXPECT_EQ(a.cycles(spec.local_bandwidth()), 2192 + 30);
}

// Stride 2 onto 7 x 7 outputs (from 14 x 14 inputs): the 7-column block's window spans (7 - 1) x 2
// + 3 = 15 inputs, over a row's 12 registers, so it is not offered, and no other block divides the
// 7 columns: the taps run as one loop, each input read once per pixel and tap, 441 x 16 = 7056
// bytes. The mapping P16 K1 KCTP (the partial sums of 16 pixels stay through the taps, a weight
// read once per 16 pixels): 2304 + 7056 + 784 = 10144 port bytes, 1268 cycles (+ 30); register
// bits: weights 441 / 16 x 256 = 7056 reads, inputs 7056, 14112 x 8 = 112896; partial sums 451584;
// the port 81152: 645632 bits.
TEST(DsaLadder, ASevenColumnWindowOverTheRegistersIsNotOfferedKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayNest a = array_nest(
      matrix_shape(window_conv(14, 14, 3, 2, 1), 0, {{0, 1}, {0, 16}, {0, 7}, {0, 7}}, spec), spec);
  EXPECT_EQ(a.steps, 441);
  EXPECT_EQ(a.pixels_inner, 16);
  EXPECT_EQ(a.kernel_columns_inner, 1);
  EXPECT_EQ(nest_order(a), "KCTP");
  EXPECT_EQ(a.weight_bytes, 2304);
  EXPECT_EQ(a.input_bytes, 7056);
  EXPECT_EQ(a.output_bytes, 784);
  EXPECT_EQ(a.register_bits, 645632);
  EXPECT_EQ(a.cycles(spec.local_bandwidth()), 1268 + 30);
}

// No kernel columns, no window: a 1x1 convolution 16 -> 16 on 8 x 8 and the GEMM [64, 16] x
// [16, 16] are one problem (64 pixel steps, one fold each way) and price as before the window:
// each operand read once, 256 weight, 1024 input and 1024 output bytes, 288 cycles (+ 30); the
// mapping P1 K1 PKCT (the weights stay through the 64 pixels: 256 register reads; an input per
// step, 1024; the partial sums 2 x 64 x 16 x 32 bits; the port's bytes written once): 10240 +
// 65536 + 18432 = 94208 bits.
TEST(DsaLadder, AOneByOneConvAndAGemmHaveNoWindowKC) {
  const DsaSpec spec = ladder_engine();
  const ArrayNest conv = array_nest(
      matrix_shape(window_conv(8, 8, 1, 1, 0), 0, {{0, 1}, {0, 16}, {0, 8}, {0, 8}}, spec), spec);
  const ArrayNest gemm =
      array_nest(matrix_shape(ladder_gemm(64, 16, 16), 0, {{0, 64}, {0, 16}}, spec), spec);
  for (const ArrayNest* a : {&conv, &gemm}) {
    EXPECT_EQ(a->steps, 64);
    EXPECT_EQ(a->pixels_inner, 1);
    EXPECT_EQ(a->channels_inner, 1);
    EXPECT_EQ(a->kernel_columns_inner, 1);
    EXPECT_EQ(nest_order(*a), "PKCT");
    EXPECT_EQ(a->weight_bytes, 256);
    EXPECT_EQ(a->input_bytes, 1024);
    EXPECT_EQ(a->output_bytes, 1024);
    EXPECT_EQ(a->register_bits, 94208);
    EXPECT_EQ(a->cycles(spec.local_bandwidth()), 288 + 30);
  }
}

}  // namespace
}  // namespace dgs
