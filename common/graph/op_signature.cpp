#include <iterator>
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
  static constexpr OpArity kArity[] = {
#define DGS_OP(kind, family, min_in, max_in, min_out, max_out, ...) \
  {min_in, max_in, min_out, max_out},
#include "common/graph/op_table.inc"
#undef DGS_OP
  };
  static_assert(std::size(kArity) == static_cast<size_t>(OpKind::kCount));
  const auto i = static_cast<size_t>(k);
  return i < std::size(kArity) ? kArity[i] : OpArity{};
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
