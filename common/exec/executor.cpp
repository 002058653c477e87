#include "common/exec/executor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>

#include "common/exec/kernels.h"
#include "common/graph/onnx_dtype.h"

namespace dgs {

namespace {

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------
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
                           double fill = 0.0) {
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

// Calls fn(out_flat, in_offset) over the output of a strided view: out[j...] = in[sum j_d*st_d].
template <class F>
void for_each_strided(const Shape& out, const std::vector<int64_t>& in_strides, int64_t base,
                      F fn) {
  const size_t r = out.size();
  const int64_t n = numel(out);
  if (n == 0) return;
  std::vector<int64_t> idx(r, 0);
  int64_t off = base;
  for (int64_t k = 0; k < n; ++k) {
    fn(k, off);
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < out[d]) {
        off += in_strides[d];
        break;
      }
      off -= in_strides[d] * (out[d] - 1);
      idx[d] = 0;
    }
  }
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

}  // namespace

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

namespace {

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

// ---------------------------------------------------------------------------------------------
// Element-wise
// ---------------------------------------------------------------------------------------------
template <class T, class F>
void binary_loop(const std::vector<T>& a, const Shape& sa, const std::vector<T>& b, const Shape& sb,
                 std::vector<T>& y, const Shape& out, F f) {
  const size_t n = y.size();
  if (sa == out && sb == out) {
    for (size_t k = 0; k < n; ++k) y[k] = f(a[k], b[k]);
  } else if (sa == out && b.size() == 1) {
    const T bv = b[0];
    for (size_t k = 0; k < n; ++k) y[k] = f(a[k], bv);
  } else if (sb == out && a.size() == 1) {
    const T av = a[0];
    for (size_t k = 0; k < n; ++k) y[k] = f(av, b[k]);
  } else {
    const auto stb = broadcast_strides(sb, out);
    const auto sta = broadcast_strides(sa, out);
    std::vector<int64_t> offb(n);
    for_each_strided(out, stb, 0, [&](int64_t k, int64_t off) { offb[k] = off; });
    for_each_strided(out, sta, 0, [&](int64_t k, int64_t off) {
      y[k] = f(a[static_cast<size_t>(off)], b[static_cast<size_t>(offb[k])]);
    });
  }
}

TensorData binary(const Op& op, const TensorData& a, const TensorData& b) {
  const Shape out = broadcast_shapes(a.shape, b.shape, op_prefix(op) + "inputs");
  if (op.kind == OpKind::Pow && a.dtype != b.dtype) {
    // ONNX Pow allows different base and exponent types; the result has the base's type.
    TensorData y = TensorData::zeros(out, a.dtype);
    const auto sa = broadcast_strides(a.shape, out), sb = broadcast_strides(b.shape, out);
    std::vector<int64_t> offb(static_cast<size_t>(numel(out)));
    for_each_strided(out, sb, 0, [&](int64_t k, int64_t off) { offb[k] = off; });
    for_each_strided(out, sa, 0, [&](int64_t k, int64_t off) {
      const double v = std::pow(a.at(off), b.at(offb[k]));
      if (y.is_float()) {
        y.f[k] = static_cast<float>(v);
      } else {
        y.i[k] = static_cast<int64_t>(v);
      }
    });
    return y;
  }
  if (a.is_float() != b.is_float()) {
    fail(op, "inputs of dtypes " + std::string(dtype_name(a.dtype)) + " and " +
                 std::string(dtype_name(b.dtype)) + "; expected equal dtypes");
  }
  TensorData y = TensorData::zeros(out, a.dtype);
  if (a.is_float()) {
    auto run = [&](auto f) { binary_loop(a.f, a.shape, b.f, b.shape, y.f, out, f); };
    switch (op.kind) {
      case OpKind::Add:
        run([](float x, float z) { return x + z; });
        break;
      case OpKind::Sub:
        run([](float x, float z) { return x - z; });
        break;
      case OpKind::Mul:
        run([](float x, float z) { return x * z; });
        break;
      case OpKind::Div:
        run([](float x, float z) { return x / z; });
        break;
      case OpKind::Pow:
        run([](float x, float z) { return std::pow(x, z); });
        break;
      case OpKind::Max:
        run([](float x, float z) { return std::isnan(x) || std::isnan(z) ? NAN : std::max(x, z); });
        break;
      case OpKind::Min:
        run([](float x, float z) { return std::isnan(x) || std::isnan(z) ? NAN : std::min(x, z); });
        break;
      default:
        fail(op, "not a binary operator");
    }
  } else {
    auto run = [&](auto f) { binary_loop(a.i, a.shape, b.i, b.shape, y.i, out, f); };
    switch (op.kind) {
      case OpKind::Add:
        run([](int64_t x, int64_t z) { return x + z; });
        break;
      case OpKind::Sub:
        run([](int64_t x, int64_t z) { return x - z; });
        break;
      case OpKind::Mul:
        run([](int64_t x, int64_t z) { return x * z; });
        break;
      case OpKind::Div:
        run([](int64_t x, int64_t z) { return z == 0 ? int64_t{0} : x / z; });
        break;
      case OpKind::Pow:
        run([](int64_t x, int64_t z) {
          return static_cast<int64_t>(std::pow(static_cast<double>(x), static_cast<double>(z)));
        });
        break;
      case OpKind::Max:
        run([](int64_t x, int64_t z) { return std::max(x, z); });
        break;
      case OpKind::Min:
        run([](int64_t x, int64_t z) { return std::min(x, z); });
        break;
      default:
        fail(op, "not a binary operator");
    }
  }
  return y;
}

template <class F>
TensorData unary_fast(const Op& op, const TensorData& x, F f) {
  if (!x.is_float()) unsupported(op, "input of dtype " + std::string(dtype_name(x.dtype)));
  TensorData y = x;
  for (float& v : y.f) v = f(v);
  return y;
}

TensorData cast(const Op& op, const TensorData& x) {
  const int64_t code = op.attrs.get_int("to", 1);
  const std::optional<DType> to_type = dtype_of_onnx_values(code);  // double computed in float32
  if (!to_type) {
    unsupported(
        op, "Cast to ONNX data type " + std::to_string(code) + " (" + onnx_type_name(code) + ")");
  }
  const DType to = *to_type;
  TensorData y = TensorData::zeros(x.shape, to);
  const int64_t n = x.size();
  for (int64_t k = 0; k < n; ++k) {
    const double v = x.at(k);
    if (y.is_float()) {
      y.f[k] = to == DType::F16 ? round_to_half(static_cast<float>(v)) : static_cast<float>(v);
    } else if (to == DType::Bool) {
      y.i[k] = v != 0.0 ? 1 : 0;
    } else if (to == DType::I32) {
      y.i[k] = std::isfinite(v) ? static_cast<int32_t>(v) : 0;
    } else {
      y.i[k] = std::isfinite(v) ? static_cast<int64_t>(v) : 0;
    }
  }
  return y;
}

TensorData clip(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  double lo = -std::numeric_limits<double>::infinity(), hi = -lo;
  if (op.attrs.has("min")) lo = op.attrs.get_float("min", lo);
  if (op.attrs.has("max")) hi = op.attrs.get_float("max", hi);
  if (const TensorData* t = in_opt(in, 1); t && t->size() > 0) lo = t->at(0);
  if (const TensorData* t = in_opt(in, 2); t && t->size() > 0) hi = t->at(0);
  TensorData y = x;
  if (y.is_float()) {
    const float l = static_cast<float>(lo), h = static_cast<float>(hi);
    for (float& v : y.f) v = std::isnan(v) ? v : std::min(std::max(v, l), h);
  } else {
    for (int64_t& v : y.i) {
      if (static_cast<double>(v) < lo) v = static_cast<int64_t>(lo);
      if (static_cast<double>(v) > hi) v = static_cast<int64_t>(hi);
    }
  }
  return y;
}

// ---------------------------------------------------------------------------------------------
// Convolution and pooling (windows resolved by resolve_window, common/graph/window.h)
// ---------------------------------------------------------------------------------------------
TensorData conv(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_float(op, in, 0);
  const TensorData& w = in_float(op, in, 1);
  const TensorData* b = in_opt(in, 2);
  if (x.shape.size() < 3 || x.shape.size() > 5 || w.shape.size() != x.shape.size()) {
    fail(op, "input " + shape_str(x.shape) + " and weight " + shape_str(w.shape) +
                 "; expected rank 3..5 for both");
  }
  const Window g = resolve_window(op, Shape(x.shape.begin() + 2, x.shape.end()),
                                  Shape(w.shape.begin() + 2, w.shape.end()));
  if (x.shape[1] % g.group != 0 || w.shape[0] % g.group != 0 ||
      w.shape[1] * g.group != x.shape[1]) {
    fail(op, "group " + std::to_string(g.group) + " does not fit input " + shape_str(x.shape) +
                 " and weight " + shape_str(w.shape));
  }
  return conv_forward(x, w, b, g);
}

TensorData conv_transpose(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_float(op, in, 0);
  const TensorData& w = in_float(op, in, 1);
  const TensorData* b = in_opt(in, 2);
  if (x.shape.size() < 3 || x.shape.size() > 5 || w.shape.size() != x.shape.size()) {
    fail(op, "input " + shape_str(x.shape) + " and weight " + shape_str(w.shape) +
                 "; expected rank 3..5 for both");
  }
  const Window g = resolve_window(op, Shape(x.shape.begin() + 2, x.shape.end()),
                                  Shape(w.shape.begin() + 2, w.shape.end()));
  if (x.shape[1] % g.group != 0 || w.shape[0] != x.shape[1]) {
    fail(op, "group " + std::to_string(g.group) + " does not fit input " + shape_str(x.shape) +
                 " and weight " + shape_str(w.shape));
  }
  return conv_transpose_forward(x, w, b, g);
}

// Pooling over 1-3 spatial dims (padded to 3 as in the kernels).
std::vector<TensorData> pool(const Op& op, const std::vector<const TensorData*>& in,
                             int num_outputs) {
  const TensorData& x = in_float(op, in, 0);
  if (x.shape.size() < 3 || x.shape.size() > 5) {
    fail(op, "input " + shape_str(x.shape) + "; expected rank 3..5");
  }
  const size_t nd = x.shape.size() - 2;
  const bool is_max = op.kind == OpKind::MaxPool;
  const bool include_pad = op.attrs.get_int("count_include_pad", 0) != 0;
  const bool storage_col = op.attrs.get_int("storage_order", 0) != 0;
  const Window g = resolve_window(op, Shape(x.shape.begin() + 2, x.shape.end()));
  int64_t in3[3] = {1, 1, 1}, out3[3] = {1, 1, 1}, k3[3] = {1, 1, 1}, s3[3] = {1, 1, 1},
          d3[3] = {1, 1, 1}, pb3[3] = {0, 0, 0}, pe3[3] = {0, 0, 0};
  const size_t off = 3 - nd;
  for (size_t i = 0; i < nd; ++i) {
    in3[off + i] = x.shape[2 + i];
    out3[off + i] = g.out_spatial[i];
    k3[off + i] = g.kernel[i];
    s3[off + i] = g.strides[i];
    d3[off + i] = g.dilations[i];
    pb3[off + i] = g.pads_begin[i];
    pe3[off + i] = g.pads_end[i];
  }
  Shape out_shape = {x.shape[0], x.shape[1]};
  out_shape.insert(out_shape.end(), g.out_spatial.begin(), g.out_spatial.end());
  TensorData y = TensorData::zeros(out_shape);
  TensorData idx = TensorData::zeros(num_outputs > 1 ? out_shape : Shape{0}, DType::I64);
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t in_img = in3[0] * in3[1] * in3[2];
  int64_t o = 0;
  for (int64_t pl = 0; pl < planes; ++pl) {
    const float* xp = x.f.data() + pl * in_img;
    for (int64_t od = 0; od < out3[0]; ++od) {
      for (int64_t oh = 0; oh < out3[1]; ++oh) {
        for (int64_t ow = 0; ow < out3[2]; ++ow, ++o) {
          const int64_t st[3] = {od * s3[0] - pb3[0], oh * s3[1] - pb3[1], ow * s3[2] - pb3[2]};
          float best = -std::numeric_limits<float>::infinity();
          int64_t best_at = -1;
          double sum = 0.0;
          int64_t count = 0;
          for (int64_t a = 0; a < k3[0]; ++a) {
            const int64_t id = st[0] + a * d3[0];
            if (id < 0 || id >= in3[0]) continue;
            for (int64_t b = 0; b < k3[1]; ++b) {
              const int64_t ih = st[1] + b * d3[1];
              if (ih < 0 || ih >= in3[1]) continue;
              for (int64_t c = 0; c < k3[2]; ++c) {
                const int64_t iw = st[2] + c * d3[2];
                if (iw < 0 || iw >= in3[2]) continue;
                const int64_t at = (id * in3[1] + ih) * in3[2] + iw;
                const float v = xp[at];
                if (is_max) {
                  // NaN propagates (a NaN marks an element that depends on a missing value).
                  if (std::isnan(v) || v > best || best_at < 0) {
                    best = v;
                    best_at = at;
                  }
                } else {
                  sum += v;
                  ++count;
                }
              }
            }
          }
          if (is_max) {
            y.f[o] = best;
            if (num_outputs > 1) {
              int64_t flat = best_at;
              if (storage_col && best_at >= 0) {  // column-major index within the image
                const int64_t iw = best_at % in3[2], ih = (best_at / in3[2]) % in3[1],
                              id = best_at / (in3[1] * in3[2]);
                flat = (iw * in3[1] + ih) * in3[0] + id;
              }
              idx.i[o] = pl * in_img + flat;
            }
          } else {
            int64_t divisor = count;
            if (include_pad) {
              divisor = 1;
              for (int i = 0; i < 3; ++i) {
                const int64_t lo = st[i];
                const int64_t hi = std::min(st[i] + (k3[i] - 1) * d3[i] + 1, in3[i] + pe3[i]);
                divisor *= (hi - lo + d3[i] - 1) / d3[i];
              }
            }
            y.f[o] = divisor > 0 ? static_cast<float>(sum / static_cast<double>(divisor)) : 0.0f;
          }
        }
      }
    }
  }
  std::vector<TensorData> outs{std::move(y)};
  if (num_outputs > 1) outs.push_back(std::move(idx));
  return outs;
}

TensorData global_pool(const Op& op, const TensorData& x) {
  if (x.shape.size() < 2) fail(op, "input " + shape_str(x.shape) + "; expected rank >= 2");
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t sp = x.numel() / std::max<int64_t>(planes, 1);
  Shape out = {x.shape[0], x.shape[1]};
  out.resize(x.shape.size(), 1);
  TensorData y = TensorData::zeros(out);
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x.f.data() + p * sp;
    if (op.kind == OpKind::GlobalMaxPool) {
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < sp; ++k) m = std::isnan(xp[k]) || xp[k] > m ? xp[k] : m;
      y.f[p] = m;
    } else {
      double s = 0;
      for (int64_t k = 0; k < sp; ++k) s += xp[k];
      y.f[p] = static_cast<float>(s / static_cast<double>(sp));
    }
  }
  return y;
}

