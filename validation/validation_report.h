#pragma once
// gpu_validate's results: one row per case (measured, predicted, relative error), the summary by
// family and overall (mean absolute relative error, fraction within 10% and 25%), and the
// schedule-vs-schedule comparisons (does the model say which of two is faster?). The same code
// summarises a live run and a replay of measurements taken earlier (--replay FILE).
#include <map>
#include <string>
#include <vector>

#include "common/report/report.h"
#include "validation/validation_cases.h"

namespace dgs::validation {

struct ValidationRow {
  std::string id, family, shape;
  bool end_to_end = false;
  double measured_ms = 0;
  double predicted_ms = 0;         // the model with the suite-kernel families
  double predicted_before_ms = 0;  // the model before them (library-class efficiencies)
  std::string source;              // where the measurement comes from
  bool calibration = false;        // a constant of the model was fitted on this case
  std::string model_algorithm;     // ValidationCase::model_algorithm on the priced spec, or ""
  // predicted / measured - 1 (signed); rel_error_before likewise.
  double rel_error() const;
  double rel_error_before() const;
};

struct GroupSummary {
  std::string group;  // a family, "all kernels" or "end to end"
  int cases = 0;
  double mae = 0, within10 = 0, within25 = 0;                       // after
  double mae_before = 0, within10_before = 0, within25_before = 0;  // before
};

// Per family (in order of first appearance), then "all kernels" (every row that is not end to
// end), "all kernels, predictions" (the same without calibration points, when there are any) and
// "end to end" (when there are such rows).
std::vector<GroupSummary> summarize(const std::vector<ValidationRow>& rows);

struct PairResult {
  CasePair pair;
  double measured_ratio = 0, predicted_ratio = 0, predicted_ratio_before = 0;  // a / b
  bool sign_right = false, sign_right_before = false;
};
// The pairs whose both cases have rows.
std::vector<PairResult> compare_pairs(const std::vector<ValidationRow>& rows,
                                      const std::vector<CasePair>& pairs);

Table rows_table(const std::vector<ValidationRow>& rows);
Table summary_table(const std::vector<GroupSummary>& s);
Table pairs_table(const std::vector<PairResult>& p);

struct ReplayMeasurement;
// One row per case of `measured` (in the cases' order), priced on `spec`; a row is a calibration
// point where one of spec's suite-model constants says it was calibrated on that case.
std::vector<ValidationRow> priced_rows(const std::vector<ValidationCase>& cases,
                                       const std::map<std::string, ReplayMeasurement>& measured,
                                       const GpuSpec& spec);
// Whether a suite-model constant of `spec` was calibrated on case `id` (its source names it).
bool is_calibration_point(const GpuSpec& spec, const std::string& id);

// One kernel of an end-to-end case timed kernel by kernel (ValidationCase::predict_kernels):
// measured alone, and priced alone. These rows never enter the summary or the pairs.
struct KernelRow {
  std::string id, case_id;  // kernel_row_id(case_id, index)
  size_t index = 0;
  std::string name, detail;
  double measured_ms = 0, predicted_ms = 0;
  std::string source;
  double rel_error() const;  // predicted / measured - 1
};
// One row per kernel measurement of `measured` (ids kernel_row_id(case, i)), in the cases' and
// the kernels' order, priced on `spec`. Throws dgs::Error for an index the case's schedule on
// `spec` does not have, or for a row whose source names (kKernelNameTag) another kernel than the
// one at its index.
std::vector<KernelRow> priced_kernel_rows(const std::vector<ValidationCase>& cases,
                                          const std::map<std::string, ReplayMeasurement>& measured,
                                          const GpuSpec& spec);
Table kernel_rows_table(const std::vector<KernelRow>& rows);
// Per case of `rows`: kernels, their MAE and signed mean error, and the sum of the measured and
// of the predicted kernel times (one line each, for the notes).
std::string kernel_summary(const std::vector<KernelRow>& rows);
// The measurements as a replay file (id, measured_ms, source): the cases' rows, then the kernels'.
Table replay_table(const std::vector<ValidationRow>& rows, const std::vector<KernelRow>& kernels);

// A replay file: CSV with columns id, measured_ms, source (one row per case; ids are
// validation_cases() ids, or kernel_row_id(id, index) for a kernel of a case timed kernel by
// kernel, which priced_kernel_rows prices). Throws dgs::Error naming the file and line for a
// malformed row, an unknown id (`known`) or a repeated one.
struct ReplayMeasurement {
  double measured_ms = 0;
  std::string source;
};
std::map<std::string, ReplayMeasurement> read_replay(const std::string& text,
                                                     const std::string& origin,
                                                     const std::vector<std::string>& known);

}  // namespace dgs::validation
