#pragma once
// ONNX in and out, through Debian's libonnx-dev (onnx-ml.pb.h, ONNX_ML=1).
//
// Loading (load_onnx_file / graph_from_onnx):
//   * the file is parsed, checked with onnx::checker::check_model and shape-inferred with ONNX's
//     own shape inference; each of our inferred shapes is then compared with ONNX's;
//   * every node must be a supported operator (OpKind) of the ONNX domain; Gelu (not in opset 17)
//     is read from the "com.microsoft" domain (ONNX Runtime's contrib domain), where it is written;
//   * older opsets are upgraded to the opset-13+ forms the Graph uses: attributes that later
//     became inputs (Squeeze/Unsqueeze/ReduceSum axes, Split sizes, Pad pads/value, Clip min/max,
//     Slice starts/ends/axes) become Constant inputs;
//   * initializers become Weight tensors, except:
//       - integer initializers (int64/int32: shapes, axes, pads, indices) -> Constant (int_data);
//       - float initializers with at most kOnnxSmallFloatConstant elements (scalars such as GELU's
//         0.5, Clip's bounds) and float initializers feeding Resize's scales -> Constant
//         (float_data);
//     ONNX Constant nodes become Constant tensors the same way (larger float ones: Weight);
//   * graph inputs that are not initializers are Inputs, or Weights when their ValueInfoProto's
//     doc_string is kOnnxWeightDocString ("dgs:weight", what save_onnx_file writes) or when
//     OnnxLoadOptions::weight_name_suffixes matches their name (".weight", ".bias", ... as in
//     PyTorch exports with export_params=False);
//   * shape arithmetic is folded (OnnxLoadOptions::fold_shape_computations): nodes whose outputs
//     are int64 tensors of rank <= 1 with values known to ONNX's data propagation (Shape, Size,
//     and Gather/Unsqueeze/Concat/... on them) become Constant tensors, as in onnx-simplifier;
//   * symbolic input dimensions (dim_param or no value) take OnnxLoadOptions::batch on axis 0 and
//     1 elsewhere;
//   * then infer_shapes + validate. Errors are one line starting with the file name
//     ("model.onnx: node 'x' has unsupported operator 'Foo'").
//
// Writing (graph_to_onnx / save_onnx_file): opset 17 (IR version 8), weight-free: weights are
// graph inputs with shapes and doc_string "dgs:weight"; Constant tensors are initializers with
// their data; nodes in topological order; attributes map directly (int, float, string, ints,
// floats); bytes are deterministic (protobuf deterministic serialization).
//
// Files: onnx_io.cpp (loading and normalisation), onnx_convert.h (normalized model -> Graph),
// onnx_write.cpp (Graph -> ONNX), onnx_fold*.h (load-time folding), onnx_opset.h (opsets 18+ to
// 17), onnx_external_data.h, onnx_nan_guard.h, onnx_limits.h, onnx_tensor.h.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace onnx {
class ModelProto;
}

