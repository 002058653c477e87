#pragma once
// ONNX TensorProto files (the `input_0.pb` / `output_0.pb` of ONNX's backend test data) as
// TensorData, and whole backend test cases (a folder with model.onnx and test_data_set_*/) as
// graphs with their feeds and expected outputs. Built on the ONNX loader (common/onnx) and the
// executor's value type (common/exec), above both.
//
// Supported element types: float, double (converted to float), float16 (widened to float),
// int64, int32, bool; values from raw_data (little-endian) or from the typed fields.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/exec/tensor_data.h"
#include "common/graph/graph.h"

namespace onnx {
class TensorProto;
class ModelProto;
}  // namespace onnx

namespace dgs {

struct NamedTensorData {
  std::string name;  // TensorProto.name (may be empty)
  TensorData value;
};

// Converts a TensorProto; `origin` (a file name) prefixes every error. Unsupported element
// types throw UnsupportedFeature (executor.h); malformed protos throw dgs::Error.
TensorData tensor_from_proto(const onnx::TensorProto& proto, const std::string& origin);

// Reads a serialized TensorProto file. Errors name the file.
NamedTensorData read_tensor_proto_file(const std::string& path);

// The model loader (graph_from_onnx) rejected a test case's model; the message is the loader's.
class OnnxModelRejected : public Error {
 public:
  explicit OnnxModelRejected(const std::string& what) : Error(what) {}
};

// One test_data_set_* folder of a backend test case, ready to run on the executor.
struct OnnxCaseDataSet {
  std::string name;  // "test_data_set_0"
  Graph graph;       // model.onnx with this data set's shape-determining inputs made constants
  std::map<int, TensorData> feeds;  // remaining graph inputs and initializers, by tensor index
  std::vector<std::pair<int, TensorData>> expected;  // graph output tensor -> expected value
};

// Why a backend test case cannot run on the suite (an operator outside OpKind, an operator
// domain other than ONNX's, or an element type the suite has no dtype for), or "" if none of
// these applies. Checked before conversion so that such cases report the reason, not a loader
// error.
std::string onnx_case_unsupported_reason(const onnx::ModelProto& model);

// Loads a backend test case folder: DIR/model.onnx and every DIR/test_data_set_*/. Integer (and
// Resize scale) inputs that determine shapes (is_shape_input) are turned into initializers with
// the data set's values before conversion, so that they become Constant tensors. Throws
// UsageError if DIR is not a test case (no model.onnx or no data set), UnsupportedFeature when
// onnx_case_unsupported_reason() says so, OnnxModelRejected when graph_from_onnx rejects the
// model, and dgs::Error for unreadable or malformed files.
std::vector<OnnxCaseDataSet> load_onnx_test_case(const std::string& dir);

}  // namespace dgs
