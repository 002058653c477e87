#pragma once
// PyTorch's decomposition of scaled_dot_product_attention (torch.onnx.export(..., dynamo=True) of
// Hugging Face BERT, for example) guards every attention softmax with
//   probs = Where(IsNaN(s), 0, s),  s = Softmax(scores)
// so that a fully masked row (all scores -inf, softmax NaN) gives zeros. The suite has no IsNaN or
// Where operator in its compute graph; loading removes this guard (consumers read `s` directly).
// The result differs from the file's only on a row whose scores are all -inf, where the suite's
// softmax gives NaN and the file's guard 0; the guard's own cost (one element-wise pass over the
// attention probabilities) is not counted. Internal to common/onnx.
#include <string>

namespace onnx {
class GraphProto;
}

namespace dgs {

// Removes every Where(IsNaN(s), zero, s) whose `s` is a Softmax output and whose zero is a
// one-element constant (initializer or Constant node) equal to 0, and the IsNaN when nothing else
// reads it. Returns the number of guards removed.
int remove_softmax_nan_guards(onnx::GraphProto* g, const std::string& origin);

}  // namespace dgs
