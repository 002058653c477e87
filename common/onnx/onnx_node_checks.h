#pragma once
// The suite's checks of nodes before libonnx's shape inference sees them. libonnx 1.12's inference
// functions of convolutions, pools and Gemm read input dimensions without checking ranks (a
// rank-2 input of a Conv or ConvTranspose, a rank-1 operand of a Gemm: SIGSEGV), and the ranks
// that matter are often those of tensors produced inside the graph, known only while inference
// runs. Internal to common/onnx; the loader runs it before each call of
// onnx::shape_inference::InferShapes.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/graph/graph.h"

namespace onnx {
class ModelProto;
class NodeProto;
class TensorProto;
}  // namespace onnx

namespace dgs {

// Initializers whose values ONNX inference functions are given (Reshape's shape, Expand's, ...):
// integer ones and those of at most this many elements. Larger float initializers are given as
// types only: inference needs their shapes, and copying a model's weights would dominate.
inline constexpr int64_t kOnnxInferenceDataLimit = 1024;
bool onnx_inference_reads_data(const onnx::TensorProto& t);

// libonnx's type and shape inference one node at a time, in graph order, each node checked first
// (the checks below): the walk ONNX's InferShapes does, kept open so that the loader can fold
// constants between nodes. Starts from the model's graph inputs, initializers (with data per
// onnx_inference_reads_data), value_info and declared graph outputs; the model must outlive it.
class OnnxNodeInference {
 public:
  OnnxNodeInference(const onnx::ModelProto& model, const std::string& origin);
  ~OnnxNodeInference();
  OnnxNodeInference(const OnnxNodeInference&) = delete;
  OnnxNodeInference& operator=(const OnnxNodeInference&) = delete;

  // The suite's checks of node `n` (its position `index` names it when it has no name) against
  // the types known so far; throws dgs::Error as check_nodes_before_onnx_inference.
  void check(const onnx::NodeProto& n, int index) const;
  // check(n, index), then the types of n's outputs as libonnx's inference function of n infers
  // them (errors leave them as they were, as non-strict inference does).
  void infer(onnx::NodeProto& n, int index);
  // `t` (a folded output, by its name) is a known value: its type, and its data when inference
  // reads it.
  void add_value(const onnx::TensorProto& t);
  // The complete static shape known for `name`.
  std::optional<Shape> static_shape(const std::string& name) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Walks the graph's nodes in the order ONNX shape inference does, with the types it would have:
// graph inputs, initializers, value_info and declared graph outputs first, then each node's
// output types as libonnx's inference function of that node alone infers them (errors leave the
// outputs as they were, as non-strict inference does). Before inferring a node it checks it: the
// ranks of a convolution's or pool's X and W (3 or more, equal), its bias (1) and the lengths of
// its window attributes (kernel_shape, strides, dilations, pads, output_padding, output_shape),
// group >= 1; Gemm's A and B of rank 2, C of rank <= 2; a shape, axes or pads input (Reshape's
// shape, ConstantOfShape's input, ...) of at most 2 x kOnnxMaxRank values; and an output whose
// inferred rank differs from the rank the file declares for it. So libonnx's inference function of
// a node runs only on inputs these checks accepted, here and in the InferShapes call that follows.
// `model` is not modified (libonnx's inference context takes mutable nodes). Throws dgs::Error, one
// line:
//   "<origin>: node 'c' (Conv): input X 'r' has rank 2; expected rank 3 or more (batch,
//   channels, spatial)".
void check_nodes_before_onnx_inference(onnx::ModelProto& model, const std::string& origin);

}  // namespace dgs
