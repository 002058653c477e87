#include "common/onnx/onnx_fold_values.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>

#include "common/onnx/onnx_fold_eval.h"

namespace dgs {

using onnx::TensorProto_DataType_BOOL;

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

int64_t fold_int64(double v) {
  if (!(v >= -9.2233720368547758e18 && v < 9.2233720368547758e18))  // also NaN
    throw FoldTooLarge("value " + std::to_string(v) + " does not fit a 64-bit integer");
  return static_cast<int64_t>(v);
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
      r.i.push_back(v.is_float() ? fold_int64(std::trunc(x)) : v.i[static_cast<size_t>(k)]);
    }
  }
  return r;
}

}  // namespace dgs
