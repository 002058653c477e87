// Op cost: FLOPs, MACs, bytes and parameters per op, per fused group and of zoo networks.
#include <gtest/gtest.h>

#include "common/graph/graph.h"
#include "common/graph/op_cost.h"
#include "models/zoo.h"

namespace dgs {
namespace {

using I = std::vector<int64_t>;

int out(const Graph& g, int op) {
  return g.op(op).outputs[0];
}

TEST(OpCost, ConvFlopsMacsBytesParams) {
  Graph g;
  int x = g.add_input("x", {1, 64, 56, 56});
  int w = g.add_weight("w", {64, 64, 3, 3});
  int c = g.add_op(OpKind::Conv, "c", {x, w}, Attributes({{"pads", I{1, 1, 1, 1}}}));
  OpCost cost = op_cost(g, c);
  EXPECT_EQ(cost.flops, 2LL * 64 * 64 * 9 * 56 * 56);
  EXPECT_EQ(cost.macs, 64LL * 64 * 9 * 56 * 56);
  EXPECT_EQ(cost.params, 64 * 64 * 9);
  EXPECT_EQ(cost.bytes_read, 4LL * (64 * 56 * 56 + 64 * 64 * 9));
  EXPECT_EQ(cost.bytes_written, 4LL * 64 * 56 * 56);
  // With a bias: one add per output element; grouped: C_in/group MACs per output.
  int b = g.add_weight("b", {64});
  int wg = g.add_weight("wg", {64, 16, 3, 3});
  int cg = g.add_op(OpKind::Conv, "cg", {x, wg, b},
                    Attributes({{"pads", I{1, 1, 1, 1}}, {"group", int64_t{4}}}));
  EXPECT_EQ(op_cost(g, cg).macs, 64LL * 16 * 9 * 56 * 56);
  EXPECT_EQ(op_cost(g, cg).flops, 2LL * 64 * 16 * 9 * 56 * 56 + 64 * 56 * 56);
  EXPECT_EQ(op_cost(g, cg).params, 64 * 16 * 9 + 64);
}

TEST(OpCost, MatMulGemmPoolElementwiseAndMovement) {
  Graph g;
  int a = g.add_input("a", {4, 128, 64});
  int b = g.add_weight("b", {64, 32});
  int mm = g.add_op(OpKind::MatMul, "mm", {a, b});
  EXPECT_EQ(op_cost(g, mm).macs, 4LL * 128 * 32 * 64);
  EXPECT_EQ(op_cost(g, mm).flops, 2LL * 4 * 128 * 32 * 64);
  int x = g.add_input("x", {64, 10});
  int wt = g.add_weight("wt", {7, 64}), bias = g.add_weight("bias", {7});
  int gemm = g.add_op(OpKind::Gemm, "gemm", {x, wt, bias},
                      Attributes({{"transA", int64_t{1}}, {"transB", int64_t{1}}}));
  EXPECT_EQ(op_cost(g, gemm).macs, 10LL * 7 * 64);
  EXPECT_EQ(op_cost(g, gemm).flops, 2LL * 10 * 7 * 64 + 10 * 7);
  int img = g.add_input("img", {1, 8, 10, 10});
  int mp = g.add_op(OpKind::MaxPool, "mp", {img},
                    Attributes({{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}}));
  EXPECT_EQ(op_cost(g, mp).flops, 8LL * 5 * 5 * 4);
  int relu = g.add_op(OpKind::Relu, "relu", {img});
  EXPECT_EQ(op_cost(g, relu).flops, 800);
  EXPECT_EQ(op_cost(g, relu).bytes_read, 3200);
  int add = g.add_op(OpKind::Add, "add", {img, img});
  EXPECT_EQ(op_cost(g, add).flops, 800);
  EXPECT_EQ(op_cost(g, add).bytes_read, 3200);  // the same tensor twice is read once
  int t = g.add_op(OpKind::Transpose, "t", {img});
  EXPECT_EQ(op_cost(g, t).flops, 0);
  EXPECT_EQ(op_cost(g, t).bytes_written, 3200);
  int st = g.add_constant_ints("st", {0}), en = g.add_constant_ints("en", {2}),
      ax = g.add_constant_ints("ax", {1});
  int sl = g.add_op(OpKind::Slice, "sl", {img, st, en, ax});
  EXPECT_EQ(op_cost(g, sl).bytes_read, 4 * 200);  // only the selected elements
  int emb = g.add_weight("emb", {1000, 16});
  int ids = g.add_input("ids", {5}, DType::I64);
  int ga = g.add_op(OpKind::Gather, "ga", {emb, ids});
  EXPECT_EQ(op_cost(g, ga).bytes_read, 5 * 16 * 4 + 5 * 8);
  EXPECT_EQ(op_cost(g, ga).params, 16000);
  GraphCost gc = graph_cost(g);
  EXPECT_EQ(gc.total.flops,
            op_cost(g, mm).flops + op_cost(g, gemm).flops + op_cost(g, mp).flops + 800 + 800);
  EXPECT_EQ(gc.total.params, 64 * 32 + 7 * 64 + 7 + 16000);
  EXPECT_EQ(parameter_count(g), gc.total.params);
}

TEST(OpCost, FusedGroupCountsOnlyExternalTraffic) {
  // conv -> relu -> conv2, relu also read outside the group by a sigmoid.
  Graph g;
  int x = g.add_input("x", {1, 4, 8, 8});
  int w = g.add_weight("w", {4, 4, 1, 1});
  int c = g.add_op(OpKind::Conv, "c", {x, w});
  int r = g.add_op(OpKind::Relu, "r", {out(g, c)});
  int c2 = g.add_op(OpKind::Conv, "c2", {out(g, r), w});
  int s = g.add_op(OpKind::Sigmoid, "s", {out(g, r)});
  g.mark_output(out(g, c2));
  g.mark_output(out(g, s));
  OpCost gc = group_cost(g, {c, r, c2});
  EXPECT_EQ(gc.flops, op_cost(g, c).flops + op_cost(g, r).flops + op_cost(g, c2).flops);
  EXPECT_EQ(gc.params, 16);                  // w once
  EXPECT_EQ(gc.bytes_read, 4 * (256 + 16));  // x and w; c:0 and r:0 stay inside
  EXPECT_EQ(gc.bytes_written, 4 * 2 * 256);  // r:0 (read by s) and c2:0 (graph output)
}

// Published model sizes (torchvision's model documentation: "GFLOPS" there counts
// multiply-adds): ResNet-50 4.09 G and VGG-16 15.47 G; VGG-16 has 138,357,544 parameters.
TEST(OpCost, ZooModelsMatchPublishedSizes) {
  const GraphCost resnet = graph_cost(build_zoo_model("resnet50"));
  EXPECT_NEAR(static_cast<double>(resnet.total.macs) / 1e9, 4.09, 0.005);
  const Graph vgg = build_zoo_model("vgg16");
  EXPECT_NEAR(static_cast<double>(graph_cost(vgg).total.macs) / 1e9, 15.47, 0.005);
  EXPECT_EQ(parameter_count(vgg), 138357544);
}

}  // namespace
}  // namespace dgs
