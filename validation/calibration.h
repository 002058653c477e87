#pragma once
// Fitting the suite-kernel model's two GPU constants (common/gpumodel/kernel_family.h) to
// measurements, one constant on one case each, so that the fit is a declared calibration point
// and every other case stays a prediction:
//   memory_latency_us      on the row softmax of Welder Fig. 2 (8 rows per block): a
//                          memory-bound kernel whose time is its warps' round trips
//   suite_issue_per_clock  on the tiled GEMM at 1024^3 with the 64x64 tile (the kernel benchmark's
//                          best tile)
// The softmax does not depend on the issue rate, so the latency is fitted first; the GEMM's
// floor depends on both, so the issue rate is fitted with that latency.
#include <map>
#include <string>
#include <vector>

#include "common/hw/hardware.h"
#include "validation/validation_cases.h"
#include "validation/validation_report.h"

namespace dgs::validation {

inline constexpr const char* kLatencyCalibrationCase = "fig2.softmax.8rows";
inline constexpr const char* kIssueCalibrationCase = "gemm.1024.64x64x8/4x4";

struct CalibrationPoint {
  std::string key;      // the efficiency key fitted
  std::string case_id;  // the case it was fitted on
  double value = 0;
};

// Sets spec.efficiency[key] for both constants so that the model reproduces the two cases'
// measurements (bisection to 1e-6 relative). Throws dgs::Error naming a case without a
// measurement.
std::vector<CalibrationPoint> calibrate_suite_model(
    GpuSpec& spec, const std::vector<ValidationCase>& cases,
    const std::map<std::string, double>& measured_ms);

}  // namespace dgs::validation
