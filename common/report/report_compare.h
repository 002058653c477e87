#pragma once
// Comparing two report folders (reports/<paper>/ of two runs): CSV files cell by cell, by column
// name, every other file byte by byte, except the values that differ between runs of the same
// code or between machines, which are named once, here.
#include <string>
#include <vector>

namespace dgs {

// The values that differ between two runs of the same code with the same seed (wall-clock times)
// or between machines (the environment fingerprint), named once, each with its reason, in
// reports/run_varying.csv (built into the executables; column "value"). Each value is one of
//   "<column>"                  a CSV column, in every file ("wall_s")
//   "<file>"                    a whole file, in every folder ("run_info.csv")
//   "<paper>/<file>"            a whole file of one paper ("mine/fig3.svg": a chart of times)
//   "<paper>/<file>:<column>"   a column of one file ("mine/fig3_claims.csv:ours")
// Every comparison of reports skips exactly these: the committed reports test
// (paper_reports_test), the determinism test, and `repro_report --compare`.
const std::vector<std::string>& run_varying_values();

// Whether the column `column` of the CSV file `rel` (its path under a reports folder,
// "mine/fig3_claims.csv", or deeper) is skipped.
bool is_run_varying_column(const std::string& rel, const std::string& column);
// Whether the file `rel` is skipped whole.
bool is_run_varying_file(const std::string& rel);

// The differences between the contents of one file, `rel` (its path relative to the compared
// folders, used in the messages), as found in the expected and the actual folder: for CSV files
// the first differing header, row count or cell outside the run-varying columns ("p/fig4.1.csv
// row 3 (inception_v3) column latency_ms: expected 1.234, this run 1.24"); for other files the
// first differing line. At most `limit` lines.
std::vector<std::string> compare_report_file(const std::string& rel, const std::string& expected,
                                             const std::string& actual, size_t limit = 1);

// Every file under `expected` and `actual` (recursively, relative paths sorted), compared:
// missing and extra files, then compare_report_file for each file present in both, skipping the
// run-varying files. `prefix` is put before the relative paths, in the messages and for matching
// run_varying_values() ("mine/" when the folders are a paper's). At most `limit` lines.
std::vector<std::string> compare_report_folders(const std::string& expected,
                                                const std::string& actual, size_t limit = 1,
                                                const std::string& prefix = "");

}  // namespace dgs
