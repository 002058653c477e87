#include "common/onnx/onnx_io.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "common/graph/onnx_dtype.h"
#include "common/graph/shape_inference.h"
#include "common/onnx/onnx_convert.h"
#include "common/onnx/onnx_external_data.h"
#include "common/onnx/onnx_fold.h"
#include "common/onnx/onnx_fold_eval.h"
#include "common/onnx/onnx_limits.h"
#include "common/onnx/onnx_nan_guard.h"
#include "common/onnx/onnx_node_checks.h"
#include "common/onnx/onnx_opset.h"
#include "common/onnx/onnx_tensor.h"

namespace dgs {

namespace {

// ---------------------------------------------------------------------------------------------
// Load-time normalisation: shape inference, folding rounds, checks
// ---------------------------------------------------------------------------------------------
// Operators outside OpKind that the loader accepts only when shape-computation folding removes
// them (their outputs are shapes, known once the input shapes are).
bool is_fold_only_operator(const onnx::NodeProto& n) {
  return is_onnx_domain(n.domain()) &&
         (n.op_type() == "Shape" || n.op_type() == "Size" || is_foldable_op_type(n.op_type()));
}

// The maximum number of shape-inference + folding rounds (each round folds everything whose
// inputs are known; a new round is needed only where folding made a shape static).
constexpr int kMaxFoldRounds = 256;

// A copy of `model` for ONNX shape inference: initializers whose data inference does not read
// (onnx_inference_reads_data: large float ones) become graph inputs (type and shape, no data).
onnx::ModelProto shape_inference_copy(onnx::ModelProto& model) {
  auto* inits = model.mutable_graph()->mutable_initializer();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> all;
  all.Swap(inits);
  onnx::ModelProto copy = model;
  std::set<std::string> inputs;
  for (const auto& in : copy.graph().input()) inputs.insert(in.name());
  for (const auto& t : all) {
    if (onnx_inference_reads_data(t)) {
      *copy.mutable_graph()->add_initializer() = t;
    } else if (!inputs.count(t.name())) {
      auto* v = copy.mutable_graph()->add_input();
      v->set_name(t.name());
      auto* tt = v->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(t.data_type());
      for (int64_t d : t.dims()) tt->mutable_shape()->add_dim()->set_dim_value(d);
    }
  }
  inits->Swap(&all);
  return copy;
}

// Shapes that ONNX shape inference knows completely, by tensor name.
std::map<std::string, Shape> static_shapes_of(const onnx::ModelProto& inferred) {
  std::map<std::string, Shape> shapes;
  auto add = [&](const onnx::ValueInfoProto& v) {
    const OnnxShape s = onnx_shape(v);
    if (s.known) shapes[v.name()] = s.dims;
  };
  for (const auto& v : inferred.graph().input()) add(v);
  for (const auto& v : inferred.graph().value_info()) add(v);
  for (const auto& v : inferred.graph().output()) add(v);
  return shapes;
}

// A node left after folding whose operator exists only to be folded: names the input whose value
// is not known at load time.
void refuse_unfolded(const onnx::GraphProto& g, const std::string& origin) {
  std::set<std::string> known;
  for (const auto& t : g.initializer()) known.insert(t.name());
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (!is_fold_only_operator(n) || op_kind_from_name(n.op_type())) continue;
    std::string dynamic;
    for (const std::string& in : n.input()) {
      if (!in.empty() && !known.count(in) && dynamic.empty()) dynamic = in;
    }
    throw Error(origin + ": node '" + node_label(n, i) + "' (" + n.op_type() +
                ") cannot be folded at load time: " +
                (dynamic.empty() ? std::string("its output is a graph output")
                                 : "tensor '" + dynamic + "' is computed at run time") +
                " (only subgraphs of constants and static shapes fold)");
  }
}

// Compares our shapes with ONNX's inferred ones (value_info and graph outputs).
void compare_with_onnx_shapes(const Graph& g, const onnx::ModelProto& inferred,
                              const std::string& origin) {
  auto check = [&](const onnx::ValueInfoProto& v) {
    const int t = g.find_tensor(v.name());
    if (t < 0) return;
    const OnnxShape s = onnx_shape(v);
    const Tensor& x = g.tensor(t);
    if (s.known && s.dims != x.shape) {
      throw Error(origin + ": tensor '" + v.name() + "': shape " + shape_str(x.shape) +
                  " from our shape inference differs from ONNX shape inference " +
                  shape_str(s.dims));
    }
    auto dt = dtype_from_onnx(s.elem_type);
    if (s.elem_type != 0 && dt && *dt != x.dtype) {
      throw Error(origin + ": tensor '" + v.name() + "': dtype " +
                  std::string(dtype_name(x.dtype)) +
                  " from our shape inference differs from ONNX's " + std::string(dtype_name(*dt)));
    }
  };
  for (const auto& v : inferred.graph().value_info()) check(v);
  for (const auto& v : inferred.graph().output()) check(v);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------
namespace {

// A model after load-time normalisation, with ONNX's shape inference of it.
struct NormalizedModel {
  onnx::ModelProto model;
  onnx::ModelProto inferred;
  std::set<std::string> computed_constants;  // folded values the Graph keeps as Constants
};

// `model_in` is taken by value: load_onnx_file moves the parsed file in (no copy of its weights).
NormalizedModel normalize(onnx::ModelProto model_in, const std::string& origin,
                          const OnnxLoadOptions& opts) {
  if (!model_in.has_graph() || model_in.graph().node_size() == 0) {
    throw Error(origin + ": not an ONNX model (no graph with nodes)");
  }
  // Names, ranks, sizes and attribute lengths first: before anything quotes or allocates them.
  check_file_limits(model_in.graph(), origin);
  // Operator support first, so that an unknown operator is named as such (the checker would
  // report it less clearly). Shape/Size pass here and must be folded away below.
  auto check_operators = [&](const onnx::GraphProto& gp, bool allow_fold_only) {
    for (int i = 0; i < gp.node_size(); ++i) {
      const onnx::NodeProto& n = gp.node(i);
      if (n.op_type() == "Constant" && is_onnx_domain(n.domain())) continue;
      if (allow_fold_only && is_fold_only_operator(n)) continue;
      (void)node_kind(n, i, origin);
    }
  };
  // PyTorch's Where(IsNaN(softmax), 0, softmax) guards go before the operators are checked
  // (onnx_nan_guard.h).
  const int nan_guards = opts.fold_shape_computations
                             ? remove_softmax_nan_guards(model_in.mutable_graph(), origin)
                             : 0;
  check_operators(model_in.graph(), opts.fold_shape_computations);
  OnnxLoadSummary local_summary;
  OnnxLoadSummary& summary = opts.summary ? *opts.summary : local_summary;
  summary = OnnxLoadSummary{};
  if (nan_guards > 0) summary.folded["Where(IsNaN) of Softmax"] = nan_guards;
  summary.file_opset = default_opset(model_in);
  summary.file_ir_version = model_in.ir_version();
  for (const auto& t : model_in.graph().initializer()) {
    check_tensor_data_size(t, origin + ": initializer '" + t.name() + "'");
  }
  NormalizedModel result;
  onnx::ModelProto& model = result.model;
  model = std::move(model_in);
  convert_to_checker_opset(&model, origin);
  {
    std::set<std::string> init_names;
    for (const auto& t : model.graph().initializer()) init_names.insert(t.name());
    for (const auto& in : model.graph().input()) {
      if (init_names.count(in.name())) continue;
      const auto& shape = in.type().tensor_type().shape();
      if (shape.dim_size() > 0 && shape.dim(0).has_dim_value()) {
        summary.file_batch = shape.dim(0).dim_value();
      }
      break;
    }
    fix_symbolic_input_dims(model.mutable_graph(), init_names, opts, origin);
    summary.batch = summary.file_batch > 0 ? summary.file_batch : opts.batch;
  }
  if (opts.run_onnx_checker) {
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      throw OnnxInvalidModel(origin + ": ONNX checker: " + as_one_line(e.what()));
    }
  }
  onnx::ModelProto& inferred = result.inferred;
  std::set<std::string>& computed_constants = result.computed_constants;
  if (opts.fold_shape_computations) {
    // One pass folds every chain: libonnx's inference of each node that stays runs right
    // after the folding of the nodes before it, so a shape that folding makes static (a Reshape
    // to a folded shape) is known to the Shape nodes after it. (Whole-graph inference between
    // folding passes needed one pass per chained block: about 30 for Swin-T.)
    OnnxNodeInference per_node(model, origin);
    fold_constant_nodes(&model, {}, &computed_constants, &summary, origin, &per_node);
  }
  if (opts.check_shapes_with_onnx || opts.fold_shape_computations) {
    // ONNX's inference of the whole folded graph; a folding pass with its shapes finds nothing
    // more to fold unless the one pass above missed something (it is repeated until nothing
    // changes, so the result is the fixed point either way).
    for (int round = 0;; ++round) {
      inferred = shape_inference_copy(model);
      check_nodes_before_onnx_inference(inferred, origin);  // libonnx crashes on bad ranks
      // Without ONNX's data propagation: libonnx 1.12's crashes on some exported graphs
      // (Shape of an Add in a ViT export). Folding evaluates the shape arithmetic itself, one
      // round per chain whose shapes a previous round made static.
      try {
        onnx::ShapeInferenceOptions so(/*check_type=*/false, /*strict_mode=*/0,
                                       /*data_prop=*/false);
        onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(), so);
        ++summary.whole_graph_inferences;
      } catch (const std::exception& e) {
        throw Error(origin + ": ONNX shape inference: " + as_one_line(e.what()));
      }
      if (!opts.fold_shape_computations || round == kMaxFoldRounds) break;
      const int changed = fold_constant_nodes(&model, static_shapes_of(inferred),
                                              &computed_constants, &summary, origin);
      if (changed == 0) break;
    }
    if (opts.fold_shape_computations) {
      remove_dead_nodes(&model, &summary);
      try {
        refuse_unfolded(model.graph(), origin);
      } catch (const Error&) {
        // A shape left unknown is usually an inconsistency that ONNX's strict shape inference
        // names (e.g. a batch-1 constant concatenated with a batch-2 activation).
        try {
          onnx::ModelProto probe = shape_inference_copy(model);
          onnx::ShapeInferenceOptions strict(/*check_type=*/false, /*strict_mode=*/1,
                                             /*data_prop=*/false);
          onnx::shape_inference::InferShapes(probe, onnx::OpSchemaRegistry::Instance(), strict);
        } catch (const std::exception& e) {
          throw Error(origin + ": ONNX shape inference: " + as_one_line(e.what()));
        }
        throw;
      }
      check_operators(model.graph(), false);
    }
  }
  return result;
}

}  // namespace