// ---------------------------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------------------------
TensorData batch_norm(const Op& op, const std::vector<const TensorData*>& in, int num_outputs) {
  if (op.attrs.get_int("training_mode", 0) != 0 || num_outputs > 1) {
    unsupported(op, "BatchNormalization in training mode");
  }
  const TensorData& x = in_float(op, in, 0);
  const TensorData& scale = in_float(op, in, 1);
  const TensorData& bias = in_float(op, in, 2);
  const TensorData& mean = in_float(op, in, 3);
  const TensorData& var = in_float(op, in, 4);
  const double eps = op.attrs.get_float("epsilon", 1e-5);
  if (x.shape.size() < 2) fail(op, "input " + shape_str(x.shape) + "; expected rank >= 2");
  const int64_t n = x.shape[0], c = x.shape[1];
  const int64_t sp = n * c == 0 ? 0 : x.numel() / (n * c);
  if (scale.numel() != c || bias.numel() != c || mean.numel() != c || var.numel() != c) {
    fail(op, "scale/B/mean/var sizes do not match " + std::to_string(c) + " channels");
  }
  TensorData y = x;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const double inv = 1.0 / std::sqrt(static_cast<double>(var.f[ch]) + eps);
      const float a = static_cast<float>(scale.f[ch] * inv);
      const float s = static_cast<float>(bias.f[ch] - mean.f[ch] * scale.f[ch] * inv);
      float* p = y.f.data() + (b * c + ch) * sp;
      for (int64_t k = 0; k < sp; ++k) p[k] = p[k] * a + s;
    }
  }
  return y;
}

