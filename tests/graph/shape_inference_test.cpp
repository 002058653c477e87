// Shape and dtype inference per operator (hand-computed shapes) and the errors for bad inputs.
#include <gtest/gtest.h>

#include <string>

#include "common/graph/graph.h"
#include "common/graph/shape_inference.h"

namespace dgs {
namespace {

using I = std::vector<int64_t>;

// Shape of output `i` of op `o`.
Shape out_shape(const Graph& g, int o, int i = 0) {
  return g.tensor(g.op(o).outputs[i]).shape;
}

// Expects `fn` to throw dgs::Error whose message contains every string in `parts`.
template <typename F>
void expect_error(F&& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    FAIL() << "expected dgs::Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

TEST(ShapeInference, Conv2dStridesPadsDilationsGroups) {
  Graph g;
  int x = g.add_input("x", {1, 64, 56, 56});
  int w = g.add_weight("w", {128, 64, 3, 3});
  int b = g.add_weight("b", {128});
  int c = g.add_op(OpKind::Conv, "c", {x, w, b},
                   Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}));
  EXPECT_EQ(out_shape(g, c), (Shape{1, 128, 28, 28}));  // floor((56+2-3)/2)+1 = 28
  int wd = g.add_weight("wd", {32, 64, 3, 3});
  int d = g.add_op(OpKind::Conv, "d", {x, wd}, Attributes({{"dilations", I{2, 2}}}));
  EXPECT_EQ(out_shape(g, d), (Shape{1, 32, 52, 52}));  // 56 - (2*2+1) + 1
  int wg = g.add_weight("wg", {64, 16, 3, 3});
  int gr = g.add_op(OpKind::Conv, "g", {x, wg},
                    Attributes({{"group", int64_t{4}}, {"pads", I{0, 1, 2, 1}}}));
  EXPECT_EQ(out_shape(g, gr), (Shape{1, 64, 56, 56}));  // H: 56+0+2-3+1, W: 56+1+1-3+1
  int ws = g.add_weight("ws", {8, 64, 4, 4});
  int s = g.add_op(OpKind::Conv, "s", {x, ws},
                   Attributes({{"auto_pad", std::string("SAME_UPPER")}, {"strides", I{3, 3}}}));
  EXPECT_EQ(out_shape(g, s), (Shape{1, 8, 19, 19}));  // ceil(56/3)
  int v = g.add_op(OpKind::Conv, "v", {x, ws}, Attributes({{"auto_pad", std::string("VALID")}}));
  EXPECT_EQ(out_shape(g, v), (Shape{1, 8, 53, 53}));
}

TEST(ShapeInference, Conv1dAnd3d) {
  Graph g;
  int x1 = g.add_input("x1", {2, 4, 100});
  int w1 = g.add_weight("w1", {6, 4, 5});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Conv, "c1", {x1, w1}, Attributes({{"strides", I{5}}}))),
            (Shape{2, 6, 20}));
  int x3 = g.add_input("x3", {1, 3, 16, 32, 32});
  int w3 = g.add_weight("w3", {8, 3, 3, 3, 3});
  EXPECT_EQ(
      out_shape(g, g.add_op(OpKind::Conv, "c3", {x3, w3},
                            Attributes({{"pads", I{1, 1, 1, 1, 1, 1}}, {"strides", I{1, 2, 2}}}))),
      (Shape{1, 8, 16, 16, 16}));
}

TEST(ShapeInference, ConvChannelMismatchNamesTheOp) {
  Graph g;
  int x = g.add_input("x", {1, 3, 32, 32});
  int w = g.add_weight("w", {16, 4, 3, 3});
  expect_error(
      [&] {
        g.add_op(OpKind::Conv, "stem_conv", {x, w});
      },
      {"op 'stem_conv' (Conv)", "input channels 3", "weight channels 4", "expected"});
  // The failed add_op left the graph as it was.
  EXPECT_EQ(g.num_ops(), 0);
  EXPECT_EQ(g.find_tensor("stem_conv:0"), -1);
  EXPECT_TRUE(g.tensor(x).consumers.empty());
  int w2 = g.add_weight("w2", {16, 3, 3, 3});
  g.add_op(OpKind::Conv, "stem_conv", {x, w2});
  EXPECT_EQ(g.num_ops(), 1);
}

