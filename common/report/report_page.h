#pragma once
// One page over a reports folder (reports/index.html) and its summary in Markdown
// (reports/REPORT.md), built from the files the repro_* executables wrote there and nothing
// else:
//   <dir>/<paper>/summary.csv   the per-item and total claims and cell errors of a --all run
//   <dir>/<paper>/items.csv     every item's caption, status, machine and wall time
//   <dir>/<paper>/run_info.csv  the environment fingerprint of that run
//   <dir>/<paper>/<item>*.svg, *.csv, _claims.csv, _notes.txt, other files
//   <dir>/compare/              the cross-paper comparison, when present
// Every CSV is read by column name, so a column added later is shown without a change here.
//
// The page is self-contained: the SVG figures are inline, the style sheet is in the page, no
// script and no network; it has a print style sheet (each paper from a new page, no figure or
// table row split). Its summary table has one row per paper (items run; checked claims holding
// and deviating, those against stand-ins; informational rows; calibration points; cells with a
// paper value and their median and 90th-percentile relative error: the "total" row of each
// summary.csv), then one section per paper and per item: caption, figures, tables (paper columns
// beside ours, each of our cells with a paper value shaded by its relative error), claims with
// their rule, notes.
#include <string>
#include <vector>

namespace dgs {

struct ReportPage {
  std::string html;
  std::string markdown;
  std::vector<std::string> papers;  // the folders read, in page order
};

// Reads every subfolder of `dir` that holds a summary.csv or an items.csv (papers, sorted by
// name) and `dir`/compare/ when it exists. Throws dgs::Error when `dir` is not a folder, holds no
// paper's reports ("no reports in <dir>: run ./build.sh reproduce or repro_<paper> --all"), a
// CSV file is malformed (naming the file and line), or a summary.csv lacks its item or count
// columns or its total row, or has a count that is not a non-negative integer (naming the file,
// item and column), or an SVG has no <svg> element, a script or a reference outside the page.
ReportPage build_report_page(const std::string& dir);

// build_report_page(dir), written to <dir>/index.html and <dir>/REPORT.md (each atomically);
// returns the two paths.
std::vector<std::string> write_report_page(const std::string& dir);

}  // namespace dgs
