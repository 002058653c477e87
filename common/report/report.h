#pragma once
// Reports: a table of results printed to the terminal and written as CSV, paper values read from
// data/<paper>/*.csv (with their sources), the claims block, and SVG charts.
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
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
  int line_of_row(int row) const { return lines_[row]; }  // the row's line in the file
  std::string origin;

 private:
  // Records a read of (row, column) and of the row's key cells, for unread_paper_values.
  void mark_read(int row, int column, const std::vector<int>& key_columns) const;
  std::vector<int> key_columns(const std::vector<std::pair<std::string, std::string>>& keys) const;
  std::string data_key_;  // "data/<paper>/<file>" (whatever folder it was read from)
  int column_index(const std::string& name) const;  // throws naming origin if absent
  int find_row(const std::vector<std::pair<std::string, std::string>>& keys) const;  // -1 if none
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;  // line of each row in the file
};

// The numeric cells of the built-in data/<paper>/*.csv (outside "source") that no value(),
// cell() or text() call of this process has read, or used as a key of a row it read, as
// "data/<paper>/<file>:<line> <column> (<value>)". After a --all run it lists the published
// numbers that no item compares. `inputs`: files (names under data/<paper>/) that are inputs of
// the suite (e.g. graph files), not published results; they are not listed.
std::vector<std::string> unread_paper_values(const std::string& paper,
                                             const std::vector<std::string>& inputs = {});

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
//
// Each claim compares one kind of quantity, and each kind has ONE tolerance rule, declared here
// (claim_rule) and printed in every claims block; no claim picks its own tolerance. The rules of
// effects (a speedup, a reduction) fail when ours has the opposite sign of the paper's effect,
// however close the magnitudes: a paper's 1.09x speedup is not reproduced by a 0.99x slowdown.
enum class ClaimKind {
  Ratio,       // a speedup, a gain or a ratio of two quantities (1 = no effect)
  Time,        // an absolute time (ms, s)
  Percentage,  // a percentage: a reduction, a share, a utilisation, a relative difference
               // (the paper's "similar", with no number, is 0)
  Count,       // an exact count (ops, kernels, tiles, bytes, schedules)
  Ordering,    // a yes/no (1 = yes), e.g. an ordering or a sign
};
inline constexpr int kClaimKinds = 5;

// How a rule bounds ours against the paper's value.
enum class ClaimBound {
  LogRatio,  // ours / paper within [1 / (1 + tolerance), 1 + tolerance]
  Relative,  // |ours / paper - 1| <= tolerance
  Absolute,  // |ours - paper| <= tolerance, in the claim's unit
  Exact,     // ours = paper
};

struct ClaimRule {
  const char* name;  // "ratio"
  ClaimBound bound;  // how ours is bounded against the paper's value
  double tolerance;  // 0.1 = 10% (LogRatio, Relative) or 10 units (Absolute); 0 for Exact
  // The value of no effect (a ratio's 1, a percentage's 0): where the paper's value differs from
  // it, ours must differ from it in the same direction. NaN: no sign test (times, counts).
  double neutral;
  const char* statement;  // the whole rule in words, printed above every claims block
  const char* why;        // why this rule for this kind (the README's table)
};
const ClaimRule& claim_rule(ClaimKind kind);
// One line per kind: "<name>: <statement>" (for the README and --help), then the range rule.
std::vector<std::string> claim_rule_lines();
// How a claim against a range of the paper's ("1.45-2.30x over its networks") is checked.
extern const char* const kClaimRangeRule;

struct Claim {
  std::string text;    // "fusion cuts kernel count vs no fusion (mean of per-model reductions)"
  std::string source;  // "§5.3, Fig. 13"
  double paper = 0;    // the paper's value (the low end of a range: paper_high)
  double ours = 0;     // computed by the suite
  ClaimKind kind = ClaimKind::Ratio;  // the quantity compared; its rule gives the tolerance
  std::string unit;                   // "%", "x", "ms", ...
  // Non-empty: the paper compares with a system the suite cannot run, and ours compares with the
  // suite's stand-in, named here ("the suite's Ansor-like fusion for Ansor"). Counted apart from
  // the claims about the paper's own method.
  std::string stand_in = {};
  // Non-empty: an informational row that is never counted, saying why it cannot deviate
  // ("the DP's space contains the other schedules") or why it is not compared.
  std::string informational = {};
  // Non-empty (informational rows only): the paper compares with a system the suite neither runs
  // nor has a stand-in for, named here ("the vendor's hand-written code"); the claims table's
  // `against` column reads "not run: <this>".
  std::string not_run = {};
  // Non-empty: the paper value is the calibration target of global constants, named here with
  // their config and value ("v100 gemm_fp32 = 0.8, ..."): reported as the calibration point, not
  // counted as a hold.
  std::string calibrated = {};
  // Set: the paper states a range [paper, paper_high] over a set of cases (its networks), and ours
  // is one case of that set (kClaimRangeRule).
  std::optional<double> paper_high = std::nullopt;

