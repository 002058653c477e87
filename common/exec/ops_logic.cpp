// Comparison, logic and selection operators of the CPU reference executor (ops.h): Equal, And,
// Not, IsNaN, Where (NumPy broadcasting; bool values are 0/1 in TensorData::i), and GatherND.
#include <algorithm>
#include <cmath>

#include "common/exec/kernels.h"
#include "common/exec/ops.h"

namespace dgs::exec_ops {

namespace {

// out[k] = f(flat index of each input broadcast to `out`), for any number of inputs.
template <class F>
void for_each_broadcast(const std::vector<const TensorData*>& xs, const Shape& out, F f) {
  const auto n = static_cast<size_t>(numel(out));
  std::vector<std::vector<int64_t>> offsets(xs.size(), std::vector<int64_t>(n));
  for (size_t i = 0; i < xs.size(); ++i) {
    for_each_strided(out, broadcast_strides(xs[i]->shape, out), 0,
                     [&](int64_t k, int64_t off) { offsets[i][static_cast<size_t>(k)] = off; });
  }
  std::vector<int64_t> at(xs.size());
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < xs.size(); ++i) at[i] = offsets[i][k];
    f(static_cast<int64_t>(k), at);
  }
}

void require_bool(const Op& op, const TensorData& t, size_t index) {
  if (t.dtype != DType::Bool) {
    fail(op, "input " + std::to_string(index) + " is " + std::string(dtype_name(t.dtype)) +
                 "; expected bool");
  }
}

}  // namespace

TensorData logic(const Op& op, const std::vector<const TensorData*>& in) {
  std::vector<const TensorData*> xs;
  for (size_t i = 0; i < in.size(); ++i) xs.push_back(&in_req(op, in, i));
  Shape out = xs[0]->shape;
  for (size_t i = 1; i < xs.size(); ++i) {
    out = broadcast_shapes(out, xs[i]->shape, op_prefix(op) + "inputs");
  }
  switch (op.kind) {
    case OpKind::Equal: {
      if (xs[0]->is_float() != xs[1]->is_float()) fail(op, "inputs of different data types");
      TensorData y = TensorData::zeros(out, DType::Bool);
      for_each_broadcast(xs, out, [&](int64_t k, const std::vector<int64_t>& at) {
        y.i[static_cast<size_t>(k)] = xs[0]->at(at[0]) == xs[1]->at(at[1]) ? 1 : 0;
      });
      return y;
    }
    case OpKind::And:
    case OpKind::Not: {
      for (size_t i = 0; i < xs.size(); ++i) require_bool(op, *xs[i], i);
      TensorData y = TensorData::zeros(out, DType::Bool);
      const bool is_and = op.kind == OpKind::And;
      for_each_broadcast(xs, out, [&](int64_t k, const std::vector<int64_t>& at) {
        const bool a = xs[0]->i[static_cast<size_t>(at[0])] != 0;
        y.i[static_cast<size_t>(k)] =
            is_and ? (a && xs[1]->i[static_cast<size_t>(at[1])] != 0) : !a;
      });
      return y;
    }
    case OpKind::IsNaN: {
      if (!xs[0]->is_float()) fail(op, "input 0 is not a float tensor");
      TensorData y = TensorData::zeros(out, DType::Bool);
      for (size_t k = 0; k < y.i.size(); ++k) y.i[k] = std::isnan(xs[0]->f[k]) ? 1 : 0;
      return y;
    }
    case OpKind::Where: {
      require_bool(op, *xs[0], 0);
      if (xs[1]->dtype != xs[2]->dtype) fail(op, "inputs 1 and 2 have different data types");
      TensorData y = TensorData::zeros(out, xs[1]->dtype);
      const bool is_float = y.is_float();
      for_each_broadcast(xs, out, [&](int64_t k, const std::vector<int64_t>& at) {
        const TensorData& src = xs[0]->i[static_cast<size_t>(at[0])] != 0 ? *xs[1] : *xs[2];
        const auto from = static_cast<size_t>(&src == xs[1] ? at[1] : at[2]);
        if (is_float) {
          y.f[static_cast<size_t>(k)] = src.f[from];
        } else {
          y.i[static_cast<size_t>(k)] = src.i[from];
        }
      });
      return y;
    }
    default:
      unsupported(op, "operator kind");
  }
}

TensorData gather_nd(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  const TensorData& ind = in_req(op, in, 1);
  if (ind.is_float()) fail(op, "indices are not integers");
  const int64_t b = op.attrs.get_int("batch_dims", 0);
  const auto r = static_cast<int64_t>(x.shape.size());
  const auto q = static_cast<int64_t>(ind.shape.size());
  if (q < 1 || b < 0 || b >= std::min(r, q)) fail(op, "batch_dims outside the inputs' ranks");
  const int64_t k = ind.shape.back();
  if (k < 1 || b + k > r) fail(op, "indices' last dimension exceeds the data's rank");
  int64_t batch = 1, inner = 1;
  for (int64_t d = 0; d < b; ++d) batch *= x.shape[static_cast<size_t>(d)];
  for (int64_t d = b + k; d < r; ++d) inner *= x.shape[static_cast<size_t>(d)];
  const int64_t tuples_per_batch = numel(ind.shape) / k / batch;
  const std::vector<int64_t> xs = strides_of(x.shape);
  Shape out(ind.shape.begin(), ind.shape.end() - 1);
  out.insert(out.end(), x.shape.begin() + b + k, x.shape.end());
  std::vector<int64_t> map;
  map.reserve(static_cast<size_t>(numel(out)));
  for (int64_t bi = 0; bi < batch; ++bi) {
    // Offset of batch element bi: its row-major index over the first b dims times their stride.
    const int64_t base = b > 0 ? bi * xs[static_cast<size_t>(b - 1)] : 0;
    for (int64_t t = 0; t < tuples_per_batch; ++t) {
      int64_t off = base;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t dim = x.shape[static_cast<size_t>(b + j)];
        int64_t v = ind.i[static_cast<size_t>((bi * tuples_per_batch + t) * k + j)];
        if (v < -dim || v >= dim) {
          fail(op,
               "index " + std::to_string(v) + " out of range for axis size " + std::to_string(dim));
        }
        if (v < 0) v += dim;
        off += v * xs[static_cast<size_t>(b + j)];
      }
      for (int64_t e = 0; e < inner; ++e) map.push_back(off + e);
    }
  }
  return gather_by_index(x, out, map);
}

}  // namespace dgs::exec_ops