std::vector<TensorData> layer_norm(const Op& op, const std::vector<const TensorData*>& in,
                                   int num_outputs) {
  const TensorData& x = in_float(op, in, 0);
  const TensorData& scale = in_float(op, in, 1);
  const TensorData* bias = in_opt(in, 2);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = norm_axis(op, op.attrs.get_int("axis", -1), rank);
  const double eps = op.attrs.get_float("epsilon", 1e-5);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= x.shape[d];
  const Shape norm_shape(x.shape.begin() + axis, x.shape.end());
  const TensorData sc = broadcast_to(scale, norm_shape);
  const TensorData bi = bias ? broadcast_to(*bias, norm_shape) : TensorData::zeros(norm_shape);
  TensorData y = TensorData::zeros(x.shape);
  Shape stat_shape(x.shape.begin(), x.shape.begin() + axis);
  stat_shape.resize(static_cast<size_t>(rank), 1);
  TensorData mean_t = TensorData::zeros(stat_shape), inv_t = TensorData::zeros(stat_shape);
  for (int64_t o = 0; o < outer; ++o) {
    const float* xp = x.f.data() + o * inner;
    double s = 0.0;
    for (int64_t k = 0; k < inner; ++k) s += xp[k];
    const double mean = s / static_cast<double>(inner);
    double v = 0.0;
    for (int64_t k = 0; k < inner; ++k) v += (xp[k] - mean) * (xp[k] - mean);
    const double inv = 1.0 / std::sqrt(v / static_cast<double>(inner) + eps);
    float* yp = y.f.data() + o * inner;
    for (int64_t k = 0; k < inner; ++k) {
      yp[k] = static_cast<float>((xp[k] - mean) * inv * sc.f[k] + bi.f[k]);
    }
    mean_t.f[o] = static_cast<float>(mean);
    inv_t.f[o] = static_cast<float>(inv);
  }
  std::vector<TensorData> outs{std::move(y)};
  if (num_outputs > 1) outs.push_back(std::move(mean_t));
  if (num_outputs > 2) outs.push_back(std::move(inv_t));
  return outs;
}

