#pragma once
// Einsum of load-time constant folding (onnx_fold_eval.h): exporters write it for relative
// position tables and for transpositions of constants. Internal to common/onnx.
#include <optional>
#include <string>
#include <vector>

#include "common/onnx/onnx_tensor.h"

namespace dgs {

// Evaluates `equation` (explicit "ij,jk->ik" or implicit "ij,jk": the output is the letters that
// appear once, in alphabetical order) on `operands`. Nothing for an equation with an ellipsis
// ("...") or with more loop iterations than kOnnxMaxFoldElements. Throws dgs::Error naming `what`
// for an equation that does not match the operands (a letter count different from an operand's
// rank, one letter with two sizes, an output letter no operand has).
std::optional<OnnxValue> fold_einsum(const std::string& equation,
                                     const std::vector<const OnnxValue*>& operands,
                                     const std::string& what);

}  // namespace dgs