namespace dgs {

// doc_string that marks a graph input of a weight-free file as a weight.
inline constexpr const char* kOnnxWeightDocString = "dgs:weight";
// Float initializers / Constant nodes up to this many elements are kept as Constant tensors with
// their values (they are literals such as 0.5 or sqrt(2), not learned parameters).
inline constexpr int64_t kOnnxSmallFloatConstant = 16;
// The opset and IR version written by graph_to_onnx (the newest that libonnx 1.12 knows).
inline constexpr int64_t kOnnxWriteOpset = 17;
inline constexpr int64_t kOnnxWriteIrVersion = 8;

// A file that contradicts itself or ONNX (initializer data that does not match its dims, a
// model ONNX's checker rejects): invalid, as opposed to valid but unsupported.
class OnnxInvalidModel : public Error {
 public:
  explicit OnnxInvalidModel(const std::string& what) : Error(what) {}
};

// What loading did to a file: the load-time normalisation (onnx_fold.h) and the batch.
struct OnnxLoadSummary {
  int64_t file_opset = 0;             // default-domain opset the file imports
  int64_t file_ir_version = 0;        // its IR version
  std::map<std::string, int> folded;  // op type -> nodes folded into constants or removed
  int dead_nodes_removed = 0;         // nodes nothing read
  // Runs of ONNX shape inference on the whole graph after folding: 1 when the one folding pass
  // (per-node inference between folds) folded everything; each further run is a folding pass
  // that still found something to fold.
  int whole_graph_inferences = 0;
  int unused_initializers_removed = 0;
  // First dimension of the first graph input as the file states it (0: symbolic or absent), and
  // the value it has in the loaded graph.
  int64_t file_batch = 0;
  int64_t batch = 0;
  int folded_total() const;
  // "folded 212 nodes (Shape 40, Gather 38, ...); removed 3 dead nodes"
  std::string folding_line() const;
};

struct OnnxLoadOptions {
  int64_t batch = 1;  // value of a symbolic first dimension of a graph input
  // Values of other symbolic dimensions by their dim_param name (e.g. "sequence" -> 128); a
  // symbolic dimension after the first that is not named here is refused in one line.
  std::map<std::string, int64_t> dim_values = {};
  // Where to report what loading did (nullptr: nowhere).
  OnnxLoadSummary* summary = nullptr;
  // Graph inputs (not initializers) whose names end in one of these are Weights.
  std::vector<std::string> weight_name_suffixes = {".weight", ".bias", ".running_mean",
                                                   ".running_var"};
  bool run_onnx_checker = true;        // onnx::checker::check_model
  bool check_shapes_with_onnx = true;  // compare our shapes with ONNX shape inference
  // Replace shape arithmetic (Shape, Size and int64 ops whose values ONNX's data propagation
  // knows, e.g. Shape -> Gather -> Unsqueeze -> Concat -> Reshape) by Constant tensors.
  bool fold_shape_computations = true;
  // Accept graph inputs with a zero dimension (ONNX's backend tests have some); the suite's
  // executables refuse them (onnx_limits.h: check_tensor_budget).
  bool allow_empty_inputs = false;
};

// Loads an ONNX file: parses it, runs ONNX's checker and shape inference, converts it to a Graph
// (initializers become Weight tensors, or Constant tensors when they are small integer tensors
// that shape inference needs), infers and validates. Throws dgs::Error with one line naming the
// file and, where it applies, the node and operator ("model.onnx: node 'x' has unsupported
// operator 'Foo'").
Graph load_onnx_file(const std::string& path, const OnnxLoadOptions& opts = {});

// The parsed file with its external data read (load_external_initializers), as load_onnx_file
// loads it. The last file parsed, when it has 16 MiB or more with its external data, is kept and
// returned again while the path, and the size and modification time of the file and of every
// external data file it read (whatever their names), are unchanged: an experiment that loads the
// same file at several batches (a symbolic batch rebatched) parses it once (436 MB for
// BERT-base). Throws like load_onnx_file.
std::shared_ptr<const onnx::ModelProto> parsed_onnx_file(const std::string& path);

// The same from a parsed model; `origin` names it in errors.
Graph graph_from_onnx(const onnx::ModelProto& model, const std::string& origin,
                      const OnnxLoadOptions& opts = {});

// The model after load-time normalisation (opset conversion, symbolic dimensions fixed, constant
// subgraphs folded, dead nodes dropped): what graph_from_onnx converts into a Graph. Its
// initializers hold every folded value, folded weights included.
onnx::ModelProto normalized_onnx_model(const onnx::ModelProto& model, const std::string& origin,
                                       const OnnxLoadOptions& opts = {});

// Converts a Graph to a weight-free ONNX model (weights as graph inputs with shapes, Constant
// tensors as initializers), opset 17.
void graph_to_onnx(const Graph& g, onnx::ModelProto* model);

// The deterministic serialization of graph_to_onnx(g).
std::string graph_to_onnx_bytes(const Graph& g);

// Writes graph_to_onnx(g) to `path` atomically (deterministic bytes for the same graph).
void save_onnx_file(const Graph& g, const std::string& path);

}  // namespace dgs
