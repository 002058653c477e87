#pragma once
// Slices of an operator's reduction axis: an op computed over a range of its input channels (a
// convolution's "c_in", a matrix product's "k") gives a partial sum of its output, and several
// such partial results over disjoint ranges that cover the axis add up to the op's output.
// Accelerator schedulers that split a layer's input channels across engines use this; the plan
// format (common/plan) records the range, and the CPU reference evaluates it.
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs {

// A range of one named reduction axis of an op's iteration space (IterationSpace::reduction_axes).
struct ReductionRange {
  std::string axis;  // e.g. "c_in", "k"; empty = no slice
  Interval range;    // [lo, hi) within [0, extent)
  bool operator==(const ReductionRange&) const = default;
};

// Why op `op` cannot be computed over `r` with its partial results added, or "" when it can:
// the op must reduce by a sum along `r.axis` (Conv over "c_in", Gemm and MatMul
// over "k") and the range must be non-empty and inside the axis.
std::string reduction_slice_error(const Graph& g, int op, const ReductionRange& r);

// The regions of each input of `op` that output tile `tile` (of output 0) reads when only range
// `r` of its reduction axis is summed: input_regions(g, op, tile) with the coordinates that
// depend on the axis restricted to the range. Throws dgs::Error when reduction_slice_error is not
// empty.
std::vector<Region> input_regions_for_slice(const Graph& g, int op, const Region& tile,
                                            const ReductionRange& r);
// The iteration space of `op` (output 0) with range `r` of its reduction axis in place of the
// whole axis (what the two functions below evaluate the tile on). Throws dgs::Error when
// reduction_slice_error is not empty.
IterationSpace iteration_space_for_slice(const Graph& g, int op, const ReductionRange& r);
// The same with what input_access_regions says besides the box (the touched counts, ...).
std::vector<AccessRegion> input_access_regions_for_slice(const Graph& g, int op, const Region& tile,
                                                         const ReductionRange& r);

}  // namespace dgs
