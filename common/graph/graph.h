#pragma once
// The graph IR shared by every reproduction: tensors with shapes and dtypes, operators with
// ONNX-named attributes, producers and consumers, topological order and validation.
//
// Semantics follow ONNX (NCHW layouts, ONNX attribute names and defaults), so that loading from
// and writing to ONNX is a direct mapping. Weights are tensors with role Weight (declared as graph
// inputs in the weight-free ONNX files of models/). Small integer constants that determine shapes
// (Reshape's shape, Slice's starts/ends, Split's sizes, ...) are tensors with role Constant that
// carry their values in `int_data`.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "common/util/error.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------
enum class DType : uint8_t { F32, F16, I64, I32, Bool };
int64_t dtype_size(DType t);           // bytes per element
std::string_view dtype_name(DType t);  // "float32", "float16", "int64", "int32", "bool"

using Shape = std::vector<int64_t>;
int64_t numel(const Shape& s);          // product of dimensions (1 for a scalar)
std::string shape_str(const Shape& s);  // "[1,3,224,224]"

enum class TensorRole : uint8_t {
  Input,       // a graph input (activation data fed at run time)
  Weight,      // a learned parameter (a graph input in weight-free ONNX)
  Constant,    // a small constant with known values (int_data / float_data)
  Activation,  // produced by an operator
  Output       // produced by an operator and a graph output
};
std::string_view role_name(TensorRole r);

struct Tensor {
  std::string name;
  Shape shape;
  DType dtype = DType::F32;
  TensorRole role = TensorRole::Activation;
  int producer = -1;              // index of the producing op; -1 for inputs, weights, constants
  std::vector<int> consumers;     // indices of consuming ops (each op listed once)
  std::vector<int64_t> int_data;  // values of an integer Constant
  std::vector<float> float_data;  // values of a float Constant

  int64_t numel() const { return dgs::numel(shape); }
  int64_t bytes() const { return numel() * dtype_size(dtype); }
  bool is_param() const { return role == TensorRole::Weight || role == TensorRole::Constant; }
};

// ---------------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------------
// Every operator the suite supports, one enumerator per row of op_table.inc (in its order). The
// ONNX op_type of each is op_kind_name().
enum class OpKind : uint16_t {
#define DGS_OP(kind, ...) kind,
#include "common/graph/op_table.inc"
#undef DGS_OP
  kCount
};
std::string_view op_kind_name(OpKind k);                      // the ONNX op_type, e.g. "Conv"
std::optional<OpKind> op_kind_from_name(std::string_view s);  // inverse of op_kind_name

// The family of each kind (op_table.inc): which shape-inference and executor routine serves it.
enum class OpFamily : uint8_t {
  ConvLike,       // Conv, ConvTranspose
  MatMulLike,     // Gemm, MatMul
  Pool,           // windowed pooling
  GlobalPool,     // pooling over the whole spatial extent
  Normalization,  // BatchNormalization, LayerNormalization
  Softmax,
  EwUnary,       // unary element-wise math: one input, one output of its shape and dtype
  EwBinary,      // binary element-wise math with NumPy broadcasting
  EwVariadic,    // Max, Min: element-wise over any number of inputs
  EwSpecial,     // element-wise with an own rule: Clip, Identity, Cast, Dropout
  Logic,         // comparison, logic and selection (bool results or a bool condition)
  DataMovement,  // concat, split, slice, reshape, transpose, pad, gather, ...
  Reduction,     // ReduceMean, ReduceSum, ReduceMax
};
// The element-wise kernel class of a kind on the GPU (op_table.inc's Ew column).
enum class EwClass : uint8_t { None, Unary, Binary };

OpFamily op_family(OpKind k);
EwClass ew_class(OpKind k);
// Coarse categories used by analyses and schedulers (all read from op_table.inc).
bool is_elementwise(OpKind k);  // families EwUnary, EwBinary, EwVariadic, EwSpecial, Logic
bool is_layout_only(OpKind k);  // no data moved: Reshape, Flatten, Squeeze, Unsqueeze, Identity,
                                // Dropout
bool is_conv_like(OpKind k);    // family ConvLike
bool is_activation(OpKind k);   // the unary activations that epilogue fusion absorbs
bool is_matmul_like(OpKind k);  // family MatMulLike

