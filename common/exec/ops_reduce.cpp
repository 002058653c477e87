// Reductions (ReduceMean, ReduceSum, ReduceMax) of the CPU reference executor (ops.h).
#include <cmath>
#include <limits>

#include "common/exec/ops.h"

namespace dgs::exec_ops {

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

}  // namespace dgs::exec_ops