TensorData softmax(const Op& op, const TensorData& x) {
  if (!x.is_float()) unsupported(op, "input of dtype " + std::string(dtype_name(x.dtype)));
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = norm_axis(op, op.attrs.get_int("axis", -1), rank);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  const int64_t n = x.shape[axis];
  TensorData y = x;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      float* p = y.f.data() + o * n * inner + in;
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < n; ++k) m = std::max(m, p[k * inner]);
      double s = 0.0;
      for (int64_t k = 0; k < n; ++k) {
        p[k * inner] = std::exp(p[k * inner] - m);
        s += p[k * inner];
      }
      const float inv = static_cast<float>(1.0 / s);
      for (int64_t k = 0; k < n; ++k) p[k * inner] *= inv;
    }
  }
  return y;
}

// ---------------------------------------------------------------------------------------------
// Data movement
// ---------------------------------------------------------------------------------------------
TensorData concat(const Op& op, const std::vector<const TensorData*>& in) {
  std::vector<const TensorData*> xs;
  for (const TensorData* t : in) {
    if (t) xs.push_back(t);
  }
  if (xs.empty()) fail(op, "no inputs");
  const int64_t rank = static_cast<int64_t>(xs[0]->shape.size());
  const int64_t axis = norm_axis(op, op.attrs.get_int("axis", 0), rank);
  Shape out = xs[0]->shape;
  out[axis] = 0;
  for (const TensorData* t : xs) {
    if (static_cast<int64_t>(t->shape.size()) != rank || t->is_float() != xs[0]->is_float()) {
      fail(op, "inputs of different ranks or dtypes");
    }
    out[axis] += t->shape[axis];
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= out[d];
  TensorData y = TensorData::zeros(out, xs[0]->dtype);
  int64_t col = 0;
  const int64_t row = out[axis] * inner;
  for (const TensorData* t : xs) {
    const int64_t chunk = t->shape[axis] * inner;
    for (int64_t o = 0; o < outer; ++o) {
      if (y.is_float()) {
        std::copy_n(t->f.data() + o * chunk, chunk, y.f.data() + o * row + col);
      } else {
        std::copy_n(t->i.data() + o * chunk, chunk, y.i.data() + o * row + col);
      }
    }
    col += chunk;
  }
  return y;
}

// A slab [start, start + len) along `axis`.
TensorData slab(const TensorData& x, int64_t axis, int64_t start, int64_t len) {
  Shape out = x.shape;
  out[axis] = len;
  const auto st = strides_of(x.shape);
  return strided_copy(x, out, st, start * st[axis]);
}

std::vector<TensorData> split(const Op& op, const std::vector<const TensorData*>& in,
                              int num_outputs) {
  const TensorData& x = in_req(op, in, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = norm_axis(op, op.attrs.get_int("axis", 0), rank);
  std::vector<int64_t> sizes = int_list(in_opt(in, 1));
  if (sizes.empty()) sizes = op.attrs.get_ints("split", {});
  if (sizes.empty()) {
    const int64_t dim = x.shape[axis];
    const int64_t chunk = (dim + num_outputs - 1) / num_outputs;
    for (int k = 0; k < num_outputs; ++k) {
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - k * chunk)));
    }
  }
  if (static_cast<int>(sizes.size()) != num_outputs) {
    fail(op, std::to_string(sizes.size()) + " split sizes for " + std::to_string(num_outputs) +
                 " outputs");
  }
  std::vector<TensorData> outs;
  int64_t start = 0;
  for (int64_t s : sizes) {
    outs.push_back(slab(x, axis, start, s));
    start += s;
  }
  if (start != x.shape[axis]) fail(op, "split sizes do not add up to the axis size");
  return outs;
}

TensorData slice(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> starts = int_list(in_opt(in, 1)), ends = int_list(in_opt(in, 2)),
                       axes = int_list(in_opt(in, 3)), steps = int_list(in_opt(in, 4));
  if (!in_opt(in, 1)) {  // opset < 10: attributes
    starts = op.attrs.get_ints("starts", {});
    ends = op.attrs.get_ints("ends", {});
    axes = op.attrs.get_ints("axes", {});
  }
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    fail(op, "starts/ends/axes/steps of different lengths");
  }
  Shape out = x.shape;
  const auto st = strides_of(x.shape);
  std::vector<int64_t> ist = st;
  int64_t base = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t a = norm_axis(op, axes[k], rank);
    const int64_t dim = x.shape[a];
    const int64_t step = steps[k];
    if (step == 0) fail(op, "a step of 0");
    int64_t s = starts[k], e = ends[k];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    int64_t len;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      len = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      len = s > e ? (s - e + (-step) - 1) / (-step) : 0;
    }
    out[a] = len;
    ist[a] = st[a] * step;
    if (len > 0) base += s * st[a];
  }
  return strided_copy(x, out, ist, base);
}

TensorData reshape(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  std::vector<int64_t> shape = int_list(in_opt(in, 1));
  const bool allow_zero = op.attrs.get_int("allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0 && !allow_zero) {
      if (k >= x.shape.size()) fail(op, "shape value 0 beyond the input rank");
      shape[k] = x.shape[k];
    }
    if (shape[k] == -1) {
      if (infer >= 0) fail(op, "two -1 entries in the shape");
      infer = static_cast<int64_t>(k);
    } else {
      known *= shape[k];
    }
  }
  if (infer >= 0) shape[infer] = known == 0 ? 0 : x.numel() / known;
  if (numel(shape) != x.numel()) {
    fail(op, "cannot reshape " + shape_str(x.shape) + " to " + shape_str(shape));
  }
  return reshaped(x, shape);
}

TensorData squeeze_unsqueeze(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  std::vector<int64_t> axes = int_list(in_opt(in, 1));
  if (!in_opt(in, 1)) axes = op.attrs.get_ints("axes", {});
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  Shape out;
  if (op.kind == OpKind::Squeeze) {
    std::vector<bool> drop(static_cast<size_t>(rank), false);
    for (int64_t a : axes) drop[norm_axis(op, a, rank)] = true;
    for (int64_t d = 0; d < rank; ++d) {
      const bool squeeze = axes.empty() ? x.shape[d] == 1 : drop[d];
      if (squeeze && x.shape[d] != 1) fail(op, "cannot squeeze a dimension of size != 1");
      if (!squeeze) out.push_back(x.shape[d]);
    }
  } else {
    const int64_t out_rank = rank + static_cast<int64_t>(axes.size());
    std::vector<bool> ins(static_cast<size_t>(out_rank), false);
    for (int64_t a : axes) ins[norm_axis(op, a, out_rank)] = true;
    size_t src = 0;
    for (int64_t d = 0; d < out_rank; ++d) out.push_back(ins[d] ? 1 : x.shape[src++]);
  }
  return reshaped(x, out);
}

