#include "common/onnx/onnx_fold_eval.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/onnx/onnx_fold_arith.h"
#include "common/onnx/onnx_fold_einsum.h"
#include "common/onnx/onnx_fold_indexing.h"
#include "common/onnx/onnx_fold_values.h"

namespace dgs {

using onnx::TensorProto_DataType_FLOAT;

bool is_foldable_op_type(const std::string& t) {
  static const std::set<std::string> kOps = {"Identity",    "Cast",
                                             "CastLike",    "ConstantOfShape",
                                             "Range",       "Unsqueeze",
                                             "Squeeze",     "Reshape",
                                             "Flatten",     "Concat",
                                             "Gather",      "GatherElements",
                                             "Einsum",      "ScatterND",
                                             "Slice",       "Expand",
                                             "Tile",        "Transpose",
                                             "Where",       "CumSum",
                                             "Trilu",       "Add",
                                             "Sub",         "Mul",
                                             "Div",         "Mod",
                                             "Pow",         "Max",
                                             "Min",         "Equal",
                                             "Less",        "Greater",
                                             "LessOrEqual", "GreaterOrEqual",
                                             "And",         "Or",
                                             "Xor",         "Not",
                                             "Neg",         "Abs",
                                             "Sqrt",        "Floor",
                                             "Ceil",        "Round",
                                             "Reciprocal",  "Exp",
                                             "Log",         "Sign",
                                             "ReduceSum",   "ReduceProd",
                                             "ReduceMax",   "ReduceMin",
                                             "ReduceMean"};
  return kOps.count(t) != 0;
}

namespace {

using Folded = std::optional<std::vector<OnnxValue>>;

// The evaluation of one node: its inputs (in[0], `a`, present), its attributes, the model's
// opset and the error prefix `what`; fold() dispatches on the op type to one eval_* per op type.
struct NodeFolder {
  const onnx::NodeProto& n;
  const std::vector<const OnnxValue*>& in;
  const int64_t opset;
  const std::string& what;
  const std::string& op;  // n.op_type()
  const OnnxValue& a;     // *in[0]
  const int64_t rank;     // rank of a

  const OnnxValue* input(size_t k) const { return k < in.size() ? in[k] : nullptr; }
  static Folded one(OnnxValue v) { return std::vector<OnnxValue>{std::move(v)}; }

