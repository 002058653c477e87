// Cycles of an operator's region on one DSA core or engine (see unit_cost.h).
#include "common/dsamodel/unit_cost.h"

#include <algorithm>
#include <cmath>

#include "common/dsamodel/array_nest.h"
#include "common/graph/op_cost.h"
#include "common/util/arith.h"

namespace dgs {

namespace {

OpCycles matrix_cycles(const Graph& g, int op, const Region& region, const DsaSpec& spec,
                       const std::string& axis, double fraction) {
  OpCycles r;
  r.unit = ComputeUnit::Matrix;
  const ArrayNest a = array_nest(matrix_shape(g, op, region, spec, axis, fraction), spec);
  r.macs = a.macs;
  r.folds = static_cast<int64_t>(a.folds);
  r.cycles = a.cycles(spec.local_bandwidth());
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
    r.cycles = ceil_div_real(elems * spec.element_bytes, spec.local_bandwidth());
    return r;
  }
  const double share = out.numel() > 0 ? elems / static_cast<double>(out.numel()) : 0;
  const double flops = static_cast<double>(op_cost(g, op).flops) * share * reduction_fraction;
  r.cycles = spec.vector_lanes > 0 ? ceil_div_real(std::max(flops, elems), spec.vector_lanes) : 0;
  return r;
}

}  // namespace dgs
