#include "common/onnx/onnx_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "common/graph/onnx_dtype.h"
#include "common/graph/op_signature.h"
#include "common/graph/shape_inference.h"
#include "common/onnx/onnx_fold.h"
#include "common/onnx/onnx_fold_eval.h"
#include "common/onnx/onnx_limits.h"
#include "common/onnx/onnx_node_checks.h"
#include "common/onnx/onnx_opset.h"
#include "common/onnx/onnx_tensor.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

// A message of ONNX or of a nested error as one line: its lines joined by single spaces (ONNX's
// checker names the node on the lines after the first), cut at 1000 characters.
std::string as_one_line(const std::string& s) {
  std::string line;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == ' ' || c == '\t') {
      space = !line.empty();
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  if (line.size() > 1000) line = line.substr(0, 1000) + "...";
  return line;
}

// ---------------------------------------------------------------------------------------------
// Element types and tensor data
// ---------------------------------------------------------------------------------------------
// Element type codes and their DTypes come from common/graph/onnx_dtype.h; its codes are ONNX's.
static_assert(onnx_type::kFloat == onnx::TensorProto_DataType_FLOAT);
static_assert(onnx_type::kFloat16 == onnx::TensorProto_DataType_FLOAT16);
static_assert(onnx_type::kInt64 == onnx::TensorProto_DataType_INT64);
static_assert(onnx_type::kInt32 == onnx::TensorProto_DataType_INT32);
static_assert(onnx_type::kBool == onnx::TensorProto_DataType_BOOL);
static_assert(onnx_type::kDouble == onnx::TensorProto_DataType_DOUBLE);

constexpr const char* kMicrosoftDomain = "com.microsoft";
constexpr int64_t kMicrosoftDomainVersion = 1;

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------
std::string node_label(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

bool is_onnx_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

// The OpKind of a node, or an error naming the node and operator.
OpKind node_kind(const onnx::NodeProto& n, int index, const std::string& origin) {
  if (is_onnx_domain(n.domain()) || (n.domain() == kMicrosoftDomain && n.op_type() == "Gelu")) {
    if (auto k = op_kind_from_name(n.op_type())) return *k;
  }
  const std::string op = is_onnx_domain(n.domain()) ? n.op_type() : n.domain() + "::" + n.op_type();
  throw Error(origin + ": node '" + node_label(n, index) + "' has unsupported operator '" + op +
              "'");
}

// Gives symbolic or missing dimensions of the graph inputs concrete values: the first dimension
// takes the batch, others the value named for their dim_param; any other is refused in one line.
void fix_symbolic_input_dims(onnx::GraphProto* g, const std::set<std::string>& initializers,
                             const OnnxLoadOptions& opts, const std::string& origin) {
  for (onnx::ValueInfoProto& in : *g->mutable_input()) {
    if (initializers.count(in.name())) continue;
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape()) continue;
    auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < shape->dim_size(); ++i) {
      auto* d = shape->mutable_dim(i);
      if (d->has_dim_value()) continue;
      const std::string param = d->has_dim_param() ? d->dim_param() : std::string();
      auto named = opts.dim_values.find(param);
      if (!param.empty() && named != opts.dim_values.end()) {
        d->set_dim_value(named->second);
      } else if (i == 0) {
        d->set_dim_value(opts.batch);
      } else {
        throw Error(
            origin + ": graph input '" + in.name() + "': dimension " + std::to_string(i) +
            (param.empty() ? std::string(" has no value") : " is symbolic ('" + param + "')") +
            "; give it a value (" + (param.empty() ? "it has no name" : param + "=N") +
            ", --dim NAME=N) or export with a static shape");
      }
    }
  }
}

struct OnnxShape {
  int elem_type = 0;
  bool known = false;  // every dimension has a value
  Shape dims;
};

OnnxShape onnx_shape(const onnx::ValueInfoProto& v) {
  OnnxShape s;
  if (!v.type().has_tensor_type()) return s;
  const auto& tt = v.type().tensor_type();
  s.elem_type = tt.elem_type();
  if (!tt.has_shape()) return s;
  s.known = true;
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value()) {
      s.known = false;
      break;
    }
    s.dims.push_back(d.dim_value());
  }
  return s;
}

bool ends_with_any(const std::string& s, const std::vector<std::string>& suffixes) {
  for (const std::string& x : suffixes) {
    if (!x.empty() && s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0) {
      return true;
    }
  }
  return false;
}

