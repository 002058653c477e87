#include "common/onnxcheck/onnx_case_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/exec/executor.h"
#include "common/onnx/onnx_io.h"
#include "common/onnxcheck/onnx_test_case.h"

namespace dgs {

OnnxCheckCaseArgs parse_onnx_check_case_args(const std::vector<std::string>& args) {
  OnnxCheckCaseArgs r;
  auto number = [](const std::string& flag, const std::string& text, double lo, bool lo_open,
                   double hi, const std::string& expected) {
    double v = 0;
    size_t used = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    const bool ok = used == text.size() && !text.empty() && std::isfinite(v) &&
                    (lo_open ? v > lo : v >= lo) && v < hi;
    if (!ok) throw UsageError(flag + " " + text + ": expected " + expected);
    return v;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--rtol" || a == "--atol") {
      if (i + 1 == args.size()) throw UsageError(a + ": expected a value");
      const std::string& v = args[++i];
      if (a == "--rtol") {
        r.tol.rtol = number(a, v, 0.0, true, 1.0, "a number in (0, 1)");
      } else {
        r.tol.atol = number(a, v, 0.0, false, 1.0, "a number in [0, 1)");
      }
    } else if (a.rfind("-", 0) == 0) {
      throw UsageError(a + ": unknown option; expected --rtol R or --atol A");
    } else if (!r.dir.empty()) {
      throw UsageError(a + ": a second test case folder; expected one DIR");
    } else {
      r.dir = a;
    }
  }
  if (r.dir.empty()) throw UsageError("expected a test case folder DIR");
  return r;
}

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
