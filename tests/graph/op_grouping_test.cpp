// Layer grouping (compound operators) and the blocks of the unit DAG of zoo networks.
#include <gtest/gtest.h>

#include "common/graph/graph.h"
#include "common/graph/op_dag.h"
#include "common/graph/op_grouping.h"
#include "models/zoo.h"

namespace dgs {
namespace {

using I = std::vector<int64_t>;

int out(const Graph& g, int op) {
  return g.op(op).outputs[0];
}

// conv -> relu -> {conv1 -> relu1, relu -> dwconv -> pwconv -> bn} -> concat -> flatten
TEST(OpGrouping, CompoundOperators) {
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
  EXPECT_EQ(grouping.counted_units(), 4);
  // Without the patterns, every op except the absorbed Flatten is a unit.
  EXPECT_EQ(compound_operators(g, {.relu_sepconv = false,
                                   .epilogue = false,
                                   .pre_activation = false,
                                   .absorb_layout_ops = true})
                .counted_units(),
            9);
  // The unit DAG: Conv-Relu feeds both branches, which feed the concat.
  OpDag ud = unit_dag(g, grouping.unit_ops());
  EXPECT_EQ(ud.succ[0], (std::vector<int>{1, 2}));
  EXPECT_EQ(dag_width(ud, transitive_closure(ud)).width, 2);
}

TEST(OpGrouping, ReluWithTwoConsumersStaysAlone) {
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

TEST(OpGrouping, SumUnitsAndInputSums) {
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
  EXPECT_EQ(compound_operators(g).counted_units(), 4);  // add0, add1, Relu-SepConv (+ copy), cat
  CompoundOptions o;
  o.sum_units = true;
  o.absorb_input_sums = true;
  OpGrouping grouping = compound_operators(g, o);
  ASSERT_EQ(grouping.units.size(), 3u);
  EXPECT_EQ(grouping.units[0].ops, (std::vector<int>{add0, add1, relu, dw, pw}));
  EXPECT_EQ(grouping.units[1].ops, (std::vector<int>{id}));
  EXPECT_EQ(grouping.units[1].pattern, "Sum");
  EXPECT_EQ(grouping.units[2].ops, (std::vector<int>{cat}));
}

// IOS's block structure (ios.md "Block structures"; the authors' model code): Inception V3 is the
// front, 3 A, 1 B, 4 C, 1 D and 2 E blocks and the logits; SqueezeNet the front, 8 fire blocks,
// 2 pools and the tail. Sizes and widths in schedule units (thesis Table 3.1: E has n=11, d=6;
// the fire block with a bypass conv n=6, d=3).
TEST(OpGrouping, BlocksOfCompoundUnitsOfTheZoo) {
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
