#include "common/onnx/onnx_node_checks.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/graph/op_signature.h"
#include "common/onnx/onnx_limits.h"
#include "common/onnx/onnx_tensor.h"  // constant_node_tensor
#include "common/util/error.h"

namespace dgs {

namespace {

namespace si = onnx::shape_inference;

// What a node check knows of one node: its inputs' ranks (-1: absent or unknown), its attributes,
// and the prefix of its errors.
class NodeView {
 public:
  NodeView(const onnx::NodeProto& n, const std::unordered_map<std::string, onnx::TypeProto*>& types,
           std::string what)
      : n_(n), what_(std::move(what)) {
    for (const std::string& in : n.input()) {
      int rank = -1;
      const auto t = in.empty() ? types.end() : types.find(in);
      if (t != types.end() && t->second->has_tensor_type() &&
          t->second->tensor_type().has_shape()) {
        rank = t->second->tensor_type().shape().dim_size();
      }
      ranks_.push_back(rank);
      const bool one_dim = rank == 1 && t->second->tensor_type().shape().dim(0).has_dim_value();
      lengths_.push_back(one_dim ? t->second->tensor_type().shape().dim(0).dim_value() : -1);
    }
  }

  // The number of inputs, and the length of input i when it is 1-D of known length (else -1).
  int num_inputs() const { return static_cast<int>(ranks_.size()); }
  int64_t length(int i) const { return i < num_inputs() ? lengths_[i] : -1; }
  const std::string& input_name(int i) const { return n_.input(i); }

  int rank(int i) const { return i < static_cast<int>(ranks_.size()) ? ranks_[i] : -1; }

