// Wrongly ranked tensors produced inside the graph, through the real model_info: libonnx 1.12's
// shape inference crashed (SIGSEGV) on a Conv or ConvTranspose fed by a rank-2 tensor (X or W)
// that a Reshape, MatMul or Relu produces, where no rank is declared in the file. The loader's
// node checks (common/onnx/onnx_node_checks.h) refuse each in one line naming the node and the
// input; Gemm and pools are guarded the same way.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/util/resources.h"
#include "tests/reliability/onnx_model_builder.h"
#include "tests/reliability/subprocess_run.h"

namespace dgs {
namespace {

class ProducedRank : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(std::string(DGS_BINARY_DIR) + "/model_info"))
      GTEST_SKIP() << "model_info not built";
  }
  // model_info on `m`: exit 2 and exactly one line "error: <file>: <message>".
  void expect_refused(const std::string& name, const onnx::ModelProto& m,
                      const std::string& message) {
    const std::string path = dir_.file(name + ".onnx");
    write_file_atomic(path, m.SerializeAsString());
    const ProcessRun r = run_program("model_info", path);
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
    EXPECT_EQ(r.err, "error: " + path + ": " + message + "\n") << name;
  }
  ScratchDir dir_{"produced_rank"};
};

// Outputs are declared as scalars: the node checks refuse the producers first.
const NamedDims kOut = {{"y", {}}};

TEST_F(ProducedRank, ConvFedByARank2Reshape) {
  auto m = model_of({{"x", {1, 4, 2, 2}}}, kOut,
                    {{"flat", "Reshape", {"x", "s"}, {"r"}}, {"conv", "Conv", {"r", "w"}, {"y"}}});
  add_int64_initializer(&m, "s", {1, 16});
  add_float_initializer(&m, "w", {8, 4, 3, 3});
  expect_refused("conv_reshape", m,
                 "node 'conv' (Conv): input X 'r' has rank 2; expected rank 3 or more (batch, "
                 "channels, spatial)");
}

TEST_F(ProducedRank, ConvFedByARank2MatMul) {
  auto m = model_of({{"x", {2, 4}}}, kOut,
                    {{"mm", "MatMul", {"x", "m"}, {"p"}}, {"conv", "Conv", {"p", "w"}, {"y"}}});
  add_float_initializer(&m, "m", {4, 4});
  add_float_initializer(&m, "w", {8, 4, 1});
  expect_refused("conv_matmul", m,
                 "node 'conv' (Conv): input X 'p' has rank 2; expected rank 3 or more (batch, "
                 "channels, spatial)");
}

TEST_F(ProducedRank, ConvTransposeFedByARank2Relu) {
  auto m = model_of({{"x", {2, 4}}}, kOut,
                    {{"relu", "Relu", {"x"}, {"r"}}, {"up", "ConvTranspose", {"r", "w"}, {"y"}}});
  add_float_initializer(&m, "w", {4, 8, 3, 3});
  expect_refused("deconv_relu", m,
                 "node 'up' (ConvTranspose): input X 'r' has rank 2; expected rank 3 or more "
                 "(batch, channels, spatial)");
}

TEST_F(ProducedRank, GemmFedByARank3MatMul) {
  auto m = model_of({{"x", {2, 3, 4}}}, kOut,
                    {{"mm", "MatMul", {"x", "m"}, {"p"}}, {"fc", "Gemm", {"p", "b"}, {"y"}}});
  add_float_initializer(&m, "m", {4, 5});
  add_float_initializer(&m, "b", {5, 6});
  expect_refused("gemm_rank3", m, "node 'fc' (Gemm): input A 'p' has rank 3; expected rank 2");
}

TEST_F(ProducedRank, GemmWithARank1BFromAReshape) {
  auto m = model_of({{"x", {2, 6}}, {"b0", {2, 3}}}, kOut,
                    {{"flat", "Reshape", {"b0", "s"}, {"b"}}, {"fc", "Gemm", {"x", "b"}, {"y"}}});
  add_int64_initializer(&m, "s", {6});
  expect_refused("gemm_rank1", m, "node 'fc' (Gemm): input B 'b' has rank 1; expected rank 2");
}

