// validate(): cycles, dangling inputs, arity, stale shapes.
#include <gtest/gtest.h>

#include <string>

#include "common/graph/graph.h"
#include "common/graph/shape_inference.h"

namespace dgs {
namespace {

std::string error_of(const Graph& g) {
  try {
    validate(g);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

int activation(Graph& g, const std::string& name, Shape s) {
  Tensor t;
  t.name = name;
  t.shape = std::move(s);
  return g.add_tensor(std::move(t));
}

Op make_op(const std::string& name, OpKind k, std::vector<int> in, std::vector<int> out) {
  Op op;
  op.name = name;
  op.kind = k;
  op.inputs = std::move(in);
  op.outputs = std::move(out);
  return op;
}

TEST(Validate, AcceptsAWellFormedGraph) {
  Graph g;
  g.name = "ok";
  int x = g.add_input("x", {1, 3, 8, 8});
  int w = g.add_weight("w", {4, 3, 1, 1});
  int c = g.add_op(OpKind::Conv, "c", {x, w});
  int r = g.add_op(OpKind::Relu, "r", {g.op(c).outputs[0]});
  g.mark_output(g.op(r).outputs[0]);
  EXPECT_EQ(error_of(g), "");
}

TEST(Validate, CycleNamesGraphAndOp) {
  Graph g;
  g.name = "loop";
  int x = g.add_input("x", {4});
  int a = activation(g, "a", {4});
  int b = activation(g, "b", {4});
  g.add_op_unchecked(make_op("first", OpKind::Add, {x, b}, {a}));
  g.add_op_unchecked(make_op("second", OpKind::Relu, {a}, {b}));
  EXPECT_EQ(error_of(g), "graph 'loop' has a cycle through op 'first'");
  EXPECT_THROW(infer_shapes(g), Error);
}

TEST(Validate, InputNobodyProduces) {
  Graph g;
  g.name = "dangling";
  int ghost = activation(g, "ghost", {4});
  int y = activation(g, "y", {4});
  g.add_op_unchecked(make_op("relu", OpKind::Relu, {ghost}, {y}));
  EXPECT_EQ(error_of(g),
            "graph 'dangling': op 'relu' (Relu) reads tensor 'ghost' that no op produces; expected "
            "an op output or a graph input, weight or constant");
}

TEST(Validate, WrongArity) {
  Graph g;
  int x = g.add_input("x", {4});
  int y = activation(g, "y", {4});
  g.add_op_unchecked(make_op("add", OpKind::Add, {x}, {y}));
  EXPECT_EQ(error_of(g), "op 'add' (Add): 1 inputs; expected 2");
}

TEST(Validate, StaleShapeIsReported) {
  Graph g;
  g.name = "stale";
  int x = g.add_input("x", {1, 3, 8, 8});
  int w = g.add_weight("w", {4, 3, 3, 3});
  int c = g.add_op(OpKind::Conv, "conv", {x, w});
  g.tensor(g.op(c).outputs[0]).shape = {1, 4, 8, 8};
  EXPECT_EQ(error_of(g),
            "graph 'stale': tensor 'conv:0' of op 'conv' (Conv) is stored as float32[1,4,8,8]; "
            "expected float32[1,4,6,6] (shape inference)");
  infer_shapes(g);
  EXPECT_EQ(error_of(g), "");
}

TEST(Validate, InconsistentInputShapeNamesTheOp) {
  Graph g;
  g.name = "bad_input";
  int x = g.add_input("x", {1, 3, 8, 8});
  int w = g.add_weight("w", {4, 3, 3, 3});
  g.add_op(OpKind::Conv, "conv", {x, w});
  g.tensor(x).shape = {1, 5, 8, 8};
  const std::string msg = error_of(g);
  EXPECT_NE(msg.find("op 'conv' (Conv): input channels 5"), std::string::npos) << msg;
}

TEST(Validate, TwoProducers) {
  Graph g;
  g.name = "dup";
  int x = g.add_input("x", {4});
  int y = activation(g, "y", {4});
  Op a = make_op("a", OpKind::Relu, {x}, {y});
  Op b = make_op("b", OpKind::Relu, {x}, {y});
  g.add_op_unchecked(a);
  EXPECT_THROW(g.add_op_unchecked(b), Error);  // rebuild_links refuses two producers
}

}  // namespace
}  // namespace dgs
