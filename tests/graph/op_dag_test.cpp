// The op DAG: transitive closure, width, cut nodes and blocks, unit DAGs.
#include <gtest/gtest.h>

#include <string>

#include "common/graph/graph.h"
#include "common/graph/op_dag.h"

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

TEST(OpDag, TransitiveClosureOfADiamond) {
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

TEST(OpDag, WidthOfDiamondAndParallelChains) {
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

TEST(OpDag, BlocksCutAtArticulationOps) {
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

TEST(OpDag, SkipConnectionIsNotACut) {
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

TEST(OpDag, UnitDagRejectsACyclicContraction) {
  Diamond m;
  // {a, d} contracted with b, c outside: a -> b -> d makes a cycle through the unit.
  EXPECT_THROW(unit_dag(m.g, {{m.a, m.d}, {m.b}, {m.c}}), Error);
  EXPECT_THROW(unit_dag(m.g, {{m.a, m.d}, {m.b}}), Error);  // c in no unit
}

}  // namespace
}  // namespace dgs
