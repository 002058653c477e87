// Reduction slices (see reduction_slice.h).
#include "common/graph/reduction_slice.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "common/graph/iteration_space_internal.h"

namespace dgs {

namespace {

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

// The extent of the splittable axis, read off the shapes (the iteration space's "c_in" and "k").
int64_t splittable_extent(const Graph& g, const Op& o) {
  const Shape& a = g.tensor(o.inputs.at(0)).shape;
  switch (o.kind) {
    case OpKind::Conv:
      return g.tensor(o.inputs.at(1)).shape.at(1);
    case OpKind::Gemm:
      return o.attrs.get_int("transA", 0) != 0 ? a.at(0) : a.at(1);
    default:  // MatMul
      return a.back();
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
  const int64_t extent = splittable_extent(g, o);
  if (r.range.lo < 0 || r.range.hi > extent || r.range.lo >= r.range.hi)
    return ref + " reduction range [" + std::to_string(r.range.lo) + ":" +
           std::to_string(r.range.hi) + ") of '" + axis +
           "' is empty or outside [0:" + std::to_string(extent) + ")";
  return "";
}

std::vector<Region> input_regions_for_slice(const Graph& g, int op, const Region& tile,
                                            const ReductionRange& r) {
  std::vector<Region> regions;
  for (AccessRegion& a : input_access_regions_for_slice(g, op, tile, r))
    regions.push_back(std::move(a.region));
  return regions;
}

namespace {

// The checks of reduction_slice_error without building its message (this runs for every atom
// and partial-sum task); the message only when one fails.
void check_slice(const Graph& g, int op, const ReductionRange& r) {
  const Op& o = g.op(op);
  const std::string_view axis = splittable_axis(o.kind);
  if (axis.empty() || r.axis != axis || r.range.lo < 0 || r.range.hi > splittable_extent(g, o) ||
      r.range.lo >= r.range.hi)
    throw Error(reduction_slice_error(g, op, r));
}

// The index in `s` (iteration_space(g, op) of a checked slice) of the reduction axis `r`
// narrows; throws when a map reads the axis through a divisor.
int slice_axis(const Graph& g, int op, const ReductionRange& r, const IterationSpace& s) {
  const int ax = axis_index(s, r.axis);
  for (const InputAccess& acc : s.inputs) {
    if (acc.kind != InputAccess::Kind::Affine) continue;
    for (const AxisIndex& a : acc.dims)
      for (const IndexTerm& t : a.terms)
        if (t.reduction && t.axis == ax && t.divisor != 1)
          throw Error("op '" + g.op(op).name + "': reduction axis '" + r.axis +
                      "' is read through a divisor; a slice of it cannot be shifted");
  }
  return ax;
}

}  // namespace

std::vector<AccessRegion> input_access_regions_for_slice(const Graph& g, int op, const Region& tile,
                                                         const ReductionRange& r) {
  check_slice(g, op, r);
  // The op's space as it is (its graph's memo's, without a copy), narrowed while evaluating.
  std::optional<IterationSpace> own;
  IterationSpaceMemo* memo = IterationSpaceMemo::active(g);
  const IterationSpace& s = memo ? memo->space(op) : own.emplace(iteration_space(g, op));
  const iteration_space_internal::ReductionNarrowing n{slice_axis(g, op, r, s), r.range.lo,
                                                       r.range.size()};
  return iteration_space_internal::narrowed_access_regions(g, op, s, tile, n);
}

IterationSpace iteration_space_for_slice(const Graph& g, int op, const ReductionRange& r) {
  check_slice(g, op, r);
  // The op's iteration space with the axis narrowed to the range: r' in [0, hi - lo) stands for
  // r = lo + r', so every term coef * r gains coef * lo in its coordinate's offset.
  IterationSpace s = iteration_space(g, op);
  const int ax = slice_axis(g, op, r, s);
  s.reduction_axes[static_cast<size_t>(ax)].extent = r.range.size();
  for (InputAccess& acc : s.inputs) {
    if (acc.kind != InputAccess::Kind::Affine) continue;
    for (AxisIndex& a : acc.dims)
      for (const IndexTerm& t : a.terms)
        if (t.reduction && t.axis == ax) a.offset += t.coef * r.range.lo;
  }
  return s;
}

}  // namespace dgs
