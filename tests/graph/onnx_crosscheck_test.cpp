// Cross-check of shape inference with ONNX's own (libonnx 1.12): graphs covering every operator
// family are written to ONNX and loaded back with check_shapes_with_onnx, which compares each of
// our inferred shapes with ONNX shape inference and throws on the first difference.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include "common/graph/graph.h"
#include "common/onnx/onnx_io.h"
#include "models/zoo.h"

namespace dgs {
namespace {

using I = std::vector<int64_t>;

int out(const Graph& g, int op) {
  return g.op(op).outputs[0];
}

// Writes `g` to ONNX, loads it back with ONNX's checker and shape comparison, and checks that
// every tensor kept its shape and dtype.
void round_trip(const Graph& g) {
  onnx::ModelProto model;
  graph_to_onnx(g, &model);
  // Let ONNX infer the graph outputs' dims too (instead of keeping the ones we wrote).
  for (auto& v : *model.mutable_graph()->mutable_output()) {
    for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      d.clear_dim_value();
    }
  }
  OnnxLoadOptions opts;
  opts.check_shapes_with_onnx = true;
  Graph back = graph_from_onnx(model, g.name, opts);
  for (int t = 0; t < g.num_tensors(); ++t) {
    const Tensor& x = g.tensor(t);
    if (x.producer < 0) continue;
    const int b = back.find_tensor(x.name);
    ASSERT_GE(b, 0) << x.name;
    EXPECT_EQ(back.tensor(b).shape, x.shape) << x.name;
    EXPECT_EQ(back.tensor(b).dtype, x.dtype) << x.name;
  }
}

TEST(OnnxCrossCheck, ConvPoolLinear) {
  Graph g;
  g.name = "conv_pool_linear";
  int x = g.add_input("x", {2, 6, 17, 19});
  int w = g.add_weight("w", {8, 3, 3, 2});
  int c = g.add_op(OpKind::Conv, "conv", {x, w},
                   Attributes({{"group", int64_t{2}},
                               {"strides", I{2, 3}},
                               {"pads", I{1, 0, 2, 1}},
                               {"dilations", I{2, 1}}}));
  int ws = g.add_weight("ws", {4, 8, 3, 3});
  int s = g.add_op(OpKind::Conv, "same", {out(g, c), ws},
                   Attributes({{"auto_pad", std::string("SAME_LOWER")}, {"strides", I{2, 2}}}));
  int wt = g.add_weight("wt", {4, 2, 3, 3});
  int ct = g.add_op(
      OpKind::ConvTranspose, "deconv", {out(g, s), wt},
      Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}, {"output_padding", I{1, 0}}}));
  int mp = g.add_op(
      OpKind::MaxPool, "maxpool", {out(g, ct)},
      Attributes({{"kernel_shape", I{3, 3}}, {"strides", I{2, 2}}, {"ceil_mode", int64_t{1}}}));
  int ap = g.add_op(
      OpKind::AveragePool, "avgpool", {out(g, mp)},
      Attributes(
          {{"kernel_shape", I{2, 2}}, {"pads", I{1, 1, 1, 1}}, {"count_include_pad", int64_t{1}}}));
  int gap = g.add_op(OpKind::GlobalAveragePool, "gap", {out(g, ap)});
  int fl = g.add_op(OpKind::Flatten, "flatten", {out(g, gap)});
  int fw = g.add_weight("fw", {10, 2});
  int fb = g.add_weight("fb", {10});
  int fc = g.add_op(OpKind::Gemm, "fc", {out(g, fl), fw, fb}, Attributes({{"transB", int64_t{1}}}));
  int sm = g.add_op(OpKind::Softmax, "softmax", {out(g, fc)});
  g.mark_output(out(g, sm));
  round_trip(g);
}

