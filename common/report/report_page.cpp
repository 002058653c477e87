// reports/index.html and reports/REPORT.md from the files of a reports folder.
#include "common/report/report_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "common/report/paper_columns.h"
#include "common/report/report.h"
#include "common/report/report_folder.h"
#include "common/util/error.h"
#include "common/util/resources.h"
#include "common/util/text.h"

namespace dgs {

namespace {

namespace fs = std::filesystem;

// The style sheet: screen, then print (each paper from a new page, nothing split that can be
// kept whole, no navigation).
constexpr const char* kStyle = R"css(
:root { --hold: #1a7f37; --dev: #c62828; --info: #6e7781; --cal: #0b5cad; --paper: #f3f0e8; }
body { font: 15px/1.45 "DejaVu Sans", Arial, Helvetica, sans-serif; color: #1f2328; margin: 0 auto;
       max-width: 1180px; padding: 0 24px 48px; }
h1 { font-size: 1.7em; margin: 24px 0 4px; }
h2 { font-size: 1.35em; border-bottom: 2px solid #d0d7de; padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 1.1em; margin: 28px 0 6px; }
h3 .id { color: #57606a; margin-right: 6px; }
p.lead, p.meta, p.env { color: #57606a; margin: 4px 0 10px; }
nav { margin: 8px 0; font-size: 1.05em; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 0.88em; }
th, td { border: 1px solid #d0d7de; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.paper, td.paper { background: var(--paper); font-style: italic; }
td.near { background: #e6f4ea; }
td.off { background: #fff4d6; }
td.dev { background: #fde2e1; font-weight: bold; }
table.summary td, table.summary th { padding: 5px 10px; }
table.summary tr.total td { font-weight: bold; background: #f6f8fa; }
.verdict { font-weight: bold; white-space: nowrap; }
tr.holds .verdict { color: var(--hold); }
tr.deviates .verdict { color: var(--dev); }
tr.informational .verdict { color: var(--info); }
tr.calibration .verdict { color: var(--cal); }
tr.deviates td { background: #fff5f5; }
.wrap { overflow-x: auto; }
figure { margin: 10px 0 16px; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption, table caption { color: #57606a; font-size: 0.85em; text-align: left; caption-side: top;
                            padding: 2px 0; }
ul.notes { font-size: 0.92em; }
ul.notes li { margin: 3px 0; }
.legend span { padding: 1px 6px; margin-right: 6px; border: 1px solid #d0d7de; }
details > summary { cursor: pointer; color: #0b5cad; }
@media print {
  body { font-size: 10pt; max-width: none; padding: 0; }
  nav { display: none; }
  details:not([open]) > summary::after { content: " (folded: not printed; see the file)"; }
  section.paper, section#compare { break-before: page; }
  figure, tr, .legend { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  .wrap { overflow: visible; }
  table { font-size: 8pt; }
  a { color: inherit; text-decoration: none; }
  td.near, td.off, td.dev, th.paper, td.paper, tr.deviates td {
    -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
)css";

// Tables longer than this are folded in a <details> element, whose summary names the file (in
// print, too: a folded table is not printed, and says so).
constexpr size_t kFoldRows = 60;

std::string html_esc(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::optional<double> as_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A relative error (0.123) as "12.3%"; "" for an empty cell.
std::string percent(const std::string& fraction) {
  const auto v = as_number(fraction);
  if (!v) return fraction.empty() ? "" : fraction;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", *v * 100);
  return buf;
}

int to_int(const std::string& s) {
  const auto v = as_number(s);
  return v ? static_cast<int>(std::lround(*v)) : 0;
}

std::string anchor(const std::string& paper, const std::string& id) {
  return paper + "-" + id;
}

// The counts of one row of a summary.csv (the total row or an item's), by column name.
struct Counts {
  int own_hold = 0, own_deviate = 0, stand_in_hold = 0, stand_in_deviate = 0;
  int informational = 0, calibration = 0, cells = 0;
  std::string median, p90;
  int hold() const { return own_hold + stand_in_hold; }
  int deviate() const { return own_deviate + stand_in_deviate; }
  int checked() const { return hold() + deviate(); }
};

Counts counts_of(const CsvFile& s, size_t row) {
  Counts c;
  c.own_hold = to_int(s.get(row, "own_hold"));
  c.own_deviate = to_int(s.get(row, "own_deviate"));
  c.stand_in_hold = to_int(s.get(row, "stand_in_hold"));
  c.stand_in_deviate = to_int(s.get(row, "stand_in_deviate"));
  c.informational = to_int(s.get(row, "informational"));
  c.calibration = to_int(s.get(row, "calibration"));
  c.cells = to_int(s.get(row, "paper_cells"));
  c.median = s.get(row, "median_rel_error");
  c.p90 = s.get(row, "p90_rel_error");
  return c;
}

// The columns of a summary.csv the page reads as counts (summary_table, common/report/report.h).
constexpr const char* kCountColumns[] = {"own_hold",         "own_deviate",   "stand_in_hold",
                                         "stand_in_deviate", "informational", "calibration",
                                         "paper_cells"};

// Refuses, in one line naming the file, a summary.csv the page would misread: a missing "item"
// or count column, no "total" row, or a count that is not a non-negative integer (to_int would
// show it as 0).
void check_summary(const ReportFolder& f) {
  if (!f.has_summary) return;
  const std::string file = (fs::path(f.path) / "summary.csv").string();
  if (f.summary.column("item") < 0) throw Error(file + ": no column 'item'");
  for (const char* col : kCountColumns)
    if (f.summary.column(col) < 0) throw Error(file + ": no column '" + col + "'");
  bool total = false;
  for (size_t i = 0; i < f.summary.rows.size(); ++i) {
    const std::string item = f.summary.get(i, "item");
    total = total || item == "total";
    for (const char* col : kCountColumns) {
      const std::string v = f.summary.get(i, col);
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
        throw Error(file + ", item '" + item + "': " + col + " '" + v + "' is not a count");
    }
  }
  if (!total) throw Error(file + ": no 'total' row (written at the end of a --all run)");
}

// The row of `item` in a summary.csv (the "item" column), or -1.
int summary_row(const CsvFile& s, const std::string& item) {
  for (size_t i = 0; i < s.rows.size(); ++i)
    if (s.get(i, "item") == item) return static_cast<int>(i);
  return -1;
}

int items_run(const ReportFolder& f) {
  int n = 0;
  for (size_t i = 0; i < f.summary.rows.size(); ++i) n += f.summary.get(i, "item") != "total";
  return n;
}

// The summary's cells: one <td> per count, each tagged with data-col for readers of the page.
void count_cells(std::ostream& os, const Counts& c, bool with_errors) {
  auto td = [&os](const char* col, const std::string& v) {
    os << "<td class=\"num\" data-col=\"" << col << "\">" << html_esc(v) << "</td>";
  };
  td("checked", std::to_string(c.checked()));
  td("hold", std::to_string(c.hold()));
  td("deviate", std::to_string(c.deviate()));
  td("stand_in", std::to_string(c.stand_in_hold) + " / " + std::to_string(c.stand_in_deviate));
  td("informational", std::to_string(c.informational));
  td("calibration", std::to_string(c.calibration));
  td("paper_cells", std::to_string(c.cells));
  td("median_rel_error", with_errors ? percent(c.median) : "");
  td("p90_rel_error", with_errors ? percent(c.p90) : "");
}

constexpr const char* kCountHeads =
    "<th>checked claims</th><th>hold</th><th>deviate</th><th>against stand-ins (hold / "
    "deviate)</th><th>informational</th><th>calibration points</th><th>cells with a paper "
    "value</th><th>median cell error</th><th>p90 cell error</th>";

void summary_section(std::ostream& os, const std::vector<ReportFolder>& papers) {
  os << "<section id=\"summary\">\n<h2>Summary</h2>\n"
     << "<p class=\"lead\">Per paper, from the total row of <code>reports/&lt;paper&gt;/"
        "summary.csv</code>: the checked claims holding and deviating (those about the paper's "
        "own method and those against a stand-in for a system the suite cannot run), the "
        "informational rows and calibration points (never counted), and the relative error "
        "|ours - paper| / |paper| over every table cell that carries a paper value.</p>\n"
     << "<div class=\"wrap\"><table class=\"summary\" id=\"summary-table\">\n<tr><th>paper</th>"
        "<th>items run</th>"
     << kCountHeads << "</tr>\n";
  Counts total;
  int total_items = 0;
  for (const ReportFolder& f : papers) {
    if (!f.has_summary) continue;
    const int row = summary_row(f.summary, "total");
    const Counts c = row >= 0 ? counts_of(f.summary, static_cast<size_t>(row)) : Counts{};
    os << "<tr class=\"paper-row\" data-paper=\"" << html_esc(f.key) << "\"><td><a href=\"#paper-"
       << html_esc(f.key) << "\" title=\"" << html_esc(f.title) << "\">" << html_esc(f.key)
       << "</a></td><td class=\"num\" data-col=\"items\">" << items_run(f) << "</td>";
    count_cells(os, c, true);
    os << "</tr>\n";
    total_items += items_run(f);
    total.own_hold += c.own_hold;
    total.own_deviate += c.own_deviate;
    total.stand_in_hold += c.stand_in_hold;
    total.stand_in_deviate += c.stand_in_deviate;
    total.informational += c.informational;
    total.calibration += c.calibration;
    total.cells += c.cells;
  }
  os << "<tr class=\"total\"><td>all papers</td><td class=\"num\" data-col=\"items\">"
     << total_items << "</td>";
  count_cells(os, total, false);
  os << "</tr>\n</table></div>\n<p class=\"lead\">Tolerance rules, one per kind of quantity "
        "(<code>common/report/claims.cpp</code>):</p>\n<ul>";
  for (const std::string& r : claim_rule_lines()) os << "<li>" << html_esc(r) << "</li>";
  os << "</ul>\n</section>\n";
}

void environment_section(std::ostream& os, const std::vector<ReportFolder>& papers) {
  std::vector<std::string> fields;
  for (const ReportFolder& f : papers)
    for (const auto& [field, value] : f.run_info)
      if (std::find(fields.begin(), fields.end(), field) == fields.end()) fields.push_back(field);
  os << "<section id=\"environment\">\n<h2>Environment</h2>\n";
  if (fields.empty()) {
    os << "<p class=\"lead\">No <code>run_info.csv</code> in these reports (written by every "
          "run of a <code>repro_*</code> executable).</p>\n</section>\n";
    return;
  }
  os << "<p class=\"lead\">The fingerprint of the last run into each paper's folder "
        "(<code>reports/&lt;paper&gt;/run_info.csv</code>; <code>items</code>: the items it "
        "ran, <code>all</code> for <code>--all</code>); every item's wall time is in its "
        "paper's table below.</p>\n<div class=\"wrap\"><table class=\"environment\">\n<tr>"
        "<th>field</th>";
  for (const ReportFolder& f : papers) os << "<th>" << html_esc(f.key) << "</th>";
  os << "</tr>\n";
  for (const std::string& field : fields) {
    if (field == "title" || field == "paper") continue;
    os << "<tr><th>" << html_esc(field) << "</th>";
    for (const ReportFolder& f : papers)
      os << "<td>" << html_esc(f.run_info_value(field)) << "</td>";
    os << "</tr>\n";
  }
  os << "</table></div>\n</section>\n";
}

// The SVG file at `path`, from its <svg> element on (the XML declaration is not HTML), as written.
// The page inlines it, so an SVG without an <svg> element, or with a script or a reference outside
// the page (the suite writes neither), is refused in one line naming the file.
std::string inline_svg(const std::string& path) {
  const std::string text = read_file(path);
  const size_t begin = text.find("<svg");
  if (begin == std::string::npos) throw Error(path + ": no <svg> element");
  std::string lower = ascii_lower(text);
  lower.erase(std::remove_if(lower.begin(), lower.end(), [](char c) { return c == ' '; }),
              lower.end());
  for (const char* outside :
       {"<script", "<foreignobject", "javascript:", "href=\"http", "href='http", "src=\"http",
        "src='http", "url(http", "url(\"http", "url('http", "@import",
        "onload=", "onerror=", "onclick=", "onmouse", "onfocus=", "onbegin="}) {
    if (lower.find(outside) != std::string::npos)
      throw Error(path + ": has '" + outside +
                  "': the page inlines its SVGs, runs no script and fetches nothing");
  }
  return text.substr(begin);
}

// A CSV file as a table: numbers right-aligned, paper columns tinted, our cells that have a paper
// value shaded by their relative error (within the ratio rule's tolerance, within the time
// rule's, beyond it).
void data_table(std::ostream& os, const std::string& rel, const CsvFile& t) {
  const auto pairs = paper_column_pairs(t.header);
  std::vector<int> paper_of(t.header.size(), -1);  // ours column -> its paper column
  std::vector<bool> is_paper(t.header.size(), false);
  for (const auto& [p, o] : pairs) {
    paper_of[static_cast<size_t>(o)] = p;
    is_paper[static_cast<size_t>(p)] = true;
  }
  const double near = claim_rule(ClaimKind::Ratio).tolerance;
  const double off = claim_rule(ClaimKind::Time).tolerance;
  const bool fold = t.rows.size() > kFoldRows;
  if (fold)
    os << "<details><summary>" << t.rows.size() << " rows of " << html_esc(rel) << "</summary>\n";
  os << "<div class=\"wrap\"><table class=\"data\" data-file=\"" << html_esc(rel) << "\"><caption>"
     << html_esc(t.name) << "</caption>\n<tr>";
  for (size_t c = 0; c < t.header.size(); ++c)
    os << "<th" << (is_paper[c] ? " class=\"paper\"" : "") << ">" << html_esc(t.header[c])
       << "</th>";
  os << "</tr>\n";
  for (const auto& row : t.rows) {
    os << "<tr>";
    for (size_t c = 0; c < row.size(); ++c) {
      const auto v = as_number(row[c]);
      std::string cls = v ? "num" : "";
      std::string title;
      if (is_paper[c]) cls += cls.empty() ? "paper" : " paper";
      if (paper_of[c] >= 0 && v) {
        const auto p = as_number(row[static_cast<size_t>(paper_of[c])]);
        if (p && *p != 0) {
          const double e = std::fabs(*v - *p) / std::fabs(*p);
          cls += e <= near ? " near" : e <= off ? " off" : " dev";
          char buf[96];
          std::snprintf(buf, sizeof buf, "%.1f%% from the paper's %s", e * 100,
                        row[static_cast<size_t>(paper_of[c])].c_str());
          title = buf;
        }
      }
      os << "<td";
      if (!cls.empty()) os << " class=\"" << cls << "\"";
      if (!title.empty()) os << " title=\"" << html_esc(title) << "\"";
      os << ">" << html_esc(row[c]) << "</td>";
    }
    os << "</tr>\n";
  }
  os << "</table></div>\n";
  if (fold) os << "</details>\n";
}

// The claims of an item: verdict, claim, source, paper, ours, unit, kind and its rule (or why it
// is not counted), against what; any other column after them.
void claims_table_html(std::ostream& os, const std::string& rel, const CsvFile& t) {
  const std::vector<std::string> known = {"verdict", "claim", "source",  "paper",     "ours",
                                          "unit",    "kind",  "against", "tolerance", "why"};
  std::vector<std::string> cols;
  for (const std::string& k : known)
    if (t.column(k) >= 0) cols.push_back(k);
  for (const std::string& h : t.header)
    if (std::find(cols.begin(), cols.end(), h) == cols.end()) cols.push_back(h);
  os << "<div class=\"wrap\"><table class=\"claims\" data-file=\"" << html_esc(rel)
     << "\"><caption>claims (" << html_esc(t.name) << ")</caption>\n<tr>";
  for (const std::string& c : cols)
    os << "<th>" << html_esc(c == "why" ? "rule / why" : c) << "</th>";
  os << "</tr>\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    std::string verdict = t.get(r, "verdict");
    std::string cls = verdict == "calibration point" ? "calibration" : verdict;
    std::replace(cls.begin(), cls.end(), ' ', '-');
    os << "<tr class=\"claim " << html_esc(cls) << "\">";
    for (const std::string& c : cols) {
      const std::string v = t.get(r, c);
      const bool num = as_number(v).has_value();
      os << "<td"
         << (c == "verdict" ? " class=\"verdict\""
             : num          ? " class=\"num\""
                            : "")
         << ">" << html_esc(v) << "</td>";
    }
    os << "</tr>\n";
  }
  os << "</table></div>\n";
}

std::string counts_line(const Counts& c) {
  std::string s =
      std::to_string(c.hold()) + " of " + std::to_string(c.checked()) + " checked claims hold";
  if (c.stand_in_hold + c.stand_in_deviate > 0)
    s += " (against stand-ins: " + std::to_string(c.stand_in_hold) + " of " +
         std::to_string(c.stand_in_hold + c.stand_in_deviate) + ")";
  if (c.informational) s += "; " + std::to_string(c.informational) + " informational";
  if (c.calibration) s += "; " + std::to_string(c.calibration) + " calibration point(s)";
  if (c.cells)
    s += "; " + std::to_string(c.cells) + " cells with a paper value, median error " +
         percent(c.median) + ", p90 " + percent(c.p90);
  return s;
}

void item_section(std::ostream& os, const ReportFolder& f, const ReportItem& it) {
  const fs::path dir(f.path);
  os << "<section class=\"item\" id=\"" << html_esc(anchor(f.key, it.id)) << "\">\n<h3><span "
     << "class=\"id\">" << html_esc(item_display_name(it.id)) << "</span>" << html_esc(it.caption)
     << "</h3>\n<p class=\"meta\">";
  std::vector<std::string> meta;
  if (!it.hardware.empty()) meta.push_back("hardware: " + html_esc(it.hardware));
  if (!it.wall_s.empty()) meta.push_back("wall time: " + html_esc(it.wall_s) + " s");
  if (f.has_summary) {
    const int row = summary_row(f.summary, it.id);
    if (row >= 0)
      meta.push_back(html_esc(counts_line(counts_of(f.summary, static_cast<size_t>(row)))));
  }
  for (size_t i = 0; i < meta.size(); ++i) os << (i ? " &middot; " : "") << meta[i];
  os << "</p>\n";
  for (const std::string& s : it.svgs) {
    os << "<figure class=\"chart\" data-file=\"" << html_esc(f.key + "/" + s) << "\">"
       << inline_svg((dir / s).string()) << "<figcaption>" << html_esc(s)
       << "</figcaption></figure>\n";
  }
  for (const std::string& t : it.tables)
    data_table(os, f.key + "/" + t, read_csv_file((dir / t).string()));
  if (!it.claims.empty())
    claims_table_html(os, f.key + "/" + it.claims, read_csv_file((dir / it.claims).string()));
  if (!it.notes.empty()) {
    os << "<ul class=\"notes\" data-file=\"" << html_esc(f.key + "/" + it.notes) << "\">";
    std::istringstream notes(read_file((dir / it.notes).string()));
    std::string line;
    while (std::getline(notes, line))
      if (!line.empty()) os << "<li>" << html_esc(line) << "</li>";
    os << "</ul>\n";
  }
  if (!it.others.empty()) {
    os << "<p class=\"meta\">Other files:";
    for (const std::string& o : it.others)
      os << " <a href=\"" << html_esc(f.key + "/" + o) << "\">" << html_esc(o) << "</a>";
    os << "</p>\n";
  }
  os << "</section>\n";
}

// " (items: fig11, fig12)" when the folder's last run ran selected items (run_info.csv's items
// field), so that its wall time is not read as the whole paper's; "" for --all or no such field.
std::string items_of_run(const ReportFolder& f) {
  const std::string items = f.run_info_value("items");
  return items.empty() || items == "all" ? "" : " (items: " + items + ")";
}

void paper_section(std::ostream& os, const ReportFolder& f, bool compare) {
  os << "<section class=\"paper\" id=\"" << (compare ? "compare" : "paper-" + html_esc(f.key))
     << "\">\n<h2>" << html_esc(compare ? "Cross-paper comparison" : f.title) << " <small>(reports/"
     << html_esc(f.key) << "/)</small></h2>\n";
  if (!f.run_info.empty()) {
    os << "<p class=\"env\">" << html_esc(f.run_info_value("mode")) << " mode, seed "
       << html_esc(f.run_info_value("seed")) << ", commit " << html_esc(f.run_info_value("commit"))
       << ", " << html_esc(f.run_info_value("build_type")) << ", "
       << html_esc(f.run_info_value("compiler")) << ", run "
       << html_esc(f.run_info_value("started_utc")) << " in "
       << html_esc(f.run_info_value("wall_s")) << " s" << html_esc(items_of_run(f)) << "</p>\n";
  }
  os << "<div class=\"wrap\"><table class=\"items\">\n<tr><th>item</th><th>caption</th>"
        "<th>status</th><th>wall time (s)</th>"
     << kCountHeads << "</tr>\n";
  for (const ReportItem& it : f.items) {
    os << "<tr><td>";
    if (it.has_files())
      os << "<a href=\"#" << html_esc(anchor(f.key, it.id)) << "\">" << html_esc(it.id) << "</a>";
    else
      os << html_esc(it.id);
    os << "</td><td>" << html_esc(it.caption) << "</td><td>" << html_esc(it.status) << "</td><td "
       << "class=\"num\">" << html_esc(it.wall_s) << "</td>";
    const int row = f.has_summary ? summary_row(f.summary, it.id) : -1;
    if (row >= 0) {
      count_cells(os, counts_of(f.summary, static_cast<size_t>(row)), true);
    } else {
      os << "<td colspan=\"9\"></td>";
    }
    os << "</tr>\n";
  }
  os << "</table></div>\n";
  for (const ReportItem& it : f.items)
    if (it.has_files()) item_section(os, f, it);
  os << "</section>\n";
}

// Text for a Markdown table cell ('|' would end the cell).
std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += '\\';
    o += c;
  }
  return o;
}

std::string markdown(const std::vector<ReportFolder>& papers) {
  std::ostringstream md;
  md << "# DNN graph-scheduling reproduction suite: results\n\n"
     << "Written by `repro_report` from the files of this folder; `index.html` beside it has "
        "every figure, table, claim and note.\n\n"
     << "| paper | items run | checked claims | hold | deviate | against stand-ins (hold / "
        "deviate) | informational | calibration points | cells with a paper value | median "
        "cell error | p90 cell error |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ReportFolder& f : papers) {
    if (!f.has_summary) continue;
    const int row = summary_row(f.summary, "total");
    const Counts c = row >= 0 ? counts_of(f.summary, static_cast<size_t>(row)) : Counts{};
    md << "| " << f.title << " (`" << f.key << "`) | " << items_run(f) << " | " << c.checked()
       << " | " << c.hold() << " | " << c.deviate() << " | " << c.stand_in_hold << " / "
       << c.stand_in_deviate << " | " << c.informational << " | " << c.calibration << " | "
       << c.cells << " | " << percent(c.median) << " | " << percent(c.p90) << " |\n";
  }
  md << "\nTolerance rules, one per kind of quantity:\n\n";
  for (const std::string& r : claim_rule_lines()) md << "- " << r << "\n";
  for (const ReportFolder& f : papers) {
    md << "\n## " << f.title << " (`reports/" << f.key << "/`)\n\n";
    if (!f.run_info.empty()) {
      md << "Run: " << f.run_info_value("mode") << " mode, seed " << f.run_info_value("seed")
         << ", commit `" << f.run_info_value("commit") << "`, " << f.run_info_value("build_type")
         << ", " << f.run_info_value("compiler") << ", CUDA " << f.run_info_value("cuda")
         << ", cuDNN " << f.run_info_value("cudnn") << "; " << f.run_info_value("wall_s") << " s"
         << items_of_run(f) << ".\n\n";
    }
    md << "| item | caption | status | claims | wall time (s) |\n|---|---|---|---|---|\n";
    for (const ReportItem& it : f.items) {
      const int row = f.has_summary ? summary_row(f.summary, it.id) : -1;
      std::string claims;
      if (row >= 0) claims = counts_line(counts_of(f.summary, static_cast<size_t>(row)));
      md << "| " << it.id << " | " << md_cell(it.caption) << " | " << md_cell(it.status) << " | "
         << claims << " | " << it.wall_s << " |\n";
    }
  }
  return md.str();
}

}  // namespace

ReportPage build_report_page(const std::string& dir) {
  if (!fs::is_directory(dir)) throw Error("no reports folder " + dir);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_directory()) continue;
    const std::string name = e.path().filename().string();
    if (name == "compare") continue;
    if (fs::exists(e.path() / "summary.csv") || fs::exists(e.path() / "items.csv"))
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) {
    throw Error("no reports in " + dir +
                ": run ./build.sh reproduce or repro_<paper> --all --out " + dir + " first");
  }
  std::vector<ReportFolder> papers;
  for (const std::string& n : names)
    papers.push_back(read_report_folder((fs::path(dir) / n).string()));
  for (const ReportFolder& f : papers) check_summary(f);
  const bool has_compare = fs::is_directory(fs::path(dir) / "compare");

  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
     << "<title>DNN graph-scheduling reproduction suite: results</title>\n<style>" << kStyle
     << "</style>\n</head>\n<body>\n<header>\n<h1>DNN graph-scheduling reproduction suite: "
        "results</h1>\n<p class=\"lead\">Every number on this page was computed by the suite "
        "and written to this folder by <code>repro_&lt;paper&gt; --all</code>; the paper's "
        "numbers sit beside ours, read from <code>data/&lt;paper&gt;/</code> with their "
        "sources. Page written by <code>repro_report</code>.</p>\n</header>\n<nav id=\"contents\">"
        "<a href=\"#summary\">Summary</a> &middot; <a href=\"#environment\">Environment</a>";
  for (const ReportFolder& f : papers)
    os << " &middot; <a href=\"#paper-" << html_esc(f.key) << "\" title=\"" << html_esc(f.title)
       << "\">" << html_esc(f.key) << "</a>";
  if (has_compare) os << " &middot; <a href=\"#compare\">Cross-paper comparison</a>";
  os << "</nav>\n";
  summary_section(os, papers);
  environment_section(os, papers);
  os << "<p class=\"legend\">In the tables: <span class=\"paper\">paper's value</span> our value "
        "within <span class=\"near\">"
     << static_cast<int>(std::lround(claim_rule(ClaimKind::Ratio).tolerance * 100))
     << "%</span>, within <span class=\"off\">"
     << static_cast<int>(std::lround(claim_rule(ClaimKind::Time).tolerance * 100))
     << "%</span> or <span class=\"dev\">further</span> from the paper's (the ratio and time "
        "rules' tolerances; a reading aid: only the claims are checked, each by its kind's "
        "rule).</p>\n";
  for (const ReportFolder& f : papers) paper_section(os, f, false);
  if (has_compare)
    paper_section(os, read_report_folder((fs::path(dir) / "compare").string()), true);
  os << "</body>\n</html>\n";

  ReportPage page;
  page.html = os.str();
  page.markdown = markdown(papers);
  page.papers = names;
  return page;
}

std::vector<std::string> write_report_page(const std::string& dir) {
  const ReportPage page = build_report_page(dir);
  const std::string html = (fs::path(dir) / "index.html").string();
  const std::string md = (fs::path(dir) / "REPORT.md").string();
  write_file_atomic(html, page.html);
  write_file_atomic(md, page.markdown);
  return {html, md};
}

}  // namespace dgs
