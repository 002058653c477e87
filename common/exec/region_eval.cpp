// Region evaluation on the CPU reference executor (see region_eval.h).
#include "common/exec/region_eval.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "common/exec/executor.h"

namespace dgs {

namespace {

std::string op_ref(const Op& op) {
  return "op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) + ")";
}

// Row-major strides of a shape.
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// Calls fn(k, idx) for every element of region r (k = row-major index within r, idx = the
// element's coordinates in the whole tensor).
template <class F>
void for_each_index(const Region& r, F fn) {
  const int64_t n = region_numel(r);
  if (n == 0) return;
  std::vector<int64_t> idx(r.size());
  for (size_t d = 0; d < r.size(); ++d) idx[d] = r[d].lo;
  for (int64_t k = 0; k < n; ++k) {
    fn(k, idx);
    for (size_t d = r.size(); d-- > 0;) {
      if (++idx[d] < r[d].hi) break;
      idx[d] = r[d].lo;
    }
  }
}

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// A sliding-window axis read off the iteration space: in = stride * out + dilation * r - pad.
struct WindowAxis {
  int64_t stride = 1, dilation = 1, pad_begin = 0, kernel = 1;
};

WindowAxis window_axis(const IterationSpace& s, const AxisIndex& a) {
  WindowAxis w;
  w.pad_begin = -a.offset;
  for (const IndexTerm& t : a.terms) {
    if (t.reduction) {
      w.dilation = t.coef;
      w.kernel = s.reduction_axes[static_cast<size_t>(t.axis)].extent;
    } else {
      w.stride = t.coef;
    }
  }
  return w;
}

// The input interval [c0, c1) a window axis reads for outputs [o0, o1) of an input of extent
// `in`, and the pads that make the window over it give exactly those outputs.
struct WindowCut {
  Interval in;
  int64_t pad_begin = 0, pad_end = 0;
};

WindowCut window_cut(const WindowAxis& w, const Interval& o, int64_t in) {
  const int64_t u0 = o.lo * w.stride - w.pad_begin;
  const int64_t uend = (o.hi - 1) * w.stride - w.pad_begin + w.dilation * (w.kernel - 1) + 1;
  WindowCut c;
  c.in = {std::clamp<int64_t>(u0, 0, in), std::clamp<int64_t>(uend, 0, in)};
  c.pad_begin = c.in.lo - u0;
  c.pad_end = uend - c.in.hi;
  return c;
}

// Whether the result of a "sliceable" evaluation covers `out` in dim d ("the same range") or the
// whole output dim (reduced axes); returns the result's region in output coordinates.
Region result_region(const Op& op, const Shape& result, const Region& out, const Shape& full) {
  if (result.size() != out.size())
    throw Error(op_ref(op) + ": region evaluation gave rank " + std::to_string(result.size()) +
                " for an output of rank " + std::to_string(out.size()));
  Region r(out.size());
  for (size_t d = 0; d < out.size(); ++d) {
    if (result[d] == out[d].size()) {
      r[d] = out[d];
    } else if (result[d] == full[d]) {
      r[d] = {0, full[d]};
    } else {
      throw Error(op_ref(op) + ": region evaluation gave extent " + std::to_string(result[d]) +
                  " in dim " + std::to_string(d) + " for region " + region_str(out));
    }
  }
  return r;
}

enum class Family { Window, Sliceable, IndexMap, RowMajor, Whole };

Family family_of(const Graph& g, int o, int output_index) {
  const Op& op = g.op(o);
  switch (op.kind) {
    case OpKind::Conv:
      return Family::Window;
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      if (output_index != 0) return Family::Whole;
      if (op.kind == OpKind::AveragePool && op.attrs.get_int("count_include_pad", 0) != 0 &&
          op.attrs.get_int("ceil_mode", 0) != 0)
        return Family::Whole;
      return Family::Window;
    case OpKind::Slice:
    case OpKind::Split:
    case OpKind::Expand:
      return Family::IndexMap;
    case OpKind::Reshape:
    case OpKind::Flatten:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return Family::RowMajor;
    case OpKind::BatchNormalization:
      return output_index == 0 ? Family::Sliceable : Family::Whole;
    case OpKind::LayerNormalization:
    case OpKind::Softmax:
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
    case OpKind::MatMul:
    case OpKind::Gemm:
    case OpKind::Transpose:
    case OpKind::Concat:
      return Family::Sliceable;
    case OpKind::Gather:  // constant indices: the data's needed axis range may be narrowed
      return g.tensor(op.inputs.at(1)).role == TensorRole::Constant ? Family::Whole
                                                                    : Family::Sliceable;
    case OpKind::ConvTranspose:
    case OpKind::Resize:
    case OpKind::Pad:
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      return Family::Whole;
    default:
      return is_elementwise(op.kind) ? Family::Sliceable : Family::Whole;
  }
}

// cut_piece with its error context made by `what()` only when it throws (a cut runs once per input
// per tile, and building the message each time was a measurable part of a plan's run).
template <class What>
TensorData cut_piece_or_throw(const TensorPiece& piece, const Region& need, What&& what) {
  if (!piece.data) throw Error(what() + ": no value");
  const TensorData& d = *piece.data;
  bool fits = d.shape.size() == piece.region.size();
  for (size_t k = 0; fits && k < d.shape.size(); ++k) fits = d.shape[k] == piece.region[k].size();
  if (!fits)
    throw Error(what() + ": piece " + tensor_data_str(d) + " does not match its region " +
                region_str(piece.region));
  if (piece.region == need) return d;
  if (region_empty(need)) return TensorData::zeros(region_shape(need), d.dtype);
  if (region_contains(piece.region, need))
    return extract_region(d, region_relative(need, piece.region));
  if (!d.is_float())
    throw Error(what() + ": integer input must be given whole; got region " +
                region_str(piece.region) + " for a need of " + region_str(need));
  TensorData t = TensorData::zeros(region_shape(need), d.dtype);
  std::fill(t.f.begin(), t.f.end(), std::numeric_limits<float>::quiet_NaN());
  const Region common = region_intersect(piece.region, need);
  if (!region_empty(common))
    copy_region(d, region_relative(common, piece.region), t, region_relative(common, need));
  return t;
}

class RegionEval {
 public:
  RegionEval(const Graph& g, int op, const Region& out, const std::vector<TensorPiece>& inputs,
             int output_index, const ReductionRange* slice)
      : g_(g), o_(op), op_(g.op(op)), out_(out), in_(inputs), k_(output_index), slice_(slice) {}

