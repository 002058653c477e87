// The operator table (common/graph/op_table.inc) is the one list of operator kinds and families:
// every kind in it is served by shape inference and the CPU executor, every kind with an
// element-wise class has a kernel op of the CUDA launcher, and the queries of graph.h agree with
// its columns. (The CUDA launcher's kernel, apply_ew, switches over every gpu::EwOp without a
// default, so a row without a kernel fails the -Werror CUDA build.)
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/cuda/tensor_kernels.h"
#include "common/exec/executor.h"
#include "common/graph/graph.h"
#include "common/graph/op_signature.h"
#include "common/graph/shape_inference.h"

namespace dgs {
namespace {

constexpr int kKinds = static_cast<int>(OpKind::kCount);

std::vector<OpKind> all_kinds() {
  std::vector<OpKind> v;
  for (int i = 0; i < kKinds; ++i) v.push_back(static_cast<OpKind>(i));
  return v;
}

// The element-wise families: one routine serves all kinds of each.
bool elementwise_family(OpFamily f) {
  return f == OpFamily::EwUnary || f == OpFamily::EwBinary || f == OpFamily::EwVariadic ||
         f == OpFamily::EwSpecial || f == OpFamily::Logic;
}

bool bool_input(OpKind k, int i) {
  return k == OpKind::And || k == OpKind::Not || (k == OpKind::Where && i == 0);
}

TEST(OpTable, EveryKindHasANameThatRoundTrips) {
  for (OpKind k : all_kinds()) {
    const std::string_view name = op_kind_name(k);
    ASSERT_FALSE(name.empty());
    ASSERT_EQ(op_kind_from_name(name), k) << name;
  }
  EXPECT_EQ(op_kind_name(OpKind::HardSwish), "HardSwish");
  EXPECT_EQ(op_family(OpKind::HardSwish), OpFamily::EwUnary);
}

TEST(OpTable, QueriesFollowTheFamilies) {
  for (OpKind k : all_kinds()) {
    const OpFamily f = op_family(k);
    const std::string name(op_kind_name(k));
    EXPECT_EQ(is_elementwise(k), elementwise_family(f)) << name;
    EXPECT_EQ(is_conv_like(k), f == OpFamily::ConvLike) << name;
    EXPECT_EQ(is_matmul_like(k), f == OpFamily::MatMulLike) << name;
    if (is_activation(k)) {
      EXPECT_TRUE(ew_class(k) == EwClass::Unary) << name;
    }
    if (ew_class(k) != EwClass::None) {
      EXPECT_TRUE(is_elementwise(k)) << name;
    }
    const OpArity a = op_arity(k);
    EXPECT_LE(a.min_inputs, a.max_inputs) << name;
    EXPECT_LE(a.min_outputs, a.max_outputs) << name;
    if (f == OpFamily::EwUnary) {
      EXPECT_EQ(a.max_inputs, 1) << name;
    }
    if (f == OpFamily::EwBinary) {
      EXPECT_EQ(a.min_inputs, 2) << name;
    }
  }
}

TEST(OpTable, EveryElementwiseClassHasAKernelOpOfTheCudaLauncher) {
  for (OpKind k : all_kinds()) {
    const std::string name(op_kind_name(k));
    const auto ew = gpu::ew_op_of(k);
    ASSERT_EQ(ew.has_value(), ew_class(k) != EwClass::None) << name;
    if (ew) {
      EXPECT_EQ(gpu::ew_is_binary(*ew), ew_class(k) == EwClass::Binary) << name;
    }
  }
}

// Every kind reaches a routine of its own in shape inference: with inputs of shape [1,2,4,4] it
// either infers or fails on those inputs, never with "invalid op kind"; and every kind it infers
// runs in the CPU executor, which never answers "unsupported: operator kind".
TEST(OpTable, EveryKindIsDispatchedByShapeInferenceAndTheCpuExecutor) {
  std::mt19937 rng(24);
  std::uniform_real_distribution<float> value(0.25f, 2.0f);
  int executed = 0;
  for (OpKind k : all_kinds()) {
    const std::string name(op_kind_name(k));
    Graph g;
    std::vector<int> ins;
    std::vector<TensorData> data;
    const Shape shape = {1, 2, 4, 4};
    for (int i = 0; i < op_arity(k).min_inputs; ++i) {
      const bool b = bool_input(k, i);
      ins.push_back(g.add_input("x" + std::to_string(i), shape, b ? DType::Bool : DType::F32));
      if (b) {
        data.push_back(TensorData::ints(shape, std::vector<int64_t>(32, 1), DType::Bool));
      } else {
        std::vector<float> v(32);
        for (float& x : v) x = value(rng);
        data.push_back(TensorData::floats(shape, v));
      }
    }
    int o = -1;
    try {
      o = g.add_op(k, "op", ins);
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()).find("invalid op kind"), std::string::npos) << e.what();
      continue;
    }
    std::vector<const TensorData*> in;
    for (const TensorData& d : data) in.push_back(&d);
    try {
      compute_op(g.op(o), in, static_cast<int>(g.op(o).outputs.size()));
      ++executed;
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()).find("unsupported: operator kind"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_GE(executed, 35);
}

// Every element-wise kind runs end to end: inferred shape, then the CPU executor's values of
// that shape and dtype.
TEST(OpTable, EveryElementwiseKindInfersAndExecutes) {
  std::mt19937 rng(24);
  std::uniform_real_distribution<float> value(0.25f, 2.0f);
  int ran = 0;
  for (OpKind k : all_kinds()) {
    if (!is_elementwise(k)) continue;
    const std::string name(op_kind_name(k));
    Graph g;
    std::vector<int> ins;
    std::vector<TensorData> data;
    const Shape shape = {2, 3};
    for (int i = 0; i < op_arity(k).min_inputs; ++i) {
      const bool b = bool_input(k, i);
      ins.push_back(g.add_input("x" + std::to_string(i), shape, b ? DType::Bool : DType::F32));
      if (b) {
        data.push_back(TensorData::ints(shape, {0, 1, 1, 0, 1, 0}, DType::Bool));
      } else {
        std::vector<float> v(6);
        for (float& x : v) x = value(rng);
        data.push_back(TensorData::floats(shape, v));
      }
    }
    Attributes attrs;
    if (k == OpKind::Cast) attrs.set("to", int64_t{1});
    const int o = g.add_op(k, "op", ins, attrs);
    std::vector<const TensorData*> in;
    for (const TensorData& d : data) in.push_back(&d);
    const std::vector<TensorData> out = compute_op(g.op(o), in, 1);
    ASSERT_EQ(out.size(), 1u) << name;
    const Tensor& y = g.tensor(g.op(o).outputs[0]);
    EXPECT_EQ(out[0].shape, y.shape) << name;
    EXPECT_EQ(out[0].dtype, y.dtype) << name;
    EXPECT_EQ(out[0].size(), numel(y.shape)) << name;
    ++ran;
  }
  EXPECT_GE(ran, 30);
}

}  // namespace
}  // namespace dgs