  Folded fold() const;
  Folded eval_constant_of_shape() const;
  Folded eval_range() const;
  Folded eval_squeeze_unsqueeze() const;
  Folded eval_reshape() const;
  Folded eval_flatten() const;
  Folded eval_concat() const;
  Folded eval_gather() const;
  Folded eval_einsum() const;
  Folded eval_slice() const;
  Folded eval_tile() const;
  Folded eval_transpose() const;
  Folded eval_where() const;
  Folded eval_cum_sum() const;
  Folded eval_trilu() const;
  Folded eval_reduce() const;
  Folded eval_min_max() const;
  Folded eval_elementwise() const;
};

Folded NodeFolder::fold() const {
  if (op == "Identity") return one(a);
  if (op == "Cast") return one(cast_to(a, static_cast<int32_t>(attr_int(n, "to", 1))));
  if (op == "CastLike") {
    if (!input(1)) return std::nullopt;
    return one(cast_to(a, input(1)->elem_type));
  }
  if (op == "ConstantOfShape") return eval_constant_of_shape();
  if (op == "Range") return eval_range();
  if (op == "Unsqueeze" || op == "Squeeze") return eval_squeeze_unsqueeze();
  if (op == "Reshape") return eval_reshape();
  if (op == "Flatten") return eval_flatten();
  if (op == "Concat") return eval_concat();
  if (op == "Gather") return eval_gather();
  if (op == "Einsum") return eval_einsum();
  if (op == "GatherElements") {
    if (!input(1)) return std::nullopt;
    return one(gather_elements(a, *input(1), attr_int(n, "axis", 0), what));
  }
  if (op == "ScatterND") {
    if (!input(1) || !input(2)) return std::nullopt;
    const auto* reduction = find_attr(n, "reduction");
    return one(scatter_nd(a, *input(1), *input(2), reduction ? reduction->s() : "none", what));
  }
  if (op == "Slice") return eval_slice();
  if (op == "Expand") {
    if (!input(1)) return std::nullopt;
    return one(broadcast_to(a, broadcast_dims(a.dims, input(1)->i, what)));
  }
  if (op == "Tile") return eval_tile();
  if (op == "Transpose") return eval_transpose();
  if (op == "Where") return eval_where();
  if (op == "CumSum") return eval_cum_sum();
  if (op == "Trilu") return eval_trilu();
  if (op.rfind("Reduce", 0) == 0) return eval_reduce();
  if (op == "Max" || op == "Min") return eval_min_max();
  return eval_elementwise();
}

Folded NodeFolder::eval_constant_of_shape() const {
  OnnxValue r;
  r.elem_type = TensorProto_DataType_FLOAT;
  r.dims = a.i;
  double fill = 0;
  if (const auto* v = find_attr(n, "value")) {
    const OnnxValue fv = read_onnx_value(v->t(), what + ": attribute 'value'");
    if (fv.numel() != 1) throw Error(what + ": attribute 'value' must hold one element");
    r.elem_type = fv.elem_type;
    fill = fv.at(0);
  }
  check_fold_size(r.dims);
  if (r.is_float())
    r.f.assign(static_cast<size_t>(r.numel()), fill);
  else
    r.i.assign(static_cast<size_t>(r.numel()), fold_int64(fill));
  return one(r);
}

Folded NodeFolder::eval_range() const {
  if (!input(1) || !input(2)) return std::nullopt;
  const double s = a.at(0), l = input(1)->at(0), d = input(2)->at(0);
  if (d == 0) throw Error(what + ": Range delta 0");
  const double steps = std::max(0.0, std::ceil((l - s) / d));
  if (!(steps <= static_cast<double>(kOnnxMaxFoldElements)))  // also NaN
    throw FoldTooLarge("Range from " + std::to_string(s) + " to " + std::to_string(l) + " by " +
                       std::to_string(d) + "; expected at most " +
                       std::to_string(kOnnxMaxFoldElements) + " elements");
  const auto count = static_cast<int64_t>(steps);
  OnnxValue r = empty_like(a, {count});
  for (int64_t k = 0; k < count; ++k) {
    if (r.is_float())
      r.f.push_back(s + static_cast<double>(k) * d);
    else
      r.i.push_back(fold_int64(s + static_cast<double>(k) * d));
  }
  return one(r);
}

Folded NodeFolder::eval_squeeze_unsqueeze() const {
  const auto axes = axes_of(n, in, 1, opset, 13);
  Shape out;
  if (op == "Unsqueeze") {
    if (!axes) return std::nullopt;
    const int64_t out_rank = rank + static_cast<int64_t>(axes->size());
    std::vector<bool> added(static_cast<size_t>(out_rank), false);
    for (int64_t ax : *axes) added[static_cast<size_t>(normalize_axis(ax, out_rank, what))] = true;
    size_t k = 0;
    for (bool b : added) out.push_back(b ? 1 : a.dims[k++]);
  } else {
    std::vector<bool> removed(a.dims.size(), !axes);
    if (axes) {
      for (int64_t ax : *axes) removed[static_cast<size_t>(normalize_axis(ax, rank, what))] = true;
    }
    for (size_t d = 0; d < a.dims.size(); ++d) {
      if (!removed[d] || a.dims[d] != 1) out.push_back(a.dims[d]);
    }
  }
  OnnxValue r = a;
  r.dims = out;
  return one(r);
}

Folded NodeFolder::eval_reshape() const {
  if (!input(1)) return std::nullopt;
  Shape out = input(1)->i;
  const bool allowzero = attr_int(n, "allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 0 && !allowzero && d < a.dims.size()) out[d] = a.dims[d];
    if (out[d] == -1)
      infer = static_cast<int64_t>(d);
    else if (__builtin_mul_overflow(known, out[d], &known))
      throw Error(what + ": cannot reshape " + shape_str(a.dims) + " to " + shape_str(out) +
                  " (more elements than 64 bits count)");
  }
  if (infer >= 0) out[static_cast<size_t>(infer)] = known == 0 ? 0 : a.numel() / known;
  if (known < 0 || numel(out) != a.numel()) {
    throw Error(what + ": cannot reshape " + shape_str(a.dims) + " to " + shape_str(out));
  }
  OnnxValue r = a;
  r.dims = out;
  return one(r);
}

Folded NodeFolder::eval_flatten() const {
  const int64_t axis = attr_int(n, "axis", 1);
  const int64_t ax = axis < 0 ? axis + rank : axis;
  int64_t outer = 1;
  for (int64_t d = 0; d < ax; ++d) outer *= a.dims[static_cast<size_t>(d)];
  OnnxValue r = a;
  r.dims = {outer, outer == 0 ? 0 : a.numel() / outer};
  return one(r);
}

Folded NodeFolder::eval_concat() const {
  const int64_t axis = normalize_axis(attr_int(n, "axis", 0), rank, what);
  Shape out = a.dims;
  out[static_cast<size_t>(axis)] = 0;
  for (const OnnxValue* v : in) {
    if (v) out[static_cast<size_t>(axis)] += v->dims[static_cast<size_t>(axis)];
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out[static_cast<size_t>(d)];
  OnnxValue r = empty_like(a, out);
  for (int64_t o = 0; o < outer; ++o) {
    for (const OnnxValue* v : in) {
      if (!v) continue;
      r.from_weight |= v->from_weight;
      const int64_t chunk = outer == 0 ? 0 : v->numel() / outer;
      for (int64_t k = 0; k < chunk; ++k) copy_element(*v, o * chunk + k, r);
    }
  }
  return one(r);
}

Folded NodeFolder::eval_gather() const {
  const OnnxValue* idx = input(1);
  if (!idx) return std::nullopt;
  if (idx->is_float())
    throw Error(what + ": indices of a floating-point type; expected int32 or int64 indices");
  const int64_t axis = normalize_axis(attr_int(n, "axis", 0), rank, what);
  const int64_t dim = a.dims[static_cast<size_t>(axis)];
  Shape out(a.dims.begin(), a.dims.begin() + axis);
  out.insert(out.end(), idx->dims.begin(), idx->dims.end());
  out.insert(out.end(), a.dims.begin() + axis + 1, a.dims.end());
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < a.dims.size(); ++d) inner *= a.dims[d];
  const int64_t ni = idx->numel();
  return one(remap(a, out, [&](int64_t k) {
    const int64_t i_in = k % inner, rest = k / inner;
    const int64_t j = rest % std::max<int64_t>(ni, 1), o = rest / std::max<int64_t>(ni, 1);
    int64_t g = idx->i[static_cast<size_t>(j)];
    if (g < 0) g += dim;
    if (g < 0 || g >= dim) throw Error(what + ": Gather index out of range");
    return (o * dim + g) * inner + i_in;
  }));
}

Folded NodeFolder::eval_einsum() const {
  const auto* equation = find_attr(n, "equation");
  if (!equation) return std::nullopt;
  auto r = fold_einsum(equation->s(), in, what);
  if (!r) return std::nullopt;
  return one(std::move(*r));
}

Folded NodeFolder::eval_slice() const {
  if (opset < 10) {
    const auto s = attr_ints(n, "starts"), e = attr_ints(n, "ends");
    if (!s || !e) return std::nullopt;
    return one(slice(a, *s, *e, attr_ints(n, "axes").value_or(std::vector<int64_t>{}), {}, what));
  }
  if (!input(1) || !input(2)) return std::nullopt;
  return one(slice(a, input(1)->i, input(2)->i, input(3) ? input(3)->i : std::vector<int64_t>{},
                   input(4) ? input(4)->i : std::vector<int64_t>{}, what));
}

Folded NodeFolder::eval_tile() const {
  if (!input(1)) return std::nullopt;
  Shape out = a.dims;
  if (input(1)->i.size() != out.size()) {
    throw Error(what + ": Tile repeats " + shape_str(input(1)->i) + " for input " +
                shape_str(a.dims) + "; expected one repeat per dimension");
  }
  for (size_t d = 0; d < out.size(); ++d) {
    if (input(1)->i[d] < 0 || __builtin_mul_overflow(out[d], input(1)->i[d], &out[d]))
      throw Error(what + ": Tile repeats " + shape_str(input(1)->i) + " for input " +
                  shape_str(a.dims) + "; expected non-negative repeats");
  }
  const std::vector<int64_t> ist = strides_of(a.dims), ost = strides_of(out);
  return one(remap(a, out, [&](int64_t k) {
    int64_t s = 0;
    for (size_t d = 0; d < out.size(); ++d) s += ((k / ost[d]) % out[d] % a.dims[d]) * ist[d];
    return s;
  }));
}

Folded NodeFolder::eval_transpose() const {
  std::vector<int64_t> perm = attr_ints(n, "perm").value_or(std::vector<int64_t>{});
  if (perm.empty()) {
    for (int64_t d = rank; d-- > 0;) perm.push_back(d);
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t p : perm) {
    if (static_cast<int64_t>(perm.size()) != rank || p < 0 || p >= rank ||
        seen[static_cast<size_t>(p)])
      throw Error(what + ": attribute 'perm' " + shape_str(perm) + " for input " +
                  shape_str(a.dims) + "; expected a permutation of 0.." + std::to_string(rank - 1));
    seen[static_cast<size_t>(p)] = true;
  }
  Shape out;
  for (int64_t p : perm) out.push_back(a.dims[static_cast<size_t>(p)]);
  const std::vector<int64_t> ist = strides_of(a.dims), ost = strides_of(out);
  return one(remap(a, out, [&](int64_t k) {
    int64_t s = 0;
    for (size_t d = 0; d < out.size(); ++d) {
      s += ((k / ost[d]) % out[d]) * ist[static_cast<size_t>(perm[d])];
    }
    return s;
  }));
}

Folded NodeFolder::eval_where() const {
  if (!input(1) || !input(2)) return std::nullopt;
  const OnnxValue &x = *input(1), &y = *input(2);
  const Shape out = broadcast_dims(broadcast_dims(a.dims, x.dims, what), y.dims, what);
  const auto sc = broadcast_sources(a.dims, out), sx = broadcast_sources(x.dims, out),
             sy = broadcast_sources(y.dims, out);
  OnnxValue r = empty_like(x, out);
  r.from_weight = x.from_weight || y.from_weight;
  for (size_t k = 0; k < sc.size(); ++k) {
    if (a.at(sc[k]) != 0)
      copy_element(x, sx[k], r);
    else
      copy_element(y, sy[k], r);
  }
  return one(r);
}

Folded NodeFolder::eval_cum_sum() const {
  if (!input(1)) return std::nullopt;
  const int64_t axis = normalize_axis(input(1)->at(0), rank, what);
  const bool exclusive = attr_int(n, "exclusive", 0) != 0, reverse = attr_int(n, "reverse", 0) != 0;
  const std::vector<int64_t> st = strides_of(a.dims);
  const int64_t dim = a.dims[static_cast<size_t>(axis)], stride = st[static_cast<size_t>(axis)];
  OnnxValue r = a;
  for (int64_t k = 0; k < a.numel(); ++k) {
    const int64_t pos = (k / stride) % dim, base = k - pos * stride;
    double s = 0;
    for (int64_t j = 0; j < dim; ++j) {
      const bool take =
          reverse ? (exclusive ? j > pos : j >= pos) : (exclusive ? j < pos : j <= pos);
      if (take) s += a.at(base + j * stride);
    }
    if (r.is_float())
      r.f[static_cast<size_t>(k)] = s;
    else
      r.i[static_cast<size_t>(k)] = fold_int64(s);
  }
  return one(r);
}

Folded NodeFolder::eval_trilu() const {
  if (rank < 2) return std::nullopt;
  const int64_t kk = input(1) ? input(1)->i.at(0) : 0;
  const bool upper = attr_int(n, "upper", 1) != 0;
  const int64_t rows = a.dims[static_cast<size_t>(rank - 2)], cols = a.dims.back();
  OnnxValue r = a;
  for (int64_t k = 0; k < a.numel(); ++k) {
    const int64_t c = k % cols, row = (k / cols) % rows;
    const bool keep = upper ? c - row >= kk : c - row <= kk;
    if (keep) continue;
    if (r.is_float())
      r.f[static_cast<size_t>(k)] = 0;
    else
      r.i[static_cast<size_t>(k)] = 0;
  }
  return one(r);
}

Folded NodeFolder::eval_reduce() const {
  const int64_t input_since = op == "ReduceSum" ? 13 : 18;
  auto axes = axes_of(n, in, 1, opset, input_since);
  if (!axes && attr_int(n, "noop_with_empty_axes", 0) != 0) return one(a);
  return one(reduce(a, axes, attr_int(n, "keepdims", 1) != 0, op, what));
}

Folded NodeFolder::eval_min_max() const {
  OnnxValue r = a;
  for (size_t k = 1; k < in.size(); ++k) {
    if (!in[k]) return std::nullopt;
    r = binary(r, *in[k], op, n, what);
  }
  return one(r);
}

// Binary ops (two inputs) and unary ops (one input) of the folding list.
Folded NodeFolder::eval_elementwise() const {
  if (in.size() == 2) {
    if (!in[1]) return std::nullopt;
    return one(binary(a, *in[1], op, n, what));
  }
  if (in.size() == 1) {
    try {
      return one(unary(a, op));
    } catch (const Error& e) {
      throw Error(what + ": " + e.what());
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<OnnxValue>> evaluate_constant_node(
    const onnx::NodeProto& n, const std::vector<const OnnxValue*>& in, int64_t opset,
    const std::string& what) {
  const std::string& op = n.op_type();
  if (!is_foldable_op_type(op) || in.empty() || !in[0]) return std::nullopt;
  const OnnxValue& a = *in[0];
  const NodeFolder folder{n, in, opset, what, op, a, static_cast<int64_t>(a.dims.size())};
  return folder.fold();
}

}  // namespace dgs
