#include "common/graph/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "common/graph/onnx_dtype.h"
#include "common/graph/op_signature.h"
#include "common/graph/window.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Arity
// ---------------------------------------------------------------------------------------------
OpArity op_arity(OpKind k) {
  constexpr int U = kUnboundedArity;
  switch (k) {
    case OpKind::Conv:
    case OpKind::ConvTranspose:
    case OpKind::Gemm:
      return {2, 3, 1, 1};
    case OpKind::MatMul:
      return {2, 2, 1, 1};
    case OpKind::MaxPool:
      return {1, 1, 1, 2};  // Y, optional Indices
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return {1, 1, 1, 1};
    // X, scale, B, input_mean, input_var; Y and (training mode) running_mean, running_var
    case OpKind::BatchNormalization:
      return {5, 5, 1, 3};
    // X, Scale, optional B; Y, optional Mean, InvStdDev
    case OpKind::LayerNormalization:
      return {2, 3, 1, 3};
    case OpKind::Softmax:
      return {1, 1, 1, 1};
    case OpKind::Clip:
      return {1, 3, 1, 1};  // input, optional min, max
    case OpKind::Dropout:
      return {1, 3, 1, 2};  // data, ratio, training_mode; output, mask
    case OpKind::Max:
    case OpKind::Min:
      return {1, U, 1, 1};  // variadic in ONNX
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow:
      return {2, 2, 1, 1};
    case OpKind::Concat:
      return {1, U, 1, 1};
    case OpKind::Split:
      return {1, 2, 1, U};
    case OpKind::Slice:
      return {3, 5, 1, 1};
    case OpKind::Reshape:
      return {2, 2, 1, 1};
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return {1, 2, 1, 1};  // axes as input (opset 13) or attribute
    case OpKind::Pad:
      return {1, 4, 1, 1};  // data, pads, constant_value, axes
    case OpKind::Resize:
      return {1, 4, 1, 1};  // X, roi, scales, sizes
    case OpKind::Gather:
    case OpKind::Expand:
    case OpKind::GatherND:
    case OpKind::Equal:
    case OpKind::And:
      return {2, 2, 1, 1};
    case OpKind::Where:
      return {3, 3, 1, 1};
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      return {1, 2, 1, 1};  // axes as input (ReduceSum 13, all 18)
    default:
      return {1, 1, 1, 1};  // unary element-wise and layout ops
  }
}

bool is_shape_input(OpKind k, int i) {
  switch (k) {
    case OpKind::Split:
      return i == 1;
    case OpKind::Slice:
      return i >= 1;
    case OpKind::Reshape:
    case OpKind::Expand:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      return i == 1;
    case OpKind::Pad:
      return i == 1 || i == 3;
    case OpKind::Resize:
      return i >= 1;
    default:
      return false;
  }
}

namespace {

std::string range_str(int lo, int hi) {
  if (lo == hi) return std::to_string(lo);
  if (hi >= kUnboundedArity) return "at least " + std::to_string(lo);
  return std::to_string(lo) + ".." + std::to_string(hi);
}

std::string op_prefix(const Op& op) {
  return "op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) + "): ";
}

}  // namespace

