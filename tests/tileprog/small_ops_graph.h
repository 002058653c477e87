#pragma once
// A small graph with the operator forms the tile-program interpreter supports that the zoo's
// networks seldom use: strided, dilated, grouped convolution with asymmetric padding; Relu,
// Sigmoid; Softmax over a middle axis; a MatMul with a broadcast batch; Gemm with both
// transpositions and a bias; GlobalAveragePool; DepthToSpace in CRD mode. Shared by the generic
// builder's tests (tests/tileprog) and the tests of schedulers that compile to tile programs.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/graph/graph.h"

namespace dgs::testing {

inline int add_op_out(Graph& g, OpKind kind, const std::string& name,
                      const std::vector<int>& inputs, Attributes a = {}) {
  return g.op(g.add_op(kind, name, inputs, std::move(a))).outputs.at(0);
}

// conv [2,8,5,6] -> relu -> softmax(axis 1) -> sigmoid -> {gap [2,8,1,1] -> flat [2,8] -> t [8,2]
// -> gemm [2,5]; matmul [2,8,5,3]; d2s [2,2,10,12]}; outputs matmul, d2s, gemm.
inline Graph small_ops_graph() {
  Graph g;
  g.name = "small_ops";
  const int x = g.add_input("x", {2, 4, 9, 9});
  const int w = g.add_weight("w", {8, 2, 3, 3});
  const int b = g.add_weight("b", {8});
  int y = add_op_out(g, OpKind::Conv, "conv", {x, w, b},
                     Attributes({{"pads", std::vector<int64_t>{1, 0, 2, 1}},
                                 {"strides", std::vector<int64_t>{2, 1}},
                                 {"dilations", std::vector<int64_t>{1, 2}},
                                 {"group", int64_t{2}}}));
  y = add_op_out(g, OpKind::Relu, "relu", {y});
  y = add_op_out(g, OpKind::Softmax, "softmax", {y}, Attributes({{"axis", int64_t{1}}}));
  const int s = add_op_out(g, OpKind::Sigmoid, "sigmoid", {y});
  const int pool = add_op_out(g, OpKind::GlobalAveragePool, "gap", {s});  // [2,8,1,1]
  const int m = g.add_weight("m", {6, 3});
  const int mm = add_op_out(g, OpKind::MatMul, "matmul", {s, m});  // [2,8,5,6] x [6,3] broadcast
  const int d2s = add_op_out(g, OpKind::DepthToSpace, "d2s", {s},
                             Attributes({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}));
  const int flat = add_op_out(g, OpKind::Flatten, "flat", {pool});  // [2,8]
  const int wg = g.add_weight("wg", {5, 8});
  const int cg = g.add_weight("cg", {5});
  const int at = add_op_out(g, OpKind::Transpose, "t", {flat});  // [8,2]
  const int gm = add_op_out(
      g, OpKind::Gemm, "gemm", {at, wg, cg},
      Attributes({{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 0.5}, {"beta", 2.0}}));
  g.mark_output(mm);
  g.mark_output(d2s);
  g.mark_output(gm);
  return g;
}

}  // namespace dgs::testing
