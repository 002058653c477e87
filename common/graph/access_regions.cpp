#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/graph/iteration_space.h"
#include "common/graph/iteration_space_internal.h"

// The regions of its inputs that an op's output tile needs: Affine maps evaluated by interval
// arithmetic, Custom ones by custom_regions.cpp.
namespace dgs {

namespace {

using namespace iteration_space_internal;

// The values a term's axis takes: the tile's range of an output axis, or the (narrowed) range of
// a reduction axis.
Interval term_range(const IndexTerm& t, const IterationSpace& s, const Region& tile,
                    const ReductionNarrowing& n) {
  if (!t.reduction) return tile[t.axis];
  return {0, t.axis == n.axis ? n.extent : s.reduction_axes[t.axis].extent};
}

// A coordinate's offset with the narrowing's shift.
int64_t offset_of(const AxisIndex& a, const ReductionNarrowing& n) {
  int64_t offset = a.offset;
  if (n.axis >= 0)
    for (const IndexTerm& t : a.terms)
      if (t.reduction && t.axis == n.axis) offset += t.coef * n.lo;
  return offset;
}

// The values one index term takes over its axis range: the arithmetic progression
// first, first + step, ..., first + step * (count - 1) (step >= 0).
struct Progression {
  int64_t first = 0, step = 0, count = 1;
  int64_t last() const { return first + step * (count - 1); }
};

// The floored ends of a term over its axis range: floor(v.lo / divisor), floor((v.hi - 1) /
// divisor) (no division for the usual divisor 1).
std::pair<int64_t, int64_t> floored_ends(const IndexTerm& t, const Interval& v) {
  if (t.divisor == 1) return {v.lo, v.hi - 1};
  return {floor_div(v.lo, t.divisor), floor_div(v.hi - 1, t.divisor)};
}

Progression term_values(const IndexTerm& t, int64_t q0, int64_t q1) {
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
  if (p.step == 1) {  // the usual unit step, without the divisions below
    if (a < 0) j0 = -a;
    const int64_t over = a + j1 - (dim - 1);
    if (over > 0) j1 -= over;
  } else if (p.step > 0) {
    if (a < 0) j0 = (-a + p.step - 1) / p.step;
    const int64_t over = a + p.step * j1 - (dim - 1);
    if (over > 0) j1 -= (over + p.step - 1) / p.step;
  } else if (a < 0 || a >= dim) {
    return std::nullopt;
  }
  if (j0 > j1) return std::nullopt;
  return std::make_pair(a + p.step * j0, a + p.step * j1);
}

// How many distinct values the in-bound progressions `parts` (value lo, lo + step, ..., hi; one
// step for all) take together: per residue modulo the step, the union of their index ranges.
int64_t distinct_values(std::vector<std::pair<int64_t, int64_t>>& parts, int64_t step) {
  if (step <= 0) step = 1;
  std::vector<std::tuple<int64_t, int64_t, int64_t>> ranges;
  ranges.reserve(parts.size());
  for (const auto& [lo, hi] : parts) {
    const int64_t r = ((lo % step) + step) % step;
    ranges.emplace_back(r, (lo - r) / step, (hi - r) / step);
  }
  std::sort(ranges.begin(), ranges.end());
  int64_t n = 0, residue = -1, end = 0;  // end: one past the last counted index of `residue`
  for (const auto& [r, k0, k1] : ranges) {
    if (r != residue) {
      residue = r;
      end = k0;
    }
    const int64_t from = std::max(k0, end);
    if (k1 >= from) {
      n += k1 - from + 1;
      end = k1 + 1;
    }
  }
  return n;
}

// Ranks up to which gaps are counted (higher dims: every coordinate of the box).
constexpr size_t kMaxGapDims = 8;

// The exact in-bound bounding interval of an affine coordinate, and how many of its values the
// coordinate takes (`touched`): with gaps between the values (strides, dilations) clamping the
// unclamped box can leave faces that nothing reads (a dilated tap in the padding), and a window
// smaller than its stride (a 1x1 conv of stride 2) reads only some rows of its box. Maps here
// have at most two terms per coordinate; the one with fewer values is enumerated. More terms:
// the clamped box (a cover, every value counted).
// The box before clamping (`unclamped`: offset + the min and max of every term over its axis
// range, interval arithmetic) comes out of the same pass over the terms, each term's range and
// floored ends computed once.
Interval exact_clamped(const AxisIndex& a, const IterationSpace& s, const Region& tile,
                       const ReductionNarrowing& n, int64_t dim, Interval& unclamped,
                       int64_t& touched) {
  const int64_t offset = offset_of(a, n);
  int64_t lo = offset, hi = offset;  // hi inclusive here
  Progression ps[2];
  const bool few_terms = a.terms.size() <= 2;
  for (size_t i = 0; i < a.terms.size(); ++i) {
    const IndexTerm& t = a.terms[i];
    const auto [q0, q1] = floored_ends(t, term_range(t, s, tile, n));
    const int64_t f0 = t.coef * q0, f1 = t.coef * q1;
    lo += std::min(f0, f1);
    hi += std::max(f0, f1);
    if (few_terms) ps[i] = term_values(t, q0, q1);
  }
  unclamped = {lo, hi + 1};
  if (!few_terms) {
    const int64_t clo = std::clamp<int64_t>(unclamped.lo, 0, dim);
    const int64_t chi = std::clamp<int64_t>(unclamped.hi, 0, dim);
    touched = -1;
    return {clo, std::max(clo, chi)};
  }
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
  auto count = [](const std::pair<int64_t, int64_t>& r, int64_t step) {
    return step > 0 ? (r.second - r.first) / step + 1 : 1;
  };
  touched = -1;  // every value of the interval
  if (a.terms.empty()) {
    add(in_bounds(Progression{}, offset, dim));
  } else if (a.terms.size() == 1) {
    add(in_bounds(ps[0], offset, dim));
    if (best) touched = count(*best, ps[0].step);
  } else {
    const Progression& few = ps[0].count <= ps[1].count ? ps[0] : ps[1];
    const Progression& many = ps[0].count <= ps[1].count ? ps[1] : ps[0];
    // Consecutive values of one term at least as many as the other's step: no gaps.
    const bool dense = (few.step <= 1 && few.count >= many.step) ||
                       (many.step <= 1 && many.count >= few.step) || many.count == 1;
    if (few.count == 1) {
      add(in_bounds(many, offset + few.first, dim));
      if (best && !dense) touched = count(*best, many.step);
    } else {
      std::vector<std::pair<int64_t, int64_t>> parts;
      for (int64_t j = 0; j < few.count; ++j) {
        const auto r = in_bounds(many, offset + few.first + few.step * j, dim);
        add(r);
        if (r && !dense) parts.push_back(*r);
      }
      if (!dense) touched = distinct_values(parts, many.step);
    }
  }
  if (!best) return {0, 0};
  const Interval box{best->first, best->second + 1};
  if (touched >= box.size()) touched = -1;
  return box;
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
  return iteration_space_internal::narrowed_access_regions(g, o, s, tile, {});
}

std::vector<AccessRegion> iteration_space_internal::narrowed_access_regions(
    const Graph& g, int o, const IterationSpace& s, const Region& tile,
    const ReductionNarrowing& n) {
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
      r.unclamped.resize(xs.size());
      r.region.resize(xs.size());
      bool gaps = false;
      int64_t touched[kMaxGapDims];
      for (size_t d = 0; d < xs.size(); ++d) {
        int64_t t = -1;
        if (acc.dims[d].full) {
          r.unclamped[d] = r.region[d] = Interval{0, xs[d]};
        } else {
          r.region[d] = exact_clamped(acc.dims[d], s, tile, n, xs[d], r.unclamped[d], t);
        }
        if (d < kMaxGapDims) touched[d] = t;
        gaps = gaps || (t >= 0 && d < kMaxGapDims);
      }
      if (region_empty(r.region)) {
        r.region = empty_like(xs);
      } else if (gaps) {
        r.touched = region_shape(r.region);
        for (size_t d = 0; d < xs.size() && d < kMaxGapDims; ++d)
          if (touched[d] >= 0) r.touched[d] = touched[d];
      }
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

}  // namespace dgs
