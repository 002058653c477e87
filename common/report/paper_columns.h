#pragma once
// Which columns of a report table carry a paper value beside ours, by name (the rule of
// paper_cells in report.h: "paper_<q>" pairs with "ours_<q>", else "<q>"; "paper" with "ours").
#include <string>
#include <utility>
#include <vector>

namespace dgs {

// The (paper column, ours column) index pairs of a header: for readers of a report's CSV files
// (repro_report's page) and for paper_cells.
std::vector<std::pair<int, int>> paper_column_pairs(const std::vector<std::string>& columns);

}  // namespace dgs
