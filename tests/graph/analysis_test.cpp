// Analyses: FLOPs/bytes/params, transitive closure, width, blocks, IOS schedule units.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/graph/analysis.h"
#include "common/graph/graph.h"
#include "models/zoo.h"

namespace dgs {
namespace {

using I = std::vector<int64_t>;

int out(const Graph& g, int op) {
  return g.op(op).outputs[0];
}

// "<prefix><i>" (built with append: GCC 12 warns falsely on `"r" + std::to_string(i)` at -O3).
std::string name_of(const std::string& prefix, int i) {
  std::string s = prefix;
  s.append(std::to_string(i));
  return s;
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

// a -> {b, c} -> d (diamond); e independent of everything after a.
struct Diamond {
  Graph g;
  int a, b, c, d;
  Diamond() {
    int x = g.add_input("x", {1, 4, 8, 8});
    a = g.add_op(OpKind::Relu, "a", {x});
    b = g.add_op(OpKind::Sigmoid, "b", {out(g, a)});
    c = g.add_op(OpKind::Tanh, "c", {out(g, a)});
    d = g.add_op(OpKind::Add, "d", {out(g, b), out(g, c)});
    g.mark_output(out(g, d));
  }
};

TEST(Analysis, TransitiveClosureOfADiamond) {
  Diamond m;
  OpDag dag = op_dag(m.g);
  TransitiveClosure tc = transitive_closure(dag);
  EXPECT_TRUE(tc.reaches(m.a, m.d));
  EXPECT_TRUE(tc.reaches(m.a, m.b));
  EXPECT_FALSE(tc.reaches(m.d, m.a));
  EXPECT_FALSE(tc.reaches(m.b, m.c));
  EXPECT_TRUE(tc.independent(m.b, m.c));
  EXPECT_FALSE(tc.independent(m.a, m.c));
  EXPECT_EQ(tc.descendants[m.a].members(), (std::vector<int>{m.b, m.c, m.d}));
  EXPECT_EQ(tc.ancestors[m.d].members(), (std::vector<int>{m.a, m.b, m.c}));
}

TEST(Analysis, WidthOfDiamondAndParallelChains) {
  Diamond m;
  EXPECT_EQ(graph_width(m.g), 2);
  // Three parallel chains of lengths 3, 2, 4 from one input, joined by a Concat.
  Graph g;
  int x = g.add_input("x", {1, 4, 8, 8});
  std::vector<int> tails;
  int n = 0;
  for (int len : {3, 2, 4}) {
    int t = x;
    for (int i = 0; i < len; ++i) t = out(g, g.add_op(OpKind::Relu, name_of("r", n++), {t}));
    tails.push_back(t);
  }
  int cat = g.add_op(OpKind::Concat, "cat", tails, Attributes({{"axis", int64_t{1}}}));
  g.mark_output(out(g, cat));
  OpDag dag = op_dag(g);
  TransitiveClosure tc = transitive_closure(dag);
  WidthResult w = dag_width(dag, tc);
  EXPECT_EQ(w.width, 3);
  ASSERT_EQ(w.antichain.size(), 3u);
  for (int u : w.antichain) {
    for (int v : w.antichain) {
      if (u != v) {
        EXPECT_TRUE(tc.independent(u, v));
      }
    }
  }
  ASSERT_EQ(w.chains.size(), 3u);
  size_t covered = 0;
  for (const auto& ch : w.chains) {
    covered += ch.size();
    for (size_t i = 1; i < ch.size(); ++i) EXPECT_TRUE(tc.reaches(ch[i - 1], ch[i]));
  }
  EXPECT_EQ(covered, static_cast<size_t>(g.num_ops()));
  // Width of a subset: the first chain plus the concat is a chain.
  EXPECT_EQ(dag_width(dag, tc, {0, 1, 2, cat}).width, 1);
  EXPECT_EQ(dag_width(dag, tc, {0, 3, 5}).width, 3);
}

TEST(Analysis, BlocksCutAtArticulationOps) {
  // stem: r0 -> r1 ; block: r1 -> {p, q -> q2} -> add ; tail: add -> r2
  Graph g;
  int x = g.add_input("x", {1, 4, 8, 8});
  int r0 = g.add_op(OpKind::Relu, "r0", {x});
  int r1 = g.add_op(OpKind::Relu, "r1", {out(g, r0)});
  int p = g.add_op(OpKind::Sigmoid, "p", {out(g, r1)});
  int q = g.add_op(OpKind::Tanh, "q", {out(g, r1)});
  int q2 = g.add_op(OpKind::Tanh, "q2", {out(g, q)});
  int add = g.add_op(OpKind::Add, "add", {out(g, p), out(g, q2)});
  int r2 = g.add_op(OpKind::Relu, "r2", {out(g, add)});
  int r3 = g.add_op(OpKind::Relu, "r3", {out(g, r2)});
  g.mark_output(out(g, r3));
  OpDag dag = op_dag(g);
  TransitiveClosure tc = transitive_closure(dag);
  EXPECT_EQ(cut_nodes(dag, tc), (std::vector<int>{r0, r1, add, r2, r3}));
  EXPECT_EQ(dag_blocks(dag, tc, {.merge_chains = false}),
            (std::vector<std::vector<int>>{{r0}, {r1}, {p, q, q2, add}, {r2}, {r3}}));
  EXPECT_EQ(graph_blocks(g), (std::vector<std::vector<int>>{{r0, r1}, {p, q, q2, add}, {r2, r3}}));
}

TEST(Analysis, SkipConnectionIsNotACut) {
  // Residual: r0 -> conv-like chain (s1 -> s2) -> add(r0, s2). s1 and s2 are bypassed.
  Graph g;
  int x = g.add_input("x", {1, 4, 8, 8});
  int r0 = g.add_op(OpKind::Relu, "r0", {x});
  int s1 = g.add_op(OpKind::Sigmoid, "s1", {out(g, r0)});
  int s2 = g.add_op(OpKind::Sigmoid, "s2", {out(g, s1)});
  int add = g.add_op(OpKind::Add, "add", {out(g, r0), out(g, s2)});
  g.mark_output(out(g, add));
  OpDag dag = op_dag(g);
  EXPECT_EQ(cut_nodes(dag, transitive_closure(dag)), (std::vector<int>{r0, add}));
  // A second graph input consumed late also breaks the cut before it.
  Graph h;
  int a = h.add_input("a", {4});
  int b = h.add_input("b", {4});
  int u = h.add_op(OpKind::Relu, "u", {a});
  int v = h.add_op(OpKind::Relu, "v", {out(h, u)});
  int w = h.add_op(OpKind::Add, "w", {out(h, v), b});
  h.mark_output(out(h, w));
  OpDag hd = op_dag(h);
  EXPECT_EQ(cut_nodes(hd, transitive_closure(hd)), (std::vector<int>{w}));
  EXPECT_EQ(graph_blocks(h), (std::vector<std::vector<int>>{{u, v, w}}));
}

// conv -> relu -> {conv1 -> relu1, relu -> dwconv -> pwconv -> bn} -> concat -> flatten
TEST(Analysis, CompoundOperators) {
  Graph g;
  int x = g.add_input("x", {1, 8, 16, 16});
  int w0 = g.add_weight("w0", {16, 8, 3, 3}), b0 = g.add_weight("b0", {16});
  int c0 = g.add_op(OpKind::Conv, "c0", {x, w0, b0}, Attributes({{"pads", I{1, 1, 1, 1}}}));
  int r0 = g.add_op(OpKind::Relu, "r0", {out(g, c0)});
  int w1 = g.add_weight("w1", {16, 16, 1, 1});
  int c1 = g.add_op(OpKind::Conv, "c1", {out(g, r0), w1});
  int r1 = g.add_op(OpKind::Relu, "r1", {out(g, c1)});
  int pre = g.add_op(OpKind::Relu, "pre", {out(g, r0)});
  int wd = g.add_weight("wd", {16, 1, 3, 3});
  int dw = g.add_op(OpKind::Conv, "dw", {out(g, pre), wd},
                    Attributes({{"group", int64_t{16}}, {"pads", I{1, 1, 1, 1}}}));
  int wp = g.add_weight("wp", {16, 16, 1, 1});
  int pw = g.add_op(OpKind::Conv, "pw", {out(g, dw), wp});
  int s = g.add_weight("s", {16}), bb = g.add_weight("bb", {16}), mu = g.add_weight("mu", {16}),
      var = g.add_weight("var", {16});
  int bn = g.add_op(OpKind::BatchNormalization, "bn", {out(g, pw), s, bb, mu, var});
  int cat =
      g.add_op(OpKind::Concat, "cat", {out(g, r1), out(g, bn)}, Attributes({{"axis", int64_t{1}}}));
  int fl = g.add_op(OpKind::Flatten, "fl", {out(g, cat)});
  g.mark_output(out(g, fl));

  OpGrouping grouping = compound_operators(g);
  ASSERT_EQ(grouping.units.size(), 4u);
  EXPECT_EQ(grouping.units[0].ops, (std::vector<int>{c0, r0}));
  EXPECT_EQ(grouping.units[0].pattern, "Conv-Relu");
  EXPECT_EQ(grouping.units[1].ops, (std::vector<int>{c1, r1}));
  EXPECT_EQ(grouping.units[2].ops, (std::vector<int>{pre, dw, pw, bn}));
  EXPECT_EQ(grouping.units[2].pattern, "Relu-SepConv-BatchNormalization");
  EXPECT_EQ(grouping.units[3].ops, (std::vector<int>{cat, fl}));  // Flatten joins its producer
  EXPECT_EQ(grouping.unit_of_op[bn], 2);
  EXPECT_EQ(ios_operator_count(g), 4);
  // Without the patterns, every op except the absorbed Flatten is a unit.
  EXPECT_EQ(ios_operator_count(g, {.relu_sepconv = false,
                                   .epilogue = false,
                                   .pre_activation = false,
                                   .absorb_layout_ops = true}),
            9);
  // The unit DAG: Conv-Relu feeds both branches, which feed the concat.
  OpDag ud = unit_dag(g, grouping.unit_ops());
  EXPECT_EQ(ud.succ[0], (std::vector<int>{1, 2}));
  EXPECT_EQ(dag_width(ud, transitive_closure(ud)).width, 2);
}

TEST(Analysis, ReluWithTwoConsumersStaysAlone) {
  Graph g;
  int x = g.add_input("x", {1, 8, 8, 8});
  int w = g.add_weight("w", {8, 8, 1, 1});
  int c = g.add_op(OpKind::Conv, "c", {x, w});
  int r = g.add_op(OpKind::Relu, "r", {out(g, c)});
  int a = g.add_op(OpKind::Sigmoid, "a", {out(g, c)});  // conv output has two consumers
  int add = g.add_op(OpKind::Add, "add", {out(g, r), out(g, a)});
  g.mark_output(out(g, add));
  OpGrouping grouping = compound_operators(g);
  EXPECT_EQ(grouping.units.size(), 4u);
  EXPECT_EQ(grouping.units[grouping.unit_of_op[c]].ops, (std::vector<int>{c}));
}

TEST(Analysis, UnitDagRejectsACyclicContraction) {
  Diamond m;
  // {a, d} contracted with b, c outside: a -> b -> d makes a cycle through the unit.
  EXPECT_THROW(unit_dag(m.g, {{m.a, m.d}, {m.b}, {m.c}}), Error);
  EXPECT_THROW(unit_dag(m.g, {{m.a, m.d}, {m.b}}), Error);  // c in no unit
}

// IOS thesis Table 4.1: 119 operators in Inception V3, 50 in SqueezeNet.
TEST(Analysis, IosOperatorCountsOfTheZoo) {
  EXPECT_EQ(ios_operator_count(build_zoo_model("inception_v3")), 119);
  EXPECT_EQ(ios_operator_count(build_zoo_model("squeezenet")), 50);
  // RandWire (the authors' graphs): IOS's conventions for sums, its nodes' input sums are part
  // of the Relu-SepConv unit, the stage exits are Identity units, the tail Relu stands alone.
  CompoundOptions ios_sums;
  ios_sums.pre_activation = false;
  ios_sums.identity_units = true;
  ios_sums.absorb_input_sums = true;
  EXPECT_EQ(ios_operator_count(build_zoo_model("randwire"), ios_sums), 120);
}

TEST(Analysis, IdentityUnitsAndInputSums) {
  // a, b -> add0 -> add1(+c) -> relu -> dw -> pw ; add1 also feeds nothing else.
  Graph g;
  int a = g.add_input("a", {1, 4, 6, 6}), b = g.add_input("b", {1, 4, 6, 6}),
      c = g.add_input("c", {1, 4, 6, 6});
  int add0 = g.add_op(OpKind::Add, "add0", {a, b});
  int add1 = g.add_op(OpKind::Add, "add1", {out(g, add0), c});
  int relu = g.add_op(OpKind::Relu, "relu", {out(g, add1)});
  int dw = g.add_op(OpKind::Conv, "dw", {out(g, relu), g.add_weight("wd", {4, 1, 3, 3})},
                    Attributes({{"group", int64_t{4}}, {"pads", I{1, 1, 1, 1}}}));
  int pw = g.add_op(OpKind::Conv, "pw", {out(g, dw), g.add_weight("wp", {4, 4, 1, 1})});
  int id = g.add_op(OpKind::Identity, "copy", {out(g, pw)});
  int cat = g.add_op(OpKind::Concat, "cat", {out(g, id), a}, Attributes({{"axis", int64_t{1}}}));
  g.mark_output(out(g, cat));
  EXPECT_EQ(ios_operator_count(g), 4);  // add0, add1, Relu-SepConv (+ copy), cat
  CompoundOptions o;
  o.identity_units = true;
  o.absorb_input_sums = true;
  OpGrouping grouping = compound_operators(g, o);
  ASSERT_EQ(grouping.units.size(), 3u);
  EXPECT_EQ(grouping.units[0].ops, (std::vector<int>{add0, add1, relu, dw, pw}));
  EXPECT_EQ(grouping.units[1].ops, (std::vector<int>{id}));
  EXPECT_EQ(grouping.units[1].pattern, "Identity");
  EXPECT_EQ(grouping.units[2].ops, (std::vector<int>{cat}));
}

// IOS's block structure (ios.md "Block structures"; the authors' model code): Inception V3 is the
// front, 3 A, 1 B, 4 C, 1 D and 2 E blocks and the logits; SqueezeNet the front, 8 fire blocks,
// 2 pools and the tail. Sizes and widths in schedule units (thesis Table 3.1: E has n=11, d=6;
// the fire block with a bypass conv n=6, d=3).
TEST(Analysis, IosBlocksOfTheZoo) {
  auto block_shape = [](const Graph& g) {
    OpGrouping grouping = compound_operators(g);
    OpDag ud = unit_dag(g, grouping.unit_ops());
    TransitiveClosure tc = transitive_closure(ud);
    std::vector<std::pair<size_t, int>> out;
    for (const auto& b : dag_blocks(ud, tc)) out.push_back({b.size(), dag_width(ud, tc, b).width});
    return out;
  };
  using P = std::vector<std::pair<size_t, int>>;
  EXPECT_EQ(block_shape(build_zoo_model("inception_v3")), (P{{7, 1},
                                                             {9, 4},
                                                             {9, 4},
                                                             {9, 4},
                                                             {6, 3},
                                                             {12, 4},
                                                             {12, 4},
                                                             {12, 4},
                                                             {12, 4},
                                                             {8, 3},
                                                             {11, 6},
                                                             {11, 6},
                                                             {1, 1}}));
  EXPECT_EQ(block_shape(build_zoo_model("squeezenet")), (P{{2, 1},
                                                           {6, 3},
                                                           {5, 2},
                                                           {6, 3},
                                                           {1, 1},
                                                           {5, 2},
                                                           {6, 3},
                                                           {5, 2},
                                                           {6, 3},
                                                           {1, 1},
                                                           {5, 2},
                                                           {2, 1}}));
}

}  // namespace
}  // namespace dgs
