#include "common/onnx/onnx_fold_indexing.h"

#include <algorithm>

#include "common/onnx/onnx_fold_values.h"

namespace dgs {

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

namespace {

// Index inputs must hold integers (a float tensor's values are in `f`, its `i` empty).
void require_integer_indices(const OnnxValue& indices, const std::string& what) {
  if (indices.is_float()) {
    throw Error(what + ": indices of a floating-point type; expected int32 or int64 indices");
  }
}

}  // namespace

OnnxValue gather_elements(const OnnxValue& data, const OnnxValue& indices, int64_t axis,
                          const std::string& what) {
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  const auto ax = static_cast<size_t>(normalize_axis(axis, rank, what));
  require_integer_indices(indices, what);
  if (indices.dims.size() != data.dims.size()) {
    throw Error(what + ": indices " + shape_str(indices.dims) + " for data " +
                shape_str(data.dims) + "; expected the same rank");
  }
  for (size_t d = 0; d < data.dims.size(); ++d) {
    if (d != ax && indices.dims[d] > data.dims[d]) {
      throw Error(what + ": indices " + shape_str(indices.dims) + " for data " +
                  shape_str(data.dims) + "; expected no dimension larger than the data's");
    }
  }
  const std::vector<int64_t> dst = strides_of(data.dims), ist = strides_of(indices.dims);
  const int64_t dim = data.dims[ax];
  return remap(data, indices.dims, [&](int64_t k) {
    int64_t g = indices.i[static_cast<size_t>(k)];
    if (g < 0) g += dim;
    if (g < 0 || g >= dim) throw Error(what + ": GatherElements index out of range");
    int64_t s = 0;
    for (size_t d = 0; d < ist.size(); ++d) {
      s += (d == ax ? g : (k / ist[d]) % indices.dims[d]) * dst[d];
    }
    return s;
  });
}

OnnxValue scatter_nd(const OnnxValue& data, const OnnxValue& indices, const OnnxValue& updates,
                     const std::string& reduction, const std::string& what) {
  require_integer_indices(indices, what);
  if (updates.is_float() != data.is_float()) {
    throw Error(what + ": ScatterND of " + (updates.is_float() ? "float" : "integer") +
                " updates into " + (data.is_float() ? "float" : "integer") +
                " data; expected updates of the data's type");
  }
  const size_t q = indices.dims.size();
  const int64_t k = q == 0 ? -1 : indices.dims.back();
  Shape expected;
  if (k >= 0 && k <= static_cast<int64_t>(data.dims.size())) {
    expected.assign(indices.dims.begin(), indices.dims.end() - 1);
    expected.insert(expected.end(), data.dims.begin() + k, data.dims.end());
  }
  if (k < 0 || k > static_cast<int64_t>(data.dims.size()) || updates.dims != expected) {
    throw Error(what + ": ScatterND of updates " + shape_str(updates.dims) + " at indices " +
                shape_str(indices.dims) + " into data " + shape_str(data.dims) +
                "; expected updates of shape indices[:-1] + data[k:]");
  }
  const std::vector<int64_t> dst = strides_of(data.dims);
  const int64_t slice_size = k == 0 ? data.numel() : (k > 0 ? dst[static_cast<size_t>(k - 1)] : 1);
  int64_t count = 1;  // updates: one per index tuple, prod(indices.dims[:-1])
  for (size_t d = 0; d + 1 < q; ++d) count *= indices.dims[d];
  OnnxValue r = data;
  // The result is the tensor scattered into (exporters build attention masks this way, with
  // large float initializers as updates): a parameter only when `data` is one.
  r.from_weight = data.from_weight;
  for (int64_t u = 0; u < count; ++u) {
    int64_t base = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t g = indices.i[static_cast<size_t>(u * k + d)];
      const int64_t dim = data.dims[static_cast<size_t>(d)];
      if (g < 0) g += dim;
      if (g < 0 || g >= dim) throw Error(what + ": ScatterND index out of range");
      base += g * dst[static_cast<size_t>(d)];
    }
    for (int64_t e = 0; e < slice_size; ++e) {
      const double x = updates.at(u * slice_size + e);
      const auto at = static_cast<size_t>(base + e);
      double v = r.at(base + e);
      if (reduction == "add")
        v += x;
      else if (reduction == "mul")
        v *= x;
      else if (reduction == "max")
        v = std::max(v, x);
      else if (reduction == "min")
        v = std::min(v, x);
      else
        v = x;
      if (r.is_float())
        r.f[at] = v;
      else if (reduction == "none" || reduction.empty())
        r.i[at] = updates.i[static_cast<size_t>(u * slice_size + e)];  // exact for int64
      else
        r.i[at] = fold_int64(v);
    }
  }
  return r;
}

}  // namespace dgs
