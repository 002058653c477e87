#include <string>

#include "common/graph/op_signature.h"
#include "common/graph/shape_inference_internal.h"

namespace dgs {

using shape_inference_internal::op_prefix;

// ---------------------------------------------------------------------------------------------
// Arity
// ---------------------------------------------------------------------------------------------
OpArity op_arity(OpKind k) {
  constexpr int U = kUnboundedArity;
  switch (k) {
    case OpKind::Conv:
    case OpKind::ConvTranspose:
    case OpKind::Gemm:
      return {2, 3, 1, 1};
    case OpKind::MatMul:
      return {2, 2, 1, 1};
    case OpKind::MaxPool:
      return {1, 1, 1, 2};  // Y, optional Indices
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return {1, 1, 1, 1};
    // X, scale, B, input_mean, input_var; Y and (training mode) running_mean, running_var
    case OpKind::BatchNormalization:
      return {5, 5, 1, 3};
    // X, Scale, optional B; Y, optional Mean, InvStdDev
    case OpKind::LayerNormalization:
      return {2, 3, 1, 3};
    case OpKind::Softmax:
      return {1, 1, 1, 1};
    case OpKind::Clip:
      return {1, 3, 1, 1};  // input, optional min, max
    case OpKind::Dropout:
      return {1, 3, 1, 2};  // data, ratio, training_mode; output, mask
    case OpKind::Max:
    case OpKind::Min:
      return {1, U, 1, 1};  // variadic in ONNX
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow:
      return {2, 2, 1, 1};
    case OpKind::Concat:
      return {1, U, 1, 1};
    case OpKind::Split:
      return {1, 2, 1, U};
    case OpKind::Slice:
      return {3, 5, 1, 1};
    case OpKind::Reshape:
      return {2, 2, 1, 1};
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return {1, 2, 1, 1};  // axes as input (opset 13) or attribute
    case OpKind::Pad:
      return {1, 4, 1, 1};  // data, pads, constant_value, axes
    case OpKind::Resize:
      return {1, 4, 1, 1};  // X, roi, scales, sizes
    case OpKind::Gather:
    case OpKind::Expand:
    case OpKind::GatherND:
    case OpKind::Equal:
    case OpKind::And:
      return {2, 2, 1, 1};
    case OpKind::Where:
      return {3, 3, 1, 1};
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      return {1, 2, 1, 1};  // axes as input (ReduceSum 13, all 18)
    default:
      return {1, 1, 1, 1};  // unary element-wise and layout ops
  }
}

bool is_shape_input(OpKind k, int i) {
  switch (k) {
    case OpKind::Split:
      return i == 1;
    case OpKind::Slice:
      return i >= 1;
    case OpKind::Reshape:
    case OpKind::Expand:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      return i == 1;
    case OpKind::Pad:
      return i == 1 || i == 3;
    case OpKind::Resize:
      return i >= 1;
    default:
      return false;
  }
}

namespace {

std::string range_str(int lo, int hi) {
  if (lo == hi) return std::to_string(lo);
  if (hi >= kUnboundedArity) return "at least " + std::to_string(lo);
  return std::to_string(lo) + ".." + std::to_string(hi);
}

}  // namespace

void check_arity(const Op& op) {
  const OpArity a = op_arity(op.kind);
  const int ni = static_cast<int>(op.inputs.size());
  const int no = static_cast<int>(op.outputs.size());
  if (ni < a.min_inputs || ni > a.max_inputs) {
    throw Error(op_prefix(op) + std::to_string(ni) + " inputs; expected " +
                range_str(a.min_inputs, a.max_inputs));
  }
  if (no < a.min_outputs || no > a.max_outputs) {
    throw Error(op_prefix(op) + std::to_string(no) + " outputs; expected " +
                range_str(a.min_outputs, a.max_outputs));
  }
  for (int i = 0; i < a.min_inputs; ++i) {
    if (op.inputs[i] < 0) {
      throw Error(op_prefix(op) + "required input " + std::to_string(i) +
                  " is omitted; expected a tensor");
    }
  }
  // Variadic ops (Concat, Max, Min) take no optional inputs.
  if (a.max_inputs >= kUnboundedArity) {
    for (int i = 0; i < ni; ++i) {
      if (op.inputs[i] < 0) {
        throw Error(op_prefix(op) + "input " + std::to_string(i) +
                    " is omitted; expected a tensor");
      }
    }
  }
  for (int i = 0; i < no; ++i) {
    if (op.outputs[i] < 0) {
      throw Error(op_prefix(op) + "output " + std::to_string(i) + " is omitted; expected a tensor");
    }
  }
}

}  // namespace dgs
