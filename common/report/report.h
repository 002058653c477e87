#pragma once
// Reports: a table of results printed to the terminal and written as CSV, paper values read from
// data/<paper>/*.csv (with their sources), the claims block, and SVG charts.
#include <cstdint>
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

std::string format_cell(const Cell& c, int significant_digits);

// A boxed, aligned terminal table with a title line.
void print_table(std::ostream& os, const std::string& title, const Table& t);

// RFC 4180 CSV (quotes fields with commas, quotes or newlines; doubles with 6 significant digits).
std::string to_csv(const Table& t);
// Writes to_csv(t) atomically (temporary file, then rename).
void write_csv(const std::string& path, const Table& t);

// ---------------------------------------------------------------------------------------------
// Paper values: data/<paper>/<file>.csv, read from the built-in copy (or a folder on disk).
// Each file has a header row; one column is "source" (the paper's table/figure/section, or the
// authors' artifact, named as such). Rows are looked up by key columns.
// ---------------------------------------------------------------------------------------------
class PaperData {
 public:
  // Reads built-in "data/<paper>/<file>" (e.g. ("welder", "fig13.csv")). Throws if absent/malformed.
  static PaperData load(const std::string& paper, const std::string& file);
  static PaperData parse(const std::string& csv_text, const std::string& origin);

  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  // The value of `column` in the first row whose key columns equal `keys`
  // ({{"model","ViT"},{"variant","Welder"}}); nullopt when there is no such row or it is empty.
  std::optional<double> value(const std::vector<std::pair<std::string, std::string>>& keys,
                              const std::string& column) const;
  // The "source" of that row ("" if none).
  std::string source(const std::vector<std::pair<std::string, std::string>>& keys) const;
  std::string origin;

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Parses RFC 4180 CSV into rows of fields. Throws dgs::Error("<origin>:<line>: ...") if malformed.
std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& origin);

// ---------------------------------------------------------------------------------------------
// Claims: one line per claim of the paper, checked against our value.
// ---------------------------------------------------------------------------------------------
struct Claim {
  std::string text;        // "Welder-base cuts kernel count vs Welder-none (mean of per-model reductions)"
  std::string source;      // "§5.3, Fig. 13"
  double paper = 0;        // the paper's value
  double ours = 0;         // computed by the suite
  double tolerance = 0;    // absolute tolerance on |ours - paper| (same unit as the values)
  std::string unit;        // "%", "x", "ms", ...
  bool holds() const;      // |ours - paper| <= tolerance
};
void print_claims(std::ostream& os, const std::vector<Claim>& claims);
Table claims_table(const std::vector<Claim>& claims);  // columns: claim,source,paper,ours,tolerance,unit,verdict

// ---------------------------------------------------------------------------------------------
// SVG charts
// ---------------------------------------------------------------------------------------------
struct Series {
  std::string name;
  std::vector<double> values;  // one per category / x value; NaN = no bar / no point
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> categories;  // groups along x
  std::vector<Series> series;           // bars within each group, with a legend
  bool log_y = false;
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<double> x;
  std::vector<Series> series;
  bool log_x = false;
  bool log_y = false;
};

std::string bar_chart_svg(const BarChart& c, int width = 720, int height = 420);
std::string line_chart_svg(const LineChart& c, int width = 720, int height = 420);
// Several charts side by side (panels) in one picture, e.g. Welder's Fig. 13 (four metrics).
std::string panels_svg(const std::vector<std::string>& panel_svgs, int columns);
void write_svg(const std::string& path, const std::string& svg);  // atomic

}  // namespace dgs
