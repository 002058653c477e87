#pragma once
// Shape and dtype inference for every OpKind, following ONNX semantics (opset 13-17).
#include "common/graph/graph.h"

namespace dgs {

// Computes the dtypes and shapes of the outputs of op `op` from its inputs' shapes, its
// attributes and the values of Constant inputs, and stores them in the output tensors.
// Throws dgs::Error("op '<name>' (<Kind>): <what is wrong>; expected <what>") on inconsistency.
void infer_op_shapes(Graph& g, int op);

// infer_op_shapes for every op, in topological order.
void infer_shapes(Graph& g);

}  // namespace dgs