onnx::ModelProto normalized_onnx_model(const onnx::ModelProto& model, const std::string& origin,
                                       const OnnxLoadOptions& opts) {
  return normalize(model, origin, opts).model;
}

namespace {

Graph graph_from_model(onnx::ModelProto model_in, const std::string& origin,
                       const OnnxLoadOptions& opts) {
  const NormalizedModel normalized = normalize(std::move(model_in), origin, opts);
  const onnx::ModelProto& model = normalized.model;
  const onnx::ModelProto& inferred = normalized.inferred;
  Graph g;
  try {
    g = convert(model, origin, opts, normalized.computed_constants);
  } catch (const Error& e) {
    const std::string msg = as_one_line(e.what());
    throw Error(msg.rfind(origin + ": ", 0) == 0 ? msg : origin + ": " + msg);
  }
  try {
    infer_shapes(g);
    validate(g);
  } catch (const Error& e) {
    throw Error(origin + ": " + as_one_line(e.what()));
  }
  check_tensor_budget(g, origin, opts.allow_empty_inputs);
  if (opts.check_shapes_with_onnx) compare_with_onnx_shapes(g, inferred, origin);
  return g;
}

}  // namespace

Graph graph_from_onnx(const onnx::ModelProto& model, const std::string& origin,
                      const OnnxLoadOptions& opts) {
  return graph_from_model(model, origin, opts);
}

