#include "common/onnx/onnx_fold_arith.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/onnx/onnx_fold_values.h"

namespace dgs {

using onnx::TensorProto_DataType_BOOL;

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
      const int64_t y = b.is_float() ? fold_int64(b.f[static_cast<size_t>(sb[k])])
                                     : b.i[static_cast<size_t>(sb[k])];
      int64_t z = 0;
      bool overflow = false;
      if (op == "Add")
        overflow = __builtin_add_overflow(x, y, &z);
      else if (op == "Sub")
        overflow = __builtin_sub_overflow(x, y, &z);
      else if (op == "Mul")
        overflow = __builtin_mul_overflow(x, y, &z);
      else if (op == "Max")
        z = std::max(x, y);
      else if (op == "Min")
        z = std::min(x, y);
      else if (op == "Pow")
        z = fold_int64(std::pow(static_cast<double>(x), static_cast<double>(y)));
      else if (y == 0)
        throw Error(what + ": integer division by zero");
      else if (x == std::numeric_limits<int64_t>::min() && y == -1)
        overflow = true;  // INT64_MIN / -1 and INT64_MIN % -1 trap
      else if (op == "Div")
        z = x / y;
      else if (op == "Mod" && fmod)
        z = x % y;
      else if (op == "Mod" && !(overflow = __builtin_add_overflow(x % y, y, &z)))
        z %= y;  // the sign of the divisor
      if (overflow)
        throw Error(what + ": integer " + op + " of " + std::to_string(x) + " and " +
                    std::to_string(y) + " overflows 64 bits");
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
      if ((op == "Neg" || op == "Abs") && x == std::numeric_limits<int64_t>::min())
        throw Error("integer " + op + " of " + std::to_string(x) + " overflows 64 bits");
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
      r.i.push_back(fold_int64(s));
  }
  return r;
}

}  // namespace dgs
