#include "common/graph/graph.h"

#include <algorithm>
#include <array>
#include <queue>
#include <sstream>
#include <type_traits>

#include "common/graph/shape_inference.h"

namespace dgs {

int64_t dtype_size(DType t) {
  switch (t) {
    case DType::F32:
      return 4;
    case DType::F16:
      return 2;
    case DType::I64:
      return 8;
    case DType::I32:
      return 4;
    case DType::Bool:
      return 1;
  }
  return 4;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F32:
      return "float32";
    case DType::F16:
      return "float16";
    case DType::I64:
      return "int64";
    case DType::I32:
      return "int32";
    case DType::Bool:
      return "bool";
  }
  return "?";
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shape_str(const Shape& s) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? "," : "") << s[i];
  os << ']';
  return os.str();
}

std::string_view role_name(TensorRole r) {
  switch (r) {
    case TensorRole::Input:
      return "input";
    case TensorRole::Weight:
      return "weight";
    case TensorRole::Constant:
      return "constant";
    case TensorRole::Activation:
      return "activation";
    case TensorRole::Output:
      return "output";
  }
  return "?";
}

namespace {
constexpr size_t kNumKinds = static_cast<size_t>(OpKind::kCount);
constexpr std::array<std::string_view, kNumKinds> kOpNames = {
#define DGS_OP(kind, ...) #kind,
#include "common/graph/op_table.inc"
#undef DGS_OP
};
struct KindTraits {
  OpFamily family;
  EwClass ew;
  bool activation;
  bool layout_only;
};
constexpr std::array<KindTraits, kNumKinds> kTraits = {{
#define DGS_OP(kind, family, min_in, max_in, min_out, max_out, ew, act, layout) \
  {OpFamily::family, EwClass::ew, act != 0, layout != 0},
#include "common/graph/op_table.inc"
#undef DGS_OP
}};
KindTraits traits(OpKind k) {
  const auto i = static_cast<size_t>(k);
  return i < kTraits.size() ? kTraits[i]
                            : KindTraits{OpFamily::DataMovement, EwClass::None, false, false};
}
}  // namespace

std::string_view op_kind_name(OpKind k) {
  return kOpNames.at(static_cast<size_t>(k));
}

std::optional<OpKind> op_kind_from_name(std::string_view s) {
  for (size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == s) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

OpFamily op_family(OpKind k) {
  return traits(k).family;
}
EwClass ew_class(OpKind k) {
  return traits(k).ew;
}
bool is_activation(OpKind k) {
  return traits(k).activation;
}
bool is_elementwise(OpKind k) {
  switch (op_family(k)) {
    case OpFamily::EwUnary:
    case OpFamily::EwBinary:
    case OpFamily::EwVariadic:
    case OpFamily::EwSpecial:
    case OpFamily::Logic:
      return true;
    default:
      return false;
  }
}
bool is_layout_only(OpKind k) {
  return traits(k).layout_only;
}
bool is_conv_like(OpKind k) {
  return op_family(k) == OpFamily::ConvLike;
}
bool is_matmul_like(OpKind k) {
  return op_family(k) == OpFamily::MatMulLike;
}

// --- Attributes -------------------------------------------------------------------------------
namespace {
[[noreturn]] void wrong_type(const std::string& name, const char* expected) {
  throw Error("attribute '" + name + "' has the wrong type; expected " + expected);
}

// The value of attribute `name` in `values` as a T, `def` when it is absent; throws naming
// `expected` when it holds another type.
template <class T>
T get_as(const std::map<std::string, AttrValue>& values, const std::string& name, const T& def,
         const char* expected) {
  auto it = values.find(name);
  if (it == values.end()) return def;
  if (auto p = std::get_if<T>(&it->second)) return *p;
  if constexpr (std::is_same_v<T, double>)
    if (auto p = std::get_if<int64_t>(&it->second)) return static_cast<double>(*p);
  wrong_type(name, expected);
}
}  // namespace

int64_t Attributes::get_int(const std::string& name, int64_t def) const {
  return get_as(values_, name, def, "an int");
}
double Attributes::get_float(const std::string& name, double def) const {
  return get_as(values_, name, def, "a float");
}
std::string Attributes::get_string(const std::string& name, const std::string& def) const {
  return get_as(values_, name, def, "a string");
}
std::vector<int64_t> Attributes::get_ints(const std::string& name,
                                          const std::vector<int64_t>& def) const {
  return get_as(values_, name, def, "a list of ints");
}
std::vector<double> Attributes::get_floats(const std::string& name,
                                           const std::vector<double>& def) const {
  return get_as(values_, name, def, "a list of floats");
}

// --- Graph ------------------------------------------------------------------------------------
namespace {
Tensor new_tensor(const std::string& name, Shape shape, DType dtype, TensorRole role) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.role = role;
  return t;
}
}  // namespace

