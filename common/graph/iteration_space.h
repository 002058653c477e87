#pragma once
// Iteration spaces of operators and the regions of their inputs that an output tile needs.
//
// This is the one place in the suite that answers "which region of each input does this output
// tile read" (tile propagation through fused groups, the halos of spatially split conv chains,
// layer fusion into instances and the dependencies between the output regions of split layers
// all call it). For each op:
//   * output axes: the dims of the output tensor (one loop per output dim);
//   * reduction axes: the extra loops whose values are summed/maxed into one output element (a
//     conv's input channels per group and kernel window, a matmul's K, a pool's window, the
//     reduced dims of Reduce*/Softmax/LayerNorm/GlobalPool);
//   * for each input, an index map from (output axes, reduction axes) to input coordinates.
// Most maps are quasi-affine: each input coordinate is offset + sum(coef * floor(axis / divisor))
// over distinct axes, which interval arithmetic evaluates exactly. The rest (Concat, Reshape-like,
// Pad, Resize, DepthToSpace, SpaceToDepth, Gather's data, ConvTranspose) are marked Custom and
// computed by dedicated code.
//
// Regions are boxes: one half-open interval per dim. The clamped region is the exact bounding box
// of the in-bound elements the tile reads (strided or dilated windows whose taps fall in the
// padding do not widen it), except where the result says `exact == false` (a conservative
// cover): Reshape/Flatten/Squeeze/Unsqueeze tiles that are not contiguous in row-major order
// within a group of merged dims (e.g. rows {1, 4} of a [6,4] -> [2,3,4] reshape are covered by
// rows 1..4), Gather with non-constant indices (the whole axis), Resize with tf_crop_and_resize
// (the whole dim). Constant inputs (shapes, axes, Resize scales, Clip bounds) are read whole.
// tests/graph/region_property_test.cpp checks both properties (every needed element is inside,
// every face of an exact region is needed) against the CPU reference executor on random tiles.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/graph/graph.h"
#include "common/util/inline_vector.h"

namespace dgs {

struct Interval {
  int64_t lo = 0;  // inclusive
  int64_t hi = 0;  // exclusive
  int64_t size() const { return hi > lo ? hi - lo : 0; }
  bool empty() const { return hi <= lo; }
  bool operator==(const Interval&) const = default;
};
// One interval per dim; rank 0 = a scalar (one element). A vector that keeps up to
// kRegionInlineRank intervals inline (the zoo's tensors have rank 6 at most: Swin's window
// partition, the pixel (un)shuffles) and moves to the heap beyond (ONNX allows any rank):
// searches make and drop regions by the million, and as std::vectors their allocations were
// much of the third of the Atomic search's time spent in malloc and free.
inline constexpr std::size_t kRegionInlineRank = 6;
using Region = InlineVector<Interval, kRegionInlineRank>;

Region full_region(const Shape& s);
bool region_empty(const Region& r);  // any empty interval
int64_t region_numel(const Region& r);
// Bounding box of two regions of one rank (an empty region is the identity).
Region region_union(const Region& a, const Region& b);
Region region_intersect(const Region& a, const Region& b);
// Intersection with [0, dim) per dim.
Region clamp_region(const Region& r, const Shape& s);
bool region_contains(const Region& outer, const Region& inner);
Shape region_shape(const Region& r);  // the sizes of its intervals
// `r` in the coordinates of a box that starts at `origin`'s lower corner (r.lo - origin.lo).
Region region_relative(const Region& r, const Region& origin);
std::string region_str(const Region& r);  // "[0:4,2:9]"

// ---------------------------------------------------------------------------------------------
// Iteration spaces
// ---------------------------------------------------------------------------------------------
// coef * floor(axis / divisor), where axis indexes the output axes (reduction == false) or the
// reduction axes (reduction == true).
struct IndexTerm {
  int axis = 0;
  bool reduction = false;
  int64_t coef = 1;
  int64_t divisor = 1;
};
// One input coordinate: offset + sum of terms (each axis in at most one term), or the whole
// extent of the input dim (`full`: shape-determining constants).
struct AxisIndex {
  std::vector<IndexTerm> terms;
  int64_t offset = 0;
  bool full = false;
};
struct InputAccess {
  enum class Kind { Affine, Custom, Omitted };
  Kind kind = Kind::Affine;
  std::vector<AxisIndex> dims;  // Affine: one per input dim
  std::string note;             // Custom: what the map is
};
// How many coordinates `a` spans over a tile of the given extents placed at any offset (the
// worst alignment: a floored term over `ext` consecutive values spans ceil((ext - 1) / divisor)
// + 1 of them): 1 + sum |coef| * ceil((ext - 1) / divisor); `extent(term)` is the tile's extent
// on the term's axis. Not clamped to the input; `full` dims are the caller's. For cost models
// that price a tile by its size wherever it sits (tile-graph traffic models).
template <class Extent>
int64_t affine_span(const AxisIndex& a, Extent&& extent) {
  int64_t span = 1;
  for (const IndexTerm& t : a.terms) {
    const int64_t ext = extent(t);
    const int64_t coef = t.coef < 0 ? -t.coef : t.coef;
    span += coef * (t.divisor == 1 ? ext - 1 : (ext - 1 + t.divisor - 1) / t.divisor);
  }
  return span;
}
struct ReductionAxis {
  std::string name;  // "c_in", "kh", "k", "reduce2", ...
  int64_t extent = 0;
};
struct IterationSpace {
  Shape output_axes;  // extents: the shape of output `output_index`
  std::vector<ReductionAxis> reduction_axes;
  std::vector<InputAccess> inputs;  // one per op input
};

// The iteration space of op `op` for its output `output_index`.
IterationSpace iteration_space(const Graph& g, int op, int output_index = 0);

// While one lives, the iteration spaces of its graph's ops (output 0) asked for on its thread are
// built once and reused, by iteration_space and the region functions below (which then copy
// nothing): for evaluators that ask for the input regions of thousands of tasks of one graph.
// The graph must outlive it unchanged. Memos nest (the innermost one of a thread is used);
// each belongs to the thread that made it.
class IterationSpaceMemo {
 public:
  explicit IterationSpaceMemo(const Graph& g);
  ~IterationSpaceMemo();
  IterationSpaceMemo(const IterationSpaceMemo&) = delete;
  IterationSpaceMemo& operator=(const IterationSpaceMemo&) = delete;

