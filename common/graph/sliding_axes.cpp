// Output axes a tile slides along without changing its reads (see sliding_axes.h).
#include "common/graph/sliding_axes.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dgs {

namespace {

// Whether term `t` takes one value over its whole axis: floor(axis / divisor) with the divisor at
// least the axis's extent (a convolution's input channel over its output channels when it has
// one group), or a reduction axis of extent 1.
bool constant(const IndexTerm& t, const IterationSpace& s) {
  const int64_t extent = t.reduction ? s.reduction_axes[static_cast<size_t>(t.axis)].extent
                                     : s.output_axes[static_cast<size_t>(t.axis)];
  return t.coef == 0 || extent <= 1 || t.divisor >= extent;
}

bool depends_on(const AxisIndex& a, int axis, const IterationSpace& s) {
  if (a.full) return false;
  for (const IndexTerm& t : a.terms)
    if (!t.reduction && t.axis == axis && !constant(t, s)) return true;
  return false;
}

// Whether input dim `a` is output axis `axis` itself, as sliding_axes requires.
bool is_the_axis(const AxisIndex& a, int axis, const IterationSpace& s) {
  if (a.full || a.offset != 0) return false;
  int own = 0;
  for (const IndexTerm& t : a.terms) {
    if (!t.reduction && t.axis == axis && t.coef == 1 && t.divisor == 1) {
      ++own;
      continue;
    }
    if (!constant(t, s)) return false;
  }
  return own == 1;
}

}  // namespace

SlidingAxes sliding_axes(const Graph& g, int op, const IterationSpace& s) {
  const Op& o = g.op(op);
  SlidingAxes r;
  r.driven.assign(s.inputs.size(), 0);
  for (const InputAccess& in : s.inputs)
    if (in.kind == InputAccess::Kind::Custom) return r;
  const int axes = static_cast<int>(std::min<size_t>(s.output_axes.size(), 64));
  for (int axis = 0; axis < axes; ++axis) {
    bool slides = true;
    std::vector<uint64_t> driven(s.inputs.size(), 0);
    for (size_t i = 0; i < s.inputs.size() && slides; ++i) {
      const InputAccess& in = s.inputs[i];
      if (in.kind != InputAccess::Kind::Affine || i >= o.inputs.size() || o.inputs[i] < 0) continue;
      const Shape& shape = g.tensor(o.inputs[i]).shape;
      for (size_t d = 0; d < in.dims.size() && slides; ++d) {
        if (!depends_on(in.dims[d], axis, s)) continue;
        slides = d < shape.size() && d < 64 &&
                 shape[d] == s.output_axes[static_cast<size_t>(axis)] &&
                 is_the_axis(in.dims[d], axis, s);
        if (slides) driven[i] |= uint64_t{1} << d;
      }
    }
    if (!slides) continue;
    r.output |= uint64_t{1} << axis;
    for (size_t i = 0; i < driven.size(); ++i) r.driven[i] |= driven[i];
  }
  return r;
}

}  // namespace dgs