TEST(ShapeInference, ConvErrors) {
  Graph g;
  int x = g.add_input("x", {1, 8, 4, 4});
  int w = g.add_weight("w", {6, 2, 5, 5});
  expect_error(
      [&] {
        g.add_op(OpKind::Conv, "c", {x, w}, Attributes({{"group", int64_t{4}}}));
      },
      {"op 'c' (Conv)", "not divisible by group 4"});
  int w2 = g.add_weight("w2", {8, 8, 5, 5});
  expect_error(
      [&] {
        g.add_op(OpKind::Conv, "c", {x, w2});
      },
      {"op 'c' (Conv)", "smaller than the effective kernel 5"});
  int b = g.add_weight("b", {7});
  int w3 = g.add_weight("w3", {8, 8, 1, 1});
  expect_error([&] { g.add_op(OpKind::Conv, "c", {x, w3, b}); }, {"bias B has shape [7]", "[8]"});
  expect_error([&] { g.add_op(OpKind::Conv, "c", {x}); }, {"op 'c' (Conv)", "1 inputs", "2..3"});
}

TEST(ShapeInference, ConvTranspose) {
  Graph g;
  int x = g.add_input("x", {1, 16, 7, 7});
  int w = g.add_weight("w", {16, 8, 3, 3});
  // 2*(7-1) + 1 + 3 - 1 - 1 = 14
  int a = g.add_op(
      OpKind::ConvTranspose, "a", {x, w},
      Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}, {"output_padding", I{1, 1}}}));
  EXPECT_EQ(out_shape(g, a), (Shape{1, 8, 14, 14}));
  int wg = g.add_weight("wg", {16, 4, 4, 4});
  int b = g.add_op(OpKind::ConvTranspose, "b", {x, wg},
                   Attributes({{"group", int64_t{2}}, {"strides", I{2, 2}}}));
  EXPECT_EQ(out_shape(g, b), (Shape{1, 8, 16, 16}));  // 2*6 + 4
  int c = g.add_op(OpKind::ConvTranspose, "c", {x, w},
                   Attributes({{"strides", I{2, 2}}, {"output_shape", I{15, 13}}}));
  EXPECT_EQ(out_shape(g, c), (Shape{1, 8, 15, 13}));
}

TEST(ShapeInference, GemmAndMatMul) {
  Graph g;
  int a = g.add_input("a", {32, 64});
  int bt = g.add_weight("bt", {10, 64});
  int bias = g.add_weight("bias", {10});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Gemm, "fc", {a, bt, bias},
                                  Attributes({{"transB", int64_t{1}}}))),
            (Shape{32, 10}));
  int at = g.add_input("at", {64, 32});
  int b = g.add_weight("b", {64, 5});
  EXPECT_EQ(
      out_shape(g, g.add_op(OpKind::Gemm, "g2", {at, b}, Attributes({{"transA", int64_t{1}}}))),
      (Shape{32, 5}));
  expect_error(
      [&] {
        g.add_op(OpKind::Gemm, "bad", {a, bt});
      },
      {"op 'bad' (Gemm)", "inner dimensions differ"});

  int x = g.add_input("x", {8, 1, 4, 6});
  int y = g.add_input("y", {3, 6, 5});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::MatMul, "m", {x, y})), (Shape{8, 3, 4, 5}));
  int v = g.add_input("v", {6});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::MatMul, "mv", {x, v})), (Shape{8, 1, 4}));
  int u = g.add_input("u", {4});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::MatMul, "vm", {u, x})), (Shape{8, 1, 6}));
  int z = g.add_input("z", {2, 5, 7});
  expect_error([&] { g.add_op(OpKind::MatMul, "mb", {y, z}); }, {"do not broadcast", "3 vs 2"});
}

TEST(ShapeInference, Pooling) {
  Graph g;
  int x = g.add_input("x", {1, 64, 112, 112});
  int m = g.add_op(
      OpKind::MaxPool, "mp", {x},
      Attributes({{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}), 2);
  EXPECT_EQ(out_shape(g, m), (Shape{1, 64, 56, 56}));
  EXPECT_EQ(g.tensor(g.op(m).outputs[1]).dtype, DType::I64);
  int y = g.add_input("y", {1, 96, 109, 109});
  // SqueezeNet: 3x3/2 on 109 -> floor(106/2)+1 = 54; ceil_mode -> ceil(106/2)+1 = 54; on 110: 54/55
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::MaxPool, "p1", {y},
                                  Attributes({{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}}))),
            (Shape{1, 96, 54, 54}));
  int z = g.add_input("z", {1, 96, 110, 110});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::MaxPool, "p2", {z},
                                  Attributes({{"kernel_shape", I{3, 3}},
                                              {"strides", I{2, 2}},
                                              {"ceil_mode", int64_t{1}}}))),
            (Shape{1, 96, 55, 55}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::AveragePool, "ap", {z},
                                  Attributes({{"kernel_shape", I{5, 5}}, {"strides", I{3, 3}}}))),
            (Shape{1, 96, 36, 36}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::GlobalAveragePool, "gap", {z})), (Shape{1, 96, 1, 1}));
  expect_error([&] { g.add_op(OpKind::MaxPool, "nok", {z}); },
               {"op 'nok' (MaxPool)", "kernel_shape"});
}

