#pragma once
// Real-export-style ONNX files for the tests, generated at test time from the weight-free
// fixtures in tests/onnx/fixtures/*.onnxtxt (ONNX text format, parsed by libonnx's OnnxParser):
// graph inputs named p_* (parameters) and b_* (buffers), as PyTorch's dynamo exporter names
// them, become initializers with deterministic data in raw_data, as exporters write them; the
// other inputs stay inputs. Input values are deterministic too, so that the executor's outputs can
// be compared with reference outputs stored beside the fixture (<name>.ref.txt, computed once by
// ONNX Runtime from the same file and inputs).
#include <map>
#include <string>

#include "common/exec/tensor_data.h"

namespace onnx {
class ModelProto;
}

namespace dgs {

// tests/onnx/fixtures/<name>.onnxtxt as a model with initializers.
onnx::ModelProto exported_fixture_model(const std::string& name);

// Writes the model to `dir`/<name>.onnx and returns the path.
std::string write_exported_fixture(const std::string& name, const std::string& dir);

// Deterministic values for a graph input (float: uniform in [-1, 1]; int64: token ids
// (7 k + 3) mod 16; an int64 'attention_mask': 1, but row r's last r + 1 positions 0).
TensorData fixture_input(const std::string& name, const Shape& shape, DType dtype);

// Values of every float, int64 and bool initializer of `model` that has data, by name.
std::map<std::string, TensorData> initializer_values(const onnx::ModelProto& model);

// Tensors in the text format of the .ref.txt files: one line per tensor,
// "name dtype d0,d1,...: v0 v1 ...".
std::string tensors_to_text(const std::map<std::string, TensorData>& tensors);
std::map<std::string, TensorData> tensors_from_text(const std::string& text);

}  // namespace dgs
