// Operator tests of the CPU reference executor for the run-time attention-mask operators
// (Equal, And, Not, IsNaN, Where, GatherND): hand-computed tiny cases, shape inference of the
// same ops in a graph, and the element-wise cost rule.
#include <gtest/gtest.h>

#include <limits>

#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "common/graph/op_cost.h"

namespace dgs {
namespace {

Op make_op(OpKind kind, Attributes attrs = {}) {
  Op op;
  op.name = std::string(op_kind_name(kind)) + "_test";
  op.kind = kind;
  op.attrs = std::move(attrs);
  return op;
}

TensorData run1(const Op& op, const std::vector<const TensorData*>& in) {
  return compute_op(op, in, 1).at(0);
}

TensorData bools(Shape s, std::vector<int64_t> v) {
  return TensorData::ints(std::move(s), std::move(v), DType::Bool);
}

void expect_ints(const TensorData& got, DType dtype, const Shape& shape,
                 const std::vector<int64_t>& want) {
  EXPECT_EQ(got.dtype, dtype);
  EXPECT_EQ(got.shape, shape);
  EXPECT_EQ(got.i, want);
}

TEST(ExecLogic, EqualBroadcastsAndGivesBool) {
  const TensorData a = TensorData::ints({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorData b = TensorData::ints({3}, {1, 5, 6});
  expect_ints(run1(make_op(OpKind::Equal), {&a, &b}), DType::Bool, {2, 3}, {1, 0, 0, 0, 1, 1});
  const TensorData x = TensorData::floats({2}, {0.5f, 1.0f});
  const TensorData y = TensorData::floats({}, {1.0f});
  expect_ints(run1(make_op(OpKind::Equal), {&x, &y}), DType::Bool, {2}, {0, 1});
}

TEST(ExecLogic, AndNotTruthTables) {
  const TensorData a = bools({4}, {0, 0, 1, 1});
  const TensorData b = bools({4}, {0, 1, 0, 1});
  expect_ints(run1(make_op(OpKind::And), {&a, &b}), DType::Bool, {4}, {0, 0, 0, 1});
  expect_ints(run1(make_op(OpKind::Not), {&a}), DType::Bool, {4}, {1, 1, 0, 0});
  // [2,1] AND [1,2] broadcasts to [2,2]: rows a, columns b.
  const TensorData col = bools({2, 1}, {1, 0});
  const TensorData row = bools({1, 2}, {1, 0});
  expect_ints(run1(make_op(OpKind::And), {&col, &row}), DType::Bool, {2, 2}, {1, 0, 0, 0});
  const TensorData f = TensorData::floats({4}, {0, 1, 0, 1});
  EXPECT_THROW(run1(make_op(OpKind::And), {&f, &b}), Error);
}

TEST(ExecLogic, IsNaNMarksOnlyNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  const TensorData x =
      TensorData::floats({4}, {0.0f, std::numeric_limits<float>::quiet_NaN(), inf, -1.0f});
  expect_ints(run1(make_op(OpKind::IsNaN), {&x}), DType::Bool, {4}, {0, 1, 0, 0});
}

TEST(ExecLogic, WhereSelectsWithBroadcasting) {
  // The attention-mask pattern: Where(mask[1,1,1,3], 0, -inf-like) broadcast over the
  // condition's shape, then per-element selection between two full tensors.
  const TensorData cond = bools({1, 3}, {1, 0, 1});
  const TensorData zero = TensorData::floats({}, {0.0f});
  const TensorData low = TensorData::floats({}, {-3.4e38f});
  const TensorData m = run1(make_op(OpKind::Where), {&cond, &zero, &low});
  EXPECT_EQ(m.dtype, DType::F32);
  EXPECT_EQ(m.shape, (Shape{1, 3}));
  EXPECT_EQ(m.f, (std::vector<float>{0.0f, -3.4e38f, 0.0f}));
  const TensorData c2 = bools({2, 1}, {1, 0});
  const TensorData x = TensorData::floats({2, 2}, {1, 2, 3, 4});
  const TensorData y = TensorData::floats({2}, {10, 20});
  const TensorData w = run1(make_op(OpKind::Where), {&c2, &x, &y});
  EXPECT_EQ(w.f, (std::vector<float>{1, 2, 10, 20}));
  const TensorData xi = TensorData::ints({2}, {7, 8});
  const TensorData yi = TensorData::ints({2}, {-1, -2});
  const TensorData ci = bools({2}, {0, 1});
  expect_ints(run1(make_op(OpKind::Where), {&ci, &xi, &yi}), DType::I64, {2}, {-1, 8});
}

TEST(ExecGatherND, ONNXExamplesHandComputed) {
  // ONNX GatherND examples 1, 2 and 4 (batch_dims 0) and 5 (batch_dims 1).
  const TensorData d2 = TensorData::ints({2, 2}, {0, 1, 2, 3});
  const TensorData i1 = TensorData::ints({2, 2}, {0, 0, 1, 1});
  expect_ints(run1(make_op(OpKind::GatherND), {&d2, &i1}), DType::I64, {2}, {0, 3});
  const TensorData i2 = TensorData::ints({2, 1}, {1, 0});
  expect_ints(run1(make_op(OpKind::GatherND), {&d2, &i2}), DType::I64, {2, 2}, {2, 3, 0, 1});
  const TensorData d3 = TensorData::ints({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const TensorData i4 = TensorData::ints({2, 1, 2}, {0, 1, 1, 0});
  expect_ints(run1(make_op(OpKind::GatherND), {&d3, &i4}), DType::I64, {2, 1, 2}, {2, 3, 4, 5});
  const TensorData i5 = TensorData::ints({2, 1}, {1, 0});
  expect_ints(run1(make_op(OpKind::GatherND, {{"batch_dims", int64_t{1}}}), {&d3, &i5}), DType::I64,
              {2, 2}, {2, 3, 4, 5});
  // A bool mask gathered with negative indices, as the dynamo export's mask slice does.
  const TensorData mask = bools({1, 3}, {1, 1, 0});
  const TensorData neg = TensorData::ints({1, 1}, {-1});
  expect_ints(run1(make_op(OpKind::GatherND), {&mask, &neg}), DType::Bool, {1, 3}, {1, 1, 0});
  const TensorData bad = TensorData::ints({1, 1}, {2});
  EXPECT_THROW(run1(make_op(OpKind::GatherND), {&d2, &bad}), Error);
}

TEST(GraphLogic, ShapeInferenceDTypesAndCosts) {
  Graph g;
  const int ids = g.add_input("mask", {2, 8}, DType::I64);
  const int x = g.add_input("scores", {3, 2, 8});
  const int as_bool = g.add_op(OpKind::Cast, "cast", {ids}, {{"to", int64_t{9}}});  // ONNX bool
  const int b =
      g.tensor(g.op(as_bool).outputs[0]).dtype == DType::Bool ? g.op(as_bool).outputs[0] : -1;
  ASSERT_GE(b, 0);
  const int idx = g.add_input("rows", {2, 1}, DType::I64);
  const int gnd = g.add_op(OpKind::GatherND, "gnd", {b, idx});
  const Tensor& gy = g.tensor(g.op(gnd).outputs[0]);
  EXPECT_EQ(gy.shape, (Shape{2, 8}));
  EXPECT_EQ(gy.dtype, DType::Bool);
  const int nt = g.add_op(OpKind::Not, "not", {g.op(gnd).outputs[0]});
  const int an = g.add_op(OpKind::And, "and", {g.op(gnd).outputs[0], g.op(nt).outputs[0]});
  const int zero = g.add_constant_floats("zero", {}, {0.0f});
  const int low = g.add_constant_floats("low", {}, {-1e9f});
  const int wh = g.add_op(OpKind::Where, "where", {g.op(an).outputs[0], zero, low});
  const Tensor& wy = g.tensor(g.op(wh).outputs[0]);
  EXPECT_EQ(wy.shape, (Shape{2, 8}));
  EXPECT_EQ(wy.dtype, DType::F32);
  const int add = g.add_op(OpKind::Add, "add", {x, g.op(wh).outputs[0]});
  EXPECT_EQ(g.tensor(g.op(add).outputs[0]).shape, (Shape{3, 2, 8}));
  const int nan = g.add_op(OpKind::IsNaN, "isnan", {x});
  EXPECT_EQ(g.tensor(g.op(nan).outputs[0]).dtype, DType::Bool);
  const int eq = g.add_op(OpKind::Equal, "eq", {ids, ids});
  EXPECT_EQ(g.tensor(g.op(eq).outputs[0]).dtype, DType::Bool);
  validate(g);
  // Element-wise: one FLOP per output element; GatherND reads only the gathered data.
  EXPECT_EQ(op_cost(g, wh).flops, 16);
  EXPECT_EQ(op_cost(g, an).flops, 16);
  EXPECT_EQ(op_cost(g, gnd).flops, 0);
  EXPECT_EQ(op_cost(g, gnd).bytes_read, 16 * 1 + 2 * 8);  // 16 bools + 2 int64 indices
  EXPECT_TRUE(is_elementwise(OpKind::Where));
  EXPECT_FALSE(is_elementwise(OpKind::GatherND));
  // Bad inputs: one line naming the op.
  EXPECT_THROW(g.add_op(OpKind::And, "and_f", {x, x}), Error);
  EXPECT_THROW(g.add_op(OpKind::Where, "where_f", {x, x, x}), Error);
  EXPECT_THROW(g.add_op(OpKind::GatherND, "gnd_f", {b, g.add_input("k3", {3}, DType::I64)}), Error);
}

}  // namespace
}  // namespace dgs
