// Reduction slices (see reduction_slice.h).
#include "common/graph/reduction_slice.h"

#include <algorithm>

namespace dgs {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The reduction axis an op's partial sums may split, or "" for an op that has none.
const char* splittable_axis(OpKind k) {
  switch (k) {
    case OpKind::Conv:
      return "c_in";
    case OpKind::Gemm:
    case OpKind::MatMul:
      return "k";
    default:
      return "";
  }
}

int axis_index(const IterationSpace& s, const std::string& name) {
  for (size_t i = 0; i < s.reduction_axes.size(); ++i)
    if (s.reduction_axes[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::string reduction_slice_error(const Graph& g, int op, const ReductionRange& r) {
  const Op& o = g.op(op);
  const std::string ref = "op '" + o.name + "' (" + std::string(op_kind_name(o.kind)) + ")";
  const std::string axis = splittable_axis(o.kind);
  if (axis.empty())
    return ref +
           " has no reduction that partial sums can split; expected Conv (over c_in), Gemm "
           "or MatMul (over k)";
  if (r.axis != axis)
    return ref + " is split over reduction axis '" + r.axis + "'; expected '" + axis + "'";
  const IterationSpace s = iteration_space(g, op);
  const int a = axis_index(s, axis);
  const int64_t extent = s.reduction_axes[static_cast<size_t>(a)].extent;
  if (r.range.lo < 0 || r.range.hi > extent || r.range.lo >= r.range.hi)
    return ref + " reduction range [" + std::to_string(r.range.lo) + ":" +
           std::to_string(r.range.hi) + ") of '" + axis +
           "' is empty or outside [0:" + std::to_string(extent) + ")";
  return "";
}

std::vector<Region> input_regions_for_slice(const Graph& g, int op, const Region& tile,
                                            const ReductionRange& r) {
  const std::string err = reduction_slice_error(g, op, r);
  if (!err.empty()) throw Error(err);
  std::vector<Region> regions = input_regions(g, op, tile);
  if (region_empty(tile)) return regions;
  const IterationSpace s = iteration_space(g, op);
  const int ax = axis_index(s, r.axis);
  const Op& o = g.op(op);
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    const InputAccess& acc = s.inputs[i];
    if (acc.kind != InputAccess::Kind::Affine) continue;
    const Shape& shape = g.tensor(o.inputs[i]).shape;
    for (size_t d = 0; d < acc.dims.size(); ++d) {
      const AxisIndex& a = acc.dims[d];
      const bool sliced = std::any_of(a.terms.begin(), a.terms.end(), [&](const IndexTerm& t) {
        return t.reduction && t.axis == ax;
      });
      if (a.full || !sliced) continue;
      int64_t lo = a.offset, hi = a.offset;  // hi inclusive
      for (const IndexTerm& t : a.terms) {
        const Interval v = !t.reduction ? tile[static_cast<size_t>(t.axis)]
                           : t.axis == ax
                               ? r.range
                               : Interval{0, s.reduction_axes[static_cast<size_t>(t.axis)].extent};
        const int64_t f0 = t.coef * floor_div(v.lo, t.divisor);
        const int64_t f1 = t.coef * floor_div(v.hi - 1, t.divisor);
        lo += std::min(f0, f1);
        hi += std::max(f0, f1);
      }
      regions[i][d] = {std::max<int64_t>(lo, 0), std::min<int64_t>(hi + 1, shape[d])};
    }
  }
  return regions;
}

}  // namespace dgs