TEST(OnnxCrossCheck, ElementwiseNormalisationReductions) {
  Graph g;
  g.name = "elementwise";
  int x = g.add_input("x", {2, 4, 8});
  int y = g.add_input("y", {4, 1});
  int add = g.add_op(OpKind::Add, "add", {x, y});
  int mx = g.add_op(OpKind::Max, "max3", {out(g, add), x, y});
  int lo = g.add_constant_floats("lo", {}, {0.f});
  int hi = g.add_constant_floats("hi", {}, {6.f});
  int clip = g.add_op(OpKind::Clip, "clip", {out(g, mx), lo, hi});
  int gamma = g.add_weight("gamma", {8}), beta = g.add_weight("beta", {8});
  int ln = g.add_op(OpKind::LayerNormalization, "ln", {out(g, clip), gamma, beta});
  int rm = g.add_op(OpKind::ReduceMean, "rmean", {out(g, ln)},
                    Attributes({{"axes", I{-1}}, {"keepdims", int64_t{1}}}));
  int rs = g.add_op(OpKind::ReduceSum, "rsum", {out(g, ln), g.add_constant_ints("ax", {0, 2})},
                    Attributes({{"keepdims", int64_t{0}}}));
  int cast = g.add_op(OpKind::Cast, "cast", {out(g, rs)}, Attributes({{"to", int64_t{7}}}));
  int sig = g.add_op(OpKind::Sigmoid, "sig", {out(g, rm)});
  int pw = g.add_op(OpKind::Pow, "pow", {out(g, sig), g.add_constant_floats("two", {}, {2.f})});
  g.mark_output(out(g, pw));
  g.mark_output(out(g, cast));
  int img = g.add_input("img", {1, 3, 5, 5});
  int s = g.add_weight("s", {3}), b = g.add_weight("b", {3}), m = g.add_weight("m", {3}),
      v = g.add_weight("v", {3});
  int bn = g.add_op(OpKind::BatchNormalization, "bn", {img, s, b, m, v});
  int hs = g.add_op(OpKind::HardSwish, "hswish", {out(g, bn)});
  g.mark_output(out(g, hs));
  round_trip(g);
}

TEST(OnnxCrossCheck, DataMovement) {
  Graph g;
  g.name = "movement";
  int x = g.add_input("x", {1, 8, 6, 10});
  int sp = g.add_op(OpKind::Split, "split", {x, g.add_constant_ints("sizes", {3, 5})},
                    Attributes({{"axis", int64_t{1}}}), 2);
  int cat = g.add_op(OpKind::Concat, "concat", {g.op(sp).outputs[1], g.op(sp).outputs[0]},
                     Attributes({{"axis", int64_t{1}}}));
  int sl = g.add_op(
      OpKind::Slice, "slice",
      {out(g, cat), g.add_constant_ints("st", {-1, 1}), g.add_constant_ints("en", {-100, 1000}),
       g.add_constant_ints("axs", {3, 2}), g.add_constant_ints("stp", {-3, 2})});
  int tr =
      g.add_op(OpKind::Transpose, "transpose", {out(g, sl)}, Attributes({{"perm", I{0, 3, 1, 2}}}));
  int rs =
      g.add_op(OpKind::Reshape, "reshape", {out(g, tr), g.add_constant_ints("shape", {0, -1, 3})});
  int us =
      g.add_op(OpKind::Unsqueeze, "unsqueeze", {out(g, rs), g.add_constant_ints("ua", {1, -1})});
  int sq = g.add_op(OpKind::Squeeze, "squeeze", {out(g, us), g.add_constant_ints("sa", {1})});
  int pad = g.add_op(OpKind::Pad, "pad", {x, g.add_constant_ints("pads", {0, 0, 1, 2, 0, 0, 3, 0})},
                     Attributes({{"mode", std::string("edge")}}));
  int d2s = g.add_op(OpKind::DepthToSpace, "d2s", {out(g, pad)},
                     Attributes({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}));
  int s2d =
      g.add_op(OpKind::SpaceToDepth, "s2d", {out(g, d2s)}, Attributes({{"blocksize", int64_t{2}}}));
  int up = g.add_op(OpKind::Resize, "resize",
                    {out(g, s2d), -1, g.add_constant_floats("scales", {4}, {1, 1, 1.5f, 2})});
  int sz = g.add_op(OpKind::Resize, "resize_sizes",
                    {out(g, up), -1, -1, g.add_constant_ints("resize_to", {1, 8, 5, 7})},
                    Attributes({{"mode", std::string("linear")}}));
  int emb = g.add_weight("emb", {100, 16});
  int ids = g.add_input("ids", {2, 5}, DType::I64);
  int ga = g.add_op(OpKind::Gather, "gather", {emb, ids});
  int ex =
      g.add_op(OpKind::Expand, "expand", {out(g, ga), g.add_constant_ints("es", {3, 1, 1, 1})});
  g.mark_output(out(g, sq));
  g.mark_output(out(g, sz));
  g.mark_output(out(g, ex));
  round_trip(g);
}