void check_arity(const Op& op) {
  const OpArity a = op_arity(op.kind);
  const int ni = static_cast<int>(op.inputs.size());
  const int no = static_cast<int>(op.outputs.size());
  if (ni < a.min_inputs || ni > a.max_inputs) {
    throw Error(op_prefix(op) + std::to_string(ni) + " inputs; expected " +
                range_str(a.min_inputs, a.max_inputs));
  }
  if (no < a.min_outputs || no > a.max_outputs) {
    throw Error(op_prefix(op) + std::to_string(no) + " outputs; expected " +
                range_str(a.min_outputs, a.max_outputs));
  }
  for (int i = 0; i < a.min_inputs; ++i) {
    if (op.inputs[i] < 0) {
      throw Error(op_prefix(op) + "required input " + std::to_string(i) +
                  " is omitted; expected a tensor");
    }
  }
  // Variadic ops (Concat, Max, Min) take no optional inputs.
  if (a.max_inputs >= kUnboundedArity) {
    for (int i = 0; i < ni; ++i) {
      if (op.inputs[i] < 0) {
        throw Error(op_prefix(op) + "input " + std::to_string(i) +
                    " is omitted; expected a tensor");
      }
    }
  }
  for (int i = 0; i < no; ++i) {
    if (op.outputs[i] < 0) {
      throw Error(op_prefix(op) + "output " + std::to_string(i) + " is omitted; expected a tensor");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Inference
// ---------------------------------------------------------------------------------------------
namespace {

// Context for inferring one op: access to inputs, attributes and a uniform error format.
class Ctx {
 public:
  Ctx(Graph& g, int op) : g_(g), op_(g.op(op)) {}

  const Op& op() const { return op_; }
  const Attributes& attrs() const { return op_.attrs; }
  int num_inputs() const { return static_cast<int>(op_.inputs.size()); }
  int num_outputs() const { return static_cast<int>(op_.outputs.size()); }

  // True when input i is given (present and not omitted).
  bool has_input(int i) const { return i < num_inputs() && op_.inputs[i] >= 0; }
  const Tensor& in(int i) const {
    if (!has_input(i)) fail("input " + std::to_string(i) + " is missing", "a tensor");
    return g_.tensor(op_.inputs[i]);
  }
  const Shape& shape(int i) const { return in(i).shape; }
  int rank(int i) const { return static_cast<int>(shape(i).size()); }
  DType dtype(int i) const { return in(i).dtype; }

  // The integer values of constant input i (Reshape's shape, Slice's starts, ...).
  std::vector<int64_t> const_ints(int i, const std::string& what) const {
    const Tensor& t = in(i);
    if (t.role != TensorRole::Constant) {
      fail(what + " (input '" + t.name + "') is a " + std::string(role_name(t.role)),
           "a Constant tensor with known values");
    }
    if (!t.int_data.empty() || t.float_data.empty()) {
      if (static_cast<int64_t>(t.int_data.size()) != t.numel()) {
        fail(what + " (input '" + t.name + "') holds " + std::to_string(t.int_data.size()) +
                 " integer values for shape " + shape_str(t.shape),
             std::to_string(t.numel()) + " values");
      }
      return t.int_data;
    }
    fail(what + " (input '" + t.name + "') holds floating-point values", "integer values");
  }
  std::vector<double> const_floats(int i, const std::string& what) const {
    const Tensor& t = in(i);
    if (t.role != TensorRole::Constant) {
      fail(what + " (input '" + t.name + "') is a " + std::string(role_name(t.role)),
           "a Constant tensor with known values");
    }
    if (!t.float_data.empty()) return {t.float_data.begin(), t.float_data.end()};
    return {t.int_data.begin(), t.int_data.end()};
  }

  void set_output(int i, Shape s, DType d) {
    if (i >= num_outputs()) return;
    int t = op_.outputs[i];
    if (t < 0) return;
    int64_t elements = 1;
    for (int64_t v : s) {
      if (v < 0)
        fail("inferred output shape " + shape_str(s) + " has a negative dimension",
             "non-negative dimensions");
      if (__builtin_mul_overflow(elements, v, &elements))
        fail("inferred output shape " + shape_str(s) + " has more elements than 64 bits count",
             "a shape whose element count fits in 64 bits");
    }
    Tensor& x = g_.tensor(t);
    x.shape = std::move(s);
    x.dtype = d;
  }

  [[noreturn]] void fail(const std::string& what, const std::string& expected) const {
    throw Error(op_prefix(op_) + what + "; expected " + expected);
  }

  void require_rank_at_least(int i, int r, const std::string& what) const {
    if (rank(i) < r) {
      fail(what + " has shape " + shape_str(shape(i)), "rank at least " + std::to_string(r));
    }
  }

  // Normalises an axis in [-r, r) to [0, r).
  int axis(int64_t a, int r, const std::string& what) const {
    if (a < -r || a >= r) {
      fail(what + " " + std::to_string(a) + " is out of range for rank " + std::to_string(r),
           "a value in [" + std::to_string(-r) + ", " + std::to_string(r - 1) + "]");
    }
    return static_cast<int>(a < 0 ? a + r : a);
  }

  // Spatial attribute lists: `name` must have `n` entries when present.
  std::vector<int64_t> ints_of_size(const std::string& name, size_t n, int64_t def) const {
    std::vector<int64_t> v = attrs().get_ints(name, std::vector<int64_t>(n, def));
    if (v.size() != n) {
      fail("attribute '" + name + "' has " + std::to_string(v.size()) + " values",
           std::to_string(n) + " values");
    }
    return v;
  }

 private:
  Graph& g_;
  const Op& op_;
};

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t ceil_div(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

// Multidirectional (NumPy) broadcasting of two shapes.
Shape broadcast(const Ctx& c, const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) {
      c.fail("shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast (dim " +
                 std::to_string(i) + ": " + std::to_string(da) + " vs " + std::to_string(db) + ")",
             "equal dimensions or 1 (NumPy broadcasting)");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// The DType named by an ONNX element type attribute (Cast's 'to', LayerNormalization's
// 'stash_type'); onnx_dtype.h holds the mapping.
DType dtype_attr(const Ctx& c, const std::string& attr, int64_t code) {
  return require_dtype_from_onnx(code, op_prefix(c.op()) + "attribute '" + attr + "'");
}

bool is_int(DType d) {
  return d == DType::I64 || d == DType::I32;
}

// ------------------------------------------------------------------ convolution and pooling
// Kernel, strides, dilations, pads and output sizes come from resolve_window (window.h).
Shape window_spatial(const Ctx& c) {
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  return resolve_window(c.op(), Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()))
      .out_spatial;
}

void infer_conv(Ctx& c) {
  c.require_rank_at_least(0, 3, "input X");
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  if (w.size() != x.size()) {
    c.fail("weight W has shape " + shape_str(w) + " for input X " + shape_str(x),
           "W of rank " + std::to_string(x.size()) + " ([M, C/group, k...])");
  }
  const int64_t group = c.attrs().get_int("group", 1);
  if (group < 1) c.fail("attribute 'group' is " + std::to_string(group), "group >= 1");
  const int64_t cin = x[1];
  const int64_t m = w[0];
  if (cin != w[1] * group) {
    c.fail("input channels " + std::to_string(cin) + " (X " + shape_str(x) +
               ") do not match weight channels " + std::to_string(w[1]) + " x group " +
               std::to_string(group) + " (W " + shape_str(w) + ")",
           "X.shape[1] == W.shape[1] * group");
  }
  if (m % group != 0) {
    c.fail("output channels " + std::to_string(m) + " are not divisible by group " +
               std::to_string(group),
           "W.shape[0] divisible by group");
  }
  if (c.has_input(2) && c.shape(2) != Shape{m}) {
    c.fail("bias B has shape " + shape_str(c.shape(2)), "[" + std::to_string(m) + "]");
  }
  Shape out{x[0], m};
  for (int64_t s : window_spatial(c)) out.push_back(s);
  c.set_output(0, out, c.dtype(0));
}

void infer_conv_transpose(Ctx& c) {
  c.require_rank_at_least(0, 3, "input X");
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  if (w.size() != x.size()) {
    c.fail("weight W has shape " + shape_str(w) + " for input X " + shape_str(x),
           "W of rank " + std::to_string(x.size()) + " ([C, M/group, k...])");
  }
  const int64_t group = c.attrs().get_int("group", 1);
  if (group < 1) c.fail("attribute 'group' is " + std::to_string(group), "group >= 1");
  if (x[1] != w[0]) {
    c.fail("input channels " + std::to_string(x[1]) + " (X " + shape_str(x) +
               ") do not match W.shape[0] = " + std::to_string(w[0]) + " (W " + shape_str(w) + ")",
           "X.shape[1] == W.shape[0]");
  }
  if (x[1] % group != 0) {
    c.fail("input channels " + std::to_string(x[1]) + " are not divisible by group " +
               std::to_string(group),
           "X.shape[1] divisible by group");
  }
  const int64_t m = w[1] * group;
  if (c.has_input(2) && c.shape(2) != Shape{m}) {
    c.fail("bias B has shape " + shape_str(c.shape(2)), "[" + std::to_string(m) + "]");
  }
  Shape out{x[0], m};
  for (int64_t s : window_spatial(c)) out.push_back(s);
  c.set_output(0, out, c.dtype(0));
}

void infer_pool(Ctx& c) {
  c.require_rank_at_least(0, 3, "input X");
  const Shape& x = c.shape(0);
  const Shape out_spatial = resolve_window(c.op(), Shape(x.begin() + 2, x.end())).out_spatial;
  Shape out{x[0], x[1]};
  out.insert(out.end(), out_spatial.begin(), out_spatial.end());
  c.set_output(0, out, c.dtype(0));
  if (c.op().kind == OpKind::MaxPool) c.set_output(1, out, DType::I64);
}

// ------------------------------------------------------------------ linear algebra
void infer_gemm(Ctx& c) {
  const Shape& a = c.shape(0);
  const Shape& b = c.shape(1);
  if (a.size() != 2 || b.size() != 2) {
    c.fail("A " + shape_str(a) + " and B " + shape_str(b), "2-D A and B");
  }
  const bool ta = c.attrs().get_int("transA", 0) != 0;
  const bool tb = c.attrs().get_int("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (ka != kb) {
    c.fail("inner dimensions differ: A " + shape_str(a) + (ta ? " (transposed)" : "") + ", B " +
               shape_str(b) + (tb ? " (transposed)" : ""),
           "K of A equal to K of B");
  }
  Shape out{m, n};
  if (c.has_input(2)) {
    // C broadcasts unidirectionally to [M, N].
    const Shape& cs = c.shape(2);
    Shape bc = broadcast(c, out, cs);
    if (bc != out)
      c.fail("C " + shape_str(cs) + " does not broadcast to " + shape_str(out),
             "C unidirectionally broadcastable to [M, N]");
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_matmul(Ctx& c) {
  Shape a = c.shape(0), b = c.shape(1);
  if (a.empty() || b.empty()) {
    c.fail("a scalar operand (A " + shape_str(a) + ", B " + shape_str(b) + ")",
           "operands of rank >= 1");
  }
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  if (a[a.size() - 1] != b[b.size() - 2]) {
    c.fail("inner dimensions differ: A " + shape_str(c.shape(0)) + ", B " + shape_str(c.shape(1)),
           "A.shape[-1] == B.shape[-2]");
  }
  Shape batch = broadcast(c, Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  Shape out = batch;
  if (!a1) out.push_back(a[a.size() - 2]);
  if (!b1) out.push_back(b.back());
  c.set_output(0, out, c.dtype(0));
}

// ------------------------------------------------------------------ normalisation
void infer_batchnorm(Ctx& c) {
  c.require_rank_at_least(0, 2, "input X");
  const int64_t ch = c.shape(0)[1];
  static const char* kNames[] = {"", "scale", "B", "input_mean", "input_var"};
  for (int i = 1; i < 5; ++i) {
    if (c.shape(i) != Shape{ch}) {
      c.fail(std::string(kNames[i]) + " has shape " + shape_str(c.shape(i)),
             "[" + std::to_string(ch) + "] (the channels of X " + shape_str(c.shape(0)) + ")");
    }
  }
  c.set_output(0, c.shape(0), c.dtype(0));
  c.set_output(1, {ch}, c.dtype(0));
  c.set_output(2, {ch}, c.dtype(0));
}

void infer_layernorm(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  const int axis = c.axis(c.attrs().get_int("axis", -1), r, "attribute 'axis'");
  Shape norm(x.begin() + axis, x.end());
  for (int i = 1; i < 3; ++i) {
    if (!c.has_input(i)) continue;
    Shape bc = broadcast(c, norm, c.shape(i));
    if (bc != norm) {
      c.fail(std::string(i == 1 ? "Scale " : "B ") + shape_str(c.shape(i)) +
                 " does not broadcast to the normalised dims " + shape_str(norm),
             "a shape broadcastable to " + shape_str(norm));
    }
  }
  c.set_output(0, x, c.dtype(0));
  Shape stat = x;
  for (int i = axis; i < r; ++i) stat[i] = 1;
  // Mean and InvStdDev have the type of stash_type (default 1: float), not of X.
  const DType sd = dtype_attr(c, "stash_type", c.attrs().get_int("stash_type", 1));
  c.set_output(1, stat, sd);
  c.set_output(2, stat, sd);
}

// ------------------------------------------------------------------ element-wise
void infer_unary(Ctx& c) {
  c.set_output(0, c.shape(0), c.dtype(0));
}

void infer_clip(Ctx& c) {
  for (int i = 1; i < 3; ++i) {
    if (c.has_input(i) && numel(c.shape(i)) != 1) {
      c.fail(std::string(i == 1 ? "min" : "max") + " has shape " + shape_str(c.shape(i)),
             "a scalar");
    }
  }
  c.set_output(0, c.shape(0), c.dtype(0));
}

void infer_dropout(Ctx& c) {
  c.set_output(0, c.shape(0), c.dtype(0));
  c.set_output(1, c.shape(0), DType::Bool);
}

void infer_cast(Ctx& c) {
  if (!c.attrs().has("to")) c.fail("attribute 'to' is missing", "the target data type");
  c.set_output(0, c.shape(0), dtype_attr(c, "to", c.attrs().get_int("to", 1)));
}

void infer_binary(Ctx& c) {
  Shape s = c.shape(0);
  const DType d = c.dtype(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    if (c.op().kind != OpKind::Pow && c.dtype(i) != d) {
      c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))) +
                 " while input 0 is " + std::string(dtype_name(d)),
             "inputs of one data type");
    }
    s = broadcast(c, s, c.shape(i));
  }
  c.set_output(0, s, d);
}

// Equal: two inputs of one dtype, broadcast, bool result. And: bool inputs. Not: bool input.
// IsNaN: a float input. Where: a bool condition and two values of one dtype, all broadcast.
void require_dtype(Ctx& c, int i, bool ok, const std::string& expected) {
  if (!ok) {
    c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))), expected);
  }
}