  // The memo of this thread for `g`, or null.
  static IterationSpaceMemo* active(const Graph& g);
  // iteration_space(g, op) of its graph, built on first use.
  const IterationSpace& space(int op);

 private:
  const Graph& g_;
  IterationSpaceMemo* outer_;
  std::vector<std::unique_ptr<IterationSpace>> spaces_;  // by op
};

// ---------------------------------------------------------------------------------------------
// Regions of inputs
// ---------------------------------------------------------------------------------------------
struct AccessRegion {
  // Constructors of its own, so that a value-initialised one (std::vector<AccessRegion>(n), a
  // map's operator[]) is not zero-filled byte by byte first: its regions are empty vectors whose
  // inline storage nothing reads (the zeroing was a quarter of narrowed_access_regions' own time).
  AccessRegion() noexcept {}  // not `= default`, which value-initialisation zero-fills
  AccessRegion(Region region_, Region unclamped_, bool exact_ = true,
               std::vector<int64_t> touched_ = {})
      : region(std::move(region_)),
        unclamped(std::move(unclamped_)),
        exact(exact_),
        touched(std::move(touched_)) {}

  // The elements read, within the input's bounds.
  Region region;
  // Before clamping: the box including the padding halo of convs/pools/Pad/Resize, so
  // numel(unclamped) - numel(region) counts padded elements (for a dilated or strided window
  // it is the plain box of all taps, in and out of bounds).
  Region unclamped;
  // False when `region` is a conservative cover (see the file comment).
  bool exact = true;
  // Per dim of `region`, how many of its coordinates are read; empty: all of them. A window
  // smaller than its stride reads only some rows of its box (a 1x1 conv of stride 2 every other
  // row and column, a quarter of the box), as does a dilated window over a short tile. The
  // elements read are the product (an upper bound where one axis indexes several dims). `region`
  // stays the box: what a scheduler places or cuts is the box; what a load moves is the
  // touched elements (access_numel).
  std::vector<int64_t> touched;
};
// The elements an access reads: the product of `touched`, or the region's element count.
int64_t access_numel(const AccessRegion& a);
// The union of two accesses of one tensor: the bounding box, and per dim at most the sum of the
// two touched counts (a cover of the coordinates either reads; equal accesses count once).
AccessRegion access_union(const AccessRegion& a, const AccessRegion& b);

// For each input of `op` (in order; an omitted optional input gets Region{} with exact == true),
// the region the output tile `output_tile` of output `output_index` needs; an empty tile needs
// empty regions (every interval {0,0}). Throws dgs::Error naming the op when the tile's rank
// differs from the output's or it leaves the output's bounds.
std::vector<AccessRegion> input_access_regions(const Graph& g, int op, const Region& output_tile,
                                               int output_index = 0);
// The same from the op's iteration space `s` (iteration_space(g, op, output_index), possibly with a
// reduction axis narrowed, see reduction_slice.h): the Affine maps are evaluated over s's axes.
std::vector<AccessRegion> input_access_regions(const Graph& g, int op, const IterationSpace& s,
                                               const Region& output_tile);
// The clamped regions only.
std::vector<Region> input_regions(const Graph& g, int op, const Region& output_tile,
                                  int output_index = 0);

// Walks backwards through a fused group of ops (any order; must include `output_op`), starting
// from `tile` of output 0 of `output_op`, and returns, for every tensor touched (the seed tensor,
// intermediates, and the group's inputs, weights and constants), the union (bounding box) of the
// regions needed. Intermediates produced inside the group need only in-bound elements, so what
// propagates is the clamped region; `unclamped` keeps the union of unclamped requests; `exact`
// is false if any request was a conservative cover. A tensor read through several paths gets
// the bounding box of all requests (which can include elements no single path reads).
std::map<int, AccessRegion> propagate_tile(const Graph& g, const std::vector<int>& group,
                                           int output_op, const Region& tile);
// The same from several seeds: tensor index -> needed region (each seed tensor must be produced
// inside the group).
std::map<int, AccessRegion> propagate_regions(const Graph& g, const std::vector<int>& group,
                                              const std::map<int, Region>& seeds);

}  // namespace dgs
