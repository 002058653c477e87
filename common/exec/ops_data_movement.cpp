// Data-movement operators of the CPU reference executor (ops.h).
#include <algorithm>
#include <numeric>

#include "common/exec/kernels.h"
#include "common/exec/ops.h"

namespace dgs::exec_ops {

namespace {

// A slab [start, start + len) along `axis`.
TensorData slab(const TensorData& x, int64_t axis, int64_t start, int64_t len) {
  Shape out = x.shape;
  out[axis] = len;
  const auto st = strides_of(x.shape);
  return strided_copy(x, out, st, start * st[axis]);
}

}  // namespace

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

TensorData flatten(const Op& op, const TensorData& x) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = op.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) fail(op, "axis out of range");
  int64_t a = 1;
  for (int64_t d = 0; d < axis; ++d) a *= x.shape[d];
  return reshaped(x, {a, a == 0 ? 0 : x.numel() / a});
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

TensorData transpose_op(const Op& op, const TensorData& x) {
  std::vector<int64_t> perm(x.shape.size());
  for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(perm.size() - 1 - k);
  perm = op.attrs.get_ints("perm", perm);
  if (perm.size() != x.shape.size()) fail(op, "perm of the wrong length");
  return transpose(x, perm);
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

TensorData expand(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_req(op, in, 0);
  const Shape target = int_list(in_opt(in, 1));
  return broadcast_to(x, broadcast_shapes(x.shape, target, op_prefix(op) + "Expand"));
}

}  // namespace dgs::exec_ops