int OnnxLoadSummary::folded_total() const {
  int n = 0;
  for (const auto& [type, count] : folded) n += count;
  return n;
}

std::string OnnxLoadSummary::folding_line() const {
  std::string s = "folded " + std::to_string(folded_total()) + " nodes";
  if (!folded.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [type, count] : folded) {
      s += (first ? "" : ", ") + type + " " + std::to_string(count);
      first = false;
    }
    s += ")";
  }
  s += "; removed " + std::to_string(dead_nodes_removed) + " dead nodes and " +
       std::to_string(unused_initializers_removed) + " unused initializers";
  return s;
}

namespace {

// Files (with their external data) from this size on are kept parsed. Smaller ones parse in
// milliseconds and are parsed every time, so a small file rewritten with the same size within
// the file system's timestamp granularity (a few milliseconds) is never read stale.
constexpr uintmax_t kOnnxParsedFileKeepBytes = uintmax_t{16} << 20;

// The last file load_onnx_file parsed, with its external data read, by path and by the size and
// modification time of the file and its external data files at parse time.
using FileStamps = std::vector<std::pair<uintmax_t, std::filesystem::file_time_type>>;

struct ParsedOnnxFile {
  std::string path;
  std::vector<std::filesystem::path> data_files;  // the external data files it read
  FileStamps stamps;                              // of the model file, then of data_files
  std::shared_ptr<const onnx::ModelProto> model;
};

// Size and modification time of the model file and of its external data files; empty when one of
// them cannot be read.
FileStamps file_stamps(const std::string& path,
                       const std::vector<std::filesystem::path>& data_files) {
  namespace fs = std::filesystem;
  FileStamps stamps;
  std::vector<fs::path> files = {fs::path(path)};
  files.insert(files.end(), data_files.begin(), data_files.end());
  for (const fs::path& f : files) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(f, ec);
    if (ec) return {};
    const auto time = fs::last_write_time(f, ec);
    if (ec) return {};
    stamps.emplace_back(size, time);
  }
  return stamps;
}