using AttrValue =
    std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

// ONNX attributes by name. Getters return the default when the attribute is absent and throw
// dgs::Error when it has the wrong type.
class Attributes {
 public:
  Attributes() = default;
  // Attributes({{"group", int64_t{2}}, {"strides", std::vector<int64_t>{2, 2}}})
  Attributes(std::initializer_list<std::pair<const std::string, AttrValue>> values)
      : values_(values) {}
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { values_[name] = std::move(v); }
  int64_t get_int(const std::string& name, int64_t def) const;
  double get_float(const std::string& name, double def) const;
  std::string get_string(const std::string& name, const std::string& def) const;
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& def) const;
  std::vector<double> get_floats(const std::string& name, const std::vector<double>& def) const;
  const std::map<std::string, AttrValue>& all() const { return values_; }

 private:
  std::map<std::string, AttrValue> values_;
};

struct Op {
  std::string name;
  OpKind kind = OpKind::Identity;
  std::vector<int> inputs;   // tensor indices; -1 for an omitted optional input (ONNX "")
  std::vector<int> outputs;  // tensor indices
  Attributes attrs;
};

// ---------------------------------------------------------------------------------------------
// Graph
// ---------------------------------------------------------------------------------------------
class Graph {
 public:
  std::string name;

  // Adds a tensor; throws if its name is already used. Returns its index.
  int add_tensor(Tensor t);
  int add_input(const std::string& name, Shape shape, DType dtype = DType::F32);
  int add_weight(const std::string& name, Shape shape, DType dtype = DType::F32);
  int add_constant_ints(const std::string& name, std::vector<int64_t> values);
  int add_constant_floats(const std::string& name, Shape shape, std::vector<float> values);

  // Adds an operator whose inputs already exist, creates its `num_outputs` output tensors
  // (named "<op name>:0", ":1", ... unless `output_names` is given) and infers their shapes and
  // dtypes (see shape_inference.h). Throws dgs::Error naming the op on any inconsistency.
  int add_op(OpKind kind, const std::string& name, const std::vector<int>& inputs,
             Attributes attrs = {}, int num_outputs = 1,
             const std::vector<std::string>& output_names = {});

  // Adds an operator without shape inference; its outputs must already exist (any order: for
  // loaders, which then call infer_shapes(*this) and validate()).
  int add_op_unchecked(Op op);

  // Marks a tensor as a graph output (role Output).
  void mark_output(int tensor);

  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  const Tensor& tensor(int i) const { return tensors_.at(static_cast<size_t>(i)); }
  Tensor& tensor(int i) { return tensors_.at(static_cast<size_t>(i)); }
  const Op& op(int i) const { return ops_.at(static_cast<size_t>(i)); }
  Op& op(int i) { return ops_.at(static_cast<size_t>(i)); }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  const std::vector<Op>& ops() const { return ops_; }

  int find_tensor(const std::string& name) const;  // -1 when absent
  int find_op(const std::string& name) const;      // -1 when absent

  std::vector<int> input_tensors() const;   // role Input, in insertion order
  std::vector<int> weight_tensors() const;  // role Weight, in insertion order
  std::vector<int> output_tensors() const;  // role Output, in insertion order

  // Op-level edges: the distinct ops that produce an input of / consume an output of `op`.
  std::vector<int> predecessors(int op) const;
  std::vector<int> successors(int op) const;

  // A topological order of the ops (Kahn's algorithm, ties broken by op index, so it is
  // deterministic). Throws dgs::Error("graph '<name>' has a cycle through op '<op>'") if cyclic.
  std::vector<int> topo_order() const;

  // Recomputes producer/consumer links from the ops' inputs and outputs.
  void rebuild_links();

 private:
  std::vector<Tensor> tensors_;
  std::vector<Op> ops_;
  std::unordered_map<std::string, int> tensor_by_name_;
  std::unordered_map<std::string, int> op_by_name_;
};

// Checks the graph: acyclic; every op input is produced by an op or is an Input/Weight/Constant;
// each tensor has at most one producer; op arities are right; every stored shape equals the one
// shape inference gives. Throws dgs::Error with one line naming the graph, op or tensor.
void validate(const Graph& g);

}  // namespace dgs