void infer_logic(Ctx& c) {
  const OpKind k = c.op().kind;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (k == OpKind::And || k == OpKind::Not || (k == OpKind::Where && i == 0)) {
      require_dtype(c, i, c.dtype(i) == DType::Bool, "a bool tensor");
    } else if (k == OpKind::IsNaN) {
      require_dtype(c, i, c.dtype(i) == DType::F32 || c.dtype(i) == DType::F16, "a float tensor");
    }
  }
  const int first_value = k == OpKind::Where ? 1 : 0;
  const DType d = c.dtype(first_value);
  Shape s = c.shape(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    if (i > first_value && c.dtype(i) != d) {
      c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))) +
                 " while input " + std::to_string(first_value) + " is " +
                 std::string(dtype_name(d)),
             "inputs of one data type");
    }
    s = broadcast(c, s, c.shape(i));
  }
  c.set_output(0, s, k == OpKind::Where ? d : DType::Bool);
}

// ------------------------------------------------------------------ data movement
void infer_concat(Ctx& c) {
  if (!c.attrs().has("axis")) c.fail("attribute 'axis' is missing", "the concatenation axis");
  const Shape& s0 = c.shape(0);
  const int r = c.rank(0);
  const int axis = c.axis(c.attrs().get_int("axis", 0), r, "attribute 'axis'");
  Shape out = s0;
  out[axis] = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const Shape& s = c.shape(i);
    bool ok = static_cast<int>(s.size()) == r;
    for (int d = 0; ok && d < r; ++d) ok = d == axis || s[d] == s0[d];
    if (!ok) {
      c.fail("input " + std::to_string(i) + " has shape " + shape_str(s) + " while input 0 has " +
                 shape_str(s0),
             "equal shapes except on axis " + std::to_string(axis));
    }
    if (c.dtype(i) != c.dtype(0)) {
      c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))),
             std::string(dtype_name(c.dtype(0))) + " like input 0");
    }
    out[axis] += s[axis];
  }
  c.set_output(0, out, c.dtype(0));
}

