#pragma once
// Reading a paper's published numbers. An item reads them one way: ctx.paper_data("<file>")
// (ExperimentContext, cli/cli.h) gives data/<paper>/<file> as a PaperData, whose value(), text()
// and source() look a row up by its key columns (and record the read for the --all check that
// every published number is compared). A number the item cannot go on without is read with
// paper_number.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/report/report.h"
#include "common/util/error.h"

namespace dgs {

// The number at (`keys`, `column`) of `data`; dgs::Error naming the file, the keys and the column
// when there is no such row or the cell is empty.
inline double paper_number(const PaperData& data,
                           const std::vector<std::pair<std::string, std::string>>& keys,
                           const std::string& column) {
  if (const std::optional<double> v = data.value(keys, column)) return *v;
  std::string row;
  for (const auto& [name, value] : keys) row += (row.empty() ? "" : ", ") + name + " = " + value;
  throw Error(data.origin + ": no value in column '" + column + "' for " + row);
}

}  // namespace dgs