TEST(ShapeInference, Normalisation) {
  Graph g;
  int x = g.add_input("x", {2, 16, 8, 8});
  int s = g.add_weight("s", {16}), b = g.add_weight("b", {16}), m = g.add_weight("m", {16}),
      v = g.add_weight("v", {16});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::BatchNormalization, "bn", {x, s, b, m, v})),
            (Shape{2, 16, 8, 8}));
  int s7 = g.add_weight("s7", {7});
  expect_error(
      [&] {
        g.add_op(OpKind::BatchNormalization, "bn2", {x, s7, b, m, v});
      },
      {"op 'bn2' (BatchNormalization)", "scale has shape [7]", "[16]"});
  int t = g.add_input("t", {4, 128, 768});
  int gam = g.add_weight("gam", {768}), bet = g.add_weight("bet", {768});
  int ln = g.add_op(OpKind::LayerNormalization, "ln", {t, gam, bet}, Attributes({}), 3);
  EXPECT_EQ(out_shape(g, ln), (Shape{4, 128, 768}));
  EXPECT_EQ(out_shape(g, ln, 1), (Shape{4, 128, 1}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Softmax, "sm", {t}, Attributes({{"axis", int64_t{1}}}))),
            (Shape{4, 128, 768}));
  expect_error(
      [&] {
        g.add_op(OpKind::Softmax, "sm2", {t}, Attributes({{"axis", int64_t{3}}}));
      },
      {"op 'sm2' (Softmax)", "out of range for rank 3"});
}

TEST(ShapeInference, ElementwiseBroadcastClipCastDropout) {
  Graph g;
  int a = g.add_input("a", {8, 1, 6, 1});
  int b = g.add_input("b", {7, 1, 5});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Add, "add", {a, b})), (Shape{8, 7, 6, 5}));
  int c = g.add_input("c", {3});
  expect_error(
      [&] {
        g.add_op(OpKind::Mul, "mul", {b, c});
      },
      {"op 'mul' (Mul)", "[7,1,5] and [3] do not broadcast"});
  int d5 = g.add_input("d5", {5});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Max, "mx3", {a, b, d5})), (Shape{8, 7, 6, 5}));
  int lo = g.add_constant_floats("lo", {}, {0.f});
  int hi = g.add_constant_floats("hi", {}, {6.f});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Clip, "clip", {a, lo, hi})), (Shape{8, 1, 6, 1}));
  int r = g.add_op(OpKind::Relu, "relu", {b});
  EXPECT_EQ(out_shape(g, r), (Shape{7, 1, 5}));
  int cast = g.add_op(OpKind::Cast, "cast", {b}, Attributes({{"to", int64_t{7}}}));
  EXPECT_EQ(g.tensor(g.op(cast).outputs[0]).dtype, DType::I64);
  expect_error(
      [&] {
        g.add_op(OpKind::Add, "mixed", {g.op(cast).outputs[0], b});
      },
      {"op 'mixed' (Add)", "int64", "float32"});
  int d = g.add_op(OpKind::Dropout, "drop", {a}, Attributes({}), 2);
  EXPECT_EQ(out_shape(g, d, 1), (Shape{8, 1, 6, 1}));
  EXPECT_EQ(g.tensor(g.op(d).outputs[1]).dtype, DType::Bool);
}