  // Output elements the evaluation computed (the work): the region, or more where the op is
  // computed over a larger extent (reduced axes whole, whole-op fallback).
  int64_t work() const { return work_; }

  TensorData run() {
    const Shape& full = g_.tensor(op_.outputs.at(static_cast<size_t>(k_))).shape;
    if (out_.size() != full.size() || !region_contains(full_region(full), out_))
      throw Error(op_ref(op_) + ": region " + region_str(out_) + " is outside output " +
                  std::to_string(k_) + " " + shape_str(full));
    if (in_.size() != op_.inputs.size())
      throw Error(op_ref(op_) + ": " + std::to_string(in_.size()) + " input pieces for " +
                  std::to_string(op_.inputs.size()) + " inputs");
    if (slice_) {
      const std::string err = reduction_slice_error(g_, o_, *slice_);
      if (!err.empty()) throw Error(err);
      need_ = input_regions_for_slice(g_, o_, out_, *slice_);
    } else {
      need_ = input_regions(g_, o_, out_, k_);
    }
    if (region_empty(out_))
      return TensorData::zeros(region_shape(out_), g_.tensor(op_.outputs[0]).dtype);
    switch (family_of(g_, o_, k_)) {
      case Family::Window:
        if (auto r = window(); r) return std::move(*r);
        return whole();
      case Family::Sliceable:
        return sliceable();
      case Family::IndexMap:
        return index_map();
      case Family::RowMajor:
        return row_major();
      case Family::Whole:
        return whole();
    }
    return whole();
  }

 private:
  // Counts output `k` of a compute_op result as work.
  std::vector<TensorData> counted(std::vector<TensorData> outs, int k) {
    work_ += outs.at(static_cast<size_t>(k)).numel();
    return outs;
  }