// Adds a tensor for an initializer or a Constant node's value.
void add_value_tensor(Graph& g, const std::string& name, const onnx::TensorProto& t,
                      bool force_constant, const std::string& what) {
  auto dt = dtype_from_onnx(t.data_type());
  if (!dt) {
    throw Error(what + ": element type " + std::to_string(t.data_type()) + " (" +
                onnx_type_name(t.data_type()) + ") is not supported; expected " +
                supported_onnx_types());
  }
  Tensor x;
  x.name = name;
  x.shape = dims_of(t);
  x.dtype = *dt;
  const bool is_int = *dt == DType::I64 || *dt == DType::I32;
  const bool is_float = *dt == DType::F32 || *dt == DType::F16;
  if (is_int && has_data(t)) {
    x.role = TensorRole::Constant;
    x.int_data = int_values(t, what);
  } else if (is_float && has_data(t) && !has_external_data(t) &&
             (force_constant || x.numel() <= kOnnxSmallFloatConstant)) {
    x.role = TensorRole::Constant;
    x.float_data = float_values(t, what);
  } else {
    x.role = TensorRole::Weight;
  }
  g.add_tensor(std::move(x));
}

// A Constant node's value as a TensorProto (value, value_float(s), value_int(s)).
onnx::TensorProto constant_node_value(const onnx::NodeProto& n, const std::string& what) {
  if (std::optional<onnx::TensorProto> t = constant_node_tensor(n)) return *t;
  throw Error(what +
              ": Constant node without a supported value attribute (value, value_float, "
              "value_floats, value_int, value_ints)");
}

Attributes convert_attributes(const onnx::NodeProto& n, const std::string& what) {
  Attributes attrs;
  for (const auto& a : n.attribute()) {
    switch (a.type()) {
      case onnx::AttributeProto_AttributeType_INT:
        attrs.set(a.name(), int64_t{a.i()});
        break;
      case onnx::AttributeProto_AttributeType_FLOAT:
        attrs.set(a.name(), static_cast<double>(a.f()));
        break;
      case onnx::AttributeProto_AttributeType_STRING:
        attrs.set(a.name(), a.s());
        break;
      case onnx::AttributeProto_AttributeType_INTS:
        attrs.set(a.name(), std::vector<int64_t>(a.ints().begin(), a.ints().end()));
        break;
      case onnx::AttributeProto_AttributeType_FLOATS: {
        std::vector<double> v;
        for (float f : a.floats()) v.push_back(f);
        attrs.set(a.name(), std::move(v));
        break;
      }
      default:
        throw Error(what + ": attribute '" + a.name() + "' has type " +
                    onnx::AttributeProto_AttributeType_Name(a.type()) +
                    "; expected INT, FLOAT, STRING, INTS or FLOATS");
    }
  }
  return attrs;
}

// The default-domain opset a model imports (0 if none).
int64_t default_opset(const onnx::ModelProto& m) {
  for (const auto& o : m.opset_import()) {
    if (is_onnx_domain(o.domain())) return o.version();
  }
  return 0;
}

Attributes without(const Attributes& a, const std::vector<std::string>& names) {
  Attributes out;
  for (const auto& [k, v] : a.all()) {
    if (std::find(names.begin(), names.end(), k) == names.end()) out.set(k, v);
  }
  return out;
}

std::string unique_tensor_name(const Graph& g, const std::string& base) {
  std::string name = base;
  for (int i = 1; g.find_tensor(name) >= 0; ++i) name = base + "_" + std::to_string(i);
  return name;
}