TensorData pad(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> pads = int_list(in_opt(in, 1));
  double value = op.attrs.get_float("value", 0.0);
  if (!in_opt(in, 1)) pads = op.attrs.get_ints("pads", {});
  if (const TensorData* v = in_opt(in, 2); v && v->size() > 0) value = v->at(0);
  std::vector<int64_t> axes = int_list(in_opt(in, 3));
  if (axes.empty()) {
    axes.resize(static_cast<size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
  }
  const size_t na = axes.size();
  if (pads.size() != 2 * na) fail(op, "pads of length " + std::to_string(pads.size()));
  std::vector<int64_t> pb(static_cast<size_t>(rank), 0), pe(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < na; ++k) {
    const int64_t a = norm_axis(op, axes[k], rank);
    pb[a] = pads[k];
    pe[a] = pads[k + na];
  }
  const std::string mode = op.attrs.get_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    unsupported(op, "Pad mode '" + mode + "'");
  }
  Shape out(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) out[d] = x.shape[d] + pb[d] + pe[d];
  const auto st = strides_of(x.shape);
  // Per dimension: the source index of each output index (-1: constant fill).
  std::vector<std::vector<int64_t>> src(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t n = x.shape[d];
    for (int64_t o = 0; o < out[d]; ++o) {
      int64_t i = o - pb[d];
      if (i < 0 || i >= n) {
        if (mode == "constant" || n == 0) {
          i = -1;
        } else if (mode == "edge") {
          i = std::clamp<int64_t>(i, 0, n - 1);
        } else {  // reflect (without repeating the edge)
          if (n == 1) {
            i = 0;
          } else {
            const int64_t period = 2 * (n - 1);
            i = ((i % period) + period) % period;
            if (i >= n) i = period - i;
          }
        }
      }
      src[d].push_back(i);
    }
  }
  std::vector<int64_t> map(static_cast<size_t>(numel(out)));
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < map.size(); ++k) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank && off >= 0; ++d) {
      const int64_t s = src[d][idx[d]];
      off = s < 0 ? -1 : off + s * st[d];
    }
    map[k] = off;
    for (int64_t d = rank; d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return gather_by_index(x, out, map, value);
}

TensorData depth_space(const Op& op, const TensorData& x) {
  if (x.shape.size() != 4) fail(op, "input " + shape_str(x.shape) + "; expected rank 4");
  const int64_t b = op.attrs.get_int("blocksize", 0);
  if (b < 1) fail(op, "blocksize " + std::to_string(b) + "; expected >= 1");
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  if (op.kind == OpKind::DepthToSpace) {
    if (c % (b * b) != 0) fail(op, "channels not divisible by blocksize^2");
    const int64_t co = c / (b * b);
    const std::string mode = op.attrs.get_string("mode", "DCR");
    TensorData t;
    if (mode == "DCR") {
      t = transpose(reshaped(x, {n, b, b, co, h, w}), {0, 3, 4, 1, 5, 2});
    } else if (mode == "CRD") {
      t = transpose(reshaped(x, {n, co, b, b, h, w}), {0, 1, 4, 2, 5, 3});
    } else {
      fail(op, "mode '" + mode + "'; expected DCR or CRD");
    }
    return reshaped(std::move(t), {n, co, h * b, w * b});
  }
  if (h % b != 0 || w % b != 0) fail(op, "spatial size not divisible by blocksize");
  TensorData t = transpose(reshaped(x, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  return reshaped(std::move(t), {n, c * b * b, h / b, w / b});
}

TensorData gather(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  const TensorData& ind = in_req(op, in, 1);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = norm_axis(op, op.attrs.get_int("axis", 0), rank);
  const std::vector<int64_t> indices = int_list(&ind);
  Shape out(x.shape.begin(), x.shape.begin() + axis);
  out.insert(out.end(), ind.shape.begin(), ind.shape.end());
  out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  const int64_t dim = x.shape[axis];
  std::vector<int64_t> map;
  map.reserve(static_cast<size_t>(numel(out)));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t v : indices) {
      const int64_t j = v < 0 ? v + dim : v;
      if (j < 0 || j >= dim) {
        fail(op,
             "index " + std::to_string(v) + " out of range for axis size " + std::to_string(dim));
      }
      for (int64_t k = 0; k < inner; ++k) map.push_back((o * dim + j) * inner + k);
    }
  }
  return gather_by_index(x, out, map);
}

// ---------------------------------------------------------------------------------------------
// Resize
// ---------------------------------------------------------------------------------------------
struct Tap {
  int64_t index;
  double weight;
};

// Source taps of each output index along one axis (ONNX Resize reference semantics).
std::vector<std::vector<Tap>> resize_taps(const Op& op, int64_t in, int64_t out, double scale) {
  // The reference uses the unrounded resized length in * scale in its coordinate transforms.
  const double resized = static_cast<double>(in) * scale;
  const std::string ctm = op.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  const std::string mode = op.attrs.get_string("mode", "nearest");
  const std::string nearest = op.attrs.get_string("nearest_mode", "round_prefer_floor");
  const double a = op.attrs.get_float("cubic_coeff_a", -0.75);
  const bool exclude_outside = op.attrs.get_int("exclude_outside", 0) != 0;
  std::vector<std::vector<Tap>> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    double x;
    const double od = static_cast<double>(o);
    if (ctm == "half_pixel") {
      x = (od + 0.5) / scale - 0.5;
    } else if (ctm == "pytorch_half_pixel") {
      x = resized > 1.0 ? (od + 0.5) / scale - 0.5 : 0.0;
    } else if (ctm == "align_corners") {
      x = out == 1 ? 0.0 : od * static_cast<double>(in - 1) / (resized - 1.0);
    } else if (ctm == "asymmetric") {
      x = od / scale;
    } else if (ctm == "tf_half_pixel_for_nn") {
      x = (od + 0.5) / scale;
    } else {
      unsupported(op, "coordinate_transformation_mode '" + ctm + "'");
    }
    auto clamp_i = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
    std::vector<Tap>& t = taps[static_cast<size_t>(o)];
    const double fl = std::floor(x);
    const bool integral = x == fl;
    // ratio in (0, 1]: the reference prefers the pixel left of x.
    const int64_t left = integral ? static_cast<int64_t>(fl) - 1 : static_cast<int64_t>(fl);
    const double r = integral ? 1.0 : x - fl;
    if (mode == "nearest") {
      int64_t i;
      if (integral) {
        i = static_cast<int64_t>(fl);
      } else if (nearest == "round_prefer_floor") {
        i = r <= 0.5 ? left : left + 1;
      } else if (nearest == "round_prefer_ceil") {
        i = r < 0.5 ? left : left + 1;
      } else if (nearest == "floor") {
        i = left;
      } else if (nearest == "ceil") {
        i = left + 1;
      } else {
        unsupported(op, "nearest_mode '" + nearest + "'");
      }
      t.push_back({clamp_i(i), 1.0});
    } else if (mode == "linear") {
      t.push_back({clamp_i(left), 1.0 - r});
      t.push_back({clamp_i(left + 1), r});
    } else if (mode == "cubic") {
      const double c[4] = {
          ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
          ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) * ((1 - r) + 1) - 4 * a};
      double sum = 0.0;
      for (int j = 0; j < 4; ++j) {
        const int64_t i = left - 1 + j;
        const bool outside = i < 0 || i >= in;
        const double w = exclude_outside && outside ? 0.0 : c[j];
        sum += w;
        t.push_back({clamp_i(i), w});
      }
      if (exclude_outside && sum != 0.0) {
        for (Tap& tp : t) tp.weight /= sum;
      }
    } else {
      unsupported(op, "Resize mode '" + mode + "'");
    }
  }
  return taps;
}