TEST_F(ProducedRank, MaxPoolFedByARank2Squeeze) {
  auto m = model_of({{"x", {1, 1, 4, 4}}}, kOut,
                    {{"sq", "Squeeze", {"x", "a"}, {"q"}},
                     {"pool", "MaxPool", {"q"}, {"y"}, {{"kernel_shape", {2, 2}}}}});
  add_int64_initializer(&m, "a", {0, 1});
  expect_refused("pool_squeeze", m,
                 "node 'pool' (MaxPool): input X 'q' has rank 2; expected rank 3 or more (batch, "
                 "channels, spatial)");
}

TEST_F(ProducedRank, KernelShapeOfTheWrongLengthForAProducedRank) {
  auto m = model_of({{"x", {1, 4, 5, 5}}}, kOut,
                    {{"relu", "Relu", {"x"}, {"r"}},
                     {"conv", "Conv", {"r", "w"}, {"y"}, {{"kernel_shape", {3}}}}});
  add_float_initializer(&m, "w", {8, 4, 3, 3});
  expect_refused("conv_kernel_length", m,
                 "node 'conv' (Conv): attribute 'kernel_shape' has 1 values for input rank 4; "
                 "expected 2 values");
}

TEST_F(ProducedRank, ConvTransposeWithARank2WeightFromAReshape) {
  auto m = model_of(
      {{"x", {1, 4, 5, 5}}}, kOut,
      {{"flat", "Reshape", {"w", "s"}, {"w2"}}, {"up", "ConvTranspose", {"x", "w2"}, {"y"}}});
  add_float_initializer(&m, "w", {4, 8, 3, 3});
  add_int64_initializer(&m, "s", {4, 72});
  expect_refused("deconv_weight", m,
                 "node 'up' (ConvTranspose): input W 'w2' has rank 2; expected rank 3 or more "
                 "(output channels, input channels, kernel)");
}

// A shape tensor whose length would be the rank of the output (a fuzz finding built one of 14.7
// million entries by folding, and libonnx then allocated as many dimensions).
TEST_F(ProducedRank, ReshapeToAProducedShapeOfAHundredEntries) {
  auto m = model_of({{"x", {1, 4}}}, kOut,
                    {{"cat", "Concat", {"a", "b"}, {"s"}, {{"axis", {}}}},
                     {"flat", "Reshape", {"x", "s"}, {"y"}}});
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_type(
      onnx::AttributeProto_AttributeType_INT);  // axis = 0
  add_int64_initializer(&m, "a", std::vector<int64_t>(50, 1));
  add_int64_initializer(&m, "b", std::vector<int64_t>(50, 1));
  expect_refused("reshape_long_shape", m,
                 "node 'flat' (Reshape): input 1 's' holds 100 values (a shape, axes or pads "
                 "list); expected at most 64 (tensors of rank 32 at most)");
}

// Operators whose libonnx inference checks ranks itself pass the node checks; the suite's shape
// inference refuses them after conversion.
TEST_F(ProducedRank, TransposePermNamingAnAxisTheProducedTensorLacks) {
  auto m = model_of({{"x", {2, 6}}}, kOut,
                    {{"r", "Reshape", {"x", "s"}, {"r3"}},
                     {"t", "Transpose", {"r3"}, {"y"}, {{"perm", {0, 3, 1}}}}});
  add_int64_initializer(&m, "s", {2, 3, 2});
  expect_refused("transpose_perm", m,
                 "op 't' (Transpose): attribute 'perm' [0,3,1] for input [2,3,2]; expected a "
                 "permutation of 0..2");
}

// The same chain with the right rank loads: the checks refuse ranks, not producers.
TEST_F(ProducedRank, ARank4ReshapeFeedingAConvLoads) {
  auto m = model_of({{"x", {1, 64}}}, {{"y", {1, 8, 2, 2}}},
                    {{"r", "Reshape", {"x", "s"}, {"r4"}}, {"conv", "Conv", {"r4", "w"}, {"y"}}});
  add_int64_initializer(&m, "s", {1, 4, 4, 4});
  add_float_initializer(&m, "w", {8, 4, 3, 3});
  const std::string path = dir_.file("good.onnx");
  write_file_atomic(path, m.SerializeAsString());
  const ProcessRun r = run_program("model_info", path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace dgs
