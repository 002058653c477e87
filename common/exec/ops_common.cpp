// Helpers shared by the executor's op implementations (ops.h).
#include <algorithm>

#include "common/exec/kernels.h"
#include "common/exec/ops.h"

namespace dgs {

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i + a.size() >= r ? a[i + a.size() - r] : 1;
    const int64_t db = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (da != db && da != 1 && db != 1) {
      throw Error(what + ": shapes " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace exec_ops {

std::string op_prefix(const Op& op) {
  return "op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) + "): ";
}

[[noreturn]] void fail(const Op& op, const std::string& what) {
  throw Error(op_prefix(op) + what);
}

[[noreturn]] void unsupported(const Op& op, const std::string& what) {
  throw UnsupportedFeature(op_prefix(op) + "unsupported: " + what);
}

// The index-th input, nullptr when absent or omitted.
const TensorData* in_opt(const std::vector<const TensorData*>& in, size_t index) {
  return index < in.size() ? in[index] : nullptr;
}

const TensorData& in_req(const Op& op, const std::vector<const TensorData*>& in, size_t index) {
  const TensorData* t = in_opt(in, index);
  if (!t) fail(op, "required input " + std::to_string(index) + " has no value");
  return *t;
}

const TensorData& in_float(const Op& op, const std::vector<const TensorData*>& in, size_t index) {
  const TensorData& t = in_req(op, in, index);
  if (!t.is_float()) {
    unsupported(op, "input " + std::to_string(index) + " of dtype " +
                        std::string(dtype_name(t.dtype)) + " (expected float)");
  }
  return t;
}

// Values of an integer list input (shape, axes, pads, ...); empty vector when the input is absent.
std::vector<int64_t> int_list(const TensorData* t) {
  if (!t) return {};
  if (!t->is_float()) return t->i;
  std::vector<int64_t> r;
  for (float v : t->f) r.push_back(static_cast<int64_t>(v));
  return r;
}

std::vector<double> float_list(const TensorData* t) {
  std::vector<double> r;
  if (!t) return r;
  for (int64_t k = 0; k < t->size(); ++k) r.push_back(t->at(k));
  return r;
}

int64_t norm_axis(const Op& op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    fail(op, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Copies elements from `src` to a new tensor of shape `out` through a source-index map (-1 means
// "fill with `fill`").
TensorData gather_by_index(const TensorData& src, const Shape& out, const std::vector<int64_t>& map,
                           double fill) {
  TensorData y = TensorData::zeros(out, src.dtype);
  const size_t n = map.size();
  if (src.is_float()) {
    for (size_t k = 0; k < n; ++k) {
      y.f[k] = map[k] < 0 ? static_cast<float>(fill) : src.f[static_cast<size_t>(map[k])];
    }
  } else {
    for (size_t k = 0; k < n; ++k) {
      y.i[k] = map[k] < 0 ? static_cast<int64_t>(fill) : src.i[static_cast<size_t>(map[k])];
    }
  }
  return y;
}

TensorData strided_copy(const TensorData& src, const Shape& out,
                        const std::vector<int64_t>& in_strides, int64_t base) {
  std::vector<int64_t> map(static_cast<size_t>(numel(out)));
  for_each_strided(out, in_strides, base, [&](int64_t k, int64_t off) { map[k] = off; });
  return gather_by_index(src, out, map);
}

TensorData transpose(const TensorData& x, const std::vector<int64_t>& perm) {
  const auto st = strides_of(x.shape);
  Shape out(perm.size());
  std::vector<int64_t> ist(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out[i] = x.shape[static_cast<size_t>(perm[i])];
    ist[i] = st[static_cast<size_t>(perm[i])];
  }
  return strided_copy(x, out, ist, 0);
}

TensorData reshaped(TensorData x, Shape s) {
  x.shape = std::move(s);
  return x;
}

// Strides of `s` viewed as broadcast to `out` (0 along broadcast dimensions).
std::vector<int64_t> broadcast_strides(const Shape& s, const Shape& out) {
  const auto st = strides_of(s);
  std::vector<int64_t> r(out.size(), 0);
  const size_t off = out.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i) r[off + i] = s[i] == 1 ? 0 : st[i];
  return r;
}

TensorData broadcast_to(const TensorData& x, const Shape& out) {
  if (x.shape == out) return x;
  return strided_copy(x, out, broadcast_strides(x.shape, out), 0);
}

}  // namespace exec_ops
}  // namespace dgs
