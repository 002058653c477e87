#include "common/onnx/onnx_convert.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "common/graph/onnx_dtype.h"
#include "common/graph/op_signature.h"
#include "common/onnx/onnx_opset.h"
#include "common/onnx/onnx_tensor.h"

namespace dgs {

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
// The same names in the file's value_info and graph outputs (exporters annotate intermediate
// tensors with "batch") take the same values; other symbolic dimensions there are cleared for
// shape inference to compute (a stale "batch" would otherwise survive inference at batch 1).
void fix_symbolic_input_dims(onnx::GraphProto* g, const std::set<std::string>& initializers,
                             const OnnxLoadOptions& opts, const std::string& origin) {
  std::map<std::string, int64_t> values;
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
        values[param] = named->second;
      } else if (i == 0) {
        d->set_dim_value(opts.batch);
        if (!param.empty()) values[param] = opts.batch;
      } else {
        throw Error(
            origin + ": graph input '" + in.name() + "': dimension " + std::to_string(i) +
            (param.empty() ? std::string(" has no value") : " is symbolic ('" + param + "')") +
            "; give it a value (" + (param.empty() ? "it has no name" : param + "=N") +
            ", --dim NAME=N) or export with a static shape");
      }
    }
  }
  auto fix = [&](onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (!d.has_dim_param()) continue;
      auto it = values.find(d.dim_param());
      if (it != values.end()) {
        d.set_dim_value(it->second);
      } else {
        d.clear_dim_param();
      }
    }
  };
  for (auto& v : *g->mutable_value_info()) fix(v);
  for (auto& v : *g->mutable_output()) fix(v);
}

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

namespace {

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

}  // namespace

int64_t default_opset(const onnx::ModelProto& m) {
  for (const auto& o : m.opset_import()) {
    if (is_onnx_domain(o.domain())) return o.version();
  }
  return 0;
}

namespace {

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

}  // namespace

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

}  // namespace dgs
