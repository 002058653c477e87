#pragma once
// ONNX in and out, through Debian's libonnx-dev (onnx-ml.pb.h, ONNX_ML=1).
#include <string>

#include "common/graph/graph.h"

namespace onnx {
class ModelProto;
}

namespace dgs {

// Loads an ONNX file: parses it, runs ONNX's checker and shape inference, converts it to a Graph
// (initializers become Weight tensors, or Constant tensors when they are small integer tensors
// that shape inference needs), infers and validates. Throws dgs::Error with one line naming the
// file and, where it applies, the node and operator ("model.onnx: node 'x' has unsupported
// operator 'Foo'").
Graph load_onnx_file(const std::string& path);

// The same from a parsed model; `origin` names it in errors.
Graph graph_from_onnx(const onnx::ModelProto& model, const std::string& origin);

// Converts a Graph to a weight-free ONNX model (weights as graph inputs with shapes, Constant
// tensors as initializers), opset 17.
void graph_to_onnx(const Graph& g, onnx::ModelProto* model);

// Writes graph_to_onnx(g) to `path` atomically (deterministic bytes for the same graph).
void save_onnx_file(const Graph& g, const std::string& path);

}  // namespace dgs