  // The cut of input i to region r (nullptr-piece constants from their graph data).
  TensorData cut(size_t i, const Region& r) {
    const Tensor& t = g_.tensor(op_.inputs[i]);
    const auto what = [&] {
      return op_ref(op_) + " input " + std::to_string(i) + " '" + t.name + "'";
    };
    if (!in_[i].data) {
      if (t.role != TensorRole::Constant)
        throw Error(what() +
                    " has no value; expected a piece (only Constant inputs may be left out)");
      const TensorData c = constant_value(t);
      return cut_piece_or_throw(whole_piece(c), r, what);
    }
    return cut_piece_or_throw(in_[i], r, what);
  }

  // The op's iteration space: the active IterationSpaceMemo's (run_plan keeps one), else built
  // into `own`.
  const IterationSpace& space(IterationSpace& own) const {
    if (IterationSpaceMemo* memo = k_ == 0 ? IterationSpaceMemo::active(g_) : nullptr)
      return memo->space(o_);
    own = iteration_space(g_, o_, k_);
    return own;
  }

  bool present(size_t i) const { return i < op_.inputs.size() && op_.inputs[i] >= 0; }

  std::vector<TensorData> cut_all() {
    std::vector<TensorData> subs(op_.inputs.size());
    for (size_t i = 0; i < op_.inputs.size(); ++i)
      if (present(i)) subs[i] = cut(i, need_[i]);
    return subs;
  }

  static std::vector<const TensorData*> ptrs(const std::vector<TensorData>& v,
                                             const std::vector<bool>& use) {
    std::vector<const TensorData*> p(v.size(), nullptr);
    for (size_t i = 0; i < v.size(); ++i)
      if (use[i]) p[i] = &v[i];
    return p;
  }

  TensorData take_output(std::vector<TensorData> outs, const Region& result_at) {
    TensorData& r = outs.at(static_cast<size_t>(k_));
    if (result_at == out_) return std::move(r);
    return extract_region(r, region_relative(out_, result_at));
  }

  // Conv and pooling with the region's own padding.
  std::optional<TensorData> window() {
    IterationSpace own;
    const IterationSpace& s = space(own);
    const Shape& x = g_.tensor(op_.inputs[0]).shape;
    const size_t nd = x.size() - 2;
    Region xr = need_[0];
    std::vector<int64_t> pads(2 * nd);
    for (size_t i = 0; i < nd; ++i) {
      const WindowAxis w = window_axis(s, s.inputs[0].dims[2 + i]);
      const WindowCut c = window_cut(w, out_[2 + i], x[2 + i]);
      if (c.in.empty()) return padding_only();  // the region's windows read padding only
      xr[2 + i] = c.in;
      pads[i] = c.pad_begin;
      pads[nd + i] = c.pad_end;
    }
    Op sub = op_;
    sub.attrs.set("pads", pads);
    sub.attrs.set("auto_pad", std::string("NOTSET"));
    if (op_.kind != OpKind::Conv) {
      sub.attrs.set("ceil_mode", int64_t{0});
      xr[0] = out_[0];
      xr[1] = out_[1];
      const TensorData xs = cut(0, xr);
      return counted(compute_op(sub, {&xs}, 1), 0).at(0);
    }
    // Conv: the output channels' groups (and, with a slice, the slice's input channels).
    const Shape& wshape = g_.tensor(op_.inputs[1]).shape;
    const int64_t group = op_.attrs.get_int("group", 1);
    const int64_t mg = wshape[0] / group, cg = wshape[1];
    const int64_t g0 = out_[1].lo / mg, g1 = (out_[1].hi - 1) / mg, ng = g1 - g0 + 1;
    const Interval red = slice_ ? slice_->range : Interval{0, cg};
    const int64_t rc = red.size();
    xr[0] = out_[0];
    xr[1] = {g0 * cg + red.lo, g1 * cg + red.hi};
    TensorData xs = cut(0, xr);
    if (ng > 1 && rc != cg) xs = gather_group_channels(xs, ng, cg, rc);
    // Within one group only the region's output channels are computed; a region spanning groups
    // computes its groups' channels whole (at most two partial groups of extra work).
    Region wr = full_region(wshape);
    wr[0] = ng == 1 ? out_[1] : Interval{g0 * mg, (g1 + 1) * mg};
    wr[1] = red;
    const TensorData ws = cut(1, wr);
    TensorData bs;
    const bool bias = present(2) && red.lo == 0;
    if (bias) bs = cut(2, {wr[0]});
    sub.attrs.set("group", ng);
    std::vector<int64_t> kernel(wshape.begin() + 2, wshape.end());
    sub.attrs.set("kernel_shape", kernel);
    std::vector<const TensorData*> in = {&xs, &ws};
    if (bias) in.push_back(&bs);
    TensorData y = counted(compute_op(sub, in, 1), 0).at(0);
    Region at = out_;
    at[1] = wr[0];
    return extract_region(y, region_relative(out_, at));
  }