// Split sizes: from the `split` input (opset 13), the `split` attribute (opset < 13), or equal
// parts (`num_outputs` attribute of opset 18: ceil-sized parts with a smaller last one;
// otherwise the dim must divide evenly by the number of outputs).
std::vector<int64_t> split_sizes(const Ctx& c, int64_t dim) {
  const int n = c.num_outputs();
  std::vector<int64_t> sizes;
  if (c.has_input(1)) {
    sizes = c.const_ints(1, "split sizes");
  } else if (c.attrs().has("split")) {
    sizes = c.attrs().get_ints("split", {});
  } else if (c.attrs().has("num_outputs")) {
    const int64_t k = c.attrs().get_int("num_outputs", n);
    if (k != n) {
      c.fail("attribute 'num_outputs' is " + std::to_string(k) + " but the op has " +
                 std::to_string(n) + " outputs",
             "num_outputs equal to the number of outputs");
    }
    const int64_t part = ceil_div(dim, n);
    for (int i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(part, dim - i * part)));
  } else {
    if (dim % n != 0) {
      c.fail("axis size " + std::to_string(dim) + " does not divide into " + std::to_string(n) +
                 " equal parts",
             "a size divisible by the number of outputs, or split sizes");
    }
    sizes.assign(n, dim / n);
  }
  if (static_cast<int>(sizes.size()) != n) {
    c.fail(std::to_string(sizes.size()) + " split sizes for " + std::to_string(n) + " outputs",
           "one size per output");
  }
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) c.fail("a negative split size", "sizes >= 0");
    sum += s;
  }
  if (sum != dim) {
    c.fail("split sizes sum to " + std::to_string(sum) + " but the axis has size " +
               std::to_string(dim),
           "sizes summing to " + std::to_string(dim));
  }
  return sizes;
}

