#pragma once
// Internal to common/graph's iteration spaces (not part of its API): the builders of index maps
// that the operators' iteration spaces are written with, the per-operator builder of one space,
// and the regions of the maps marked Custom, which the files iteration_space*.cpp,
// access_regions.cpp and custom_regions.cpp share.
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs::iteration_space_internal {

// ---------------------------------------------------------------------------------------------
// Index maps
// ---------------------------------------------------------------------------------------------
inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t mod(int64_t a, int64_t b) {
  return a - floor_div(a, b) * b;
}

inline AxisIndex ident(int axis, int64_t coef = 1, int64_t offset = 0) {
  AxisIndex a;
  a.terms.push_back({axis, false, coef, 1});
  a.offset = offset;
  return a;
}
inline AxisIndex reduce(int axis) {
  AxisIndex a;
  a.terms.push_back({axis, true, 1, 1});
  return a;
}
inline AxisIndex fixed(int64_t v) {
  AxisIndex a;
  a.offset = v;
  return a;
}
inline AxisIndex whole() {
  AxisIndex a;
  a.full = true;
  return a;
}

inline InputAccess affine(std::vector<AxisIndex> dims) {
  InputAccess a;
  a.kind = InputAccess::Kind::Affine;
  a.dims = std::move(dims);
  return a;
}
inline InputAccess custom(std::string note) {
  InputAccess a;
  a.kind = InputAccess::Kind::Custom;
  a.note = std::move(note);
  return a;
}
inline InputAccess whole_tensor(const Shape& s) {
  return affine(std::vector<AxisIndex>(s.size(), whole()));
}

// Input of shape `in` broadcast (NumPy, right-aligned) to output axes of rank
// `out_rank`.
inline InputAccess broadcast_access(const Shape& in, const Shape& out) {
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

inline std::string op_ref(const Op& op) {
  return "op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) + ")";
}

// The name of a reduction axis: `prefix` and the number `i` ("k0", "s1", ...). (Appended rather
// than `"k" + std::to_string(i)`, which GCC 12 at -O3 warns about wrongly: -Wrestrict.)
inline std::string axis_name(std::string prefix, int64_t i) {
  prefix += std::to_string(i);
  return prefix;
}

// Spatial map of a sliding window: in = stride * out + dilation * r - pad.
inline AxisIndex window_axis(int out_axis, int red_axis, int64_t stride, int64_t dilation,
                             int64_t pad) {
  AxisIndex a;
  a.terms.push_back({out_axis, false, stride, 1});
  a.terms.push_back({red_axis, true, dilation, 1});
  a.offset = -pad;
  return a;
}

// ---------------------------------------------------------------------------------------------
// The iteration space of one op output, built per operator family
// ---------------------------------------------------------------------------------------------
// Starts with every present input read whole (shape-determining constants) and every omitted
// one marked Omitted; build() then sets the maps of the op's kind.
struct SpaceBuilder {
  SpaceBuilder(const Graph& graph, int op_index, int output);
  SpaceBuilder(const SpaceBuilder&) = delete;
  SpaceBuilder& operator=(const SpaceBuilder&) = delete;

  const Graph& g;
  const int o;
  const Op& op;
  const int output_index;
  IterationSpace s;
  const Shape& y;  // s.output_axes
  const int ry;    // rank of y
  const int ni;    // number of op inputs

  const Shape& shape(int i) const { return g.tensor(op.inputs[i]).shape; }
  bool present(int i) const { return i < ni && op.inputs[i] >= 0; }
  // Appends a reduction axis and returns its index.
  int add_reduction(std::string name, int64_t extent);

  void build();  // dispatches on op.kind

  // Contractions, windows, normalizations, reductions, element-wise
  // (iteration_space.cpp).
  void conv();
  void conv_transpose();
  void gemm();
  void matmul();
  void pool();
  void global_pool();
  void batch_norm();
  void layer_norm();
  void softmax();
  void reduce_axes();
  void elementwise();
  // Data movement (iteration_space_movement.cpp).
  void concat();
  void split();
  void slice();
  void transpose();
  void gather();
  void gather_nd();
};

// ---------------------------------------------------------------------------------------------
// Regions of inputs whose maps are Custom (custom_regions.cpp)
// ---------------------------------------------------------------------------------------------
Region empty_like(const Shape& s);
AccessRegion reshape_region(const Shape& in, const Shape& out, const Region& tile);
AccessRegion depth_to_space_region(const Op& op, const Shape& x, const Region& t);
AccessRegion space_to_depth_region(const Op& op, const Shape& x, const Region& t);
AccessRegion concat_region(const Graph& g, const Op& op, int k, const Region& t);
AccessRegion pad_region(const Graph& g, const Op& op, const Region& t);
AccessRegion resize_region(const Graph& g, const Op& op, const Region& t);
AccessRegion gather_data_region(const Graph& g, const Op& op, const Region& t);
AccessRegion conv_transpose_region(const Graph& g, const Op& op, int input, const Region& t);

// ---------------------------------------------------------------------------------------------
// Reduction slices evaluated in place (access_regions.cpp, for reduction_slice.cpp)
// ---------------------------------------------------------------------------------------------
// Reduction axis `axis` of a space narrowed to [lo, lo + extent): a term on it ranges over
// [0, extent) and adds coef * lo to its coordinate's offset, as in iteration_space_for_slice's
// copy of the space, without the copy. axis < 0: no narrowing.
struct ReductionNarrowing {
  int axis = -1;
  int64_t lo = 0;
  int64_t extent = 0;
};
// input_access_regions(g, op, s, tile) with `n` applied to s.
std::vector<AccessRegion> narrowed_access_regions(const Graph& g, int op, const IterationSpace& s,
                                                  const Region& tile, const ReductionNarrowing& n);

}  // namespace dgs::iteration_space_internal
