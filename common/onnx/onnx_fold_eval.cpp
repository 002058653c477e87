#include "common/onnx/onnx_fold_eval.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace dgs {

namespace {

using onnx::TensorProto_DataType_BOOL;
using onnx::TensorProto_DataType_FLOAT;
using onnx::TensorProto_DataType_INT64;

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}
int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t def) {
  const auto* a = find_attr(n, name);
  return a ? a->i() : def;
}
std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = find_attr(n, name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

// Strides of a row-major shape.
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

// Copies element `from` of `src` to element `to` of `dst` (same value kind).
void copy_element(const OnnxValue& src, int64_t from, OnnxValue& dst) {
  if (src.is_float()) {
    dst.f.push_back(src.f[static_cast<size_t>(from)]);
  } else {
    dst.i.push_back(src.i[static_cast<size_t>(from)]);
  }
}

OnnxValue empty_like(const OnnxValue& v, Shape dims) {
  OnnxValue r;
  r.elem_type = v.elem_type;
  r.dims = std::move(dims);
  r.from_weight = v.from_weight;
  return r;
}

// Throws FoldTooLarge when a folded value of shape `dims` would be negative or exceed
// kOnnxMaxFoldElements (before anything of that size is allocated).
void check_fold_size(const Shape& dims) {
  int64_t elements = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(elements, d, &elements) || elements > kOnnxMaxFoldElements)
      throw FoldTooLarge("folding it gives shape " + shape_str(dims) + "; expected at most " +
                         std::to_string(kOnnxMaxFoldElements) + " elements");
  }
}

