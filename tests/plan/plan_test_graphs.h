#pragma once
// Small graphs and helpers shared by the plan tests.
#include <gtest/gtest.h>

#include <string>

#include "common/graph/graph.h"
#include "common/plan/plan.h"

namespace dgs {

// a -> b -> c, a -> d (element-wise on [1, 8]); outputs c and d.
inline Graph chain_graph() {
  Graph g;
  g.name = "chain";
  const int x = g.add_input("x", {1, 8});
  const int a = g.add_op(OpKind::Relu, "a", {x});
  const int b = g.add_op(OpKind::Sigmoid, "b", {g.op(a).outputs[0]});
  const int c = g.add_op(OpKind::Tanh, "c", {g.op(b).outputs[0]});
  const int d = g.add_op(OpKind::Neg, "d", {g.op(a).outputs[0]});
  g.mark_output(g.op(c).outputs[0]);
  g.mark_output(g.op(d).outputs[0]);
  return g;
}

// x [1,4,8,8] -> conv (8 filters 3x3, pad 1, bias) -> relu -> y.
inline Graph conv_relu_graph() {
  Graph g;
  g.name = "conv_relu";
  const int x = g.add_input("x", {1, 4, 8, 8});
  const int w = g.add_weight("w", {8, 4, 3, 3});
  const int b = g.add_weight("b", {8});
  const int c = g.add_op(
      OpKind::Conv, "conv", {x, w, b},
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const int r = g.add_op(OpKind::Relu, "relu", {g.op(c).outputs[0]}, {}, 1, {"y"});
  g.mark_output(g.op(r).outputs[0]);
  return g;
}

// Expects p.check(g, target) to throw one line containing `needle`.
inline void expect_check_error(const Graph& g, const Plan& p, const std::string& needle,
                               const PlanTarget* target = nullptr) {
  try {
    p.check(g, target);
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(needle), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace dgs