  // A region whose windows lie in the padding: a Conv gives its bias there (added by the slice that
  // starts at 0) or zero; pooling over padding only is left to the whole op.
  std::optional<TensorData> padding_only() {
    if (op_.kind != OpKind::Conv) return std::nullopt;
    TensorData y = TensorData::zeros(region_shape(out_), g_.tensor(op_.outputs[0]).dtype);
    work_ += region_numel(out_);
    if (!present(2) || (slice_ && slice_->range.lo != 0)) return y;
    const TensorData b = cut(2, {out_[1]});
    const int64_t per_channel = region_numel(out_) / (out_[0].size() * out_[1].size());
    for (int64_t n = 0; n < out_[0].size(); ++n)
      for (int64_t c = 0; c < out_[1].size(); ++c)
        std::fill_n(y.f.begin() + (n * out_[1].size() + c) * per_channel, per_channel,
                    b.f[static_cast<size_t>(c)]);
    return y;
  }

  // Input channels g*cg + [0, rc) of ng consecutive groups, from a cut that starts at the first
  // group's slice and spans (ng - 1) * cg + rc channels.
  static TensorData gather_group_channels(const TensorData& x, int64_t ng, int64_t cg, int64_t rc) {
    Shape s = x.shape;
    s[1] = ng * rc;
    Region r = full_region(x.shape);
    TensorData y = TensorData::zeros(s, x.dtype);
    for (int64_t j = 0; j < ng; ++j) {
      r[1] = {j * cg, j * cg + rc};
      Region to = full_region(s);
      to[1] = {j * rc, (j + 1) * rc};
      insert_region(y, to, extract_region(x, r));
    }
    return y;
  }

  // The op on the cut pieces; the region cut from its result.
  TensorData sliceable() {
    std::vector<TensorData> subs = cut_all();
    std::vector<bool> use(subs.size());
    for (size_t i = 0; i < subs.size(); ++i) use[i] = present(i);
    if (op_.kind == OpKind::Concat) {
      for (size_t i = 0; i < subs.size(); ++i) use[i] = use[i] && !region_empty(need_[i]);
    }
    if (op_.kind == OpKind::LayerNormalization) {
      // Scale and bias apply along the normalised axes, which the result holds whole.
      for (size_t i = 1; i < subs.size() && i < 3; ++i)
        if (present(i)) subs[i] = cut(i, full_region(g_.tensor(op_.inputs[i]).shape));
    }
    if (op_.kind == OpKind::Gemm && slice_ && slice_->range.lo != 0 && use.size() > 2)
      use[2] = false;  // beta * C: added once, by the slice that starts at 0
    if (op_.kind == OpKind::Gather) {
      const Shape& data = g_.tensor(op_.inputs[0]).shape;
      int64_t axis = op_.attrs.get_int("axis", 0);
      if (axis < 0) axis += static_cast<int64_t>(data.size());
      if (need_[0][static_cast<size_t>(axis)] != Interval{0, data[static_cast<size_t>(axis)]})
        return whole();
    }
    const Shape& full = g_.tensor(op_.outputs[static_cast<size_t>(k_)]).shape;
    std::vector<TensorData> outs =
        counted(compute_op(op_, ptrs(subs, use), static_cast<int>(op_.outputs.size())), k_);
    const Region at = result_region(op_, outs.at(static_cast<size_t>(k_)).shape, out_, full);
    return take_output(std::move(outs), at);
  }

