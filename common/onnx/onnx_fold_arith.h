#pragma once
// Element-wise arithmetic, comparisons and reductions of load-time constant folding
// (onnx_fold_eval.h), with ONNX semantics: integer arithmetic stays exact in int64, float
// arithmetic is computed in double. Internal to common/onnx.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/onnx/onnx_tensor.h"

namespace onnx {
class NodeProto;
}

namespace dgs {

// A binary element-wise operator (Add, Sub, Mul, Div, Mod, Pow, Max, Min; the comparisons and
// logical operators give bool) with broadcasting; the result has a's element type.
OnnxValue binary(const OnnxValue& a, const OnnxValue& b, const std::string& op,
                 const onnx::NodeProto& n, const std::string& what);

// A unary element-wise operator (Neg, Abs, Not, Sign, Sqrt, Floor, Ceil, Round, Reciprocal, Exp,
// Log).
OnnxValue unary(const OnnxValue& a, const std::string& op);

// Axes of a node: input `index` (opset >= `input_since`) or the "axes" attribute.
std::optional<std::vector<int64_t>> axes_of(const onnx::NodeProto& n,
                                            const std::vector<const OnnxValue*>& in, size_t index,
                                            int64_t opset, int64_t input_since);

// ReduceSum/Prod/Max/Min/Mean over `axes` (all axes when absent or empty).
OnnxValue reduce(const OnnxValue& a, std::optional<std::vector<int64_t>> axes, bool keepdims,
                 const std::string& op, const std::string& what);

}  // namespace dgs