TensorData resize(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_float(op, in, 0);
  const size_t rank = x.shape.size();
  const std::string ctm = op.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  if (ctm == "tf_crop_and_resize") unsupported(op, "coordinate_transformation_mode '" + ctm + "'");
  if (op.attrs.has("antialias") && op.attrs.get_int("antialias", 0) != 0) {
    unsupported(op, "antialias");
  }
  if (op.attrs.has("axes")) unsupported(op, "attribute 'axes'");
  std::vector<double> scales = float_list(in_opt(in, 2));
  const std::vector<int64_t> sizes = int_list(in_opt(in, 3));
  Shape out(rank);
  if (!sizes.empty()) {
    if (sizes.size() != rank) fail(op, "sizes of length " + std::to_string(sizes.size()));
    scales.assign(rank, 1.0);
    for (size_t d = 0; d < rank; ++d) {
      out[d] = sizes[d];
      scales[d] = static_cast<double>(sizes[d]) / static_cast<double>(x.shape[d]);
    }
  } else {
    if (scales.size() != rank)
      fail(op, "neither scales nor sizes of length " + std::to_string(rank));
    for (size_t d = 0; d < rank; ++d) {
      out[d] = static_cast<int64_t>(std::floor(static_cast<double>(x.shape[d]) * scales[d]));
    }
  }
  // Separable: resample one axis at a time.
  TensorData cur = x;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == cur.shape[d] && scales[d] == 1.0) continue;
    const auto taps = resize_taps(op, cur.shape[d], out[d], scales[d]);
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < d; ++k) outer *= cur.shape[k];
    for (size_t k = d + 1; k < rank; ++k) inner *= cur.shape[k];
    Shape ns = cur.shape;
    ns[d] = out[d];
    TensorData nxt = TensorData::zeros(ns);
    const int64_t in_d = cur.shape[d];
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < out[d]; ++j) {
        float* dst = nxt.f.data() + (o * out[d] + j) * inner;
        for (const Tap& t : taps[static_cast<size_t>(j)]) {
          if (t.weight == 0.0) continue;
          const float* src = cur.f.data() + (o * in_d + t.index) * inner;
          const float w = static_cast<float>(t.weight);
          for (int64_t k = 0; k < inner; ++k) dst[k] += w * src[k];
        }
      }
    }
    cur = std::move(nxt);
  }
  return cur;
}

// ---------------------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------------------
TensorData reduce(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes = int_list(in_opt(in, 1));
  if (!in_opt(in, 1)) axes = op.attrs.get_ints("axes", {});
  const bool keep = op.attrs.get_int("keepdims", 1) != 0;
  if (axes.empty() && op.attrs.get_int("noop_with_empty_axes", 0) != 0) return x;
  std::vector<bool> red(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) red[norm_axis(op, a, rank)] = true;
  Shape kept_shape(static_cast<size_t>(rank));
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    kept_shape[d] = red[d] ? 1 : x.shape[d];
    if (!red[d] || keep) out.push_back(kept_shape[d]);
  }
  // Output offset of each input element: strides of the kept shape, 0 along reduced axes.
  auto ost = strides_of(kept_shape);
  for (int64_t d = 0; d < rank; ++d) {
    if (red[d]) ost[d] = 0;
  }
  const int64_t n_out = numel(kept_shape);
  const int64_t count = n_out == 0 ? 0 : x.numel() / n_out;
  std::vector<double> acc(static_cast<size_t>(n_out), op.kind == OpKind::ReduceMax
                                                          ? -std::numeric_limits<double>::infinity()
                                                          : 0.0);
  const bool is_max = op.kind == OpKind::ReduceMax;
  for_each_strided(x.shape, ost, 0, [&](int64_t k, int64_t off) {
    const double v = x.at(k);
    double& a = acc[static_cast<size_t>(off)];
    a = is_max ? (std::isnan(v) || v > a ? v : a) : a + v;
  });
  TensorData y = TensorData::zeros(out, x.dtype);
  for (int64_t k = 0; k < n_out; ++k) {
    double v = acc[static_cast<size_t>(k)];
    if (op.kind == OpKind::ReduceMean) v /= static_cast<double>(count);
    if (y.is_float()) {
      y.f[k] = static_cast<float>(v);
    } else {
      y.i[k] = static_cast<int64_t>(v);
    }
  }
  return y;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------------------------
