#pragma once
// Layer grouping: the ops of a graph grouped into compound operators ("schedule units": a Conv
// with its epilogue, an activation with a separable conv, ...), which schedulers that work on
// compound operators take as their nodes (unit_dag, op_dag.h).
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/op_dag.h"

namespace dgs {

// Rules, applied in this order (each absorbed op must be the only consumer of the previous op's
// output, and that output must not be a graph output):
//   1. Relu-SepConv: a unary activation followed by a depthwise Conv (group == input channels
//      > 1) followed by a pointwise 1x1 Conv (group 1); also a bare depthwise + pointwise pair
//      ("SepConv").
//   2. Epilogue: a Conv/ConvTranspose/Gemm/MatMul (or a unit from rule 1) followed by a chain of
//      BatchNormalization, Add/Sub/Mul/Div with a Weight/Constant operand (bias, scale) and
//      unary activations (is_activation: the Activation column of op_table.inc):
//      "Conv-Relu", "Conv-BatchNormalization-Relu", ...
//   3. Pre-activation (option): an activation not absorbed by rule 2 whose only consumer is a
//      Conv joins that Conv's unit ("Relu-Conv").
//   4. Sums (options, off by default), for networks whose nodes add several input terms: with
//      sum_units, trees of Add ops feeding each other or a Concat form one "Sum" unit (a node
//      that adds the values of each input term and concatenates the terms), and an Identity op
//      is a one-term "Sum" unit of its own (not absorbed by rule 5); with absorb_input_sums, an
//      Add (tree) whose only consumer is the first op of a compound unit (of 2+ ops) joins it
//      (the unit takes the sum of its input terms as its input).
//   5. Layout-only ops (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) join the unit of
//      their only predecessor op; a unit of layout-only ops alone is not counted (it moves no
//      data).
// Every other op is a unit of its own (pools, Concat, Add of two activations, ...).
struct CompoundOptions {
  bool relu_sepconv = true;
  bool epilogue = true;
  bool pre_activation = true;
  bool absorb_layout_ops = true;
  bool sum_units = false;
  bool absorb_input_sums = false;
};
struct ScheduleUnit {
  std::vector<int> ops;  // in topological order
  int anchor = -1;       // the op that names the unit (the conv, or the op itself)
  std::string pattern;   // "Conv-Relu", "Relu-SepConv", "SepConv", "Relu-Conv", "Sum", "Concat"..
  bool counted = true;   // false for units of layout-only ops
};
struct OpGrouping {
  std::vector<ScheduleUnit> units;                 // in topological order of their anchors
  std::vector<int> unit_of_op;                     // indexed by op
  std::vector<std::vector<int>> unit_ops() const;  // for unit_dag
  int counted_units() const;                       // units with `counted` set
};
OpGrouping compound_operators(const Graph& g, const CompoundOptions& opts = {});

}  // namespace dgs