int Graph::add_tensor(Tensor t) {
  if (t.name.empty()) throw Error("graph '" + name + "': a tensor has an empty name");
  if (tensor_by_name_.count(t.name)) {
    throw Error("graph '" + name + "': tensor name '" + t.name + "' is used twice");
  }
  int id = num_tensors();
  tensor_by_name_[t.name] = id;
  tensors_.push_back(std::move(t));
  return id;
}

int Graph::add_input(const std::string& n, Shape shape, DType dtype) {
  return add_tensor(new_tensor(n, std::move(shape), dtype, TensorRole::Input));
}

int Graph::add_weight(const std::string& n, Shape shape, DType dtype) {
  return add_tensor(new_tensor(n, std::move(shape), dtype, TensorRole::Weight));
}

int Graph::add_constant_ints(const std::string& n, std::vector<int64_t> values) {
  Tensor t = new_tensor(n, {static_cast<int64_t>(values.size())}, DType::I64, TensorRole::Constant);
  t.int_data = std::move(values);
  return add_tensor(std::move(t));
}

int Graph::add_constant_floats(const std::string& n, Shape shape, std::vector<float> values) {
  if (numel(shape) != static_cast<int64_t>(values.size())) {
    throw Error("constant '" + n + "': " + std::to_string(values.size()) + " values for shape " +
                shape_str(shape));
  }
  Tensor t = new_tensor(n, std::move(shape), DType::F32, TensorRole::Constant);
  t.float_data = std::move(values);
  return add_tensor(std::move(t));
}

int Graph::add_op(OpKind kind, const std::string& n, const std::vector<int>& inputs,
                  Attributes attrs, int num_outputs, const std::vector<std::string>& output_names) {
  if (op_by_name_.count(n)) throw Error("graph '" + name + "': op name '" + n + "' is used twice");
  for (int t : inputs) {
    if (t < -1 || t >= num_tensors()) {
      throw Error("op '" + n + "' (" + std::string(op_kind_name(kind)) + "): input index " +
                  std::to_string(t) + " does not exist");
    }
  }
  if (!output_names.empty() && static_cast<int>(output_names.size()) != num_outputs) {
    throw Error("op '" + n + "': " + std::to_string(output_names.size()) + " output names for " +
                std::to_string(num_outputs) + " outputs");
  }
  Op op;
  op.name = n;
  op.kind = kind;
  op.inputs = inputs;
  op.attrs = std::move(attrs);
  int id = num_ops();
  for (int i = 0; i < num_outputs; ++i) {
    Tensor t;
    t.name = output_names.empty() ? n + ":" + std::to_string(i) : output_names[i];
    t.role = TensorRole::Activation;
    t.producer = id;
    op.outputs.push_back(add_tensor(std::move(t)));
  }
  op_by_name_[n] = id;
  ops_.push_back(std::move(op));
  for (int t : inputs) {
    if (t < 0) continue;
    auto& c = tensors_[t].consumers;
    if (std::find(c.begin(), c.end(), id) == c.end()) c.push_back(id);
  }
  try {
    infer_op_shapes(*this, id);
  } catch (...) {
    // Leave the graph as it was before the call (strong exception guarantee), so that a caller
    // that catches the error can go on using the graph.
    for (int t : inputs) {
      if (t < 0) continue;
      auto& c = tensors_[t].consumers;
      c.erase(std::remove(c.begin(), c.end(), id), c.end());
    }
    for (int t : ops_.back().outputs) tensor_by_name_.erase(tensors_[t].name);
    tensors_.resize(tensors_.size() - ops_.back().outputs.size());
    op_by_name_.erase(n);
    ops_.pop_back();
    throw;
  }
  return id;
}

