// The summary of a run: paper-vs-ours cells found in tables by column name, and per-item counts.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "common/report/paper_columns.h"
#include "common/report/report.h"

namespace dgs {

namespace {
std::optional<double> number(const Cell& c) {
  if (const auto* d = std::get_if<double>(&c))
    return std::isfinite(*d) ? std::optional(*d) : std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  return std::nullopt;
}

int find_column(const std::vector<std::string>& cols, const std::string& name) {
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i] == name) return static_cast<int>(i);
  return -1;
}
}  // namespace

double PaperCell::relative_error() const {
  return std::fabs(ours - paper) / std::fabs(paper);
}

std::vector<std::pair<int, int>> paper_column_pairs(const std::vector<std::string>& cols) {
  std::vector<std::pair<int, int>> pairs;  // (paper column, ours column)
  for (size_t i = 0; i < cols.size(); ++i) {
    const std::string& c = cols[i];
    int ours = -1;
    if (c == "paper") {
      ours = find_column(cols, "ours");
    } else if (c.rfind("paper_", 0) == 0) {
      const std::string q = c.substr(6);
      ours = find_column(cols, "ours_" + q);
      if (ours < 0) ours = find_column(cols, q);
    }
    if (ours >= 0) pairs.emplace_back(static_cast<int>(i), ours);
  }
  return pairs;
}

std::vector<PaperCell> paper_cells(const Table& t) {
  const std::vector<std::string>& cols = t.columns();
  const std::vector<std::pair<int, int>> pairs = paper_column_pairs(cols);
  std::vector<PaperCell> out;
  for (const auto& row : t.rows()) {
    for (const auto& [p, o] : pairs) {
      const auto pv = number(row[p]), ov = number(row[o]);
      if (pv && ov && *pv != 0) out.push_back({cols[p], *pv, *ov});
    }
  }
  return out;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

Table summary_table(const std::vector<ItemSummary>& items) {
  Table t({"item", "own_hold", "own_deviate", "stand_in_hold", "stand_in_deviate", "informational",
           "calibration", "paper_cells", "median_rel_error", "p90_rel_error"});
  auto add = [&t](const std::string& name, const ClaimTally& c, const std::vector<double>& e) {
    const Cell med = e.empty() ? Cell(Missing{}) : Cell(quantile(e, 0.5));
    const Cell p90 = e.empty() ? Cell(Missing{}) : Cell(quantile(e, 0.9));
    t.add_row({name, int64_t{c.own_hold}, int64_t{c.own_deviate}, int64_t{c.stand_in_hold},
               int64_t{c.stand_in_deviate}, int64_t{c.informational}, int64_t{c.calibration},
               static_cast<int64_t>(e.size()), med, p90});
  };
  ClaimTally total;
  std::vector<double> all;
  for (const ItemSummary& s : items) {
    add(s.item, s.claims, s.cell_errors);
    total += s.claims;
    all.insert(all.end(), s.cell_errors.begin(), s.cell_errors.end());
  }
  add("total", total, all);
  return t;
}

}  // namespace dgs
