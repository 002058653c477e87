#pragma once
// Runs one ONNX backend test case (a folder with model.onnx and test_data_set_*/) on the CPU
// reference executor and compares every output with the expected `.pb` files. Used by the tool
// onnx_check_case and by tests/onnxcheck. It joins the ONNX loader (common/onnx) and the executor
// (common/exec), so it sits above both.
#include <string>
#include <vector>

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

// The command line of onnx_check_case: DIR [--rtol R] [--atol A]. The defaults are the suite's
// one tolerance for CPU-reference checks (kDefaultRtol 1e-4, kDefaultAtol 1e-5); a whole network
// compared with another implementation may need more (README: float32 sums in another order over
// many chained reductions), and says so on its command line. Throws UsageError, one line naming
// the flag: "--rtol 0: expected a number in (0, 1)", "--atol -1: expected a number in [0, 1)", an
// unknown flag, a flag without its value, no DIR or two.
struct OnnxCheckCaseArgs {
  std::string dir;
  Tolerance tol;
};
OnnxCheckCaseArgs parse_onnx_check_case_args(const std::vector<std::string>& args);

}  // namespace dgs
