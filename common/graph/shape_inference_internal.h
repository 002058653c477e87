#pragma once
// Internal to common/graph's shape inference (not part of its API): the context through which the
// inference of one op reads its inputs and attributes, sets its outputs and reports errors, the
// helpers the per-family files share, and the per-family inference functions that
// infer_op_shapes (shape_inference.cpp) dispatches to.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/onnx_dtype.h"

namespace dgs::shape_inference_internal {

// "op '<name>' (<Kind>): ", the start of every error message about an op.
inline std::string op_prefix(const Op& op) {
  return "op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) + "): ";
}

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

inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t ceil_div(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

// Multidirectional (NumPy) broadcasting of two shapes.
inline Shape broadcast(const Ctx& c, const Shape& a, const Shape& b) {
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
inline DType dtype_attr(const Ctx& c, const std::string& attr, int64_t code) {
  return require_dtype_from_onnx(code, op_prefix(c.op()) + "attribute '" + attr + "'");
}

inline bool is_int(DType d) {
  return d == DType::I64 || d == DType::I32;
}

// Axes from input 1 (opset 13) or the `axes` attribute (older opsets).
inline std::optional<std::vector<int64_t>> axes_of(const Ctx& c) {
  if (c.has_input(1)) return c.const_ints(1, "axes");
  if (c.attrs().has("axes")) return c.attrs().get_ints("axes", {});
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Inference per operator family
// ---------------------------------------------------------------------------------------------
// shape_inference_compute.cpp
void infer_conv(Ctx& c);
void infer_conv_transpose(Ctx& c);
void infer_pool(Ctx& c);
void infer_global_pool(Ctx& c);
void infer_gemm(Ctx& c);
void infer_matmul(Ctx& c);
void infer_batchnorm(Ctx& c);
void infer_layernorm(Ctx& c);
void infer_reduce(Ctx& c);
// shape_inference_elementwise.cpp
void infer_unary(Ctx& c);
void infer_clip(Ctx& c);
void infer_dropout(Ctx& c);
void infer_cast(Ctx& c);
void infer_binary(Ctx& c);
void infer_logic(Ctx& c);
// shape_inference_layout.cpp
void infer_concat(Ctx& c);
void infer_split(Ctx& c);
void infer_slice(Ctx& c);
void infer_reshape(Ctx& c);
void infer_transpose(Ctx& c);
void infer_flatten(Ctx& c);
void infer_squeeze(Ctx& c);
void infer_unsqueeze(Ctx& c);
// shape_inference_indexing.cpp
void infer_pad(Ctx& c);
void infer_resize(Ctx& c);
void infer_depth_space(Ctx& c);
void infer_gather(Ctx& c);
void infer_gather_nd(Ctx& c);
void infer_expand(Ctx& c);

}  // namespace dgs::shape_inference_internal