TEST(OnnxCrossCheck, MoreAttributesAndOperandForms) {
  Graph g;
  g.name = "forms";
  int x1 = g.add_input("x1", {1, 4, 21});
  int w1 = g.add_weight("w1", {6, 2, 4});
  int c1 = g.add_op(
      OpKind::Conv, "conv1d", {x1, w1},
      Attributes(
          {{"group", int64_t{2}}, {"auto_pad", std::string("SAME_UPPER")}, {"strides", I{4}}}));
  int x3 = g.add_input("x3", {1, 2, 7, 9, 11});
  int w3 = g.add_weight("w3", {4, 2, 3, 3, 3});
  int c3 = g.add_op(
      OpKind::Conv, "conv3d", {x3, w3},
      Attributes(
          {{"pads", I{1, 0, 2, 1, 0, 2}}, {"strides", I{2, 1, 3}}, {"dilations", I{1, 2, 1}}}));
  int mp = g.add_op(OpKind::MaxPool, "maxpool_idx", {out(g, c3)},
                    Attributes({{"kernel_shape", I{2, 2, 2}},
                                {"pads", I{1, 1, 1, 0, 0, 0}},
                                {"strides", I{2, 2, 2}},
                                {"ceil_mode", int64_t{1}}}),
                    2);
  int ap = g.add_op(
      OpKind::AveragePool, "avg_same", {out(g, c1)},
      Attributes(
          {{"kernel_shape", I{3}}, {"auto_pad", std::string("SAME_LOWER")}, {"strides", I{2}}}));
  int xt = g.add_input("xt", {1, 4, 5, 6});
  int wt = g.add_weight("wt", {4, 3, 3, 3});
  int ct = g.add_op(OpKind::ConvTranspose, "deconv_shape", {xt, wt},
                    Attributes({{"strides", I{2, 2}}, {"output_shape", I{10, 13}}}));
  int ct2 = g.add_op(
      OpKind::ConvTranspose, "deconv_same", {xt, wt},
      Attributes(
          {{"strides", I{3, 2}}, {"auto_pad", std::string("SAME_UPPER")}, {"dilations", I{2, 1}}}));
  int a = g.add_input("a", {7});
  int b = g.add_input("b", {3, 1, 7, 5});
  int mv = g.add_op(OpKind::MatMul, "vec_mat", {a, b});
  int c = g.add_input("c", {5});
  int mm = g.add_op(OpKind::MatMul, "mat_vec", {b, c});
  int d = g.add_input("d", {2, 5, 4});
  int bm = g.add_op(OpKind::MatMul, "batch_bcast", {b, d});
  int ga = g.add_input("ga", {9, 3});
  int gb = g.add_weight("gb", {9, 4});
  int gc = g.add_weight("gc", {1, 4});
  int gm = g.add_op(OpKind::Gemm, "gemm_ta", {ga, gb, gc}, Attributes({{"transA", int64_t{1}}}));
  int t = g.add_input("t", {2, 3, 4, 5});
  int sc = g.add_weight("sc", {4, 5});
  int ln =
      g.add_op(OpKind::LayerNormalization, "ln3", {t, sc}, Attributes({{"axis", int64_t{2}}}), 3);
  int dr = g.add_op(OpKind::Dropout, "dropout", {t}, Attributes({}), 2);
  int rx = g.add_op(OpKind::ReduceMax, "rmax_all", {t}, Attributes({{"keepdims", int64_t{0}}}));
  int fl = g.add_op(OpKind::Flatten, "flatten0", {t}, Attributes({{"axis", int64_t{0}}}));
  int tr = g.add_op(OpKind::Transpose, "transpose_rev", {t});
  int sq = g.add_op(OpKind::Squeeze, "squeeze_x1", {x1, g.add_constant_ints("sqa", {0})});
  for (int o : {c1, mp, ap, ct, ct2, mv, mm, bm, gm, ln, dr, rx, fl, tr, sq}) {
    for (int y : g.op(o).outputs) g.mark_output(y);
  }
  round_trip(g);
}

TEST(OnnxCrossCheck, ZooModels) {
  for (const char* name : {"resnet50", "inception_v3", "squeezenet", "mobilenet_v2"}) {
    SCOPED_TRACE(name);
    round_trip(build_zoo_model(name));
  }
}

}  // namespace
}  // namespace dgs