  const onnx::AttributeProto* attr(const std::string& name) const {
    for (const auto& a : n_.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  // An int attribute, or `def`.
  int64_t attr_int(const std::string& name, int64_t def) const {
    const auto* a = attr(name);
    return a ? a->i() : def;
  }
  [[noreturn]] void fail(const std::string& what, const std::string& expected) const {
    throw Error(what_ + ": " + what + "; expected " + expected);
  }
  std::string input_text(int i, const std::string& label) const {
    return "input " + label + " '" + n_.input(i) + "' has rank " + std::to_string(rank(i));
  }

  void require_rank_at_least(int i, int r, const std::string& label,
                             const std::string& why = "") const {
    if (rank(i) >= 0 && rank(i) < r)
      fail(input_text(i, label), "rank " + std::to_string(r) + " or more" + why);
  }
  void require_rank(int i, int r, const std::string& label) const {
    if (rank(i) >= 0 && rank(i) != r) fail(input_text(i, label), "rank " + std::to_string(r));
  }
  void require_rank_at_most(int i, int r, const std::string& label) const {
    if (rank(i) > r) fail(input_text(i, label), "rank " + std::to_string(r) + " or less");
  }

  // Attribute `name` (ints), when present, has `n` values.
  void attr_size(const std::string& name, int64_t n) const {
    const auto* a = attr(name);
    if (a && a->ints_size() != n) {
      fail("attribute '" + name + "' has " + std::to_string(a->ints_size()) +
               " values for input rank " + std::to_string(rank(0)),
           std::to_string(n) + " values");
    }
  }

 private:
  const onnx::NodeProto& n_;
  std::string what_;
  std::vector<int> ranks_;
  std::vector<int64_t> lengths_;
};

const std::string kSpatial = " (batch, channels, spatial)";

// Convolutions and pools: data (and weights) of rank 3 or more, window attributes with one value
// per spatial axis.
void check_window(const NodeView& v, bool has_weights) {
  v.require_rank_at_least(0, 3, "X", kSpatial);
  int r = v.rank(0);
  if (has_weights) {
    v.require_rank_at_least(1, 3, "W", " (output channels, input channels, kernel)");
    if (r >= 0 && v.rank(1) >= 0 && v.rank(1) != r)
      v.fail(v.input_text(1, "W") + " for X of rank " + std::to_string(r), "W of X's rank");
    if (r < 0) r = v.rank(1);
    v.require_rank(2, 1, "B");
    if (v.attr("group") && v.attr_int("group", 1) < 1)
      v.fail("attribute 'group' is " + std::to_string(v.attr_int("group", 1)), "group >= 1");
  }
  if (r < 3) return;
  for (const char* a : {"kernel_shape", "strides", "dilations", "output_padding", "output_shape"})
    v.attr_size(a, r - 2);
  v.attr_size("pads", 2 * (r - 2));
}

// Inputs holding a shape, axes, pads or repeats (Reshape's shape, Expand's, ConstantOfShape's
// input, ...): their length sets the rank of an output, and libonnx builds that many dimensions
// (a fuzz finding: a Reshape to a shape tensor of 14,680,065 elements made libonnx allocate 14
// million dimensions, seconds and gigabytes). Refused above 2 x kOnnxMaxRank entries (pads list
// two per axis); Split's sizes (one per output) are not a rank.
void check_shape_input_lengths(const NodeView& v, const std::string& op) {
  const auto kind = op_kind_from_name(op);
  for (int i = 0; i < v.num_inputs(); ++i) {
    const bool shape_input = kind ? *kind != OpKind::Split && is_shape_input(*kind, i)
                                  : (op == "ConstantOfShape" && i == 0) || (op == "Tile" && i == 1);
    if (shape_input && v.length(i) > 2 * kOnnxMaxRank) {
      v.fail("input " + std::to_string(i) + " '" + v.input_name(i) + "' holds " +
                 std::to_string(v.length(i)) + " values (a shape, axes or pads list)",
             "at most " + std::to_string(2 * kOnnxMaxRank) + " (tensors of rank " +
                 std::to_string(kOnnxMaxRank) + " at most)");
    }
  }
}

// The checks of one node, by operator (ONNX domain). Only operators whose libonnx 1.12 inference
// reads dimensions without checking the rank get one: convolutions and pools (a rank-2 X or W of
// a Conv or ConvTranspose: SIGSEGV), Gemm (a rank-1 operand, a fuzz finding: SIGSEGV) and
// LayerNormalization (a scalar X, a fuzz finding: SIGSEGV). 76
// crafted nodes across the accepted operators with bad ranks, axes, perms, pads, sizes and block
// sizes, run through libonnx 1.12's InferShapes alone, crashed it only where they were
// convolutions (produced_rank_test keeps those that did), and the fuzzer later found
// LayerNormalization of a scalar; it fails the others, non-strict inference
// goes on, and the suite's own shape inference refuses them after conversion, naming the op, with
// the values that folding makes known (a check here would report a rank produced by a run-time
// value instead: a ConstantOfShape of a runtime tensor has the rank of that tensor's length).
void check_node(const NodeView& v, const std::string& op) {
  check_shape_input_lengths(v, op);
  if (op == "Conv" || op == "ConvTranspose") return check_window(v, true);
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") return check_window(v, false);
  if (op == "Gemm") {
    v.require_rank(0, 2, "A");
    v.require_rank(1, 2, "B");
    v.require_rank_at_most(2, 2, "C");
  }
  if (op == "LayerNormalization") {
    // A fuzz finding (842,888 executions): a rank-0 X made libonnx 1.12 build the opset-17
    // function body with axis -1 of a scalar (SIGSEGV). X needs an axis to normalise over.
    v.require_rank_at_least(0, 1, "X");
    const int r = v.rank(0);
    const int64_t axis = v.attr_int("axis", -1);
    if (r >= 1 && (axis < -r || axis >= r))
      v.fail("attribute 'axis' is " + std::to_string(axis) + " for input X of rank " +
                 std::to_string(r),
             "an axis in [" + std::to_string(-r) + ", " + std::to_string(r - 1) + "]");
  }
}

// The rank a declared type gives its value, or -1 when it declares no tensor shape.
int declared_rank(const onnx::TypeProto& t) {
  return t.has_tensor_type() && t.tensor_type().has_shape() ? t.tensor_type().shape().dim_size()
                                                            : -1;
}

// Refuses an output whose inferred rank differs from the rank the file declares for it (graph
// output or value_info): consumers would otherwise be checked against one rank and inferred
// against the other.
void check_declared_rank(const onnx::NodeProto& n, int o, const onnx::TypeProto& inferred,
                         const onnx::TypeProto& declared, const std::string& what) {
  const int ri = declared_rank(inferred);
  const int rd = declared_rank(declared);
  if (ri >= 0 && rd >= 0 && ri != rd) {
    throw Error(what + ": output '" + n.output(o) + "' has rank " + std::to_string(ri) +
                " but the file declares rank " + std::to_string(rd) + "; expected the same rank");
  }
}

// The type libonnx gives an initializer that no graph input declares.
onnx::TypeProto type_of_initializer(const onnx::TensorProto& t) {
  onnx::TypeProto type;
  auto* tt = type.mutable_tensor_type();
  tt->set_elem_type(t.data_type());
  auto* shape = tt->mutable_shape();
  for (int64_t d : t.dims()) shape->add_dim()->set_dim_value(d);
  return type;
}

// Refuses a value the graph declares with two ranks (as a graph input, in value_info, as a graph
// output, as an initializer). libonnx's InferShapes takes the last of value_info, inputs and
// outputs, and the checks above would check a consumer against another: a fuzz finding (a
// graph output named as the Gemm operand graph input '1' [2, 3], declared of rank 0) made
// libonnx 1.12's Gemm inference read a dimension of a scalar (SIGSEGV).
void refuse_conflicting_declarations(const onnx::GraphProto& g, const std::string& origin) {
  std::unordered_map<std::string, std::pair<int, const char*>> first;  // rank, where
  const auto declare = [&](const std::string& name, int rank, const char* where) {
    if (rank < 0) return;
    const auto [it, inserted] = first.emplace(name, std::make_pair(rank, where));
    if (!inserted && it->second.first != rank) {
      throw Error(origin + ": value '" + name + "' is declared with rank " +
                  std::to_string(it->second.first) + " (" + it->second.second + ") and rank " +
                  std::to_string(rank) + " (" + where + "); expected one rank");
    }
  };
  for (const auto& v : g.input()) declare(v.name(), declared_rank(v.type()), "graph input");
  for (const auto& t : g.initializer()) declare(t.name(), t.dims_size(), "initializer");
  for (const auto& v : g.value_info()) declare(v.name(), declared_rank(v.type()), "value_info");
  for (const auto& v : g.output()) declare(v.name(), declared_rank(v.type()), "graph output");
}

}  // namespace

// Types, and data for inference functions that read values, by tensor name.
struct OnnxNodeInference::State {
  std::map<std::string, int> opsets;
  std::vector<std::unique_ptr<onnx::TypeProto>> owned;
  std::unordered_map<std::string, onnx::TypeProto*> types;
  std::unordered_map<std::string, const onnx::TensorProto*> data;
  std::deque<onnx::TensorProto> values;  // folded values and Constant nodes' values, for `data`
  const std::unordered_map<std::string, const onnx::SparseTensorProto*> no_sparse{};
  std::string origin;

