#include "common/graph/iteration_space.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>

#include "common/graph/op_signature.h"
#include "common/graph/window.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Regions
// ---------------------------------------------------------------------------------------------
Region full_region(const Shape& s) {
  Region r;
  r.reserve(s.size());
  for (int64_t d : s) r.push_back({0, d});
  return r;
}

bool region_empty(const Region& r) {
  return std::any_of(r.begin(), r.end(), [](const Interval& i) { return i.empty(); });
}

int64_t region_numel(const Region& r) {
  int64_t n = 1;
  for (const Interval& i : r) n *= i.size();
  return n;
}

Region region_union(const Region& a, const Region& b) {
  if (region_empty(a)) return b;
  if (region_empty(b)) return a;
  if (a.size() != b.size()) {
    throw Error("region_union: ranks differ (" + region_str(a) + " and " + region_str(b) +
                "); expected regions of one tensor");
  }
  Region r(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    r[i] = {std::min(a[i].lo, b[i].lo), std::max(a[i].hi, b[i].hi)};
  }
  return r;
}

Region region_intersect(const Region& a, const Region& b) {
  if (a.size() != b.size()) {
    throw Error("region_intersect: ranks differ (" + region_str(a) + " and " + region_str(b) +
                "); expected regions of one tensor");
  }
  Region r(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    r[i] = {std::max(a[i].lo, b[i].lo), std::min(a[i].hi, b[i].hi)};
    if (r[i].hi < r[i].lo) r[i].hi = r[i].lo;
  }
  return r;
}

Region clamp_region(const Region& r, const Shape& s) {
  Region out(r.size());
  for (size_t i = 0; i < r.size(); ++i) {
    const int64_t d = i < s.size() ? s[i] : 1;
    int64_t lo = std::clamp<int64_t>(r[i].lo, 0, d);
    int64_t hi = std::clamp<int64_t>(r[i].hi, 0, d);
    out[i] = {lo, std::max(lo, hi)};
  }
  return out;
}

bool region_contains(const Region& outer, const Region& inner) {
  if (region_empty(inner)) return true;
  if (outer.size() != inner.size()) return false;
  for (size_t i = 0; i < outer.size(); ++i) {
    if (inner[i].lo < outer[i].lo || inner[i].hi > outer[i].hi) return false;
  }
  return true;
}

Shape region_shape(const Region& r) {
  Shape s;
  for (const Interval& iv : r) s.push_back(iv.size());
  return s;
}

Region region_relative(const Region& r, const Region& origin) {
  if (r.size() != origin.size())
    throw Error("region_relative: ranks differ (" + region_str(r) + " and " + region_str(origin) +
                ")");
  Region out = r;
  for (size_t d = 0; d < out.size(); ++d) {
    out[d].lo -= origin[d].lo;
    out[d].hi -= origin[d].lo;
  }
  return out;
}

std::string region_str(const Region& r) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < r.size(); ++i) os << (i ? "," : "") << r[i].lo << ':' << r[i].hi;
  os << ']';
  return os.str();
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t mod(int64_t a, int64_t b) {
  return a - floor_div(a, b) * b;
}

AxisIndex ident(int axis, int64_t coef = 1, int64_t offset = 0) {
  AxisIndex a;
  a.terms.push_back({axis, false, coef, 1});
  a.offset = offset;
  return a;
}
AxisIndex reduce(int axis) {
  AxisIndex a;
  a.terms.push_back({axis, true, 1, 1});
  return a;
}
AxisIndex fixed(int64_t v) {
  AxisIndex a;
  a.offset = v;
  return a;
}
AxisIndex whole() {
  AxisIndex a;
  a.full = true;
  return a;
}

InputAccess affine(std::vector<AxisIndex> dims) {
  InputAccess a;
  a.kind = InputAccess::Kind::Affine;
  a.dims = std::move(dims);
  return a;
}
InputAccess custom(std::string note) {
  InputAccess a;
  a.kind = InputAccess::Kind::Custom;
  a.note = std::move(note);
  return a;
}
InputAccess whole_tensor(const Shape& s) {
  return affine(std::vector<AxisIndex>(s.size(), whole()));
}