  // Single-input ops whose input coordinate is an affine function of the output coordinate.
  TensorData index_map() {
    IterationSpace own;
    const IterationSpace& s = space(own);
    const InputAccess& acc = s.inputs[0];
    if (acc.kind != InputAccess::Kind::Affine || !s.reduction_axes.empty()) return whole();
    const TensorData x = cut(0, need_[0]);
    const std::vector<int64_t> st = strides_of(x.shape);
    TensorData y = TensorData::zeros(region_shape(out_), x.dtype);
    work_ += region_numel(out_);
    for_each_index(out_, [&](int64_t k, const std::vector<int64_t>& idx) {
      int64_t off = 0;
      for (size_t d = 0; d < acc.dims.size(); ++d) {
        const AxisIndex& a = acc.dims[d];
        int64_t c = a.offset;
        for (const IndexTerm& t : a.terms)
          c += t.coef * floor_div(idx[static_cast<size_t>(t.axis)], t.divisor);
        off += (c - need_[0][d].lo) * st[d];
      }
      if (y.is_float()) {
        y.f[static_cast<size_t>(k)] = x.f[static_cast<size_t>(off)];
      } else {
        y.i[static_cast<size_t>(k)] = x.i[static_cast<size_t>(off)];
      }
    });
    return y;
  }

  // Reshape-like ops: the same row-major element order.
  TensorData row_major() {
    const Shape& xs = g_.tensor(op_.inputs[0]).shape;
    const Shape& ys = g_.tensor(op_.outputs[0]).shape;
    const TensorData x = cut(0, need_[0]);
    const std::vector<int64_t> yst = strides_of(ys), xst = strides_of(xs),
                               cst = strides_of(x.shape);
    TensorData y = TensorData::zeros(region_shape(out_), x.dtype);
    work_ += region_numel(out_);
    for_each_index(out_, [&](int64_t k, const std::vector<int64_t>& idx) {
      int64_t flat = 0;
      for (size_t d = 0; d < idx.size(); ++d) flat += idx[d] * yst[d];
      int64_t off = 0;
      for (size_t d = 0; d < xs.size(); ++d) {
        const int64_t c = flat / xst[d];
        flat -= c * xst[d];
        off += (c - need_[0][d].lo) * cst[d];
      }
      if (y.is_float()) {
        y.f[static_cast<size_t>(k)] = x.f[static_cast<size_t>(off)];
      } else {
        y.i[static_cast<size_t>(k)] = x.i[static_cast<size_t>(off)];
      }
    });
    return y;
  }

  // The whole op on inputs that hold the pieces (NaN elsewhere), and the region cut out.
  TensorData whole() {
    if (slice_)
      throw Error(op_ref(op_) + ": a reduction slice needs the op's own region evaluation");
    std::vector<TensorData> full(op_.inputs.size());
    std::vector<bool> use(op_.inputs.size());
    for (size_t i = 0; i < op_.inputs.size(); ++i) {
      if (!present(i)) continue;
      use[i] = true;
      full[i] = cut(i, full_region(g_.tensor(op_.inputs[i]).shape));
    }
    std::vector<TensorData> outs =
        counted(compute_op(op_, ptrs(full, use), static_cast<int>(op_.outputs.size())), k_);
    return take_output(std::move(outs),
                       full_region(g_.tensor(op_.outputs[static_cast<size_t>(k_)]).shape));
  }

  const Graph& g_;
  int o_;
  const Op& op_;
  const Region& out_;
  const std::vector<TensorPiece>& in_;
  int k_;
  const ReductionRange* slice_;
  std::vector<Region> need_;
  int64_t work_ = 0;
};

}  // namespace

TensorData cut_piece(const TensorPiece& piece, const Region& need, const std::string& what) {
  return cut_piece_or_throw(piece, need, [&] { return what; });
}

TensorData compute_op_region(const Graph& g, int op, const Region& out,
                             const std::vector<TensorPiece>& inputs, int output_index,
                             const ReductionRange* slice, int64_t* elements_computed) {
  RegionEval e(g, op, out, inputs, output_index, slice);
  TensorData y = e.run();
  if (elements_computed) *elements_computed += e.work();
  return y;
}

bool region_eval_is_proportional(const Graph& g, int op, int output_index) {
  return family_of(g, op, output_index) != Family::Whole;
}

}  // namespace dgs
