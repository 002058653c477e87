#pragma once
// Load-time normalisation of exported ONNX models (what PyTorch's exporters and Hugging Face
// Transformers write around the real compute), so that the graph the schedulers see holds only
// real compute:
//   * Constant nodes become initializers;
//   * Identity of a known value (initializer, Constant, folded) is removed: its consumers read the
//     value directly (shared weights stay one tensor);
//   * every node whose inputs are all known values, and Shape/Size of a tensor with a static
//     shape, is evaluated (onnx_fold_eval.h) and replaced by initializers holding its outputs;
//   * nodes and initializers that nothing reads any more are dropped.
// Internal to common/onnx; load_onnx_file runs it (OnnxLoadSummary says what it did).
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "common/graph/graph.h"

namespace onnx {
class ModelProto;
}

namespace dgs {

struct OnnxLoadSummary;
class OnnxNodeInference;

// Folded outputs with more elements than this stay nodes (they would only bloat the model).
inline constexpr int64_t kOnnxMaxFoldedElements = int64_t{1} << 24;
// Folded float results not derived from a learned parameter (masks, position tables) keep their
// values in the Graph (role Constant) up to this many elements; larger ones become Weights.
inline constexpr int64_t kOnnxMaxComputedConstant = int64_t{1} << 16;

// One folding pass over the nodes in file (topological) order. `static_shapes` holds the shapes
// ONNX shape inference knows completely. With `per_node` (started on `model`), every node is
// checked (OnnxNodeInference::check), every node that stays is inferred and every folded value
// added as it goes, and Shape/Size also fold on the shapes it knows: one pass then folds
// everything. Names of folded outputs whose values must stay in the Graph are added to
// `computed_constants`. Returns the number of nodes removed or replaced.
int fold_constant_nodes(onnx::ModelProto* model, const std::map<std::string, Shape>& static_shapes,
                        std::set<std::string>* computed_constants, OnnxLoadSummary* summary,
                        const std::string& origin, OnnxNodeInference* per_node = nullptr);

// Drops nodes none of whose outputs is read (by a node or as a graph output), repeatedly, and
// then initializers that nothing reads.
void remove_dead_nodes(onnx::ModelProto* model, OnnxLoadSummary* summary);

}  // namespace dgs
