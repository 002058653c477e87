#pragma once
// Reports: a table of results printed to the terminal and written as CSV, paper values read from
// data/<paper>/*.csv (with their sources), the claims block, and SVG charts.
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------------
struct Missing {};  // an empty cell (e.g. no paper value); printed "-" and written "" in CSV
using Cell = std::variant<Missing, std::string, int64_t, double>;

class Table {
 public:
  Table() = default;
  explicit Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<Cell> row);  // throws dgs::Error if the width differs
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  int column(const std::string& name) const;  // index; throws if absent
  int precision = 3;  // significant digits for doubles in the terminal (CSV keeps 6)

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// "-" for Missing; doubles with `significant_digits` significant digits in fixed notation (never
// dropping integer digits: 1234.5 -> "1235"), scientific below 1e-4 or from 1e15; "nan", "inf".
std::string format_cell(const Cell& c, int significant_digits);

// ours / paper as a cell: Missing when the paper has no value (or it is 0).
Cell ratio_cell(double ours, const std::optional<double>& paper);

// A boxed, aligned terminal table with a title line (ASCII rules; columns whose cells are all
// numbers are right-aligned, text left-aligned; widths count UTF-8 code points).
void print_table(std::ostream& os, const std::string& title, const Table& t);

// RFC 4180 CSV (quotes fields with commas, quotes or newlines; doubles with 6 significant digits,
// printf "%.6g"; records end with CRLF as the RFC says; Missing is an empty field).
std::string to_csv(const Table& t);
// Writes to_csv(t) atomically (temporary file, then rename).
void write_csv(const std::string& path, const Table& t);

// ---------------------------------------------------------------------------------------------
// Paper values: data/<paper>/<file>.csv, read from the built-in copy (or a folder on disk).
// Each file has a header row; one column is "source" (the paper's table/figure/section, or the
// authors' artifact, named as such). Rows are looked up by key columns.
// ---------------------------------------------------------------------------------------------
//
// Rules checked on load (errors name the file and line): a header row with unique, non-empty
// column names, one of them "source"; every row as wide as the header; every row's source
// non-empty. Values are read as numbers only when asked for (value()); a non-numeric value in a
// requested cell is an error naming the file, line and column.
class PaperData {
 public:
  // Reads built-in "data/<paper>/<file>" (e.g. ("mypaper", "fig3.csv")). Throws if
  // absent/malformed. If the environment variable DGS_DATA_DIR is set,
  // "<DGS_DATA_DIR>/<paper>/<file>" is read from disk instead (to try edited paper values without
  // rebuilding).
  static PaperData load(const std::string& paper, const std::string& file);
  static PaperData parse(const std::string& csv_text, const std::string& origin);

  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  // The value of `column` in the first row whose key columns equal `keys`
  // ({{"model","ViT"},{"variant","fused"}}); nullopt when there is no such row or it is empty.
  std::optional<double> value(const std::vector<std::pair<std::string, std::string>>& keys,
                              const std::string& column) const;
  // The same as a table cell: the number, or Missing.
  Cell cell(const std::vector<std::pair<std::string, std::string>>& keys,
            const std::string& column) const;
  // The raw text of that cell; nullopt when there is no such row.
  std::optional<std::string> text(const std::vector<std::pair<std::string, std::string>>& keys,
                                  const std::string& column) const;
  // The "source" of that row ("" if none).
  std::string source(const std::vector<std::pair<std::string, std::string>>& keys) const;
  bool has_column(const std::string& name) const;
  std::string origin;

 private:
  int column_index(const std::string& name) const;  // throws naming origin if absent
  int find_row(const std::vector<std::pair<std::string, std::string>>& keys) const;  // -1 if none
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;  // line of each row in the file
};

// Parses RFC 4180 CSV into rows of fields. Throws dgs::Error("<origin>:<line>: ...") if malformed:
// an unterminated quoted field, a character after a closing quote, a quote inside an unquoted
// field, or a record whose field count differs from the first record's. Records end with LF or
// CRLF; a final line break is optional; empty lines are skipped; a leading UTF-8 BOM is ignored.
std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& origin);

// The same, with the (1-based) line on which each record starts.
struct CsvRecord {
  int line = 0;
  std::vector<std::string> fields;
};
std::vector<CsvRecord> parse_csv_records(const std::string& text, const std::string& origin);

// ---------------------------------------------------------------------------------------------
// Claims: one line per claim of the paper, checked against our value.
// ---------------------------------------------------------------------------------------------
struct Claim {
  std::string text;      // "fusion cuts kernel count vs no fusion (mean of per-model reductions)"
  std::string source;    // "§5.3, Fig. 13"
  double paper = 0;      // the paper's value
  double ours = 0;       // computed by the suite
  double tolerance = 0;  // absolute tolerance on |ours - paper| (same unit as the values)
  std::string unit;      // "%", "x", "ms", ...
  bool at_most = false;  // one-sided: holds when ours <= paper + tolerance
  bool holds() const;    // |ours - paper| <= tolerance (at_most: ours - paper <= tolerance)
};
// A block headed "Claims", one line per claim ("holds"/"deviates", the claim, its source, the
// paper's value, ours, the tolerance), then "<k> of <n> claims hold".
void print_claims(std::ostream& os, const std::vector<Claim>& claims);
Table claims_table(
    const std::vector<Claim>& claims);  // columns: claim,source,paper,ours,tolerance,unit,verdict

// ---------------------------------------------------------------------------------------------
// SVG charts
// ---------------------------------------------------------------------------------------------
struct Series {
  std::string name;
  std::vector<double> values;  // one per category / x value; NaN = no bar / no point
};

// Charts are deterministic SVG 1.1 (coordinates with two decimals, labels with up to 6
// significant digits, a fixed colour palette). On a log axis, non-positive values draw nothing.
struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> categories;  // groups along x
  std::vector<Series> series;           // bars within each group, with a legend
  bool log_y = false;
  double reference_y =
      std::numeric_limits<double>::quiet_NaN();  // dashed line (e.g. 1.0); NaN = none
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<double> x;
  std::vector<Series> series;
  bool log_x = false;
  bool log_y = false;
  double reference_y = std::numeric_limits<double>::quiet_NaN();  // dashed line; NaN = none
};

std::string bar_chart_svg(const BarChart& c, int width = 720, int height = 420);
std::string line_chart_svg(const LineChart& c, int width = 720, int height = 420);
// Several charts side by side (panels) in one picture, e.g. four metrics of one experiment.
// Each panel is an SVG produced by the functions above; `columns` panels per row.
std::string panels_svg(const std::vector<std::string>& panel_svgs, int columns);
void write_svg(const std::string& path, const std::string& svg);  // atomic

}  // namespace dgs
