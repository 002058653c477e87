// Cycles of an operator's region on one DSA core or engine (see unit_cost.h).
#include "common/dsamodel/unit_cost.h"

#include <algorithm>
#include <cmath>

#include "common/graph/op_cost.h"

namespace dgs {

namespace {

double ceil_div(double a, double b) {
  return std::ceil(a / b);
}

OpCycles matrix_cycles(const Graph& g, int op, const Region& region, const DsaSpec& spec,
                       const std::string& axis, double fraction) {
  const Op& o = g.op(op);
  const Tensor& out = g.tensor(o.outputs.at(0));
  const OpCost c = op_cost(g, op);
  const double out_numel = static_cast<double>(out.numel());
  // Reduction per output element, split into channels (Kc) and kernel taps (Kk).
  const double k_total = out_numel > 0 ? static_cast<double>(c.macs) / out_numel : 0;
  double kk = 1, groups = 1, n_per_group = 0, pixels = 0, ph = 1, pw = 1, n_region = 0;
  const Shape rs = region_shape(region);
  if (is_conv_like(o.kind)) {
    const Shape& w = g.tensor(o.inputs.at(1)).shape;
    for (size_t d = 2; d < w.size(); ++d) kk *= static_cast<double>(w[d]);
    groups = static_cast<double>(o.attrs.get_int("group", 1));
    n_per_group = static_cast<double>(out.shape.at(1)) / groups;
    n_region = static_cast<double>(rs.at(1));
    pixels = static_cast<double>(rs.at(0));
    for (size_t d = 2; d < rs.size(); ++d) pixels *= static_cast<double>(rs[d]);
    if (rs.size() >= 4) ph = static_cast<double>(rs[rs.size() - 2]);
    if (rs.size() >= 3) pw = static_cast<double>(rs.back());
    ph *= static_cast<double>(rs.at(0));  // images stack along the rows of the pixel grid
  } else {                                // Gemm, MatMul: [..., M, N]
    n_per_group = static_cast<double>(out.shape.back());
    n_region = static_cast<double>(rs.back());
    pixels = 1;
    for (size_t d = 0; d + 1 < rs.size(); ++d) pixels *= static_cast<double>(rs[d]);
    ph = pixels;
    pw = 1;
  }
  double kc = k_total / kk;
  if (axis == "c_in" || axis == "k" || axis.empty())
    kc *= fraction;
  else
    kk *= fraction;
  const double groups_touched = std::max(1.0, ceil_div(n_region, n_per_group));
  const double n_g = std::min(n_region, n_per_group);
  const double rows = spec.matrix_tile_rows, cols = spec.matrix_tile_columns;
  const double s = spec.matrix_macs_per_cycle / (rows * cols);
  const double fill = rows + cols - 2 + spec.fold_overhead_cycles;
  OpCycles r;
  r.unit = ComputeUnit::Matrix;
  r.macs = pixels * n_region * kc * kk;
  if (r.macs <= 0) return r;
  double folds = 0;
  if (spec.dataflow == DsaDataflow::KC) {
    folds = groups_touched * ceil_div(kc, rows) * ceil_div(n_g, cols) * kk;
    r.cycles = folds * (ceil_div(pixels, s) + fill);
  } else {
    // A GEMM's output tile is rows x columns of the array; a conv's pixels are rows x cols.
    const double a = is_conv_like(o.kind) ? ph : pixels;
    const double b = is_conv_like(o.kind) ? pw : n_g;
    const double temporal = is_conv_like(o.kind) ? kc * kk * n_g : kc * kk;
    folds = groups_touched * ceil_div(a, rows) * ceil_div(b, cols);
    r.cycles = folds * (ceil_div(temporal, s) + fill);
  }
  r.folds = static_cast<int64_t>(folds);
  return r;
}

}  // namespace

ComputeUnit compute_unit_of(const Graph& g, int op) {
  const OpKind k = g.op(op).kind;
  if (is_conv_like(k) || is_matmul_like(k)) return ComputeUnit::Matrix;
  if (is_layout_only(k)) return ComputeUnit::None;
  switch (k) {
    case OpKind::Concat:
    case OpKind::Split:
    case OpKind::Slice:
    case OpKind::Transpose:
    case OpKind::Pad:
    case OpKind::Resize:
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
    case OpKind::Gather:
    case OpKind::Expand:
      return ComputeUnit::Move;
    default:
      return ComputeUnit::Vector;
  }
}

OpCycles op_cycles(const Graph& g, int op, const Region& region, const DsaSpec& spec,
                   const std::string& reduction_axis, double reduction_fraction) {
  const ComputeUnit unit = compute_unit_of(g, op);
  if (unit == ComputeUnit::Matrix)
    return matrix_cycles(g, op, region, spec, reduction_axis, reduction_fraction);
  OpCycles r;
  r.unit = unit;
  if (unit == ComputeUnit::None) return r;
  const Tensor& out = g.tensor(g.op(op).outputs.at(0));
  const double elems = static_cast<double>(region_numel(region));
  if (unit == ComputeUnit::Move) {
    r.cycles = ceil_div(elems * spec.element_bytes, spec.local_bandwidth());
    return r;
  }
  const double share = out.numel() > 0 ? elems / static_cast<double>(out.numel()) : 0;
  const double flops = static_cast<double>(op_cost(g, op).flops) * share * reduction_fraction;
  r.cycles = spec.vector_lanes > 0 ? ceil_div(std::max(flops, elems), spec.vector_lanes) : 0;
  return r;
}

}  // namespace dgs