std::vector<TensorData> compute_op(const Op& op, const std::vector<const TensorData*>& in,
                                   int num_outputs) {
  auto one = [](TensorData t) { return std::vector<TensorData>{std::move(t)}; };
  auto x0 = [&]() -> const TensorData& { return in_req(op, in, 0); };
  switch (op.kind) {
    case OpKind::Conv:
      return one(conv(op, in));
    case OpKind::ConvTranspose:
      return one(conv_transpose(op, in));
    case OpKind::Gemm:
      return one(gemm_forward(in_float(op, in, 0), in_float(op, in, 1), in_opt(in, 2),
                              op.attrs.get_float("alpha", 1.0), op.attrs.get_float("beta", 1.0),
                              op.attrs.get_int("transA", 0) != 0,
                              op.attrs.get_int("transB", 0) != 0));
    case OpKind::MatMul:
      return one(matmul_forward(in_float(op, in, 0), in_float(op, in, 1)));
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      return pool(op, in, num_outputs);
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return one(global_pool(op, in_float(op, in, 0)));
    case OpKind::BatchNormalization:
      return one(batch_norm(op, in, num_outputs));
    case OpKind::LayerNormalization:
      return layer_norm(op, in, num_outputs);
    case OpKind::Softmax:
      return one(softmax(op, x0()));
    case OpKind::Relu: {
      if (!x0().is_float()) {
        TensorData y = x0();
        for (int64_t& v : y.i) v = std::max<int64_t>(v, 0);
        return one(y);
      }
      return one(unary_fast(op, x0(), [](float v) { return v < 0.0f ? 0.0f : v; }));
    }
    case OpKind::LeakyRelu: {
      const float alpha = static_cast<float>(op.attrs.get_float("alpha", 0.01));
      return one(unary_fast(op, x0(), [alpha](float v) { return v >= 0.0f ? v : alpha * v; }));
    }
    case OpKind::Sigmoid:
      return one(unary_fast(op, x0(), [](float v) { return 1.0f / (1.0f + std::exp(-v)); }));
    case OpKind::Tanh:
      return one(unary_fast(op, x0(), [](float v) { return std::tanh(v); }));
    case OpKind::Gelu: {
      const std::string approx = op.attrs.get_string("approximate", "none");
      if (approx == "tanh") {
        return one(unary_fast(op, x0(), [](float v) {
          const double x = v;
          return static_cast<float>(
              0.5 * x *
              (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x))));
        }));
      }
      if (approx != "none") fail(op, "approximate '" + approx + "'; expected none or tanh");
      return one(unary_fast(op, x0(), [](float v) {
        return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
      }));
    }
    case OpKind::Erf:
      return one(unary_fast(op, x0(), [](float v) { return std::erf(v); }));
    case OpKind::Clip:
      return one(clip(op, in));
    case OpKind::Identity:
      return one(x0());
    case OpKind::Dropout: {
      if (const TensorData* t = in_opt(in, 2); t && t->size() > 0 && t->at(0) != 0.0) {
        unsupported(op, "Dropout in training mode");
      }
      std::vector<TensorData> outs{x0()};
      if (num_outputs > 1) {
        TensorData mask = TensorData::zeros(x0().shape, DType::Bool);
        std::fill(mask.i.begin(), mask.i.end(), 1);
        outs.push_back(std::move(mask));
      }
      return outs;
    }
    case OpKind::Exp:
      return one(unary_fast(op, x0(), [](float v) { return std::exp(v); }));
    case OpKind::Log:
      return one(unary_fast(op, x0(), [](float v) { return std::log(v); }));
    case OpKind::Sqrt:
      return one(unary_fast(op, x0(), [](float v) { return std::sqrt(v); }));
    case OpKind::Reciprocal:
      return one(unary_fast(op, x0(), [](float v) { return 1.0f / v; }));
    case OpKind::Neg:
    case OpKind::Abs: {
      TensorData y = x0();
      const bool neg = op.kind == OpKind::Neg;
      for (float& v : y.f) v = neg ? -v : std::fabs(v);
      for (int64_t& v : y.i) v = neg ? -v : std::llabs(v);
      return one(y);
    }
    case OpKind::HardSigmoid: {
      const float alpha = static_cast<float>(op.attrs.get_float("alpha", 0.2));
      const float beta = static_cast<float>(op.attrs.get_float("beta", 0.5));
      return one(unary_fast(op, x0(), [=](float v) {
        return std::isnan(v) ? v : std::max(0.0f, std::min(1.0f, alpha * v + beta));
      }));
    }
    case OpKind::HardSwish:
      return one(unary_fast(op, x0(), [](float v) {
        return std::isnan(v) ? v : v * std::max(0.0f, std::min(1.0f, v / 6.0f + 0.5f));
      }));
    case OpKind::Sin:
      return one(unary_fast(op, x0(), [](float v) { return std::sin(v); }));
    case OpKind::Cos:
      return one(unary_fast(op, x0(), [](float v) { return std::cos(v); }));
    case OpKind::Cast:
      return one(cast(op, x0()));
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow:
      return one(binary(op, x0(), in_req(op, in, 1)));
    case OpKind::Max:
    case OpKind::Min: {
      TensorData acc = x0();
      for (size_t k = 1; k < in.size(); ++k) {
        if (in[k]) acc = binary(op, acc, *in[k]);
      }
      return one(acc);
    }
    case OpKind::Concat:
      return one(concat(op, in));
    case OpKind::Split:
      return split(op, in, num_outputs);
    case OpKind::Slice:
      return one(slice(op, in));
    case OpKind::Reshape:
      return one(reshape(op, in));
    case OpKind::Transpose: {
      const TensorData& x = x0();
      std::vector<int64_t> perm(x.shape.size());
      for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(perm.size() - 1 - k);
      perm = op.attrs.get_ints("perm", perm);
      if (perm.size() != x.shape.size()) fail(op, "perm of the wrong length");
      return one(transpose(x, perm));
    }
    case OpKind::Flatten: {
      const TensorData& x = x0();
      const int64_t rank = static_cast<int64_t>(x.shape.size());
      int64_t axis = op.attrs.get_int("axis", 1);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis > rank) fail(op, "axis out of range");
      int64_t a = 1;
      for (int64_t d = 0; d < axis; ++d) a *= x.shape[d];
      return one(reshaped(x, {a, a == 0 ? 0 : x.numel() / a}));
    }
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return one(squeeze_unsqueeze(op, in));
    case OpKind::Pad:
      return one(pad(op, in));
    case OpKind::Resize:
      return one(resize(op, in));
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      return one(depth_space(op, x0()));
    case OpKind::Gather:
      return one(gather(op, in));
    case OpKind::Expand: {
      const TensorData& x = x0();
      const Shape target = int_list(in_opt(in, 1));
      return one(broadcast_to(x, broadcast_shapes(x.shape, target, op_prefix(op) + "Expand")));
    }
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      return one(reduce(op, in));
    case OpKind::kCount:
      break;
  }
  unsupported(op, "operator kind");
}

// ---------------------------------------------------------------------------------------------
// Graph level
// ---------------------------------------------------------------------------------------------
TensorData constant_value(const Tensor& t) {
  TensorData v;
  v.shape = t.shape;
  v.dtype = t.dtype;
  if (v.is_float()) {
    if (!t.float_data.empty()) {
      v.f = t.float_data;
    } else {
      v.f.assign(t.int_data.begin(), t.int_data.end());
    }
  } else {
    if (!t.int_data.empty()) {
      v.i = t.int_data;
    } else {
      for (float f : t.float_data) v.i.push_back(static_cast<int64_t>(f));
    }
  }
  check_tensor_data(v, "constant '" + t.name + "'");
  return v;
}

