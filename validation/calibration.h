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
// The library-call terms' two fixed costs (common/gpumodel/model_internal.h, library_conv_call)
// are host, driver and library dependent (two H200 runs a day apart measured them 5-30% apart),
// so a run that measured cuDNN convolutions fits them on its own declared cases as well:
//   library_call_us        on the smallest ResNet-50 batch-1 convolution (1x1, 128 -> 512 on
//                          28x28), the least GEMM work behind a plain convolution call
//   library_fused_call_us  on the smallest Inception V3 batch-1 Conv+ReLU (1x1, 192 -> 48 on
//                          35x35), the same for the fused Conv+bias+activation call
// Each case's price rises with its own cost only, so each is one bisection.
#include <map>
#include <string>
#include <vector>

#include "common/hw/hardware.h"
#include "validation/validation_cases.h"
#include "validation/validation_report.h"

namespace dgs::validation {

inline constexpr const char* kLatencyCalibrationCase = "fig2.softmax.8rows";
inline constexpr const char* kIssueCalibrationCase = "gemm.1024.64x64x8/4x4";
inline constexpr const char* kLibraryCallCalibrationCase = "cudnn.resnet50.b1.8";
inline constexpr const char* kLibraryFusedCallCalibrationCase = "cudnn.inception_v3.b1.6";

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

// Sets spec.efficiency[library_call_us] and [library_fused_call_us] so that the model reproduces
// their two cases' measurements (bisection to 1e-6 relative, between 1e-3 and 1e4 us). Throws
// dgs::Error naming a case without a measurement, or one whose measurement lies outside what the
// cost can reach (e.g. below the model's price of its kernels without a call cost).
std::vector<CalibrationPoint> calibrate_library_calls(
    GpuSpec& spec, const std::vector<ValidationCase>& cases,
    const std::map<std::string, double>& measured_ms);

}  // namespace dgs::validation
