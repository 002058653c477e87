#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "common/graph/iteration_space_internal.h"

// Regions of the inputs whose index maps are Custom: row-major reshapes, DepthToSpace and
// SpaceToDepth, Concat, Pad, Resize, Gather's data, ConvTranspose.
namespace dgs::iteration_space_internal {

Region empty_like(const Shape& s) {
  return Region(s.size(), Interval{0, 0});
}

namespace {

// Row-major linear index of `coord` within dims [from, to) of `shape`.
int64_t linear(const Shape& shape, size_t from, size_t to, const std::vector<int64_t>& coord) {
  int64_t l = 0;
  for (size_t i = from; i < to; ++i) l = l * shape[i] + coord[i - from];
  return l;
}
std::vector<int64_t> unlinear(const Shape& shape, size_t from, size_t to, int64_t l) {
  std::vector<int64_t> c(to - from);
  for (size_t i = to; i-- > from;) {
    c[i - from] = l % shape[i];
    l /= shape[i];
  }
  return c;
}

}  // namespace

// The input region of a row-major reshape from `in` to `out` for output tile
// `tile`. Dims are grouped where the running products of both shapes agree
// (e.g. [N,C,H,W] -> [N,C,H*W] gives {N}{C}{H,W -> HW}); each group is mapped
// independently. Within a group, a tile that is contiguous in row-major order
// (single indices, then one range, then full dims) maps to a contiguous run
// whose bounding box is exact; otherwise the run from the tile's first to its
// last element is covered (conservative, exact = false).
AccessRegion reshape_region(const Shape& in, const Shape& out, const Region& tile) {
  AccessRegion res;
  if (numel(in) == 0 || numel(out) == 0) {
    res.region = res.unclamped = full_region(in);
    return res;
  }
  res.region.assign(in.size(), Interval{0, 1});
  size_t i = 0, j = 0;
  while (i < in.size() || j < out.size()) {
    const size_t gi = i, gj = j;
    int64_t pi = 1, po = 1;
    if (i < in.size()) pi *= in[i++];
    if (j < out.size()) po *= out[j++];
    while (pi != po) {
      if (pi < po && i < in.size()) {
        pi *= in[i++];
      } else if (j < out.size()) {
        po *= out[j++];
      } else {
        throw Error("reshape_region: shapes " + shape_str(in) + " and " + shape_str(out) +
                    " have different element counts; expected equal");
      }
    }
    if (i == gi) continue;  // output-only size-1 dims
    if (j == gj) {          // input-only size-1 dims
      for (size_t k = gi; k < i; ++k) res.region[k] = {0, 1};
      continue;
    }
    // Contiguity of the tile within output dims [gj, j).
    size_t k = j;
    while (k > gj && tile[k - 1] == Interval{0, out[k - 1]}) --k;
    bool contiguous = true;
    for (size_t d = gj; d + 1 < k; ++d) contiguous = contiguous && tile[d].size() == 1;
    if (!contiguous) res.exact = false;
    std::vector<int64_t> first, last;
    for (size_t d = gj; d < j; ++d) {
      first.push_back(tile[d].lo);
      last.push_back(tile[d].hi - 1);
    }
    const std::vector<int64_t> a = unlinear(in, gi, i, linear(out, gj, j, first));
    const std::vector<int64_t> b = unlinear(in, gi, i, linear(out, gj, j, last));
    size_t p = 0;
    while (p < a.size() && a[p] == b[p]) ++p;
    for (size_t d = 0; d < a.size(); ++d) {
      if (d < p) {
        res.region[gi + d] = {a[d], a[d] + 1};
      } else if (d == p) {
        res.region[gi + d] = {a[d], b[d] + 1};
      } else {
        res.region[gi + d] = {0, in[gi + d]};
      }
    }
  }
  res.unclamped = res.region;
  return res;
}

namespace {

// Bounding range (inclusive) of (v mod b) for v in [lo, hi).
std::pair<int64_t, int64_t> mod_range(int64_t lo, int64_t hi, int64_t b) {
  if (hi - lo >= b) return {0, b - 1};
  const int64_t a = mod(lo, b), z = mod(hi - 1, b);
  if (a <= z) return {a, z};
  return {0, b - 1};
}

}  // namespace

AccessRegion depth_to_space_region(const Op& op, const Shape& x, const Region& t) {
  const int64_t b = op.attrs.get_int("blocksize", 1);
  const int64_t cq = x[1] / (b * b);  // output channels
  const bool crd = op.attrs.get_string("mode", "DCR") == "CRD";
  auto [bh0, bh1] = mod_range(t[2].lo, t[2].hi, b);
  auto [bw0, bw1] = mod_range(t[3].lo, t[3].hi, b);
  const int64_t c0 = t[1].lo, c1 = t[1].hi - 1;
  Interval ch = crd ? Interval{c0 * b * b + bh0 * b + bw0, c1 * b * b + bh1 * b + bw1 + 1}
                    : Interval{(bh0 * b + bw0) * cq + c0, (bh1 * b + bw1) * cq + c1 + 1};
  AccessRegion r;
  r.region = {t[0],
              ch,
              {floor_div(t[2].lo, b), floor_div(t[2].hi - 1, b) + 1},
              {floor_div(t[3].lo, b), floor_div(t[3].hi - 1, b) + 1}};
  r.unclamped = r.region;
  return r;
}

AccessRegion space_to_depth_region(const Op& op, const Shape& x, const Region& t) {
  const int64_t b = op.attrs.get_int("blocksize", 1);
  const int64_t c = x[1];
  // output channel = (bh * b + bw) * C + c
  const int64_t q0 = floor_div(t[1].lo, c), q1 = floor_div(t[1].hi - 1, c);
  Interval ch{0, c};
  if (q0 == q1) ch = {mod(t[1].lo, c), mod(t[1].hi - 1, c) + 1};
  const int64_t bh0 = q0 / b, bh1 = q1 / b;
  int64_t bw0 = 0, bw1 = b - 1;
  if (bh0 == bh1) {
    bw0 = q0 % b;
    bw1 = q1 % b;
  }
  AccessRegion r;
  r.region = {t[0],
              ch,
              {t[2].lo * b + bh0, (t[2].hi - 1) * b + bh1 + 1},
              {t[3].lo * b + bw0, (t[3].hi - 1) * b + bw1 + 1}};
  r.unclamped = r.region;
  return r;
}

AccessRegion concat_region(const Graph& g, const Op& op, int k, const Region& t) {
  const Shape& y = g.tensor(op.outputs[0]).shape;
  int64_t axis = op.attrs.get_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(y.size());
  int64_t off = 0;
  for (int i = 0; i < k; ++i) off += g.tensor(op.inputs[i]).shape[axis];
  const int64_t size = g.tensor(op.inputs[k]).shape[axis];
  AccessRegion r;
  r.region = t;
  Interval& a = r.region[axis];
  a = {std::max<int64_t>(t[axis].lo - off, 0), std::min<int64_t>(t[axis].hi - off, size)};
  if (a.empty()) r.region = empty_like(g.tensor(op.inputs[k]).shape);
  r.unclamped = r.region;
  return r;
}

AccessRegion pad_region(const Graph& g, const Op& op, const Region& t) {
  const Shape& x = g.tensor(op.inputs[0]).shape;
  const int r = static_cast<int>(x.size());
  std::vector<int64_t> pads;
  if (op.inputs.size() > 1 && op.inputs[1] >= 0) {
    pads = g.tensor(op.inputs[1]).int_data;
  } else {
    pads = op.attrs.get_ints("pads", {});
  }
  std::vector<int64_t> axes(r);
  std::iota(axes.begin(), axes.end(), 0);
  if (op.inputs.size() > 3 && op.inputs[3] >= 0) axes = g.tensor(op.inputs[3]).int_data;
  std::vector<int64_t> begin(r, 0);
  for (size_t i = 0; i < axes.size(); ++i) begin[axes[i] < 0 ? axes[i] + r : axes[i]] = pads[i];
  const std::string mode = op.attrs.get_string("mode", "constant");
  AccessRegion res;
  for (int d = 0; d < r; ++d) {
    const int64_t dim = x[d];
    const int64_t lo = t[d].lo - begin[d],
                  hi = t[d].hi - begin[d];  // hi exclusive
    res.unclamped.push_back({lo, hi});
    Interval c{std::clamp<int64_t>(lo, 0, dim), std::clamp<int64_t>(hi, 0, dim)};
    if (c.hi < c.lo) c.hi = c.lo;
    if (mode == "edge") {
      c = {std::clamp<int64_t>(lo, 0, dim - 1), std::clamp<int64_t>(hi - 1, 0, dim - 1) + 1};
    } else if (mode == "reflect" && dim > 1) {
      // i < 0 reads -i; i >= dim reads 2(dim-1) - i.
      int64_t mn = dim, mx = -1;
      auto cover = [&](int64_t a,
                       int64_t b) {  // inclusive range of read indices
        if (a > b) return;
        mn = std::min(mn, a);
        mx = std::max(mx, b);
      };
      cover(std::max<int64_t>(lo, 0), std::min<int64_t>(hi - 1, dim - 1));
      if (lo < 0) cover(-std::min<int64_t>(hi - 1, -1), -lo);
      if (hi - 1 >= dim) cover(2 * (dim - 1) - (hi - 1), 2 * (dim - 1) - std::max(lo, dim));
      c = {std::clamp<int64_t>(mn, 0, dim), std::clamp<int64_t>(mx + 1, 0, dim)};
    } else if (mode == "wrap") {
      if (hi - lo >= dim) {
        c = {0, dim};
      } else {
        const int64_t a = mod(lo, dim), z = mod(hi - 1, dim);
        c = a <= z ? Interval{a, z + 1} : Interval{0, dim};
      }
    }
    if (t[d].empty()) c = {0, 0};
    res.region.push_back(c);
  }
  return res;
}

AccessRegion resize_region(const Graph& g, const Op& op, const Region& t) {
  const Shape& x = g.tensor(op.inputs[0]).shape;
  const Shape& y = g.tensor(op.outputs[0]).shape;
  const std::string mode = op.attrs.get_string("mode", "nearest");
  const std::string ctm = op.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = op.attrs.get_string("nearest_mode", "round_prefer_floor");
  std::vector<double> scales;
  if (op.inputs.size() > 2 && op.inputs[2] >= 0) {
    const Tensor& s = g.tensor(op.inputs[2]);
    scales.assign(s.float_data.begin(), s.float_data.end());
  }
  std::vector<int64_t> axes(x.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (op.attrs.has("axes")) axes = op.attrs.get_ints("axes", {});
  std::vector<double> scale(x.size(), 1.0);
  for (size_t d = 0; d < x.size(); ++d) {
    scale[d] = static_cast<double>(y[d]) / static_cast<double>(x[d]);
  }
  if (!scales.empty()) {
    for (size_t i = 0; i < axes.size(); ++i) {
      scale[axes[i] < 0 ? axes[i] + static_cast<int64_t>(x.size()) : axes[i]] = scales[i];
    }
  }
  AccessRegion res;
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t in = x[d], out = y[d];
    if (t[d].empty()) {
      res.region.push_back({0, 0});
      res.unclamped.push_back({0, 0});
      continue;
    }
    if (in == out && scale[d] == 1.0) {  // untouched dim: identity
      res.region.push_back(t[d]);
      res.unclamped.push_back(t[d]);
      continue;
    }
    if (ctm == "tf_crop_and_resize") {  // depends on roi values: whole dim,
                                        // conservative
      res.region.push_back({0, in});
      res.unclamped.push_back({0, in});
      res.exact = false;
      continue;
    }
    auto src = [&](int64_t o) {
      const double s = scale[d], od = static_cast<double>(o);
      if (ctm == "asymmetric") return od / s;
      if (ctm == "align_corners") {
        return out == 1 ? 0.0 : od * static_cast<double>(in - 1) / static_cast<double>(out - 1);
      }
      if (ctm == "pytorch_half_pixel") return out > 1 ? (od + 0.5) / s - 0.5 : 0.0;
      if (ctm == "tf_half_pixel_for_nn") return (od + 0.5) / s;
      return (od + 0.5) / s - 0.5;  // half_pixel (default) and half_pixel_symmetric
    };
    const double a = src(t[d].lo), b = src(t[d].hi - 1);
    int64_t lo, hi;  // inclusive
    if (mode == "nearest") {
      auto round = [&](double v) {
        const double f = std::floor(v);
        if (nearest == "floor") return static_cast<int64_t>(f);
        if (nearest == "ceil") return static_cast<int64_t>(std::ceil(v));
        if (v - f == 0.5) return static_cast<int64_t>(nearest == "round_prefer_ceil" ? f + 1 : f);
        return static_cast<int64_t>(std::round(v));
      };
      lo = round(a);
      hi = round(b);
    } else if (mode == "cubic") {
      lo = static_cast<int64_t>(std::floor(a)) - 1;
      hi = static_cast<int64_t>(std::floor(b)) + 2;
    } else {  // linear: floor and floor + 1 (only floor when the coordinate is
              // integral)
      lo = static_cast<int64_t>(std::floor(a));
      hi = static_cast<int64_t>(std::ceil(b));
    }
    res.unclamped.push_back({lo, hi + 1});
    res.region.push_back(
        {std::clamp<int64_t>(lo, 0, in - 1), std::clamp<int64_t>(hi, 0, in - 1) + 1});
  }
  return res;
}

AccessRegion gather_data_region(const Graph& g, const Op& op, const Region& t) {
  const Tensor& data = g.tensor(op.inputs[0]);
  const Tensor& idx = g.tensor(op.inputs[1]);
  const Shape& x = data.shape;
  const size_t q = idx.shape.size();
  int64_t axis = op.attrs.get_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(x.size());
  AccessRegion r;
  for (int64_t d = 0; d < static_cast<int64_t>(x.size()); ++d) {
    if (d < axis) {
      r.region.push_back(t[d]);
    } else if (d > axis) {
      r.region.push_back(t[d + static_cast<int64_t>(q) - 1]);
    } else if (idx.role == TensorRole::Constant &&
               static_cast<int64_t>(idx.int_data.size()) == idx.numel()) {
      // The range of the constant indices inside the tile's index sub-box.
      Region sub(t.begin() + axis, t.begin() + axis + static_cast<int64_t>(q));
      int64_t mn = x[d], mx = -1;
      std::vector<int64_t> c(q);
      for (size_t i = 0; i < q; ++i) c[i] = sub[i].lo;
      const bool any = !region_empty(sub);
      while (any) {
        int64_t v = idx.int_data[linear(idx.shape, 0, q, c)];
        if (v < 0) v += x[d];
        mn = std::min(mn, v);
        mx = std::max(mx, v);
        size_t k = q;
        while (k > 0 && ++c[k - 1] == sub[k - 1].hi) {
          c[k - 1] = sub[k - 1].lo;
          --k;
        }
        if (k == 0) break;
      }
      r.region.push_back(mx >= mn ? Interval{mn, mx + 1} : Interval{0, 0});
    } else {
      r.region.push_back({0, x[d]});
      r.exact = false;
    }
  }
  r.unclamped = r.region;
  return r;
}

AccessRegion conv_transpose_region(const Graph& g, const Op& op, int input, const Region& t) {
  const Shape& x = g.tensor(op.inputs[0]).shape;
  const Shape& w = g.tensor(op.inputs[1]).shape;
  const Shape& y = g.tensor(op.outputs[0]).shape;
  const size_t nd = x.size() - 2;
  const int64_t group = op.attrs.get_int("group", 1);
  const int64_t cg = x[1] / group, mg = w[1];
  const int64_t g0 = t[1].lo / mg, g1 = (t[1].hi - 1) / mg;
  const Interval in_ch{g0 * cg, (g1 + 1) * cg};
  AccessRegion r;
  if (input == 1) {  // W [C, M/group, k...]; the kernel taps are found below
    Interval wm = g0 == g1 ? Interval{t[1].lo - g0 * mg, t[1].hi - g0 * mg} : Interval{0, mg};
    r.region = {in_ch, wm};
  } else {
    r.region = {t[0], in_ch};
  }
  r.unclamped = r.region;
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  std::vector<int64_t> strides = op.attrs.get_ints("strides", std::vector<int64_t>(nd, 1));
  std::vector<int64_t> dil = op.attrs.get_ints("dilations", std::vector<int64_t>(nd, 1));
  std::vector<int64_t> pads = op.attrs.get_ints("pads", std::vector<int64_t>(2 * nd, 0));
  std::vector<int64_t> out_pad = op.attrs.get_ints("output_padding", std::vector<int64_t>(nd, 0));
  const std::string auto_pad = op.attrs.get_string("auto_pad", "NOTSET");
  for (size_t i = 0; i < nd; ++i) {
    const int64_t ek = (kernel[i] - 1) * dil[i] + 1;
    int64_t pb = auto_pad == "VALID" ? 0 : pads[i];
    if (op.attrs.has("output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total = strides[i] * (x[2 + i] - 1) + out_pad[i] + ek - y[2 + i];
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    }
    // Output o receives in[i] * w[k] when o = s*i + d*k - pb. Unclamped input range: every i
    // whose scattered window [s*i - pb, s*i - pb + d(K-1)] meets the tile.
    const int64_t lo = -floor_div(-(t[2 + i].lo + pb - (ek - 1)), strides[i]);
    const int64_t hi = floor_div(t[2 + i].hi - 1 + pb, strides[i]) + 1;
    // Exact bounding boxes of the in-bound inputs and the kernel taps that reach the tile. Only
    // the first s*d positions of the tile can add new (i, k) residues, but tiles are small
    // enough to enumerate (cost: tile size x K).
    int64_t i0 = x[2 + i], i1 = -1, k0 = kernel[i], k1 = -1;
    for (int64_t o = t[2 + i].lo; o < t[2 + i].hi; ++o) {
      for (int64_t k = 0; k < kernel[i]; ++k) {
        const int64_t num = o + pb - dil[i] * k;
        if (mod(num, strides[i]) != 0) continue;
        const int64_t in = floor_div(num, strides[i]);
        if (in < 0 || in >= x[2 + i]) continue;
        i0 = std::min(i0, in);
        i1 = std::max(i1, in);
        k0 = std::min(k0, k);
        k1 = std::max(k1, k);
      }
    }
    if (input == 0) {
      r.unclamped.push_back({lo, hi});
      r.region.push_back(i1 >= i0 ? Interval{i0, i1 + 1} : Interval{0, 0});
    } else {
      r.region.push_back(k1 >= k0 ? Interval{k0, k1 + 1} : Interval{0, 0});
      r.unclamped.push_back(r.region.back());
    }
  }
  return r;
}

}  // namespace dgs::iteration_space_internal
