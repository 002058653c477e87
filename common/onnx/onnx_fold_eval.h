#pragma once
// Evaluation of single ONNX nodes on constant values, for load-time constant folding
// (onnx_fold.h): the shape arithmetic and mask construction that exporters write around the real
// compute (Gather, Unsqueeze, Concat, ConstantOfShape, Range, Mod, Where, Equal, Expand, CumSum,
// Cast, Slice, Reshape, Trilu, reductions, element-wise arithmetic, ...), with ONNX semantics of
// opsets 13-18 (axes as inputs; attributes before 13 where they differ). Internal to common/onnx.
#include <optional>
#include <string>
#include <vector>

#include "common/onnx/onnx_tensor.h"
#include "common/util/error.h"

namespace onnx {
class NodeProto;
}

namespace dgs {

// True when evaluate_constant_node knows the node's op type (ONNX domain).
bool is_foldable_op_type(const std::string& op_type);

// The outputs of `n` computed from its inputs (nullptr for an omitted optional input), or nothing
// when the op type is not foldable or an attribute/input combination is outside what folding
// covers. Throws dgs::Error naming `what` for inputs that contradict ONNX's rules (an axis out of
// range, shapes that do not broadcast).
// The most elements a folded value may have (a constant of shape arithmetic or a transposed
// weight is far smaller; an Expand or Tile of a constant to an absurd shape is refused).
inline constexpr int64_t kOnnxMaxFoldElements = int64_t{1} << 27;
// Thrown by evaluate_constant_node when a value would exceed kOnnxMaxFoldElements; the caller
// names the node.
class FoldTooLarge : public Error {
 public:
  explicit FoldTooLarge(const std::string& what) : Error(what) {}
};

std::optional<std::vector<OnnxValue>> evaluate_constant_node(
    const onnx::NodeProto& n, const std::vector<const OnnxValue*>& inputs, int64_t opset,
    const std::string& what);

}  // namespace dgs