TEST(ShapeInference, ConcatAndSplit) {
  Graph g;
  int a = g.add_input("a", {1, 64, 28, 28});
  int b = g.add_input("b", {1, 32, 28, 28});
  EXPECT_EQ(
      out_shape(g, g.add_op(OpKind::Concat, "cat", {a, b}, Attributes({{"axis", int64_t{1}}}))),
      (Shape{1, 96, 28, 28}));
  expect_error(
      [&] {
        g.add_op(OpKind::Concat, "cat2", {a, b}, Attributes({{"axis", int64_t{2}}}));
      },
      {"op 'cat2' (Concat)", "input 1 has shape [1,32,28,28]"});
  int sizes = g.add_constant_ints("sizes", {16, 48});
  int s = g.add_op(OpKind::Split, "split", {a, sizes}, Attributes({{"axis", int64_t{1}}}), 2);
  EXPECT_EQ(out_shape(g, s, 0), (Shape{1, 16, 28, 28}));
  EXPECT_EQ(out_shape(g, s, 1), (Shape{1, 48, 28, 28}));
  int e = g.add_op(OpKind::Split, "split_eq", {a}, Attributes({{"axis", int64_t{-1}}}), 4);
  EXPECT_EQ(out_shape(g, e, 3), (Shape{1, 64, 28, 7}));
  int n = g.add_op(OpKind::Split, "split_n", {b},
                   Attributes({{"axis", int64_t{1}}, {"num_outputs", int64_t{3}}}), 3);
  EXPECT_EQ(out_shape(g, n, 0), (Shape{1, 11, 28, 28}));
  EXPECT_EQ(out_shape(g, n, 2), (Shape{1, 10, 28, 28}));
  int at = g.add_op(OpKind::Split, "split_attr", {b},
                    Attributes({{"axis", int64_t{1}}, {"split", I{30, 2}}}), 2);
  EXPECT_EQ(out_shape(g, at, 1), (Shape{1, 2, 28, 28}));
  int bad = g.add_constant_ints("bad", {16, 40});
  expect_error(
      [&] {
        g.add_op(OpKind::Split, "sb", {a, bad}, Attributes({{"axis", int64_t{1}}}), 2);
      },
      {"op 'sb' (Split)", "sum to 56", "size 64"});
}

TEST(ShapeInference, Slice) {
  Graph g;
  int x = g.add_input("x", {2, 10, 20, 5});
  auto cst = [&](const std::string& n, I v) { return g.add_constant_ints(n, v); };
  // axis 1: 1..1000 clamps to 1..10 -> 9; axis 2: -15..-1 step 2 -> 5..19 step 2 -> 7
  int s = g.add_op(
      OpKind::Slice, "s",
      {x, cst("st", {1, -15}), cst("en", {1000, -1}), cst("ax", {1, 2}), cst("sp", {1, 2})});
  EXPECT_EQ(out_shape(g, s), (Shape{2, 9, 7, 5}));
  // reversed: start -1 -> 4, end INT_MIN clamps to -1 -> 5 elements
  int r = g.add_op(OpKind::Slice, "r",
                   {x, cst("st2", {-1}), cst("en2", {-9223372036854775807LL}), cst("ax2", {3}),
                    cst("sp2", {-1})});
  EXPECT_EQ(out_shape(g, r), (Shape{2, 10, 20, 5}));
  int e = g.add_op(OpKind::Slice, "e", {x, cst("st3", {7}), cst("en3", {3}), cst("ax3", {-3})});
  EXPECT_EQ(out_shape(g, e), (Shape{2, 0, 20, 5}));
  int y = g.add_input("y", {3});
  expect_error(
      [&] {
        g.add_op(OpKind::Slice, "bad", {x, y, y});
      },
      {"op 'bad' (Slice)", "starts (input 'y') is a input", "Constant"});
}