// Rewrites an op of an older opset into the opset-13+ form the Graph uses: attributes that later
// opsets turned into inputs (Squeeze/Unsqueeze/ReduceSum axes and Split sizes before 13, Pad's pads
// and value and Clip's min/max before 11, Slice's starts/ends/axes before 10) become Constant
// inputs, Resize-10's (X, scales) gains an empty roi, and Dropout's ratio/is_test are dropped.
void upgrade_op(Graph& g, Op& op, int64_t opset) {
  auto set_input = [&](size_t index, int tensor) {
    if (op.inputs.size() <= index) op.inputs.resize(index + 1, -1);
    op.inputs[index] = tensor;
  };
  auto ints_to_input = [&](const std::string& attr, size_t index) {
    if (!op.attrs.has(attr)) return;
    set_input(index, g.add_constant_ints(unique_tensor_name(g, op.name + "." + attr),
                                         op.attrs.get_ints(attr, {})));
    op.attrs = without(op.attrs, {attr});
  };
  auto float_to_input = [&](const std::string& attr, size_t index) {
    if (!op.attrs.has(attr)) return;
    set_input(index, g.add_constant_floats(unique_tensor_name(g, op.name + "." + attr), Shape{},
                                           {static_cast<float>(op.attrs.get_float(attr, 0))}));
    op.attrs = without(op.attrs, {attr});
  };
  switch (op.kind) {
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::ReduceSum:
      if (opset < 13) ints_to_input("axes", 1);
      break;
    case OpKind::Split:
      if (opset < 13) ints_to_input("split", 1);
      break;
    case OpKind::Pad:
      if (opset < 11) {
        ints_to_input("pads", 1);
        float_to_input("value", 2);
      }
      break;
    case OpKind::Clip:
      if (opset < 11) {
        float_to_input("min", 1);
        float_to_input("max", 2);
      }
      break;
    case OpKind::Slice:
      if (opset < 10) {
        const bool has_axes = op.attrs.has("axes");
        ints_to_input("starts", 1);
        ints_to_input("ends", 2);
        if (has_axes) ints_to_input("axes", 3);
      }
      break;
    case OpKind::Resize:
      if (opset < 11 && op.inputs.size() == 2) op.inputs = {op.inputs[0], -1, op.inputs[1]};
      break;
    case OpKind::Dropout:
      if (opset < 12) op.attrs = without(op.attrs, {"ratio", "is_test"});
      break;
    default:
      break;
  }
  while (!op.inputs.empty() && op.inputs.back() == -1) op.inputs.pop_back();
}

Graph convert(const onnx::ModelProto& model, const std::string& origin, const OnnxLoadOptions& opts,
              const std::set<std::string>& computed_constants) {
  const onnx::GraphProto& gp = model.graph();
  const int64_t opset = default_opset(model);
  Graph g;
  g.name = gp.name().empty() ? "onnx_graph" : gp.name();

  std::map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& t : gp.initializer()) initializers[t.name()] = &t;

  // Initializers consumed where ONNX requires a float constant with values (Resize's scales).
  std::set<std::string> forced_constants = computed_constants;
  for (const auto& n : gp.node()) {
    if (n.op_type() == "Resize" && n.input_size() > 2) forced_constants.insert(n.input(2));
  }

  // Graph inputs (that are not initializers): Inputs or Weights.
  for (const auto& in : gp.input()) {
    if (initializers.count(in.name())) continue;
    const OnnxShape s = onnx_shape(in);
    auto dt = dtype_from_onnx(s.elem_type);
    if (!dt) {
      throw Error(origin + ": graph input '" + in.name() + "' has element type " +
                  std::to_string(s.elem_type) + " (" + onnx_type_name(s.elem_type) +
                  "); expected " + supported_onnx_types());
    }
    if (!s.known) {
      throw Error(origin + ": graph input '" + in.name() +
                  "' has no complete static shape; expected every dimension to have a value");
    }
    const bool is_weight = in.doc_string() == kOnnxWeightDocString ||
                           ends_with_any(in.name(), opts.weight_name_suffixes);
    if (is_weight) {
      g.add_weight(in.name(), s.dims, *dt);
    } else {
      g.add_input(in.name(), s.dims, *dt);
    }
  }
  for (const auto& t : gp.initializer()) {
    check_tensor_data_size(t, origin + ": initializer '" + t.name() + "'");
    if (g.find_tensor(t.name()) >= 0) {
      throw Error(origin + ": initializer '" + t.name() + "' is declared twice");
    }
    add_value_tensor(g, t.name(), t, forced_constants.count(t.name()) != 0,
                     origin + ": initializer '" + t.name() + "'");
  }

  // Constant nodes become tensors; other nodes' outputs are created before the ops so that
  // inputs can be looked up by name.
  std::set<std::string> op_names;
  std::vector<Op> pending;  // the non-Constant nodes, in file order
  for (int i = 0; i < gp.node_size(); ++i) {
    const onnx::NodeProto& n = gp.node(i);
    std::string label = node_label(n, i);
    const std::string what = origin + ": node '" + label + "' (" + n.op_type() + ")";
    if (n.op_type() == "Constant" && is_onnx_domain(n.domain())) {
      if (n.output_size() != 1) throw Error(what + ": expected one output");
      add_value_tensor(g, n.output(0), constant_node_value(n, what),
                       forced_constants.count(n.output(0)) != 0, what);
      continue;
    }
    const OpKind kind = node_kind(n, i, origin);
    if (op_names.count(label)) label.append("_").append(std::to_string(i));
    op_names.insert(label);
    Op op;
    op.name = label;
    op.kind = kind;
    op.attrs = convert_attributes(n, what);
    int last_output = n.output_size() - 1;
    while (last_output >= 0 && n.output(last_output).empty()) --last_output;
    for (int o = 0; o <= last_output; ++o) {
      Tensor t;
      t.name = n.output(o).empty() ? label + ":" + std::to_string(o) : n.output(o);
      t.role = TensorRole::Activation;
      if (g.find_tensor(t.name) >= 0) {
        throw Error(what + ": output '" + t.name + "' is already defined");
      }
      op.outputs.push_back(g.add_tensor(std::move(t)));
    }
    pending.push_back(std::move(op));
  }
  // Inputs by name, now that every tensor exists.
  for (size_t k = 0, i = 0; i < static_cast<size_t>(gp.node_size()); ++i) {
    const onnx::NodeProto& n = gp.node(static_cast<int>(i));
    if (n.op_type() == "Constant" && is_onnx_domain(n.domain())) continue;
    Op& op = pending[k++];
    for (const std::string& in : n.input()) {
      if (in.empty()) {
        op.inputs.push_back(-1);
        continue;
      }
      const int t = g.find_tensor(in);
      if (t < 0) {
        throw Error(origin + ": node '" + op.name + "' (" + n.op_type() + "): input '" + in +
                    "' is not a graph input, initializer or node output");
      }
      op.inputs.push_back(t);
    }
    while (!op.inputs.empty() && op.inputs.back() == -1) op.inputs.pop_back();
    upgrade_op(g, op, opset);
  }
  for (Op& op : pending) g.add_op_unchecked(std::move(op));

  for (const auto& out : gp.output()) {
    const int t = g.find_tensor(out.name());
    if (t < 0 || g.tensor(t).producer < 0) {
      throw Error(origin + ": graph output '" + out.name() + "' is not produced by any node");
    }
    g.mark_output(t);
  }
  return g;
}