void infer_split(Ctx& c) {
  const Shape& x = c.shape(0);
  const int axis = c.axis(c.attrs().get_int("axis", 0), c.rank(0), "attribute 'axis'");
  std::vector<int64_t> sizes = split_sizes(c, x[axis]);
  for (int i = 0; i < c.num_outputs(); ++i) {
    Shape s = x;
    s[axis] = sizes[i];
    c.set_output(i, s, c.dtype(0));
  }
}

void infer_slice(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  std::vector<int64_t> starts = c.const_ints(1, "starts");
  std::vector<int64_t> ends = c.const_ints(2, "ends");
  const size_t n = starts.size();
  if (ends.size() != n) {
    c.fail(std::to_string(n) + " starts and " + std::to_string(ends.size()) + " ends",
           "as many ends as starts");
  }
  std::vector<int64_t> axes(n), steps(n, 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (c.has_input(3)) axes = c.const_ints(3, "axes");
  if (c.has_input(4)) steps = c.const_ints(4, "steps");
  if (axes.size() != n || steps.size() != n) {
    c.fail(std::to_string(axes.size()) + " axes and " + std::to_string(steps.size()) +
               " steps for " + std::to_string(n) + " starts",
           "one axis and step per start");
  }
  Shape out = x;
  std::set<int> seen;
  for (size_t i = 0; i < n; ++i) {
    const int a = c.axis(axes[i], r, "slice axis");
    if (!seen.insert(a).second)
      c.fail("axis " + std::to_string(a) + " is repeated", "distinct axes");
    const int64_t step = steps[i];
    if (step == 0) c.fail("a step of 0", "non-zero steps");
    const int64_t dim = x[a];
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      out[a] = e > s ? ceil_div(e - s, step) : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      out[a] = s > e ? ceil_div(s - e, -step) : 0;
    }
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_reshape(Ctx& c) {
  const Shape& x = c.shape(0);
  std::vector<int64_t> shape = c.const_ints(1, "target shape");
  const bool allowzero = c.attrs().get_int("allowzero", 0) != 0;
  Shape out(shape.size());
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t v = shape[i];
    if (v == 0 && !allowzero) {
      if (i >= x.size()) {
        c.fail("target shape " + shape_str(shape) + " copies dim " + std::to_string(i) +
                   " (0) that input " + shape_str(x) + " lacks",
               "0 only at positions the input has");
      }
      v = x[i];
    }
    if (v == -1) {
      if (infer_at >= 0)
        c.fail("target shape " + shape_str(shape) + " has two -1", "at most one -1");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (v < 0)
      c.fail("target shape " + shape_str(shape) + " has " + std::to_string(v), "dims >= -1");
    out[i] = v;
    if (__builtin_mul_overflow(known, v, &known)) {
      c.fail("target shape " + shape_str(shape) + " has more elements than 64 bits count",
             "a shape of the input's element count");
    }
  }
  const int64_t total = numel(x);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      c.fail("cannot infer the -1 of target shape " + shape_str(shape) + " for " +
                 std::to_string(total) + " elements (input " + shape_str(x) + ")",
             "a shape whose known dims divide the element count");
    }
    out[infer_at] = total / known;
  } else if (known != total) {
    c.fail("target shape " + shape_str(shape) + " has " + std::to_string(known) +
               " elements but input " + shape_str(x) + " has " + std::to_string(total),
           "the same number of elements");
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_transpose(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  std::vector<int64_t> perm(r);
  for (int i = 0; i < r; ++i) perm[i] = r - 1 - i;
  perm = c.attrs().get_ints("perm", perm);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = static_cast<int>(perm.size()) == r;
  for (int i = 0; ok && i < r; ++i) ok = sorted[i] == i;
  if (!ok) {
    c.fail("attribute 'perm' " + shape_str(perm) + " for input " + shape_str(x),
           "a permutation of 0.." + std::to_string(r - 1));
  }
  Shape out(r);
  for (int i = 0; i < r; ++i) out[i] = x[perm[i]];
  c.set_output(0, out, c.dtype(0));
}

void infer_flatten(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  int64_t a = c.attrs().get_int("axis", 1);
  if (a < -r || a > r) {
    c.fail(
        "attribute 'axis' " + std::to_string(a) + " is out of range for rank " + std::to_string(r),
        "a value in [" + std::to_string(-r) + ", " + std::to_string(r) + "]");
  }
  if (a < 0) a += r;
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < r; ++i) (i < a ? outer : inner) *= x[i];
  c.set_output(0, {outer, inner}, c.dtype(0));
}

// Axes from input 1 (opset 13) or the `axes` attribute (older opsets).
std::optional<std::vector<int64_t>> axes_of(const Ctx& c) {
  if (c.has_input(1)) return c.const_ints(1, "axes");
  if (c.attrs().has("axes")) return c.attrs().get_ints("axes", {});
  return std::nullopt;
}

void infer_squeeze(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  std::vector<bool> drop(r, false);
  if (auto axes = axes_of(c)) {
    for (int64_t a : *axes) {
      int ax = c.axis(a, r, "squeeze axis");
      if (x[ax] != 1) {
        c.fail("axis " + std::to_string(ax) + " of input " + shape_str(x) + " has size " +
                   std::to_string(x[ax]),
               "squeezed axes of size 1");
      }
      drop[ax] = true;
    }
  } else {
    for (int i = 0; i < r; ++i) drop[i] = x[i] == 1;
  }
  Shape out;
  for (int i = 0; i < r; ++i) {
    if (!drop[i]) out.push_back(x[i]);
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_unsqueeze(Ctx& c) {
  const Shape& x = c.shape(0);
  auto axes = axes_of(c);
  if (!axes) c.fail("no axes (input 1 or attribute 'axes')", "the axes to insert");
  const int r = c.rank(0) + static_cast<int>(axes->size());
  std::vector<bool> inserted(r, false);
  for (int64_t a : *axes) {
    int ax = c.axis(a, r, "unsqueeze axis");
    if (inserted[ax]) c.fail("axis " + std::to_string(ax) + " is repeated", "distinct axes");
    inserted[ax] = true;
  }
  Shape out;
  size_t j = 0;
  for (int i = 0; i < r; ++i) out.push_back(inserted[i] ? 1 : x[j++]);
  c.set_output(0, out, c.dtype(0));
}

void infer_pad(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  const std::string mode = c.attrs().get_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") {
    c.fail("attribute 'mode' is '" + mode + "'", "constant, reflect, edge or wrap");
  }
  std::vector<int64_t> pads;
  if (c.has_input(1)) {
    pads = c.const_ints(1, "pads");
  } else if (c.attrs().has("pads")) {
    pads = c.attrs().get_ints("pads", {});
  } else {
    c.fail("no pads (input 1 or attribute 'pads')", "the pads");
  }
  std::vector<int64_t> axes(r);
  std::iota(axes.begin(), axes.end(), 0);
  if (c.has_input(3)) axes = c.const_ints(3, "axes");
  const size_t n = axes.size();
  if (pads.size() != 2 * n) {
    c.fail(std::to_string(pads.size()) + " pads for " + std::to_string(n) + " axes",
           std::to_string(2 * n) + " pads ([begin..., end...])");
  }
  Shape out = x;
  for (size_t i = 0; i < n; ++i) {
    int a = c.axis(axes[i], r, "pad axis");
    out[a] += pads[i] + pads[i + n];
    if (out[a] < 0) {
      c.fail("pads " + shape_str(pads) + " shrink axis " + std::to_string(a) + " below 0",
             "a non-negative padded size");
    }
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_resize(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  const std::string mode = c.attrs().get_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic") {
    c.fail("attribute 'mode' is '" + mode + "'", "nearest, linear or cubic");
  }
  std::vector<int64_t> axes(r);
  std::iota(axes.begin(), axes.end(), 0);
  if (c.attrs().has("axes")) axes = c.attrs().get_ints("axes", {});
  for (int64_t& a : axes) a = c.axis(a, r, "resize axis");
  const bool has_scales = c.has_input(2) && numel(c.shape(2)) > 0;
  const bool has_sizes = c.has_input(3) && numel(c.shape(3)) > 0;
  if (has_scales == has_sizes) {
    c.fail(has_scales ? "both scales and sizes are given" : "neither scales nor sizes is given",
           "exactly one of scales (input 2) and sizes (input 3)");
  }
  Shape out = x;
  if (has_scales) {
    std::vector<double> scales = c.const_floats(2, "scales");
    if (scales.size() != axes.size()) {
      c.fail(std::to_string(scales.size()) + " scales for " + std::to_string(axes.size()) + " axes",
             "one scale per axis");
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      if (!(scales[i] > 0)) c.fail("a scale <= 0", "positive scales");
      // ONNX: output_dim = floor(input_dim * scale) (roi ignored: only tf_crop_and_resize uses it).
      out[axes[i]] = static_cast<int64_t>(std::floor(static_cast<double>(x[axes[i]]) * scales[i]));
    }
  } else {
    std::vector<int64_t> sizes = c.const_ints(3, "sizes");
    if (sizes.size() != axes.size()) {
      c.fail(std::to_string(sizes.size()) + " sizes for " + std::to_string(axes.size()) + " axes",
             "one size per axis");
    }
    const std::string policy = c.attrs().get_string("keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch") {
      for (size_t i = 0; i < axes.size(); ++i) out[axes[i]] = sizes[i];
    } else if (policy == "not_larger" || policy == "not_smaller") {
      // opset 18: one scale for all axes, the smallest (not_larger) or largest (not_smaller)
      // of sizes/input; each output size is round(scale * input) (half to even, as NumPy).
      double scale = policy == "not_larger" ? 1e300 : 0.0;
      for (size_t i = 0; i < axes.size(); ++i) {
        const double r = static_cast<double>(sizes[i]) / static_cast<double>(x[axes[i]]);
        scale = policy == "not_larger" ? std::min(scale, r) : std::max(scale, r);
      }
      for (size_t i = 0; i < axes.size(); ++i) {
        out[axes[i]] =
            static_cast<int64_t>(std::nearbyint(scale * static_cast<double>(x[axes[i]])));
      }
    } else {
      c.fail("attribute 'keep_aspect_ratio_policy' is '" + policy + "'",
             "stretch, not_larger or not_smaller");
    }
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_depth_space(Ctx& c) {
  const Shape& x = c.shape(0);
  if (x.size() != 4) c.fail("input has shape " + shape_str(x), "a 4-D NCHW input");
  const int64_t b = c.attrs().get_int("blocksize", 0);
  if (b < 1) c.fail("attribute 'blocksize' is " + std::to_string(b), "blocksize >= 1");
  if (c.op().kind == OpKind::DepthToSpace) {
    const std::string mode = c.attrs().get_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") c.fail("attribute 'mode' is '" + mode + "'", "DCR or CRD");
    if (x[1] % (b * b) != 0) {
      c.fail("channels " + std::to_string(x[1]) +
                 " are not divisible by blocksize^2 = " + std::to_string(b * b),
             "C divisible by blocksize^2");
    }
    c.set_output(0, {x[0], x[1] / (b * b), x[2] * b, x[3] * b}, c.dtype(0));
  } else {
    if (x[2] % b != 0 || x[3] % b != 0) {
      c.fail("spatial dims of " + shape_str(x) + " are not divisible by blocksize " +
                 std::to_string(b),
             "H and W divisible by blocksize");
    }
    c.set_output(0, {x[0], x[1] * b * b, x[2] / b, x[3] / b}, c.dtype(0));
  }
}

void infer_gather(Ctx& c) {
  const Shape& x = c.shape(0);
  const int axis = c.axis(c.attrs().get_int("axis", 0), c.rank(0), "attribute 'axis'");
  if (!is_int(c.dtype(1))) {
    c.fail("indices are " + std::string(dtype_name(c.dtype(1))), "int32 or int64 indices");
  }
  const Tensor& idx = c.in(1);
  if (idx.role == TensorRole::Constant) {
    for (int64_t v : idx.int_data) {
      if (v < -x[axis] || v >= x[axis]) {
        c.fail(
            "index " + std::to_string(v) + " is out of range for axis size " +
                std::to_string(x[axis]),
            "indices in [-" + std::to_string(x[axis]) + ", " + std::to_string(x[axis] - 1) + "]");
      }
    }
  }
  Shape out(x.begin(), x.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.begin() + axis + 1, x.end());
  c.set_output(0, out, c.dtype(0));
}

// GatherND (opset 12+): indices' last dimension k indexes data's dimensions b..b+k-1 (b =
// batch_dims); out = indices.shape[:-1] + data.shape[b+k:].
void infer_gather_nd(Ctx& c) {
  const Shape& x = c.shape(0);
  const Shape& idx = c.shape(1);
  if (!is_int(c.dtype(1))) {
    c.fail("indices are " + std::string(dtype_name(c.dtype(1))), "int32 or int64 indices");
  }
  const int64_t b = c.attrs().get_int("batch_dims", 0);
  if (idx.empty()) c.fail("indices are a scalar", "indices of rank at least 1");
  const int64_t k = idx.back();
  const auto r = static_cast<int64_t>(x.size());
  const auto q = static_cast<int64_t>(idx.size());
  if (b < 0 || b >= std::min(r, q)) {
    c.fail("batch_dims is " + std::to_string(b), "batch_dims below both inputs' ranks");
  }
  if (k < 1 || b + k > r) {
    c.fail(
        "indices' last dimension is " + std::to_string(k),
        "1.." + std::to_string(r - b) + " (data rank " + std::to_string(r) + " minus batch_dims)");
  }
  for (int64_t d = 0; d < b; ++d) {
    if (x[static_cast<size_t>(d)] != idx[static_cast<size_t>(d)]) {
      c.fail("batch dimension " + std::to_string(d) + " differs between data and indices",
             "equal batch dimensions");
    }
  }
  Shape out(idx.begin(), idx.end() - 1);
  out.insert(out.end(), x.begin() + b + k, x.end());
  c.set_output(0, out, c.dtype(0));
}

void infer_expand(Ctx& c) {
  std::vector<int64_t> shape = c.const_ints(1, "target shape");
  c.set_output(0, broadcast(c, c.shape(0), shape), c.dtype(0));
}

void infer_reduce(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  const bool keepdims = c.attrs().get_int("keepdims", 1) != 0;
  const bool noop_empty = c.attrs().get_int("noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(r, false);
  std::vector<int64_t> axes = axes_of(c).value_or(std::vector<int64_t>{});
  if (axes.empty()) {
    if (!noop_empty) reduced.assign(r, true);
  } else {
    for (int64_t a : axes) reduced[c.axis(a, r, "reduce axis")] = true;
  }
  Shape out;
  for (int i = 0; i < r; ++i) {
    if (!reduced[i]) {
      out.push_back(x[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  c.set_output(0, out, c.dtype(0));
}

}  // namespace

void infer_op_shapes(Graph& g, int op_index) {
  const Op& op = g.op(op_index);
  check_arity(op);
  Ctx c(g, op_index);
  switch (op.kind) {
    case OpKind::Conv:
      infer_conv(c);
      break;
    case OpKind::ConvTranspose:
      infer_conv_transpose(c);
      break;
    case OpKind::Gemm:
      infer_gemm(c);
      break;
    case OpKind::MatMul:
      infer_matmul(c);
      break;
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      infer_pool(c);
      break;
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool: {
      c.require_rank_at_least(0, 3, "input X");
      Shape s = c.shape(0);
      std::fill(s.begin() + 2, s.end(), 1);
      c.set_output(0, s, c.dtype(0));
      break;
    }
    case OpKind::BatchNormalization:
      infer_batchnorm(c);
      break;
    case OpKind::LayerNormalization:
      infer_layernorm(c);
      break;
    case OpKind::Softmax:
      c.axis(c.attrs().get_int("axis", -1), c.rank(0), "attribute 'axis'");
      infer_unary(c);
      break;
    case OpKind::Relu:
    case OpKind::LeakyRelu:
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::Gelu:
    case OpKind::Erf:
    case OpKind::Identity:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Reciprocal:
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::HardSigmoid:
    case OpKind::HardSwish:
    case OpKind::Sin:
    case OpKind::Cos:
      infer_unary(c);
      break;
    case OpKind::Clip:
      infer_clip(c);
      break;
    case OpKind::Cast:
      infer_cast(c);
      break;
    case OpKind::Dropout:
      infer_dropout(c);
      break;
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow:
    case OpKind::Max:
    case OpKind::Min:
      infer_binary(c);
      break;
    case OpKind::Concat:
      infer_concat(c);
      break;
    case OpKind::Split:
      infer_split(c);
      break;
    case OpKind::Slice:
      infer_slice(c);
      break;
    case OpKind::Reshape:
      infer_reshape(c);
      break;
    case OpKind::Transpose:
      infer_transpose(c);
      break;
    case OpKind::Flatten:
      infer_flatten(c);
      break;
    case OpKind::Squeeze:
      infer_squeeze(c);
      break;
    case OpKind::Unsqueeze:
      infer_unsqueeze(c);
      break;
    case OpKind::Pad:
      infer_pad(c);
      break;
    case OpKind::Resize:
      infer_resize(c);
      break;
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      infer_depth_space(c);
      break;
    case OpKind::Gather:
      infer_gather(c);
      break;
    case OpKind::Expand:
      infer_expand(c);
      break;
    case OpKind::GatherND:
      infer_gather_nd(c);
      break;
    case OpKind::Equal:
    case OpKind::And:
    case OpKind::Not:
    case OpKind::IsNaN:
    case OpKind::Where:
      infer_logic(c);
      break;
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      infer_reduce(c);
      break;
    case OpKind::kCount:
      c.fail("invalid op kind", "a supported operator");
  }
}

void infer_shapes(Graph& g) {
  for (int o : g.topo_order()) infer_op_shapes(g, o);
}

}  // namespace dgs
