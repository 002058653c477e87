// The ONNX element type <-> DType mapping (onnx_dtype.h) and the errors for unsupported codes.
#include "common/graph/onnx_dtype.h"

#include <gtest/gtest.h>

#include <string>

namespace dgs {
namespace {

TEST(OnnxDType, SupportedCodesMapBothWays) {
  const std::pair<int, DType> table[] = {
      {1, DType::F32}, {10, DType::F16}, {7, DType::I64}, {6, DType::I32}, {9, DType::Bool}};
  for (const auto& [code, dtype] : table) {
    ASSERT_TRUE(dtype_from_onnx(code).has_value()) << code;
    EXPECT_EQ(*dtype_from_onnx(code), dtype) << code;
    EXPECT_EQ(dtype_to_onnx(dtype), code) << dtype_name(dtype);
    EXPECT_EQ(dtype_of_onnx_values(code), dtype) << code;
    EXPECT_EQ(require_dtype_from_onnx(code, "x"), dtype);
  }
  EXPECT_EQ(onnx_type::kFloat, 1);
  EXPECT_EQ(onnx_type::kDouble, 11);
}

TEST(OnnxDType, DoubleIsReadAsFloatButHasNoDType) {
  EXPECT_FALSE(dtype_from_onnx(onnx_type::kDouble).has_value());
  EXPECT_EQ(dtype_of_onnx_values(onnx_type::kDouble), DType::F32);
  for (int code : {0, 2, 3, 8, 12, 16, 99, -1}) {
    EXPECT_FALSE(dtype_from_onnx(code).has_value()) << code;
    EXPECT_FALSE(dtype_of_onnx_values(code).has_value()) << code;
  }
}

TEST(OnnxDType, Names) {
  EXPECT_EQ(onnx_type_name(0), "undefined");
  EXPECT_EQ(onnx_type_name(1), "float");
  EXPECT_EQ(onnx_type_name(2), "uint8");
  EXPECT_EQ(onnx_type_name(11), "double");
  EXPECT_EQ(onnx_type_name(16), "bfloat16");
  EXPECT_EQ(onnx_type_name(42), "type 42");
  EXPECT_EQ(supported_onnx_types(), "1 (float), 10 (float16), 7 (int64), 6 (int32) or 9 (bool)");
}

TEST(OnnxDType, UnsupportedCodeIsOneClearLine) {
  try {
    require_dtype_from_onnx(3, "tensor 'q': element type");
    FAIL() << "expected dgs::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "tensor 'q': element type is 3 (int8, not supported); expected 1 (float), "
              "10 (float16), 7 (int64), 6 (int32) or 9 (bool)");
  }
}

TEST(OnnxDType, CastTargetsGoThroughTheMapping) {
  Graph g;
  int x = g.add_input("x", {2, 3});
  int c = g.add_op(OpKind::Cast, "c", {x}, Attributes({{"to", int64_t{7}}}));
  EXPECT_EQ(g.tensor(g.op(c).outputs[0]).dtype, DType::I64);
  int h = g.add_op(OpKind::Cast, "h", {x}, Attributes({{"to", int64_t{10}}}));
  EXPECT_EQ(g.tensor(g.op(h).outputs[0]).dtype, DType::F16);
  try {
    g.add_op(OpKind::Cast, "d", {x}, Attributes({{"to", int64_t{11}}}));
    FAIL() << "expected dgs::Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("op 'd' (Cast): attribute 'to' is 11 (double, not supported); expected 1 "
                       "(float)"),
              std::string::npos)
        << msg;
  }
}

}  // namespace
}  // namespace dgs
