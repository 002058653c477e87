// Element-wise operators of the CPU reference executor (ops.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

#include "common/exec/kernels.h"
#include "common/exec/ops.h"
#include "common/graph/onnx_dtype.h"

namespace dgs::exec_ops {

namespace {

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

template <class F>
TensorData unary_fast(const Op& op, const TensorData& x, F f) {
  if (!x.is_float()) unsupported(op, "input of dtype " + std::string(dtype_name(x.dtype)));
  TensorData y = x;
  for (float& v : y.f) v = f(v);
  return y;
}

}  // namespace

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

// Unary element-wise math: every kind of family EwUnary (op_table.inc).
TensorData unary(const Op& op, const TensorData& input) {
  switch (op.kind) {
    case OpKind::Relu: {
      if (!input.is_float()) {
        TensorData y = input;
        for (int64_t& v : y.i) v = std::max<int64_t>(v, 0);
        return y;
      }
      return unary_fast(op, input, [](float v) { return v < 0.0f ? 0.0f : v; });
    }
    case OpKind::LeakyRelu: {
      const float alpha = static_cast<float>(op.attrs.get_float("alpha", 0.01));
      return unary_fast(op, input, [alpha](float v) { return v >= 0.0f ? v : alpha * v; });
    }
    case OpKind::Sigmoid:
      return unary_fast(op, input, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
    case OpKind::Tanh:
      return unary_fast(op, input, [](float v) { return std::tanh(v); });
    case OpKind::Gelu: {
      const std::string approx = op.attrs.get_string("approximate", "none");
      if (approx == "tanh") {
        return unary_fast(op, input, [](float v) {
          const double x = v;
          return static_cast<float>(
              0.5 * x *
              (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x))));
        });
      }
      if (approx != "none") fail(op, "approximate '" + approx + "'; expected none or tanh");
      return unary_fast(op, input, [](float v) {
        return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
      });
    }
    case OpKind::Erf:
      return unary_fast(op, input, [](float v) { return std::erf(v); });
    case OpKind::Exp:
      return unary_fast(op, input, [](float v) { return std::exp(v); });
    case OpKind::Log:
      return unary_fast(op, input, [](float v) { return std::log(v); });
    case OpKind::Sqrt:
      return unary_fast(op, input, [](float v) { return std::sqrt(v); });
    case OpKind::Reciprocal:
      return unary_fast(op, input, [](float v) { return 1.0f / v; });
    case OpKind::Neg:
    case OpKind::Abs: {
      TensorData y = input;
      const bool neg = op.kind == OpKind::Neg;
      for (float& v : y.f) v = neg ? -v : std::fabs(v);
      for (int64_t& v : y.i) v = neg ? -v : std::llabs(v);
      return y;
    }
    case OpKind::HardSigmoid: {
      const float alpha = static_cast<float>(op.attrs.get_float("alpha", 0.2));
      const float beta = static_cast<float>(op.attrs.get_float("beta", 0.5));
      return unary_fast(op, input, [=](float v) {
        return std::isnan(v) ? v : std::max(0.0f, std::min(1.0f, alpha * v + beta));
      });
    }
    case OpKind::HardSwish:
      return unary_fast(op, input, [](float v) {
        return std::isnan(v) ? v : v * std::max(0.0f, std::min(1.0f, v / 6.0f + 0.5f));
      });
    case OpKind::Sin:
      return unary_fast(op, input, [](float v) { return std::sin(v); });
    case OpKind::Cos:
      return unary_fast(op, input, [](float v) { return std::cos(v); });
    default:
      fail(op, "not a unary element-wise operator");
  }
}

// Max and Min over any number of inputs (NumPy broadcasting).
TensorData max_min(const Op& op, const std::vector<const TensorData*>& in) {
  TensorData acc = in_req(op, in, 0);
  for (size_t k = 1; k < in.size(); ++k) {
    if (in[k]) acc = binary(op, acc, *in[k]);
  }
  return acc;
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

std::vector<TensorData> dropout(const Op& op, const std::vector<const TensorData*>& in,
                                int num_outputs) {
  const TensorData& x = in_req(op, in, 0);
  if (const TensorData* t = in_opt(in, 2); t && t->size() > 0 && t->at(0) != 0.0) {
    unsupported(op, "Dropout in training mode");
  }
  std::vector<TensorData> outs{x};
  if (num_outputs > 1) {
    TensorData mask = TensorData::zeros(x.shape, DType::Bool);
    std::fill(mask.i.begin(), mask.i.end(), 1);
    outs.push_back(std::move(mask));
  }
  return outs;
}
}  // namespace dgs::exec_ops