// Operators outside OpKind that the loader accepts only when shape-computation folding removes
// them (their outputs are shapes, known once the input shapes are).
bool is_fold_only_operator(const onnx::NodeProto& n) {
  return is_onnx_domain(n.domain()) &&
         (n.op_type() == "Shape" || n.op_type() == "Size" || is_foldable_op_type(n.op_type()));
}

// The maximum number of shape-inference + folding rounds (each round folds everything whose
// inputs are known; a new round is needed only where folding made a shape static).
constexpr int kMaxFoldRounds = 256;

// Initializers above this many elements (other than integer ones) are given to ONNX shape
// inference as typed graph inputs without their data: it needs only their shapes, and copying
// a model's weights for every inference round would dominate loading time.
constexpr int64_t kShapeInferenceDataLimit = 1024;

// A copy of `model` for ONNX shape inference: large non-integer initializers become graph inputs
// (type and shape, no data).
onnx::ModelProto shape_inference_copy(onnx::ModelProto& model) {
  auto* inits = model.mutable_graph()->mutable_initializer();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> all;
  all.Swap(inits);
  onnx::ModelProto copy = model;
  std::set<std::string> inputs;
  for (const auto& in : copy.graph().input()) inputs.insert(in.name());
  for (const auto& t : all) {
    const bool integer = t.data_type() == onnx_type::kInt64 || t.data_type() == onnx_type::kInt32;
    if (integer || numel(dims_of(t)) <= kShapeInferenceDataLimit) {
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

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------
void set_value_info(onnx::ValueInfoProto* v, const Tensor& t) {
  v->set_name(t.name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(dtype_to_onnx(t.dtype));
  auto* shape = tt->mutable_shape();
  for (int64_t d : t.shape) shape->add_dim()->set_dim_value(d);
}

void set_constant_data(onnx::TensorProto* p, const Tensor& t) {
  p->set_name(t.name);
  p->set_data_type(dtype_to_onnx(t.dtype));
  for (int64_t d : t.shape) p->add_dims(d);
  const std::string what = "constant '" + t.name + "'";
  switch (t.dtype) {
    case DType::I64:
      if (static_cast<int64_t>(t.int_data.size()) != t.numel()) {
        throw Error(what + ": " + std::to_string(t.int_data.size()) + " values for shape " +
                    shape_str(t.shape));
      }
      for (int64_t v : t.int_data) p->add_int64_data(v);
      break;
    case DType::I32:
    case DType::Bool:
      if (static_cast<int64_t>(t.int_data.size()) != t.numel()) {
        throw Error(what + ": " + std::to_string(t.int_data.size()) + " values for shape " +
                    shape_str(t.shape));
      }
      for (int64_t v : t.int_data) p->add_int32_data(static_cast<int32_t>(v));
      break;
    case DType::F32:
      if (static_cast<int64_t>(t.float_data.size()) != t.numel()) {
        throw Error(what + ": " + std::to_string(t.float_data.size()) + " values for shape " +
                    shape_str(t.shape));
      }
      for (float v : t.float_data) p->add_float_data(v);
      break;
    case DType::F16:
      if (static_cast<int64_t>(t.float_data.size()) != t.numel()) {
        throw Error(what + ": " + std::to_string(t.float_data.size()) + " values for shape " +
                    shape_str(t.shape));
      }
      for (float v : t.float_data) p->add_int32_data(float_to_half(v));
      break;
  }
}

void set_attribute(onnx::AttributeProto* a, const std::string& name, const AttrValue& v) {
  a->set_name(name);
  if (auto p = std::get_if<int64_t>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(*p);
  } else if (auto p = std::get_if<double>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    a->set_f(static_cast<float>(*p));
  } else if (auto p = std::get_if<std::string>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_STRING);
    a->set_s(*p);
  } else if (auto p = std::get_if<std::vector<int64_t>>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (int64_t x : *p) a->add_ints(x);
  } else if (auto p = std::get_if<std::vector<double>>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_FLOATS);
    for (double x : *p) a->add_floats(static_cast<float>(x));
  }
}

std::string serialize_deterministic(const onnx::ModelProto& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream sos(&out);
    google::protobuf::io::CodedOutputStream cos(&sos);
    cos.SetSerializationDeterministic(true);
    if (!m.SerializeToCodedStream(&cos)) {
      throw Error("graph '" + m.graph().name() + "': ONNX serialization failed");
    }
  }
  return out;
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
  check_operators(model_in.graph(), opts.fold_shape_computations);
  OnnxLoadSummary local_summary;
  OnnxLoadSummary& summary = opts.summary ? *opts.summary : local_summary;
  summary = OnnxLoadSummary{};
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
  if (opts.check_shapes_with_onnx || opts.fold_shape_computations) {
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

Graph load_onnx_file(const std::string& path, const OnnxLoadOptions& opts) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(path + ": cannot open the file");
  std::string bytes(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  onnx::ModelProto model;
  if (bytes.empty() || !in || !model.ParseFromString(bytes)) {
    throw Error(path + ": not a valid ONNX model (protobuf parsing failed)");
  }
  bytes = std::string();
  return graph_from_model(std::move(model), path, opts);
}

void graph_to_onnx(const Graph& g, onnx::ModelProto* model) {
  model->Clear();
  model->set_ir_version(kOnnxWriteIrVersion);
  model->set_producer_name("dgs");
  model->set_model_version(1);
  auto* opset = model->add_opset_import();
  opset->set_domain("");
  opset->set_version(kOnnxWriteOpset);
  bool uses_microsoft = false;
  for (const Op& op : g.ops()) uses_microsoft |= op.kind == OpKind::Gelu;
  if (uses_microsoft) {
    auto* ms = model->add_opset_import();
    ms->set_domain(kMicrosoftDomain);
    ms->set_version(kMicrosoftDomainVersion);
  }

  onnx::GraphProto* gp = model->mutable_graph();
  gp->set_name(g.name);
  for (int t : g.input_tensors()) set_value_info(gp->add_input(), g.tensor(t));
  for (int t : g.weight_tensors()) {
    auto* v = gp->add_input();
    set_value_info(v, g.tensor(t));
    v->set_doc_string(kOnnxWeightDocString);
  }
  for (const Tensor& t : g.tensors()) {
    if (t.role == TensorRole::Constant) set_constant_data(gp->add_initializer(), t);
  }
  for (int o : g.topo_order()) {
    const Op& op = g.op(o);
    onnx::NodeProto* n = gp->add_node();
    n->set_name(op.name);
    n->set_op_type(std::string(op_kind_name(op.kind)));
    if (op.kind == OpKind::Gelu) n->set_domain(kMicrosoftDomain);
    for (int t : op.inputs) n->add_input(t < 0 ? std::string() : g.tensor(t).name);
    for (int t : op.outputs) n->add_output(g.tensor(t).name);
    for (const auto& [name, value] : op.attrs.all()) set_attribute(n->add_attribute(), name, value);
  }
  for (int t : g.output_tensors()) set_value_info(gp->add_output(), g.tensor(t));
}

std::string graph_to_onnx_bytes(const Graph& g) {
  onnx::ModelProto m;
  graph_to_onnx(g, &m);
  return serialize_deterministic(m);
}

void save_onnx_file(const Graph& g, const std::string& path) {
  write_file_atomic(path, graph_to_onnx_bytes(g));
}

}  // namespace dgs