std::shared_ptr<const onnx::ModelProto> parse_onnx_file(
    const std::string& path, std::vector<std::filesystem::path>* data_files) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(path + ": cannot open the file");
  std::string bytes(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  auto model = std::make_shared<onnx::ModelProto>();
  if (bytes.empty() || !in || !model->ParseFromString(bytes)) {
    throw Error(path + ": not a valid ONNX model (protobuf parsing failed)");
  }
  bytes = std::string();
  *data_files = load_external_initializers(model.get(), path);
  return model;
}

}  // namespace

std::shared_ptr<const onnx::ModelProto> parsed_onnx_file(const std::string& path) {
  static std::mutex mutex;
  static ParsedOnnxFile last;
  std::lock_guard<std::mutex> lock(mutex);
  if (last.model && last.path == path) {
    const FileStamps now = file_stamps(path, last.data_files);
    if (!now.empty() && now == last.stamps) return last.model;
  }
  last = ParsedOnnxFile{};  // the previous file's memory goes before the next is parsed
  // Stamped before reading, so a file rewritten while it is read is parsed again next time.
  const FileStamps model_stamp = file_stamps(path, {});
  std::vector<std::filesystem::path> data_files;
  auto model = parse_onnx_file(path, &data_files);
  FileStamps stamps = file_stamps(path, data_files);
  uintmax_t bytes = 0;
  for (const auto& [size, time] : stamps) bytes += size;
  if (!stamps.empty() && !model_stamp.empty() && stamps.front() == model_stamp.front() &&
      bytes >= kOnnxParsedFileKeepBytes) {
    last = ParsedOnnxFile{path, std::move(data_files), std::move(stamps), model};
  }
  return model;
}

Graph load_onnx_file(const std::string& path, const OnnxLoadOptions& opts) {
  return graph_from_model(*parsed_onnx_file(path), path, opts);
}

}  // namespace dgs
