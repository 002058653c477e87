// Tables: cell formatting, the boxed terminal table and the CSV writer.
#include <cmath>
#include <cstdio>
#include <ostream>

#include "common/report/report.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

// Digits written for a double in CSV: enough to keep the value for a reader, short enough to diff.
constexpr int kCsvSignificantDigits = 6;
// Outside this range a terminal cell switches to scientific notation (fixed notation would be
// unreadably long or lose all significant digits).
constexpr double kFixedNotationMin = 1e-4;
constexpr double kFixedNotationMax = 1e15;

std::string format_double_fixed_significant(double v, int sig) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  if (sig < 1) sig = 1;
  char buf[64];
  const double a = std::fabs(v);
  if (a >= kFixedNotationMin && a < kFixedNotationMax) {
    const int digits_before_point = static_cast<int>(std::floor(std::log10(a))) + 1;
    const int decimals = std::max(0, sig - digits_before_point);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  } else {
    std::snprintf(buf, sizeof buf, "%.*e", sig - 1, v);
  }
  return buf;
}

// Display width of UTF-8 text: the number of code points (every byte that is not a continuation).
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char ch : s) {
    if ((ch & 0xC0) != 0x80) ++n;
  }
  return n;
}

bool is_numeric(const Cell& c) {
  return std::holds_alternative<int64_t>(c) || std::holds_alternative<double>(c);
}

std::string csv_field(const Cell& c) {
  std::string s;
  if (std::holds_alternative<Missing>(c)) return "";
  if (const auto* str = std::get_if<std::string>(&c)) {
    s = *str;
  } else if (const auto* i = std::get_if<int64_t>(&c)) {
    s = std::to_string(*i);
  } else {
    const double v = std::get<double>(c);
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", kCsvSignificantDigits, v);
    return buf;
  }
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  q += '"';
  return q;
}

}  // namespace

void Table::add_row(std::vector<Cell> row) {
  if (row.size() != columns_.size()) {
    throw Error("table row has " + std::to_string(row.size()) + " cells, expected " +
                std::to_string(columns_.size()) + " (one per column)");
  }
  rows_.push_back(std::move(row));
}

int Table::column(const std::string& name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == name) return static_cast<int>(i);
  }
  throw Error("table has no column '" + name + "'");
}

std::string format_cell(const Cell& c, int significant_digits) {
  if (std::holds_alternative<Missing>(c)) return "-";
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  return format_double_fixed_significant(std::get<double>(c), significant_digits);
}

Cell ratio_cell(double ours, const std::optional<double>& paper) {
  if (!paper || *paper == 0) return Missing{};
  return ours / *paper;
}

void print_table(std::ostream& os, const std::string& title, const Table& t) {
  const size_t ncol = t.columns().size();
  std::vector<std::vector<std::string>> text(t.rows().size(), std::vector<std::string>(ncol));
  std::vector<size_t> width(ncol, 0);
  // A column whose filled cells are all numbers is right-aligned (header too).
  std::vector<bool> numeric(ncol, true);
  std::vector<bool> any_filled(ncol, false);
  for (size_t c = 0; c < ncol; ++c) width[c] = display_width(t.columns()[c]);
  for (size_t r = 0; r < t.rows().size(); ++r) {
    for (size_t c = 0; c < ncol; ++c) {
      const Cell& cell = t.rows()[r][c];
      text[r][c] = format_cell(cell, t.precision);
      width[c] = std::max(width[c], display_width(text[r][c]));
      if (!std::holds_alternative<Missing>(cell)) {
        any_filled[c] = true;
        if (!is_numeric(cell)) numeric[c] = false;
      }
    }
  }
  for (size_t c = 0; c < ncol; ++c) numeric[c] = numeric[c] && any_filled[c];

  auto rule = [&] {
    os << '+';
    for (size_t c = 0; c < ncol; ++c) os << std::string(width[c] + 2, '-') << '+';
    os << '\n';
  };
  auto line = [&](const std::vector<std::string>& cells, const std::vector<bool>& right) {
    os << '|';
    for (size_t c = 0; c < ncol; ++c) {
      const std::string pad(width[c] - display_width(cells[c]), ' ');
      os << ' ' << (right[c] ? pad + cells[c] : cells[c] + pad) << " |";
    }
    os << '\n';
  };

  if (!title.empty()) os << title << '\n';
  rule();
  line(t.columns(), numeric);
  rule();
  for (size_t r = 0; r < text.size(); ++r) {
    std::vector<bool> right(ncol);
    for (size_t c = 0; c < ncol; ++c) {
      const Cell& cell = t.rows()[r][c];
      right[c] = is_numeric(cell) || (numeric[c] && std::holds_alternative<Missing>(cell));
    }
    line(text[r], right);
  }
  if (!text.empty()) rule();
}

std::string to_csv(const Table& t) {
  std::string out;
  auto row_out = [&](const std::vector<Cell>& row) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) out += ',';
      out += csv_field(row[c]);
    }
    out += "\r\n";
  };
  std::vector<Cell> header(t.columns().begin(), t.columns().end());
  row_out(header);
  for (const auto& row : t.rows()) row_out(row);
  return out;
}

void write_csv(const std::string& path, const Table& t) {
  write_file_atomic(path, to_csv(t));
}

}  // namespace dgs
