// Fitting the suite-kernel model's constants on two declared cases (calibration.h).
#include "validation/calibration.h"

#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>

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

double measurement(const std::map<std::string, double>& measured, const std::string& id) {
  const auto it = measured.find(id);
  if (it == measured.end())
    throw Error("calibration: no measurement of case '" + id + "' (the calibration point)");
  return it->second;
}

std::vector<CalibrationPoint> fit_library_calls(GpuSpec& spec,
                                                const std::vector<ValidationCase>& cases,
                                                const std::map<std::string, double>& measured) {
  std::vector<CalibrationPoint> out;
  const std::pair<std::string_view, const char*> fits[] = {
      {gpu_efficiency::kLibraryCallUs, kLibraryCallCalibrationCase},
      {gpu_efficiency::kLibraryFusedCallUs, kLibraryFusedCallCalibrationCase}};
  for (const auto& fit : fits) {
    const std::string key(fit.first), id(fit.second);
    const ValidationCase& c = find_case(cases, id);
    const double target = measurement(measured, id);
    auto price = [&](double us) {
      spec.efficiency[key] = us;
      return c.predict_ms(spec);
    };
    constexpr double kLo = 1e-3, kHi = 1e4;
    const double lo_ms = price(kLo), hi_ms = price(kHi);
    if (target < lo_ms || target > hi_ms) {
      char msg[256];
      std::snprintf(msg, sizeof msg,
                    "calibration: case '%s' measured %.6g ms, outside the %.6g-%.6g ms the model "
                    "gives with %s between %g and %g us",
                    id.c_str(), target, lo_ms, hi_ms, key.c_str(), kLo, kHi);
      throw Error(msg);
    }
    const double us = solve(price, target, kLo, kHi);
    spec.efficiency[key] = us;
    out.push_back({key, id, us});
  }
  return out;
}

}  // namespace

std::vector<CalibrationPoint> calibrate_library_calls(
    GpuSpec& spec, const std::vector<ValidationCase>& cases,
    const std::map<std::string, double>& measured) {
  // On an error the spec is left as it came (the bisection's probes write it).
  const GpuSpec before = spec;
  try {
    return fit_library_calls(spec, cases, measured);
  } catch (...) {
    spec = before;
    throw;
  }
}

std::vector<CalibrationPoint> calibrate_suite_model(GpuSpec& spec,
                                                    const std::vector<ValidationCase>& cases,
                                                    const std::map<std::string, double>& measured) {
  auto target = [&](const std::string& id) { return measurement(measured, id); };
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
