#pragma once
// Runs one ONNX backend test case (a folder with model.onnx and test_data_set_*/) on the CPU
// reference executor and compares every output with the expected `.pb` files. Used by the tool
// onnx_check_case and by tests/exec.
//
// Header-only on purpose: it joins dgs_onnx (loading) and dgs_exec (running), and keeping it in
// the executables that use it avoids a link-order dependency between those two libraries.
#include <algorithm>
#include <limits>
#include <string>

#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "common/onnx/onnx_tensor.h"

namespace dgs {

struct OnnxCaseResult {
  enum class Status {
    Pass,
    Fail,         // an output differs beyond the tolerance, or the executor failed on the case
    Unsupported,  // an operator, element type or feature the suite does not implement
    Rejected,     // the model loader (graph_from_onnx) rejected the model
    Error         // unreadable or malformed files
  };
  Status status = Status::Pass;
  double worst_error = 0.0;  // max relative error (tensor_data.h) over all outputs and data sets
  std::string worst_output;  // the output with the worst error ("-" when the executor failed)
  std::string detail;        // Fail: the first failing comparison; otherwise the reason
};

// Loads and runs the case `dir` and compares its outputs within `tol`. Throws UsageError when
// `dir` is not a test case.
inline OnnxCaseResult check_onnx_case(const std::string& dir, Tolerance tol = {}) {
  OnnxCaseResult r;
  std::vector<OnnxCaseDataSet> sets;
  try {
    sets = load_onnx_test_case(dir);
  } catch (const UsageError&) {
    throw;
  } catch (const UnsupportedFeature& e) {
    r.status = OnnxCaseResult::Status::Unsupported;
    r.detail = e.what();
    return r;
  } catch (const OnnxModelRejected& e) {
    r.status = OnnxCaseResult::Status::Rejected;
    r.detail = e.what();
    return r;
  } catch (const Error& e) {
    r.status = OnnxCaseResult::Status::Error;
    r.detail = e.what();
    return r;
  }
  for (const OnnxCaseDataSet& ds : sets) {
    TensorValues values;
    try {
      values = run_graph(ds.graph, ds.feeds, /*seed=*/0);
    } catch (const UnsupportedFeature& e) {
      r.status = OnnxCaseResult::Status::Unsupported;
      r.detail = e.what();
      return r;
    } catch (const Error& e) {  // a supported case the executor cannot run: a failure
      r.status = OnnxCaseResult::Status::Fail;
      r.worst_error = std::numeric_limits<double>::infinity();
      r.worst_output = "-";
      r.detail = ds.name + ": " + e.what();
      return r;
    }
    for (const auto& [t, expected] : ds.expected) {
      const Comparison c = compare_tensors(values.at(t), expected, tol);
      if (c.max_error > r.worst_error || r.worst_output.empty()) {
        r.worst_error = c.max_error;
        r.worst_output = ds.graph.tensor(t).name;
      }
      if (!c.passed && r.status != OnnxCaseResult::Status::Fail) {
        r.status = OnnxCaseResult::Status::Fail;
        r.detail = ds.name + " output '" + ds.graph.tensor(t).name + "' " +
                   tensor_data_str(values.at(t)) + " vs expected " + tensor_data_str(expected) +
                   ": " + c.str();
      }
    }
  }
  return r;
}

}  // namespace dgs
