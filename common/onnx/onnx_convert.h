#pragma once
// Conversion of a normalized ONNX model (onnx_io.h: load-time normalisation done) into a Graph:
// node operators to OpKinds, attributes, opset upgrades to the opset-13+ forms, initializers and
// Constant nodes to Weight or Constant tensors, symbolic input dimensions to values; and the small
// ONNX helpers the loader shares. Internal to common/onnx.
#include <cstdint>
#include <set>
#include <string>

#include "common/graph/graph.h"
#include "common/onnx/onnx_io.h"

namespace onnx {
class GraphProto;
class ModelProto;
class NodeProto;
class ValueInfoProto;
}  // namespace onnx

namespace dgs {

// The contrib domain where Gelu is read and written (it is not in opset 17).
inline constexpr const char* kMicrosoftDomain = "com.microsoft";
inline constexpr int64_t kMicrosoftDomainVersion = 1;

// A message of ONNX or of a nested error as one line: its lines joined by single spaces (ONNX's
// checker names the node on the lines after the first), cut at 1000 characters.
std::string as_one_line(const std::string& s);

// The node's name, or "<op_type>_<index>" when it has none.
std::string node_label(const onnx::NodeProto& n, int index);
bool is_onnx_domain(const std::string& d);
// The OpKind of a node; throws dgs::Error naming the node for an unsupported operator.
OpKind node_kind(const onnx::NodeProto& n, int index, const std::string& origin);

// Gives symbolic or missing dimensions of the graph inputs concrete values: the first dimension
// takes the batch, others the value named for their dim_param; any other is refused in one line.
// The same names in the file's value_info and graph outputs take the same values; other symbolic
// dimensions there are cleared for shape inference to compute.
void fix_symbolic_input_dims(onnx::GraphProto* g, const std::set<std::string>& initializers,
                             const OnnxLoadOptions& opts, const std::string& origin);

struct OnnxShape {
  int elem_type = 0;
  bool known = false;  // every dimension has a value
  Shape dims;
};
OnnxShape onnx_shape(const onnx::ValueInfoProto& v);

// The default-domain opset a model imports (0 if none).
int64_t default_opset(const onnx::ModelProto& m);

// The Graph of a normalized model; `computed_constants` are folded values kept as Constants.
Graph convert(const onnx::ModelProto& model, const std::string& origin, const OnnxLoadOptions& opts,
              const std::set<std::string>& computed_constants);

}  // namespace dgs
