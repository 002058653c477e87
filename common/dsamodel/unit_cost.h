#pragma once
// The cycles one core or engine of a DSA spends on one operator of a task, from the fit of the
// region it computes to its compute units (DsaSpec, common/hw/dsa_spec.h):
//
// Matrix unit (Conv, ConvTranspose, Gemm, MatMul): the array level of the op's loop nest
// (array_nest.h): the steps of its dataflow's unrolling over the R x C array, bounded below by
// the operands and results its port carries, plus fill and drain (once per op when the
// stationary operand's registers hold two folds, else per fold) and fold_overhead per fold.
// A depthwise convolution on the kc dataflow uses one PE row and column per fold, as it does on
// such hardware. Vector unit (everything else that computes): ceil(max(FLOPs, elements) /
// vector_lanes). Data movement (Concat, Slice, Transpose, Pad, Gather, ...): the bytes written,
// at the local buffer's bandwidth. Layout-only ops (Reshape, Flatten, ...): no cycles.
#include <cstdint>
#include <string>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/hw/dsa_spec.h"

namespace dgs {

enum class ComputeUnit : uint8_t { None, Matrix, Vector, Move };

struct OpCycles {
  ComputeUnit unit = ComputeUnit::None;
  double cycles = 0;
  double macs = 0;    // multiply-accumulates (matrix ops)
  int64_t folds = 0;  // matrix ops
};

// The unit kind that runs op `op`.
ComputeUnit compute_unit_of(const Graph& g, int op);

// The cycles of op `op` computing `region` of its output 0, with the fraction `reduction_fraction`
// of its reduction (1 unless a partial-sum task narrows axis `reduction_axis`, e.g. "c_in").
OpCycles op_cycles(const Graph& g, int op, const Region& region, const DsaSpec& spec,
                   const std::string& reduction_axis = "", double reduction_fraction = 1.0);

}  // namespace dgs