namespace {

// Random weights are scaled like He (Kaiming) uniform initialisation, uniform in
// [-sqrt(6 / fan_in), sqrt(6 / fan_in)], so that activations keep their magnitude through deep
// networks without normalisation (with plain [-1, 1] weights they grow by ~sqrt(fan_in / 3) per
// layer and overflow float32 in Inception-size networks, making comparisons meaningless).
constexpr double kHeUniformGain = 6.0;
// BatchNormalization variances are drawn uniform in [1 - w, 1 + w]: positive, near 1.
constexpr float kRandomVarianceHalfWidth = 0.5f;

// How a random Weight tensor consumed by `op` as input `index` is shaped: the fan-in of the
// product it is the weight of (0: not a weight operand), and whether it is a variance.
struct WeightUse {
  int64_t fan_in = 0;
  bool variance = false;
};

WeightUse weight_use(const Op& op, size_t index, const Tensor& w) {
  WeightUse u;
  const Shape& s = w.shape;
  switch (op.kind) {
    case OpKind::Conv:
      if (index == 1 && !s.empty() && s[0] > 0) u.fan_in = w.numel() / s[0];
      break;
    case OpKind::ConvTranspose:
      if (index == 1 && s.size() >= 2 && s[1] > 0) {
        u.fan_in = w.numel() / (s[1] * std::max<int64_t>(1, op.attrs.get_int("group", 1)));
      }
      break;
    case OpKind::Gemm:
      if (index == 1 && s.size() == 2) u.fan_in = op.attrs.get_int("transB", 0) ? s[1] : s[0];
      break;
    case OpKind::MatMul:
      if (index == 1 && s.size() >= 2) u.fan_in = s[s.size() - 2];
      break;
    case OpKind::BatchNormalization:
      u.variance = index == 4;
      break;
    default:
      break;
  }
  return u;
}

}  // namespace

TensorValues make_graph_feeds(const Graph& g, const TensorValues& feeds, uint64_t seed) {
  TensorValues values;
  for (int t = 0; t < g.num_tensors(); ++t) {
    const Tensor& ten = g.tensor(t);
    if (auto it = feeds.find(t); it != feeds.end()) {
      check_tensor_data(it->second, "value fed for tensor '" + ten.name + "'");
      if (it->second.shape != ten.shape) {
        throw Error("value fed for tensor '" + ten.name + "' has shape " +
                    shape_str(it->second.shape) + "; the graph says " + shape_str(ten.shape));
      }
      values[t] = it->second;
      continue;
    }
    if (ten.role == TensorRole::Constant) {
      values[t] = constant_value(ten);
    } else if (ten.role == TensorRole::Input || ten.role == TensorRole::Weight) {
      int64_t bound = 2;  // integer inputs: 0/1 unless used as Gather indices
      WeightUse use;
      for (int c : ten.consumers) {
        const Op& op = g.op(c);
        for (size_t i = 0; i < op.inputs.size(); ++i) {
          if (op.inputs[i] != t) continue;
          if (op.kind == OpKind::Gather && i == 1 && op.inputs[0] >= 0) {
            const Tensor& data = g.tensor(op.inputs[0]);
            const int64_t rank = static_cast<int64_t>(data.shape.size());
            int64_t axis = op.attrs.get_int("axis", 0);
            if (axis < 0) axis += rank;
            if (axis >= 0 && axis < rank) bound = data.shape[axis];
          }
          if (ten.role == TensorRole::Weight) {
            const WeightUse u = weight_use(op, i, ten);
            use.fan_in = std::max(use.fan_in, u.fan_in);
            use.variance = use.variance || u.variance;
          }
        }
      }
      TensorData v = random_tensor(ten.shape, ten.dtype, tensor_seed(seed, ten.name), bound);
      if (v.is_float() && use.variance) {
        for (float& x : v.f) x = 1.0f + kRandomVarianceHalfWidth * x;
      } else if (v.is_float() && use.fan_in > 0) {
        const float scale =
            static_cast<float>(std::sqrt(kHeUniformGain / static_cast<double>(use.fan_in)));
        for (float& x : v.f) x *= scale;
      }
      values[t] = std::move(v);
    }
  }
  return values;
}

std::vector<TensorData> run_op(const Graph& g, int o, const TensorValues& values) {
  const Op& op = g.op(o);
  std::vector<TensorData> constants;  // Constant inputs absent from `values`
  constants.reserve(op.inputs.size());
  std::vector<const TensorData*> in;
  for (int t : op.inputs) {
    if (t < 0) {
      in.push_back(nullptr);
      continue;
    }
    if (auto it = values.find(t); it != values.end()) {
      in.push_back(&it->second);
    } else if (g.tensor(t).role == TensorRole::Constant) {
      constants.push_back(constant_value(g.tensor(t)));
      in.push_back(&constants.back());
    } else {
      throw Error(op_prefix(op) + "input '" + g.tensor(t).name + "' has no value");
    }
  }
  std::vector<TensorData> outs = compute_op(op, in, static_cast<int>(op.outputs.size()));
  if (outs.size() != op.outputs.size()) {
    throw Error(op_prefix(op) + "computed " + std::to_string(outs.size()) +
                " outputs; the graph has " + std::to_string(op.outputs.size()));
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const Tensor& t = g.tensor(op.outputs[k]);
    if (outs[k].shape != t.shape) {
      throw Error(op_prefix(op) + "output '" + t.name + "' computed with shape " +
                  shape_str(outs[k].shape) + "; the graph says " + shape_str(t.shape));
    }
  }
  return outs;
}

void run_ops(const Graph& g, const std::vector<int>& ops, TensorValues& values) {
  for (int o : ops) {
    std::vector<TensorData> outs = run_op(g, o, values);
    const Op& op = g.op(o);
    for (size_t k = 0; k < outs.size(); ++k) values[op.outputs[k]] = std::move(outs[k]);
  }
}

TensorValues run_graph(const Graph& g, const TensorValues& feeds, uint64_t seed) {
  TensorValues values = make_graph_feeds(g, feeds, seed);
  run_ops(g, g.topo_order(), values);
  return values;
}

}  // namespace dgs