// Input of shape `in` broadcast (NumPy, right-aligned) to output axes of rank
// `out_rank`.
InputAccess broadcast_access(const Shape& in, const Shape& out) {
  std::vector<AxisIndex> dims;
  const int shift = static_cast<int>(out.size()) - static_cast<int>(in.size());
  for (int i = 0; i < static_cast<int>(in.size()); ++i) {
    const int j = i + shift;
    if (j < 0) {
      dims.push_back(fixed(0));  // cannot happen for valid broadcasts
    } else if (in[i] == 1 && out[j] != 1) {
      dims.push_back(fixed(0));
    } else {
      dims.push_back(ident(j));
    }
  }
  return affine(std::move(dims));
}

std::string op_ref(const Op& op) {
  return "op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) + ")";
}

// Spatial map of a sliding window: in = stride * out + dilation * r - pad.
AxisIndex window_axis(int out_axis, int red_axis, int64_t stride, int64_t dilation, int64_t pad) {
  AxisIndex a;
  a.terms.push_back({out_axis, false, stride, 1});
  a.terms.push_back({red_axis, true, dilation, 1});
  a.offset = -pad;
  return a;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Iteration spaces
// ---------------------------------------------------------------------------------------------
namespace {

IterationSpace build_iteration_space(const Graph& g, int o, int output_index);

thread_local IterationSpaceMemo* innermost_memo = nullptr;

}  // namespace

IterationSpaceMemo::IterationSpaceMemo(const Graph& g)
    : g_(g), outer_(innermost_memo), spaces_(static_cast<size_t>(g.num_ops())) {
  innermost_memo = this;
}

IterationSpaceMemo::~IterationSpaceMemo() {
  innermost_memo = outer_;
}

IterationSpaceMemo* IterationSpaceMemo::active(const Graph& g) {
  return innermost_memo && &innermost_memo->g_ == &g ? innermost_memo : nullptr;
}

const IterationSpace& IterationSpaceMemo::space(int op) {
  std::unique_ptr<IterationSpace>& s = spaces_.at(static_cast<size_t>(op));
  if (!s) s = std::make_unique<IterationSpace>(build_iteration_space(g_, op, 0));
  return *s;
}

IterationSpace iteration_space(const Graph& g, int o, int output_index) {
  IterationSpaceMemo* memo = output_index == 0 ? IterationSpaceMemo::active(g) : nullptr;
  return memo ? memo->space(o) : build_iteration_space(g, o, output_index);
}

namespace {

IterationSpace build_iteration_space(const Graph& g, int o, int output_index) {
  const Op& op = g.op(o);
  if (output_index < 0 || output_index >= static_cast<int>(op.outputs.size())) {
    throw Error(op_ref(op) + ": output index " + std::to_string(output_index) +
                " does not exist; expected 0.." + std::to_string(op.outputs.size() - 1));
  }
  IterationSpace s;
  s.output_axes = g.tensor(op.outputs[output_index]).shape;
  const Shape& y = s.output_axes;
  const int ry = static_cast<int>(y.size());
  const int ni = static_cast<int>(op.inputs.size());
  auto shape = [&](int i) -> const Shape& { return g.tensor(op.inputs[i]).shape; };
  auto present = [&](int i) { return i < ni && op.inputs[i] >= 0; };
  s.inputs.resize(ni);
  // Defaults: omitted inputs, and shape-determining constants read whole.
  for (int i = 0; i < ni; ++i) {
    if (!present(i)) {
      s.inputs[i].kind = InputAccess::Kind::Omitted;
    } else {
      s.inputs[i] = whole_tensor(shape(i));
    }
  }
  auto add_reduction = [&](std::string name, int64_t extent) {
    s.reduction_axes.push_back({std::move(name), extent});
    return static_cast<int>(s.reduction_axes.size()) - 1;
  };

  switch (op.kind) {
    case OpKind::Conv: {
      const Shape& x = shape(0);
      const Shape& w = shape(1);
      const size_t nd = x.size() - 2;
      const Window win = resolve_window(g, o);
      const int64_t cg = w[1];              // input channels per group
      const int64_t mg = w[0] / win.group;  // output channels per group
      const int rc = add_reduction("c_in", cg);
      std::vector<int> rk;
      for (size_t i = 0; i < nd; ++i)
        rk.push_back(add_reduction("k" + std::to_string(i), w[2 + i]));
      std::vector<AxisIndex> xd{ident(0)};
      AxisIndex ch;  // channel = cg * floor(m / mg) + r_c
      ch.terms.push_back({1, false, cg, mg});
      ch.terms.push_back({rc, true, 1, 1});
      xd.push_back(ch);
      for (size_t i = 0; i < nd; ++i) {
        xd.push_back(window_axis(static_cast<int>(2 + i), rk[i], win.strides[i], win.dilations[i],
                                 win.pads_begin[i]));
      }
      s.inputs[0] = affine(xd);
      std::vector<AxisIndex> wd{ident(1), reduce(rc)};
      for (size_t i = 0; i < nd; ++i) wd.push_back(reduce(rk[i]));
      s.inputs[1] = affine(wd);
      if (present(2)) s.inputs[2] = affine({ident(1)});
      break;
    }
    case OpKind::ConvTranspose: {
      const Shape& w = shape(1);
      const int64_t group = op.attrs.get_int("group", 1);
      add_reduction("c_in", w[0] / group);
      for (size_t i = 2; i < w.size(); ++i) add_reduction("k" + std::to_string(i - 2), w[i]);
      s.inputs[0] = custom(
          "input positions whose scattered window reaches the tile, channels of "
          "the output channels' groups");
      s.inputs[1] = custom("the groups' input channels x the tile's output channels in the group");
      if (present(2)) s.inputs[2] = affine({ident(1)});
      break;
    }
    case OpKind::Gemm: {
      const Shape& a = shape(0);
      const bool ta = op.attrs.get_int("transA", 0) != 0;
      const bool tb = op.attrs.get_int("transB", 0) != 0;
      const int rk = add_reduction("k", ta ? a[0] : a[1]);
      s.inputs[0] = ta ? affine({reduce(rk), ident(0)}) : affine({ident(0), reduce(rk)});
      s.inputs[1] = tb ? affine({ident(1), reduce(rk)}) : affine({reduce(rk), ident(1)});
      if (present(2)) s.inputs[2] = broadcast_access(shape(2), y);
      break;
    }
    case OpKind::MatMul: {
      const Shape& a = shape(0);
      const Shape& b = shape(1);
      const bool a1 = a.size() == 1, b1 = b.size() == 1;
      const int rk = add_reduction("k", a.back());
      // Output axes: batch..., [m unless A is 1-D], [n unless B is 1-D].
      const int nbatch = ry - (a1 ? 0 : 1) - (b1 ? 0 : 1);
      const int m_axis = a1 ? -1 : nbatch;
      const int n_axis = b1 ? -1 : ry - 1;
      Shape batch_out(y.begin(), y.begin() + nbatch);
      auto operand = [&](const Shape& t, bool one_d, bool is_a) {
        if (one_d) return affine({reduce(rk)});
        Shape tb(t.begin(), t.end() - 2);
        InputAccess acc = broadcast_access(tb, batch_out);
        if (is_a) {
          acc.dims.push_back(ident(m_axis));
          acc.dims.push_back(reduce(rk));
        } else {
          acc.dims.push_back(reduce(rk));
          acc.dims.push_back(ident(n_axis));
        }
        return acc;
      };
      s.inputs[0] = operand(a, a1, true);
      s.inputs[1] = operand(b, b1, false);
      break;
    }
    case OpKind::MaxPool:
    case OpKind::AveragePool: {
      const Shape& x = shape(0);
      const size_t nd = x.size() - 2;
      const Window win = resolve_window(g, o);
      std::vector<AxisIndex> xd{ident(0), ident(1)};
      for (size_t i = 0; i < nd; ++i) {
        int r = add_reduction("k" + std::to_string(i), win.kernel[i]);
        xd.push_back(window_axis(static_cast<int>(2 + i), r, win.strides[i], win.dilations[i],
                                 win.pads_begin[i]));
      }
      s.inputs[0] = affine(xd);
      break;
    }
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool: {
      const Shape& x = shape(0);
      std::vector<AxisIndex> xd{ident(0), ident(1)};
      for (size_t i = 2; i < x.size(); ++i) {
        xd.push_back(reduce(add_reduction("s" + std::to_string(i - 2), x[i])));
      }
      s.inputs[0] = affine(xd);
      break;
    }
    case OpKind::BatchNormalization: {
      if (output_index == 0) {
        s.inputs[0] = broadcast_access(shape(0), y);
        for (int i = 1; i < 5; ++i) s.inputs[i] = affine({ident(1)});
      } else {  // running mean / variance [C] (training mode)
        const Shape& x = shape(0);
        std::vector<AxisIndex> xd;
        for (size_t i = 0; i < x.size(); ++i) {
          xd.push_back(i == 1 ? ident(0) : reduce(add_reduction("d" + std::to_string(i), x[i])));
        }
        s.inputs[0] = affine(xd);
        for (int i = 1; i < 5; ++i) s.inputs[i] = affine({ident(0)});
      }
      break;
    }
    case OpKind::LayerNormalization: {
      const Shape& x = shape(0);
      const int r = static_cast<int>(x.size());
      int64_t axis = op.attrs.get_int("axis", -1);
      if (axis < 0) axis += r;
      std::vector<AxisIndex> xd;
      std::vector<int> red(r, -1);
      for (int i = 0; i < r; ++i) {
        if (i < axis) {
          xd.push_back(ident(i));
        } else {
          red[i] = add_reduction("norm" + std::to_string(i), x[i]);
          xd.push_back(reduce(red[i]));
        }
      }
      s.inputs[0] = affine(xd);
      for (int k = 1; k < 3; ++k) {
        if (!present(k)) continue;
        const Shape& p = shape(k);
        std::vector<AxisIndex> pd;
        for (int i = 0; i < static_cast<int>(p.size()); ++i) {
          const int j = r - static_cast<int>(p.size()) + i;
          // Scale and bias apply per output element: only the statistics read whole rows of X.
          pd.push_back(p[i] == 1 ? fixed(0) : ident(j));
        }
        s.inputs[k] = affine(pd);
      }
      break;
    }
    case OpKind::Softmax: {
      int64_t axis = op.attrs.get_int("axis", -1);
      if (axis < 0) axis += ry;
      std::vector<AxisIndex> xd;
      for (int i = 0; i < ry; ++i) {
        xd.push_back(i == axis ? reduce(add_reduction("axis", y[i])) : ident(i));
      }
      s.inputs[0] = affine(xd);
      break;
    }
    case OpKind::Concat:
      for (int i = 0; i < ni; ++i)
        s.inputs[i] =
            custom("the tile's part that falls in input " + std::to_string(i) + " along the axis");
      break;
    case OpKind::Split: {
      const int64_t r = static_cast<int64_t>(shape(0).size());
      int64_t axis = op.attrs.get_int("axis", 0);
      if (axis < 0) axis += r;
      int64_t offset = 0;
      for (int k = 0; k < output_index; ++k) offset += g.tensor(op.outputs[k]).shape[axis];
      std::vector<AxisIndex> xd;
      for (int i = 0; i < ry; ++i) xd.push_back(i == axis ? ident(i, 1, offset) : ident(i));
      s.inputs[0] = affine(xd);
      break;
    }
    case OpKind::Slice: {
      const Shape& x = shape(0);
      const int r = static_cast<int>(x.size());
      const std::vector<int64_t>& starts = g.tensor(op.inputs[1]).int_data;
      std::vector<int64_t> axes(starts.size()), steps(starts.size(), 1);
      std::iota(axes.begin(), axes.end(), 0);
      if (present(3)) axes = g.tensor(op.inputs[3]).int_data;
      if (present(4)) steps = g.tensor(op.inputs[4]).int_data;
      std::vector<AxisIndex> xd;
      for (int i = 0; i < r; ++i) xd.push_back(ident(i));
      for (size_t k = 0; k < starts.size(); ++k) {
        const int a = static_cast<int>(axes[k] < 0 ? axes[k] + r : axes[k]);
        const int64_t dim = x[a];
        int64_t st = starts[k] < 0 ? starts[k] + dim : starts[k];
        st = steps[k] > 0 ? std::clamp<int64_t>(st, 0, dim) : std::clamp<int64_t>(st, 0, dim - 1);
        xd[a] = ident(a, steps[k], st);
      }
      s.inputs[0] = affine(xd);
      break;
    }
    case OpKind::Transpose: {
      const int r = static_cast<int>(shape(0).size());
      std::vector<int64_t> perm(r);
      for (int i = 0; i < r; ++i) perm[i] = r - 1 - i;
      perm = op.attrs.get_ints("perm", perm);
      std::vector<AxisIndex> xd(r);
      for (int i = 0; i < r; ++i) xd[perm[i]] = ident(i);
      s.inputs[0] = affine(xd);
      break;
    }
    case OpKind::Reshape:
    case OpKind::Flatten:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      s.inputs[0] = custom(
          "row-major reshape: exact per group of merged/split dims when the tile "
          "is contiguous within the group, else the covering box");
      break;
    case OpKind::Pad:
      s.inputs[0] = custom(
          "out - pad_begin; constant: clamped, edge: clamped to the border, "
          "reflect/wrap: mirrored or wrapped coordinates");
      break;
    case OpKind::Resize:
      s.inputs[0] = custom(
          "coordinate transform of the tile's ends, rounded (nearest) or with "
          "the interpolation taps (linear 2, cubic 4)");
      break;
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      s.inputs[0] = custom("block rearrangement of channels and space");
      break;
    case OpKind::Gather: {
      const Shape& x = shape(0);
      const Shape& idx = shape(1);
      int64_t axis = op.attrs.get_int("axis", 0);
      if (axis < 0) axis += static_cast<int64_t>(x.size());
      s.inputs[0] = custom(
          "the rows named by the tile's indices (constant indices: their range; "
          "otherwise the whole axis)");
      std::vector<AxisIndex> id;
      for (size_t i = 0; i < idx.size(); ++i) id.push_back(ident(static_cast<int>(axis + i)));
      s.inputs[1] = affine(id);
      break;
    }
    case OpKind::GatherND: {
      // Batch dims map to the output's leading axes, the k indexed dims are read whole
      // (run-time indices), the trailing dims follow the output's trailing axes; the indices
      // are read along the output's index axes, their last (tuple) axis whole.
      const int r = static_cast<int>(shape(0).size());
      const int q = static_cast<int>(shape(1).size());
      const int b = static_cast<int>(op.attrs.get_int("batch_dims", 0));
      const int k = static_cast<int>(shape(1).back());
      std::vector<AxisIndex> xd, id;
      for (int d = 0; d < r; ++d) {
        xd.push_back(d < b ? ident(d) : d < b + k ? whole() : ident(q - 1 + d - (b + k)));
      }
      for (int d = 0; d < q; ++d) id.push_back(d < q - 1 ? ident(d) : whole());
      s.inputs[0] = affine(xd);
      s.inputs[1] = affine(id);
      break;
    }
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax: {
      const Shape& x = shape(0);
      const int r = static_cast<int>(x.size());
      const bool keepdims = op.attrs.get_int("keepdims", 1) != 0;
      const bool noop_empty = op.attrs.get_int("noop_with_empty_axes", 0) != 0;
      std::vector<int64_t> axes;
      if (present(1)) {
        axes = g.tensor(op.inputs[1]).int_data;
      } else {
        axes = op.attrs.get_ints("axes", {});
      }
      std::vector<bool> reduced(r, axes.empty() && !noop_empty);
      for (int64_t a : axes) reduced[a < 0 ? a + r : a] = true;
      std::vector<AxisIndex> xd;
      int j = 0;
      for (int i = 0; i < r; ++i) {
        if (reduced[i]) {
          xd.push_back(reduce(add_reduction("reduce" + std::to_string(i), x[i])));
          if (keepdims) ++j;
        } else {
          xd.push_back(ident(j++));
        }
      }
      s.inputs[0] = affine(xd);
      break;
    }
    case OpKind::Expand:
      s.inputs[0] = broadcast_access(shape(0), y);
      break;
    case OpKind::Clip:
      s.inputs[0] = broadcast_access(shape(0), y);  // min/max scalars: whole
      break;
    default:
      // Element-wise unary/binary/variadic (incl. Cast, Dropout, Identity): NumPy
      // broadcasting.
      for (int i = 0; i < ni; ++i) {
        if (present(i) && !is_shape_input(op.kind, i)) s.inputs[i] = broadcast_access(shape(i), y);
      }
      if (op.kind == OpKind::Dropout) {  // ratio, training_mode: scalars, whole
        for (int i = 1; i < ni; ++i) {
          if (present(i)) s.inputs[i] = whole_tensor(shape(i));
        }
      }
      break;
  }
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Regions of inputs
// ---------------------------------------------------------------------------------------------
namespace {

// Evaluates an affine map over the tile (output axes) and full reduction
// ranges.
Region eval_affine(const InputAccess& acc, const IterationSpace& s, const Region& tile,
                   const Shape& in_shape) {
  Region r;
  for (size_t d = 0; d < acc.dims.size(); ++d) {
    const AxisIndex& a = acc.dims[d];
    if (a.full) {
      r.push_back({0, in_shape[d]});
      continue;
    }
    int64_t lo = a.offset, hi = a.offset;  // hi inclusive here
    for (const IndexTerm& t : a.terms) {
      const Interval v = t.reduction ? Interval{0, s.reduction_axes[t.axis].extent} : tile[t.axis];
      const int64_t f0 = t.coef * floor_div(v.lo, t.divisor);
      const int64_t f1 = t.coef * floor_div(v.hi - 1, t.divisor);
      lo += std::min(f0, f1);
      hi += std::max(f0, f1);
    }
    r.push_back({lo, hi + 1});
  }
  return r;
}

// The values one index term takes over its axis range: the arithmetic progression
// first, first + step, ..., first + step * (count - 1) (step >= 0).
struct Progression {
  int64_t first = 0, step = 0, count = 1;
  int64_t last() const { return first + step * (count - 1); }
};

Progression term_values(const IndexTerm& t, const IterationSpace& s, const Region& tile) {
  const Interval v = t.reduction ? Interval{0, s.reduction_axes[t.axis].extent} : tile[t.axis];
  const int64_t q0 = floor_div(v.lo, t.divisor), q1 = floor_div(v.hi - 1, t.divisor);
  Progression p;
  p.count = q1 - q0 + 1;
  p.step = t.coef < 0 ? -t.coef : t.coef;
  p.first = t.coef < 0 ? t.coef * q1 : t.coef * q0;
  if (p.step == 0) p.count = 1;
  return p;
}

// In-bound ([0, dim)) min and max of offset + p, or nullopt when no value is in bounds.
std::optional<std::pair<int64_t, int64_t>> in_bounds(const Progression& p, int64_t offset,
                                                     int64_t dim) {
  const int64_t a = p.first + offset;
  int64_t j0 = 0, j1 = p.count - 1;
  if (p.step > 0) {
    if (a < 0) j0 = (-a + p.step - 1) / p.step;
    const int64_t over = a + p.step * j1 - (dim - 1);
    if (over > 0) j1 -= (over + p.step - 1) / p.step;
  } else if (a < 0 || a >= dim) {
    return std::nullopt;
  }
  if (j0 > j1) return std::nullopt;
  return std::make_pair(a + p.step * j0, a + p.step * j1);
}

// The exact in-bound bounding interval of an affine coordinate: with gaps between the values
// (strides, dilations) clamping the unclamped box can leave faces that nothing reads (a dilated
// tap in the padding). Maps here have at most two terms per coordinate; the one with fewer
// values is enumerated. More terms: the clamped box (a cover).
Interval exact_clamped(const AxisIndex& a, const IterationSpace& s, const Region& tile, int64_t dim,
                       const Interval& unclamped) {
  std::vector<Progression> ps;
  for (const IndexTerm& t : a.terms) ps.push_back(term_values(t, s, tile));
  std::optional<std::pair<int64_t, int64_t>> best;
  auto add = [&](std::optional<std::pair<int64_t, int64_t>> r) {
    if (!r) return;
    if (!best) {
      best = r;
    } else {
      best->first = std::min(best->first, r->first);
      best->second = std::max(best->second, r->second);
    }
  };
  if (ps.empty()) {
    add(in_bounds(Progression{}, a.offset, dim));
  } else if (ps.size() == 1) {
    add(in_bounds(ps[0], a.offset, dim));
  } else if (ps.size() == 2) {
    const Progression& few = ps[0].count <= ps[1].count ? ps[0] : ps[1];
    const Progression& many = ps[0].count <= ps[1].count ? ps[1] : ps[0];
    for (int64_t j = 0; j < few.count; ++j)
      add(in_bounds(many, a.offset + few.first + few.step * j, dim));
  } else {
    const int64_t lo = std::clamp<int64_t>(unclamped.lo, 0, dim);
    const int64_t hi = std::clamp<int64_t>(unclamped.hi, 0, dim);
    return {lo, std::max(lo, hi)};
  }
  if (!best) return {0, 0};
  return {best->first, best->second + 1};
}

Region empty_like(const Shape& s) {
  return Region(s.size(), Interval{0, 0});
}

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

// Bounding range (inclusive) of (v mod b) for v in [lo, hi).
std::pair<int64_t, int64_t> mod_range(int64_t lo, int64_t hi, int64_t b) {
  if (hi - lo >= b) return {0, b - 1};
  const int64_t a = mod(lo, b), z = mod(hi - 1, b);
  if (a <= z) return {a, z};
  return {0, b - 1};
}

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

}  // namespace

std::vector<AccessRegion> input_access_regions(const Graph& g, int o, const Region& tile,
                                               int output_index) {
  IterationSpaceMemo* memo = output_index == 0 ? IterationSpaceMemo::active(g) : nullptr;
  if (memo) return input_access_regions(g, o, memo->space(o), tile);
  return input_access_regions(g, o, iteration_space(g, o, output_index), tile);
}

std::vector<AccessRegion> input_access_regions(const Graph& g, int o, const IterationSpace& s,
                                               const Region& tile) {
  const Op& op = g.op(o);
  const Shape& y = s.output_axes;
  if (tile.size() != y.size()) {
    throw Error(op_ref(op) + ": tile " + region_str(tile) + " has rank " +
                std::to_string(tile.size()) + "; expected rank " + std::to_string(y.size()) +
                " (output " + shape_str(y) + ")");
  }
  for (size_t d = 0; d < y.size(); ++d) {
    if (tile[d].lo < 0 || tile[d].hi > y[d] || tile[d].hi < tile[d].lo) {
      throw Error(op_ref(op) + ": tile " + region_str(tile) + " leaves output " + shape_str(y) +
                  " in dim " + std::to_string(d) + "; expected 0 <= lo <= hi <= dim");
    }
  }
  const bool empty_tile = region_empty(tile);
  std::vector<AccessRegion> out(op.inputs.size());
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const InputAccess& acc = s.inputs[i];
    AccessRegion& r = out[i];
    if (acc.kind == InputAccess::Kind::Omitted) continue;
    const Shape& xs = g.tensor(op.inputs[i]).shape;
    if (empty_tile) {
      r.region = r.unclamped = empty_like(xs);
      continue;
    }
    if (acc.kind == InputAccess::Kind::Affine) {
      r.unclamped = eval_affine(acc, s, tile, xs);
      r.region.resize(xs.size());
      for (size_t d = 0; d < xs.size(); ++d) {
        r.region[d] = acc.dims[d].full ? Interval{0, xs[d]}
                                       : exact_clamped(acc.dims[d], s, tile, xs[d], r.unclamped[d]);
      }
      if (region_empty(r.region)) r.region = empty_like(xs);
      continue;
    }
    switch (op.kind) {
      case OpKind::ConvTranspose:
        r = conv_transpose_region(g, op, static_cast<int>(i), tile);
        break;
      case OpKind::Concat:
        r = concat_region(g, op, static_cast<int>(i), tile);
        break;
      case OpKind::Reshape:
      case OpKind::Flatten:
      case OpKind::Squeeze:
      case OpKind::Unsqueeze:
        r = reshape_region(xs, y, tile);
        break;
      case OpKind::Pad:
        r = pad_region(g, op, tile);
        break;
      case OpKind::Resize:
        r = resize_region(g, op, tile);
        break;
      case OpKind::DepthToSpace:
        r = depth_to_space_region(op, xs, tile);
        break;
      case OpKind::SpaceToDepth:
        r = space_to_depth_region(op, xs, tile);
        break;
      case OpKind::Gather:
        r = gather_data_region(g, op, tile);
        break;
      default:
        throw Error(op_ref(op) + ": no region rule for input " + std::to_string(i) +
                    "; expected an affine or custom map");
    }
    // Anything further out than the tensor is padding (or conservative).
    r.region = clamp_region(r.region, xs);
  }
  return out;
}

std::vector<Region> input_regions(const Graph& g, int op, const Region& output_tile,
                                  int output_index) {
  std::vector<Region> out;
  for (auto& r : input_access_regions(g, op, output_tile, output_index)) {
    out.push_back(std::move(r.region));
  }
  return out;
}

std::map<int, AccessRegion> propagate_regions(const Graph& g, const std::vector<int>& group,
                                              const std::map<int, Region>& seeds) {
  std::vector<bool> in_group(g.num_ops(), false);
  for (int o : group) {
    if (o < 0 || o >= g.num_ops()) {
      throw Error("propagate_regions: op index " + std::to_string(o) + " is not in graph '" +
                  g.name + "'; expected 0.." + std::to_string(g.num_ops() - 1));
    }
    in_group[o] = true;
  }
  std::map<int, AccessRegion> need;
  auto merge = [&](int t, const AccessRegion& r) {
    auto it = need.find(t);
    if (it == need.end()) {
      need[t] = r;
      return;
    }
    it->second.region = region_union(it->second.region, r.region);
    it->second.unclamped = region_union(it->second.unclamped, r.unclamped);
    it->second.exact = it->second.exact && r.exact;
  };
  for (const auto& [t, region] : seeds) {
    const int p = g.tensor(t).producer;
    if (p < 0 || !in_group[p]) {
      throw Error("propagate_regions: seed tensor '" + g.tensor(t).name +
                  "' is not produced by an op of the group; expected a group output");
    }
    merge(t, AccessRegion{region, region, true});
  }
  // Reverse topological order of the group's induced subgraph (Kahn on the group only, so the
  // cost does not grow with the whole graph).
  std::vector<int> ops = group;
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  std::map<int, int> pending;  // op -> number of unprocessed in-group successors
  for (int o : ops) {
    int n = 0;
    for (int s : g.successors(o)) n += in_group[s] ? 1 : 0;
    pending[o] = n;
  }
  std::vector<int> ready, order;
  for (int o : ops) {
    if (pending[o] == 0) ready.push_back(o);
  }
  while (!ready.empty()) {
    const int o = ready.back();
    ready.pop_back();
    order.push_back(o);
    for (int p : g.predecessors(o)) {
      if (in_group[p] && --pending[p] == 0) ready.push_back(p);
    }
  }
  if (order.size() != ops.size()) {
    throw Error("propagate_regions: the group has a cycle; expected ops of an acyclic graph");
  }
  for (const int o : order) {
    const Op& op = g.op(o);
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      auto found = need.find(op.outputs[k]);
      if (found == need.end() || region_empty(found->second.region)) continue;
      const std::vector<AccessRegion> regions =
          input_access_regions(g, o, found->second.region, static_cast<int>(k));
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        if (op.inputs[i] >= 0) merge(op.inputs[i], regions[i]);
      }
    }
  }
  return need;
}

std::map<int, AccessRegion> propagate_tile(const Graph& g, const std::vector<int>& group,
                                           int output_op, const Region& tile) {
  if (std::find(group.begin(), group.end(), output_op) == group.end()) {
    throw Error("propagate_tile: output op '" + g.op(output_op).name +
                "' is not in the group; expected one of the group's ops");
  }
  return propagate_regions(g, group, {{g.op(output_op).outputs[0], tile}});
}

}  // namespace dgs