// Gathers elements of `v` by a function from output flat index to input flat index.
OnnxValue remap(const OnnxValue& v, Shape out_dims, const std::function<int64_t(int64_t)>& src) {
  check_fold_size(out_dims);
  OnnxValue r = empty_like(v, std::move(out_dims));
  const int64_t n = r.numel();
  for (int64_t k = 0; k < n; ++k) copy_element(v, src(k), r);
  return r;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank) {
    throw Error(what + ": axis " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

Shape broadcast_dims(const Shape& a, const Shape& b, const std::string& what) {
  Shape r(std::max(a.size(), b.size()), 1);
  for (size_t k = 0; k < r.size(); ++k) {
    const int64_t da = k < r.size() - a.size() ? 1 : a[k - (r.size() - a.size())];
    const int64_t db = k < r.size() - b.size() ? 1 : b[k - (r.size() - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error(what + ": shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    }
    r[k] = da == 1 ? db : da;
  }
  return r;
}

// For each element of `out`, the flat index of the element of `in` that broadcasts to it.
std::vector<int64_t> broadcast_sources(const Shape& in, const Shape& out) {
  const std::vector<int64_t> in_st = strides_of(in);
  check_fold_size(out);
  const size_t off = out.size() - in.size();
  std::vector<int64_t> src(static_cast<size_t>(numel(out)));
  Shape idx(out.size(), 0);
  for (size_t k = 0; k < src.size(); ++k) {
    int64_t s = 0;
    for (size_t d = off; d < out.size(); ++d) {
      if (in[d - off] != 1) s += idx[d] * in_st[d - off];
    }
    src[k] = s;
    for (size_t d = out.size(); d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return src;
}

OnnxValue broadcast_to(const OnnxValue& v, const Shape& out) {
  const std::vector<int64_t> src = broadcast_sources(v.dims, out);
  return remap(v, out, [&](int64_t k) { return src[static_cast<size_t>(k)]; });
}

// Casts values to another element type (float -> integer truncates toward zero; -> bool: != 0).
OnnxValue cast_to(const OnnxValue& v, int32_t to) {
  OnnxValue r = empty_like(v, v.dims);
  r.elem_type = to;
  const int64_t n = v.numel();
  for (int64_t k = 0; k < n; ++k) {
    const double x = v.at(k);
    if (r.is_float()) {
      r.f.push_back(v.is_float() ? x : static_cast<double>(v.i[static_cast<size_t>(k)]));
    } else if (to == TensorProto_DataType_BOOL) {
      r.i.push_back(x != 0 ? 1 : 0);
    } else {
      r.i.push_back(v.is_float() ? static_cast<int64_t>(std::trunc(x))
                                 : v.i[static_cast<size_t>(k)]);
    }
  }
  return r;
}

// Element-wise binary operator with broadcasting; `out_type` 0 keeps a's type.
OnnxValue binary(const OnnxValue& a, const OnnxValue& b, const std::string& op,
                 const onnx::NodeProto& n, const std::string& what) {
  const Shape dims = broadcast_dims(a.dims, b.dims, what);
  const std::vector<int64_t> sa = broadcast_sources(a.dims, dims),
                             sb = broadcast_sources(b.dims, dims);
  static const std::set<std::string> kCompare = {"Equal",          "Less", "Greater", "LessOrEqual",
                                                 "GreaterOrEqual", "And",  "Or",      "Xor"};
  OnnxValue r = empty_like(a, dims);
  r.from_weight = a.from_weight || b.from_weight;
  if (kCompare.count(op)) r.elem_type = TensorProto_DataType_BOOL;
  const bool fmod = attr_int(n, "fmod", 0) != 0;
  for (size_t k = 0; k < sa.size(); ++k) {
    if (!a.is_float() && !kCompare.count(op)) {  // integer arithmetic, exact
      const int64_t x = a.i[static_cast<size_t>(sa[k])];
      const int64_t y = b.is_float() ? static_cast<int64_t>(b.f[static_cast<size_t>(sb[k])])
                                     : b.i[static_cast<size_t>(sb[k])];
      int64_t z = 0;
      if (op == "Add")
        z = x + y;
      else if (op == "Sub")
        z = x - y;
      else if (op == "Mul")
        z = x * y;
      else if (op == "Max")
        z = std::max(x, y);
      else if (op == "Min")
        z = std::min(x, y);
      else if (op == "Pow")
        z = static_cast<int64_t>(std::pow(x, y));
      else if (y == 0)
        throw Error(what + ": integer division by zero");
      else if (op == "Div")
        z = x / y;
      else if (op == "Mod")
        z = fmod ? x % y : ((x % y) + y) % y;
      r.i.push_back(z);
      continue;
    }
    const double x = a.at(sa[k]), y = b.at(sb[k]);
    if (op == "Equal")
      r.i.push_back(x == y);
    else if (op == "Less")
      r.i.push_back(x < y);
    else if (op == "Greater")
      r.i.push_back(x > y);
    else if (op == "LessOrEqual")
      r.i.push_back(x <= y);
    else if (op == "GreaterOrEqual")
      r.i.push_back(x >= y);
    else if (op == "And")
      r.i.push_back(x != 0 && y != 0);
    else if (op == "Or")
      r.i.push_back(x != 0 || y != 0);
    else if (op == "Xor")
      r.i.push_back((x != 0) != (y != 0));
    else if (op == "Add")
      r.f.push_back(x + y);
    else if (op == "Sub")
      r.f.push_back(x - y);
    else if (op == "Mul")
      r.f.push_back(x * y);
    else if (op == "Div")
      r.f.push_back(x / y);
    else if (op == "Pow")
      r.f.push_back(std::pow(x, y));
    else if (op == "Max")
      r.f.push_back(std::max(x, y));
    else if (op == "Min")
      r.f.push_back(std::min(x, y));
    else if (op == "Mod")
      r.f.push_back(fmod ? std::fmod(x, y) : x - y * std::floor(x / y));
  }
  return r;
}

OnnxValue unary(const OnnxValue& a, const std::string& op) {
  OnnxValue r = empty_like(a, a.dims);
  for (int64_t k = 0; k < a.numel(); ++k) {
    if (!a.is_float()) {
      const int64_t x = a.i[static_cast<size_t>(k)];
      int64_t z = x;
      if (op == "Neg")
        z = -x;
      else if (op == "Abs")
        z = std::abs(x);
      else if (op == "Not")
        z = x == 0;
      else if (op == "Sign")
        z = (x > 0) - (x < 0);
      r.i.push_back(z);
      continue;
    }
    const double x = a.f[static_cast<size_t>(k)];
    double z = x;
    if (op == "Neg")
      z = -x;
    else if (op == "Abs")
      z = std::fabs(x);
    else if (op == "Sqrt")
      z = std::sqrt(x);
    else if (op == "Floor")
      z = std::floor(x);
    else if (op == "Ceil")
      z = std::ceil(x);
    else if (op == "Round")
      z = std::nearbyint(x);
    else if (op == "Reciprocal")
      z = 1.0 / x;
    else if (op == "Exp")
      z = std::exp(x);
    else if (op == "Log")
      z = std::log(x);
    else if (op == "Sign")
      z = (x > 0) - (x < 0);
    r.f.push_back(z);
  }
  return r;
}

// Axes of a node: input `index` (opset >= `input_since`) or the "axes" attribute.
std::optional<std::vector<int64_t>> axes_of(const onnx::NodeProto& n,
                                            const std::vector<const OnnxValue*>& in, size_t index,
                                            int64_t opset, int64_t input_since) {
  if (opset >= input_since) {
    if (in.size() > index && in[index]) return in[index]->i;
    return std::nullopt;
  }
  return attr_ints(n, "axes");
}

OnnxValue reduce(const OnnxValue& a, std::optional<std::vector<int64_t>> axes, bool keepdims,
                 const std::string& op, const std::string& what) {
  const int64_t rank = static_cast<int64_t>(a.dims.size());
  std::vector<bool> reduced(a.dims.size(), !axes || axes->empty());
  if (axes) {
    for (int64_t ax : *axes) reduced[static_cast<size_t>(normalize_axis(ax, rank, what))] = true;
  }
  Shape out_keep = a.dims, out;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    if (reduced[d]) out_keep[d] = 1;
    if (!reduced[d] || keepdims) out.push_back(out_keep[d]);
  }
  const std::vector<int64_t> ost = strides_of(out_keep);
  const int64_t on = numel(out_keep);
  std::vector<double> acc(static_cast<size_t>(on), op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<bool> seen(static_cast<size_t>(on), false);
  Shape idx(a.dims.size(), 0);
  for (int64_t k = 0; k < a.numel(); ++k) {
    int64_t o = 0;
    for (size_t d = 0; d < idx.size(); ++d) o += (reduced[d] ? 0 : idx[d]) * ost[d];
    double& s = acc[static_cast<size_t>(o)];
    const double x = a.at(k);
    if (op == "ReduceMax")
      s = seen[static_cast<size_t>(o)] ? std::max(s, x) : x;
    else if (op == "ReduceMin")
      s = seen[static_cast<size_t>(o)] ? std::min(s, x) : x;
    else if (op == "ReduceProd")
      s *= x;
    else
      s += x;
    seen[static_cast<size_t>(o)] = true;
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < a.dims[d]) break;
      idx[d] = 0;
    }
  }
  if (op == "ReduceMean" && on > 0) {
    for (double& s : acc) s /= static_cast<double>(a.numel() / on);
  }
  OnnxValue r = empty_like(a, out);
  for (double s : acc) {
    if (r.is_float())
      r.f.push_back(s);
    else
      r.i.push_back(static_cast<int64_t>(s));
  }
  return r;
}

OnnxValue slice(const OnnxValue& a, const std::vector<int64_t>& starts,
                const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                std::vector<int64_t> steps, const std::string& what) {
  const int64_t rank = static_cast<int64_t>(a.dims.size());
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  Shape start(a.dims.size(), 0), step(a.dims.size(), 1), out = a.dims;
  for (size_t k = 0; k < starts.size(); ++k) {
    const auto d = static_cast<size_t>(normalize_axis(axes[k], rank, what));
    const int64_t dim = a.dims[d], st = steps[k];
    if (st == 0) throw Error(what + ": Slice step 0");
    auto clamp = [&](int64_t v, bool is_start) {
      if (v < 0) v += dim;
      if (st > 0) return std::clamp<int64_t>(v, 0, dim);
      (void)is_start;
      return std::clamp<int64_t>(v, -1, dim - 1);
    };
    const int64_t b = clamp(starts[k], true), e = clamp(ends[k], false);
    start[d] = b;
    step[d] = st;
    out[d] = st > 0 ? std::max<int64_t>(0, (e - b + st - 1) / st)
                    : std::max<int64_t>(0, (b - e + (-st) - 1) / (-st));
  }
  const std::vector<int64_t> ist = strides_of(a.dims), ost = strides_of(out);
  return remap(a, out, [&](int64_t k) {
    int64_t s = 0;
    for (size_t d = 0; d < out.size(); ++d) {
      const int64_t i = (k / ost[d]) % out[d];
      s += (start[d] + i * step[d]) * ist[d];
    }
    return s;
  });
}

}  // namespace

bool is_foldable_op_type(const std::string& t) {
  static const std::set<std::string> kOps = {"Identity",
                                             "Cast",
                                             "CastLike",
                                             "ConstantOfShape",
                                             "Range",
                                             "Unsqueeze",
                                             "Squeeze",
                                             "Reshape",
                                             "Flatten",
                                             "Concat",
                                             "Gather",
                                             "Slice",
                                             "Expand",
                                             "Tile",
                                             "Transpose",
                                             "Where",
                                             "CumSum",
                                             "Trilu",
                                             "Add",
                                             "Sub",
                                             "Mul",
                                             "Div",
                                             "Mod",
                                             "Pow",
                                             "Max",
                                             "Min",
                                             "Equal",
                                             "Less",
                                             "Greater",
                                             "LessOrEqual",
                                             "GreaterOrEqual",
                                             "And",
                                             "Or",
                                             "Xor",
                                             "Not",
                                             "Neg",
                                             "Abs",
                                             "Sqrt",
                                             "Floor",
                                             "Ceil",
                                             "Round",
                                             "Reciprocal",
                                             "Exp",
                                             "Log",
                                             "Sign",
                                             "ReduceSum",
                                             "ReduceProd",
                                             "ReduceMax",
                                             "ReduceMin",
                                             "ReduceMean"};
  return kOps.count(t) != 0;
}

std::optional<std::vector<OnnxValue>> evaluate_constant_node(
    const onnx::NodeProto& n, const std::vector<const OnnxValue*>& in, int64_t opset,
    const std::string& what) {
  const std::string& op = n.op_type();
  if (!is_foldable_op_type(op) || in.empty() || !in[0]) return std::nullopt;
  const OnnxValue& a = *in[0];
  auto input = [&](size_t k) -> const OnnxValue* { return k < in.size() ? in[k] : nullptr; };
  auto one = [](OnnxValue v) { return std::vector<OnnxValue>{std::move(v)}; };
  const int64_t rank = static_cast<int64_t>(a.dims.size());

  if (op == "Identity") return one(a);
  if (op == "Cast") return one(cast_to(a, static_cast<int32_t>(attr_int(n, "to", 1))));
  if (op == "CastLike") {
    if (!input(1)) return std::nullopt;
    return one(cast_to(a, input(1)->elem_type));
  }
  if (op == "ConstantOfShape") {
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
      r.i.assign(static_cast<size_t>(r.numel()), static_cast<int64_t>(fill));
    return one(r);
  }
  if (op == "Range") {
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
        r.i.push_back(static_cast<int64_t>(s) + k * static_cast<int64_t>(d));
    }
    return one(r);
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    const auto axes = axes_of(n, in, 1, opset, 13);
    Shape out;
    if (op == "Unsqueeze") {
      if (!axes) return std::nullopt;
      const int64_t out_rank = rank + static_cast<int64_t>(axes->size());
      std::vector<bool> added(static_cast<size_t>(out_rank), false);
      for (int64_t ax : *axes)
        added[static_cast<size_t>(normalize_axis(ax, out_rank, what))] = true;
      size_t k = 0;
      for (bool b : added) out.push_back(b ? 1 : a.dims[k++]);
    } else {
      std::vector<bool> removed(a.dims.size(), !axes);
      if (axes) {
        for (int64_t ax : *axes)
          removed[static_cast<size_t>(normalize_axis(ax, rank, what))] = true;
      }
      for (size_t d = 0; d < a.dims.size(); ++d) {
        if (!removed[d] || a.dims[d] != 1) out.push_back(a.dims[d]);
      }
    }
    OnnxValue r = a;
    r.dims = out;
    return one(r);
  }
  if (op == "Reshape") {
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
  if (op == "Flatten") {
    const int64_t axis = attr_int(n, "axis", 1);
    const int64_t ax = axis < 0 ? axis + rank : axis;
    int64_t outer = 1;
    for (int64_t d = 0; d < ax; ++d) outer *= a.dims[static_cast<size_t>(d)];
    OnnxValue r = a;
    r.dims = {outer, outer == 0 ? 0 : a.numel() / outer};
    return one(r);
  }
  if (op == "Concat") {
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
  if (op == "Gather") {
    const OnnxValue* idx = input(1);
    if (!idx) return std::nullopt;
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
  if (op == "Slice") {
    if (opset < 10) {
      const auto s = attr_ints(n, "starts"), e = attr_ints(n, "ends");
      if (!s || !e) return std::nullopt;
      return one(slice(a, *s, *e, attr_ints(n, "axes").value_or(std::vector<int64_t>{}), {}, what));
    }
    if (!input(1) || !input(2)) return std::nullopt;
    return one(slice(a, input(1)->i, input(2)->i, input(3) ? input(3)->i : std::vector<int64_t>{},
                     input(4) ? input(4)->i : std::vector<int64_t>{}, what));
  }
  if (op == "Expand") {
    if (!input(1)) return std::nullopt;
    return one(broadcast_to(a, broadcast_dims(a.dims, input(1)->i, what)));
  }
  if (op == "Tile") {
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
  if (op == "Transpose") {
    std::vector<int64_t> perm = attr_ints(n, "perm").value_or(std::vector<int64_t>{});
    if (perm.empty()) {
      for (int64_t d = rank; d-- > 0;) perm.push_back(d);
    }
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t p : perm) {
      if (static_cast<int64_t>(perm.size()) != rank || p < 0 || p >= rank ||
          seen[static_cast<size_t>(p)])
        throw Error(what + ": attribute 'perm' " + shape_str(perm) + " for input " +
                    shape_str(a.dims) + "; expected a permutation of 0.." +
                    std::to_string(rank - 1));
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
  if (op == "Where") {
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
  if (op == "CumSum") {
    if (!input(1)) return std::nullopt;
    const int64_t axis = normalize_axis(input(1)->at(0), rank, what);
    const bool exclusive = attr_int(n, "exclusive", 0) != 0,
               reverse = attr_int(n, "reverse", 0) != 0;
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
        r.i[static_cast<size_t>(k)] = static_cast<int64_t>(s);
    }
    return one(r);
  }
  if (op == "Trilu") {
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
  if (op.rfind("Reduce", 0) == 0) {
    const int64_t input_since = op == "ReduceSum" ? 13 : 18;
    auto axes = axes_of(n, in, 1, opset, input_since);
    if (!axes && attr_int(n, "noop_with_empty_axes", 0) != 0) return one(a);
    return one(reduce(a, axes, attr_int(n, "keepdims", 1) != 0, op, what));
  }
  if (op == "Max" || op == "Min") {
    OnnxValue r = a;
    for (size_t k = 1; k < in.size(); ++k) {
      if (!in[k]) return std::nullopt;
      r = binary(r, *in[k], op, n, what);
    }
    return one(r);
  }
  if (in.size() == 2) {
    if (!in[1]) return std::nullopt;
    return one(binary(a, *in[1], op, n, what));
  }
  if (in.size() == 1) return one(unary(a, op));
  return std::nullopt;
}

}  // namespace dgs
