#include "common/onnxcheck/onnx_case_check.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "common/exec/executor.h"
#include "common/onnx/onnx_io.h"
#include "common/onnxcheck/onnx_test_case.h"

namespace dgs {

OnnxCaseResult check_onnx_case(const std::string& dir, Tolerance tol) {
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
  } catch (const OnnxInvalidModel& e) {
    r.status = OnnxCaseResult::Status::Invalid;
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