  onnx::TypeProto* own(const onnx::TypeProto& t) {
    owned.push_back(std::make_unique<onnx::TypeProto>(t));
    return owned.back().get();
  }
};

bool onnx_inference_reads_data(const onnx::TensorProto& t) {
  const bool integer = t.data_type() == onnx::TensorProto_DataType_INT64 ||
                       t.data_type() == onnx::TensorProto_DataType_INT32;
  return integer || numel(dims_of(t)) <= kOnnxInferenceDataLimit;
}

OnnxNodeInference::OnnxNodeInference(const onnx::ModelProto& model, const std::string& origin)
    : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.origin = origin;
  const onnx::GraphProto& g = model.graph();
  refuse_conflicting_declarations(g, origin);
  for (const auto& o : model.opset_import())
    st.opsets[o.domain() == "ai.onnx" ? std::string() : o.domain()] = static_cast<int>(o.version());
  for (const auto& v : g.input()) st.types[v.name()] = st.own(v.type());
  for (const auto& t : g.initializer()) {
    if (onnx_inference_reads_data(t)) st.data[t.name()] = &t;
    if (!st.types.count(t.name())) st.types[t.name()] = st.own(type_of_initializer(t));
  }
  for (const auto& v : g.value_info()) st.types[v.name()] = st.own(v.type());
  // Declared graph outputs too: a consumer is checked against the declared rank when inference
  // leaves a value unknown, and a declared rank that inference contradicts is refused below.
  for (const auto& v : g.output())
    if (!st.types.count(v.name())) st.types[v.name()] = st.own(v.type());
}

OnnxNodeInference::~OnnxNodeInference() = default;

void OnnxNodeInference::check(const onnx::NodeProto& n, int index) const {
  const State& st = *state_;
  const std::string domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
  if (!domain.empty()) return;
  const std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  check_node(NodeView(n, st.types, st.origin + ": node '" + name + "' (" + n.op_type() + ")"),
             n.op_type());
}

void OnnxNodeInference::infer(onnx::NodeProto& n, int index) {
  State& st = *state_;
  const std::string domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
  const std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  const std::string what = st.origin + ": node '" + name + "' (" + n.op_type() + ")";
  if (domain.empty()) check_node(NodeView(n, st.types, what), n.op_type());
  const auto opset = st.opsets.find(domain);
  if (opset == st.opsets.end()) return;
  const auto* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset->second, domain);
  if (!schema) return;
  si::InferenceContextImpl ctx(n, st.types, st.data, st.no_sparse);
  try {
    if (schema->has_type_and_shape_inference_function()) {
      schema->GetTypeAndShapeInferenceFunction()(ctx);
    } else if (schema->HasFunction() && schema->GetFunction()) {
      si::InferShapeForFunctionNode(*schema->GetFunction(), onnx::OpSchemaRegistry::Instance(),
                                    ctx);
    } else {
      return;
    }
  } catch (const std::exception&) {
    return;  // non-strict inference leaves the outputs as they were
  }
  for (int o = 0; o < n.output_size(); ++o) {
    const onnx::TypeProto* inferred = ctx.getOutputType(o);
    if (n.output(o).empty() || !inferred ||
        inferred->value_case() == onnx::TypeProto::VALUE_NOT_SET)
      continue;
    auto existing = st.types.find(n.output(o));
    if (existing != st.types.end()) check_declared_rank(n, o, *inferred, *existing->second, what);
    if (existing == st.types.end()) {
      st.types[n.output(o)] = st.own(*inferred);
    } else {
      try {
        si::mergeShapesAndTypes(*inferred, existing->second);
      } catch (const std::exception&) {
        // a declared type that contradicts the inferred one stays (non-strict inference)
      }
    }
  }
  if (n.op_type() == "Constant" && domain.empty() && n.output_size() == 1) {
    if (auto t = constant_node_tensor(n)) add_value(*t);
  }
}

void OnnxNodeInference::add_value(const onnx::TensorProto& t) {
  State& st = *state_;
  st.types[t.name()] = st.own(type_of_initializer(t));
  if (onnx_inference_reads_data(t)) {
    st.values.push_back(t);
    st.data[t.name()] = &st.values.back();
  } else {
    st.data.erase(t.name());
  }
}

std::optional<Shape> OnnxNodeInference::static_shape(const std::string& name) const {
  const auto it = state_->types.find(name);
  if (it == state_->types.end() || !it->second->has_tensor_type() ||
      !it->second->tensor_type().has_shape())
    return std::nullopt;
  Shape s;
  for (const auto& d : it->second->tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    s.push_back(d.dim_value());
  }
  return s;
}

void check_nodes_before_onnx_inference(onnx::ModelProto& model, const std::string& origin) {
  OnnxNodeInference walk(model, origin);
  onnx::GraphProto& g = *model.mutable_graph();
  for (int i = 0; i < g.node_size(); ++i) walk.infer(*g.mutable_node(i), i);
}

}  // namespace dgs