  bool checked() const { return informational.empty() && calibrated.empty(); }
  double tolerance() const;  // absolute, in the claim's unit, from the kind's rule (upper side)
  // The interval of ours that holds (the sign test as its closed end at the neutral value).
  std::pair<double, double> accepted() const;
  bool holds() const;  // the kind's rule (NaN never holds)
  // "holds", "deviates", "informational" or "calibration point".
  std::string verdict() const;
};

// A yes/no claim the paper makes (its value 1, kind Ordering, unit "yes/no"): ours is 1 when
// `yes` holds, 0 when not, NaN when the case did not run (nullopt). stand_in and informational as
// in Claim.
Claim yes_no_claim(std::string text, std::string source, std::optional<bool> yes,
                   std::string stand_in = {}, std::string informational = {});

// Counts of a claims block: checked claims holding/deviating, about the paper's own method and
// against stand-ins apart, and the rows that are not counted.
struct ClaimTally {
  int own_hold = 0, own_deviate = 0;
  int stand_in_hold = 0, stand_in_deviate = 0;
  int informational = 0, calibration = 0;
  void add(const Claim& c);
  ClaimTally& operator+=(const ClaimTally& o);
  int checked() const { return own_hold + own_deviate + stand_in_hold + stand_in_deviate; }
  int holding() const { return own_hold + stand_in_hold; }
  // "3 of 4 checked claims hold (paper's method: 2 of 3; against stand-ins: 1 of 1); 2
  // informational; 1 calibration point"
  std::string line() const;
};

// A block headed "Claims", the tolerance rules of the kinds it uses, then the checked claims
// about the paper's own method, those against stand-ins, the calibration points and the
// informational rows (each line: verdict, claim, source, paper, ours, tolerance or why), then
// ClaimTally::line().
void print_claims(std::ostream& os, const std::vector<Claim>& claims);
// columns: claim,source,kind,paper,paper_high,ours,tolerance,accepted_low,accepted_high,unit,
// against,verdict,why
Table claims_table(const std::vector<Claim>& claims);

// ---------------------------------------------------------------------------------------------
// Paper-vs-ours cells and the summary of a run
// ---------------------------------------------------------------------------------------------
// The cells of a table that carry a paper value beside ours, found by column name: a column
// "paper_<q>" pairs with "ours_<q>" (else "<q>"), and "paper" with "ours"; a pair counts in a row
// where both cells are numbers and the paper's is not 0.
struct PaperCell {
  std::string column;  // the paper column's name
  double paper = 0;
  double ours = 0;
  double relative_error() const;  // |ours - paper| / |paper|
};
std::vector<PaperCell> paper_cells(const Table& t);

// The q-quantile (0..1, linear interpolation between order statistics) of `values`; NaN if empty.
double quantile(std::vector<double> values, double q);

// One item of a run (a figure or table) in the summary.
struct ItemSummary {
  std::string item;                 // "fig4.1"
  ClaimTally claims;                // its claims blocks
  std::vector<double> cell_errors;  // relative errors of its paper-vs-ours cells
};
// columns: item, own_hold, own_deviate, stand_in_hold, stand_in_deviate, informational,
// calibration, paper_cells, median_rel_error, p90_rel_error; one row per item, then "total".
Table summary_table(const std::vector<ItemSummary>& items);

// ---------------------------------------------------------------------------------------------
// SVG charts
// ---------------------------------------------------------------------------------------------
struct Series {
  std::string name;
  std::vector<double> values;  // one per category / x value; NaN = no bar / no point
};

// Charts are deterministic SVG 1.1 (coordinates with two decimals, labels with up to 6
// significant digits, a fixed colour palette). On a log axis, non-positive values draw nothing.
// A title too long for the width is drawn smaller, or on two lines (split at a space), never
// clipped.
struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> categories;  // groups along x
  std::vector<Series> series;           // bars within each group, with a legend
  bool log_y = false;
  double reference_y =
      std::numeric_limits<double>::quiet_NaN();  // dashed line (e.g. 1.0); NaN = none
  std::string x_label = {};                      // the categories' axis title ("" = none)
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