TEST(ShapeInference, ReshapeTransposeFlattenSqueeze) {
  Graph g;
  int x = g.add_input("x", {2, 3, 4, 5});
  int sh = g.add_constant_ints("sh", {0, -1, 10});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Reshape, "r", {x, sh})), (Shape{2, 6, 10}));
  int bad = g.add_constant_ints("bad", {7, -1});
  expect_error(
      [&] {
        g.add_op(OpKind::Reshape, "rb", {x, bad});
      },
      {"op 'rb' (Reshape)", "cannot infer the -1"});
  int z = g.add_input("z", {0, 4});
  int sz = g.add_constant_ints("sz", {4, 0});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Reshape, "rz", {z, sz},
                                  Attributes({{"allowzero", int64_t{1}}}))),
            (Shape{4, 0}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Transpose, "t", {x})), (Shape{5, 4, 3, 2}));
  EXPECT_EQ(
      out_shape(g, g.add_op(OpKind::Transpose, "t2", {x}, Attributes({{"perm", I{0, 2, 3, 1}}}))),
      (Shape{2, 4, 5, 3}));
  expect_error(
      [&] {
        g.add_op(OpKind::Transpose, "tb", {x}, Attributes({{"perm", I{0, 1, 1, 2}}}));
      },
      {"op 'tb' (Transpose)", "permutation"});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Flatten, "f", {x})), (Shape{2, 60}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Flatten, "f0", {x}, Attributes({{"axis", int64_t{0}}}))),
            (Shape{1, 120}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Flatten, "f3", {x}, Attributes({{"axis", int64_t{-1}}}))),
            (Shape{24, 5}));
  int y = g.add_input("y", {1, 3, 1, 5});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Squeeze, "sq", {y})), (Shape{3, 5}));
  int ax = g.add_constant_ints("ax", {-2});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Squeeze, "sq2", {y, ax})), (Shape{1, 3, 5}));
  int ax1 = g.add_constant_ints("ax1", {1});
  expect_error(
      [&] {
        g.add_op(OpKind::Squeeze, "sqb", {x, ax1});
      },
      {"op 'sqb' (Squeeze)", "has size 3"});
  int ua = g.add_constant_ints("ua", {0, -1});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Unsqueeze, "us", {y, ua})), (Shape{1, 1, 3, 1, 5, 1}));
}

TEST(ShapeInference, PadResizeDepthSpaceGatherExpandReduce) {
  Graph g;
  int x = g.add_input("x", {1, 8, 10, 12});
  int pads = g.add_constant_ints("pads", {0, 0, 1, 2, 0, 0, 3, 4});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Pad, "pad", {x, pads},
                                  Attributes({{"mode", std::string("reflect")}}))),
            (Shape{1, 8, 14, 18}));
  int scales = g.add_constant_floats("scales", {4}, {1.f, 1.f, 2.f, 1.5f});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Resize, "up", {x, -1, scales})), (Shape{1, 8, 20, 18}));
  int sizes = g.add_constant_ints("sizes", {1, 8, 7, 9});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Resize, "rs", {x, -1, -1, sizes},
                                  Attributes({{"mode", std::string("linear")}}))),
            (Shape{1, 8, 7, 9}));
  expect_error([&] { g.add_op(OpKind::Resize, "rbad", {x}); },
               {"op 'rbad' (Resize)", "neither scales nor sizes"});
  EXPECT_EQ(
      out_shape(g, g.add_op(OpKind::DepthToSpace, "d2s", {x},
                            Attributes({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}))),
      (Shape{1, 2, 20, 24}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::SpaceToDepth, "s2d", {x},
                                  Attributes({{"blocksize", int64_t{2}}}))),
            (Shape{1, 32, 5, 6}));
  int emb = g.add_weight("emb", {1000, 64});
  int ids = g.add_input("ids", {4, 16}, DType::I64);
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Gather, "gather", {emb, ids})), (Shape{4, 16, 64}));
  expect_error(
      [&] {
        g.add_op(OpKind::Gather, "gbad", {emb, x});
      },
      {"op 'gbad' (Gather)", "indices are float32"});
  int es = g.add_constant_ints("es", {3, 1, 1, 1});
  int one = g.add_input("one", {1, 8, 1, 12});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::Expand, "ex", {one, es})), (Shape{3, 8, 1, 12}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::ReduceMean, "rm", {x}, Attributes({{"axes", I{2, 3}}}))),
            (Shape{1, 8, 1, 1}));
  int rax = g.add_constant_ints("rax", {1});
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::ReduceSum, "rsum", {x, rax},
                                  Attributes({{"keepdims", int64_t{0}}}))),
            (Shape{1, 10, 12}));
  EXPECT_EQ(out_shape(g, g.add_op(OpKind::ReduceMax, "rmax", {x},
                                  Attributes({{"keepdims", int64_t{0}}}))),
            (Shape{}));
}

TEST(ShapeInference, InferShapesRecomputesAChain) {
  Graph g;
  int x = g.add_input("x", {1, 3, 32, 32});
  int w = g.add_weight("w", {8, 3, 3, 3});
  int c = g.add_op(OpKind::Conv, "c", {x, w}, Attributes({{"pads", I{1, 1, 1, 1}}}));
  int r = g.add_op(OpKind::Relu, "r", {g.op(c).outputs[0]});
  g.tensor(x).shape = {2, 3, 16, 16};
  infer_shapes(g);
  EXPECT_EQ(out_shape(g, r), (Shape{2, 8, 16, 16}));
}

}  // namespace
}  // namespace dgs
