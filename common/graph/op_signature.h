#pragma once
// How many inputs and outputs each OpKind takes (ONNX opset 13-17; omitted optional inputs are
// -1 in Op::inputs and count towards the input arity when they are followed by present ones).
// Used by shape inference, validate() and loaders.
#include "common/graph/graph.h"

namespace dgs {

struct OpArity {
  int min_inputs = 1;
  int max_inputs = 1;
  int min_outputs = 1;
  int max_outputs = 1;
};

// The arity of `kind`. Split's maximum output count is unbounded (kUnboundedArity).
OpArity op_arity(OpKind kind);

// Stand-in for "any number" in OpArity (Concat inputs, Split outputs).
inline constexpr int kUnboundedArity = 1 << 20;

// The inputs of `kind` that are small shape-determining constants (Reshape's shape, Slice's
// starts/ends/axes/steps, ...): a bit per input index. Shape inference reads their int_data.
bool is_shape_input(OpKind kind, int input_index);

// Throws dgs::Error("op '<name>' (<Kind>): <n> inputs; expected <lo>..<hi>") (and the same for
// outputs) when `op` has the wrong number of inputs or outputs, or when a required input is
// omitted (-1).
void check_arity(const Op& op);

}  // namespace dgs
