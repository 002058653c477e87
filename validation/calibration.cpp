// Fitting the suite-kernel model's constants on two declared cases (calibration.h).
#include "validation/calibration.h"

#include <cmath>

#include "common/gpumodel/kernel_family.h"
#include "common/util/error.h"

namespace dgs::validation {

namespace {

const ValidationCase& find_case(const std::vector<ValidationCase>& cases, const std::string& id) {
  for (const ValidationCase& c : cases)
    if (c.id == id) return c;
  throw Error("calibration: no case '" + id + "'");
}

// The x in [lo, hi] where f(x) = target, f monotone (increasing or decreasing), by bisection on
// a log scale.
template <class F>
double solve(F&& f, double target, double lo, double hi) {
  const bool increasing = f(hi) > f(lo);
  for (int i = 0; i < 200 && hi / lo > 1 + 1e-7; ++i) {
    const double mid = std::sqrt(lo * hi);
    const bool above = f(mid) > target;
    if (above == increasing)
      hi = mid;
    else
      lo = mid;
  }
  return std::sqrt(lo * hi);
}

}  // namespace

std::vector<CalibrationPoint> calibrate_suite_model(GpuSpec& spec,
                                                    const std::vector<ValidationCase>& cases,
                                                    const std::map<std::string, double>& measured) {
  auto target = [&](const std::string& id) {
    const auto it = measured.find(id);
    if (it == measured.end())
      throw Error("calibration: no measurement of case '" + id + "' (the calibration point)");
    return it->second;
  };
  const ValidationCase& lat_case = find_case(cases, kLatencyCalibrationCase);
  const ValidationCase& issue_case = find_case(cases, kIssueCalibrationCase);
  const std::string lat_key(gpu_efficiency::kMemoryLatencyUs);
  const std::string issue_key(gpu_efficiency::kSuiteIssuePerClock);
  if (!spec.efficiency.count(issue_key))
    spec.efficiency[issue_key] = gpu_efficiency::suite_model_default(issue_key);
  double lat = 0, issue = 0;
  for (int round = 0; round < 3; ++round) {
    lat = solve(
        [&](double x) {
          spec.efficiency[lat_key] = x;
          return lat_case.predict_ms(spec);
        },
        target(kLatencyCalibrationCase), 1e-3, 20.0);
    spec.efficiency[lat_key] = lat;
    issue = solve(
        [&](double x) {
          spec.efficiency[issue_key] = x;
          return issue_case.predict_ms(spec);
        },
        target(kIssueCalibrationCase), 0.05, 4.0);
    spec.efficiency[issue_key] = issue;
  }
  return {{lat_key, kLatencyCalibrationCase, lat}, {issue_key, kIssueCalibrationCase, issue}};
}

}  // namespace dgs::validation