int Graph::add_op_unchecked(Op op) {
  if (op_by_name_.count(op.name)) {
    throw Error("graph '" + name + "': op name '" + op.name + "' is used twice");
  }
  int id = num_ops();
  op_by_name_[op.name] = id;
  ops_.push_back(std::move(op));
  try {
    rebuild_links();
  } catch (...) {
    op_by_name_.erase(ops_.back().name);  // leave the graph as it was
    ops_.pop_back();
    rebuild_links();
    throw;
  }
  return id;
}

void Graph::mark_output(int t) {
  Tensor& x = tensor(t);
  if (x.producer < 0) {
    throw Error("graph '" + name + "': output '" + x.name + "' is not produced by any op");
  }
  x.role = TensorRole::Output;
}

int Graph::find_tensor(const std::string& n) const {
  auto it = tensor_by_name_.find(n);
  return it == tensor_by_name_.end() ? -1 : it->second;
}

int Graph::find_op(const std::string& n) const {
  auto it = op_by_name_.find(n);
  return it == op_by_name_.end() ? -1 : it->second;
}

namespace {
std::vector<int> tensors_with_role(const std::vector<Tensor>& ts, TensorRole r) {
  std::vector<int> out;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].role == r) out.push_back(static_cast<int>(i));
  }
  return out;
}
}  // namespace

std::vector<int> Graph::input_tensors() const {
  return tensors_with_role(tensors_, TensorRole::Input);
}
std::vector<int> Graph::weight_tensors() const {
  return tensors_with_role(tensors_, TensorRole::Weight);
}
std::vector<int> Graph::output_tensors() const {
  return tensors_with_role(tensors_, TensorRole::Output);
}

std::vector<int> Graph::predecessors(int o) const {
  std::vector<int> out;
  for (int t : op(o).inputs) {
    if (t < 0) continue;
    int p = tensors_[t].producer;
    if (p >= 0 && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

std::vector<int> Graph::successors(int o) const {
  std::vector<int> out;
  for (int t : op(o).outputs) {
    for (int c : tensors_[t].consumers) {
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
  }
  return out;
}

std::vector<int> Graph::topo_order() const {
  const int n = num_ops();
  std::vector<int> indeg(n, 0);
  for (int o = 0; o < n; ++o) indeg[o] = static_cast<int>(predecessors(o).size());
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int o = 0; o < n; ++o) {
    if (indeg[o] == 0) ready.push(o);
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int o = ready.top();
    ready.pop();
    order.push_back(o);
    for (int s : successors(o)) {
      if (--indeg[s] == 0) ready.push(s);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    for (int o = 0; o < n; ++o) {
      if (indeg[o] > 0) {
        throw Error("graph '" + name + "' has a cycle through op '" + ops_[o].name + "'");
      }
    }
  }
  return order;
}

void Graph::rebuild_links() {
  for (Tensor& t : tensors_) {
    t.producer = -1;
    t.consumers.clear();
  }
  for (size_t o = 0; o < ops_.size(); ++o) {
    const Op& op = ops_[o];
    for (int t : op.outputs) {
      if (t < 0 || t >= num_tensors()) {
        throw Error("op '" + op.name + "': output index " + std::to_string(t) + " does not exist");
      }
      if (tensors_[t].producer >= 0) {
        throw Error("graph '" + name + "': tensor '" + tensors_[t].name +
                    "' is produced by two ops ('" + ops_[tensors_[t].producer].name + "' and '" +
                    op.name + "')");
      }
      tensors_[t].producer = static_cast<int>(o);
    }
    for (int t : op.inputs) {
      if (t < 0) continue;
      if (t >= num_tensors()) {
        throw Error("op '" + op.name + "': input index " + std::to_string(t) + " does not exist");
      }
      auto& c = tensors_[t].consumers;
      if (std::find(c.begin(), c.end(), static_cast<int>(o)) == c.end()) {
        c.push_back(static_cast<int>(o));
      }
    }
  }
}

}  // namespace dgs
