#pragma once
// Runs one ONNX backend test case (a folder with model.onnx and test_data_set_*/) on the CPU
// reference executor and compares every output with the expected `.pb` files. Used by the tool
// onnx_check_case and by tests/onnxcheck. It joins the ONNX loader (common/onnx) and the executor
// (common/exec), so it sits above both.
#include <string>

#include "common/exec/tensor_data.h"

namespace dgs {

struct OnnxCaseResult {
  enum class Status {
    Pass,
    Fail,         // an output differs beyond the tolerance, or the executor failed on the case
    Unsupported,  // an operator, element type or feature the suite does not implement
    Rejected,     // the model loader (graph_from_onnx) rejected the model
    Invalid,      // the model contradicts itself (initializer data vs dims, ONNX's checker)
    Error         // unreadable or malformed files
  };
  Status status = Status::Pass;
  double worst_error = 0.0;  // max relative error (tensor_data.h) over all outputs and data sets
  std::string worst_output;  // the output with the worst error ("-" when the executor failed)
  std::string detail;        // Fail: the first failing comparison; otherwise the reason
};

// Loads and runs the case `dir` and compares its outputs within `tol`. Throws UsageError when
// `dir` is not a test case.
OnnxCaseResult check_onnx_case(const std::string& dir, Tolerance tol = {});

}  // namespace dgs
