// Comparing two report folders, except the values named in run_varying_values().
#include "common/report/report_compare.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "common/report/report.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

namespace fs = std::filesystem;

// The list, with a reason per value, beside the committed reports it applies to (built in).
constexpr const char* kRunVaryingFile = "reports/run_varying.csv";

// A value for a message: quoted when empty or when it holds spaces, shortened when long.
std::string shown(const std::string& v) {
  std::string s = v.size() > 80 ? v.substr(0, 77) + "..." : v;
  if (s.empty() || s.find(' ') != std::string::npos) return "'" + s + "'";
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  std::string line;
  while (std::getline(is, line)) out.push_back(line);
  return out;
}

std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> compare_csv(const std::string& rel, const std::string& expected,
                                     const std::string& actual, size_t limit) {
  const auto a = parse_csv(expected, "expected " + rel);
  const auto b = parse_csv(actual, "actual " + rel);
  std::vector<std::string> out;
  if (a.empty() || b.empty()) {
    if (a.empty() != b.empty()) out.push_back(rel + ": one of the two files is empty");
    return out;
  }
  const std::vector<std::string>& ha = a[0];
  const std::vector<std::string>& hb = b[0];
  // Columns by name: the header must hold the same names (order aside) outside the skipped ones.
  for (const std::string& c : ha) {
    if (is_run_varying_column(rel, c)) continue;
    if (std::find(hb.begin(), hb.end(), c) == hb.end()) {
      out.push_back(rel + ": column " + c + " is expected but absent");
      if (out.size() >= limit) return out;
    }
  }
  for (const std::string& c : hb) {
    if (is_run_varying_column(rel, c)) continue;
    if (std::find(ha.begin(), ha.end(), c) == ha.end()) {
      out.push_back(rel + ": column " + c + " is new (not in the expected file)");
      if (out.size() >= limit) return out;
    }
  }
  if (!out.empty()) return out;
  if (a.size() != b.size()) {
    out.push_back(rel + ": " + std::to_string(a.size() - 1) + " rows expected, " +
                  std::to_string(b.size() - 1) + " rows in this run");
    if (out.size() >= limit) return out;
  }
  const size_t rows = std::min(a.size(), b.size());
  for (size_t r = 1; r < rows; ++r) {
    for (size_t ca = 0; ca < ha.size(); ++ca) {
      if (is_run_varying_column(rel, ha[ca])) continue;
      const size_t cb = static_cast<size_t>(std::find(hb.begin(), hb.end(), ha[ca]) - hb.begin());
      if (a[r][ca] == b[r][cb]) continue;
      out.push_back(rel + " row " + std::to_string(r) + " (" + shown(a[r][0]) + ") column " +
                    ha[ca] + ": expected " + shown(a[r][ca]) + ", this run " + shown(b[r][cb]));
      if (out.size() >= limit) return out;
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& run_varying_values() {
  static const std::vector<std::string> values = [] {
    const auto text = builtin_resource(kRunVaryingFile);
    if (!text) throw Error(std::string("no built-in ") + kRunVaryingFile);
    std::vector<std::string> v;
    const auto rows = parse_csv(std::string(*text), kRunVaryingFile);
    for (size_t i = 1; i < rows.size(); ++i)
      if (!rows[i].empty() && !rows[i][0].empty()) v.push_back(rows[i][0]);
    return v;
  }();
  return values;
}

namespace {
// Whether `rel` ("mine/fig3.csv", or deeper "out/mine/fig3.csv") names the file `entry`
// ("fig3.csv" in any folder, or "mine/fig3.csv"): a suffix on a path component boundary.
bool names_file(const std::string& rel, const std::string& entry) {
  if (!rel.ends_with(entry)) return false;
  return rel.size() == entry.size() || rel[rel.size() - entry.size() - 1] == '/';
}
}  // namespace

bool is_run_varying_column(const std::string& rel, const std::string& column) {
  for (const std::string& v : run_varying_values()) {
    const size_t colon = v.find(':');
    if (colon == std::string::npos) {
      if (v == column) return true;
    } else if (v.compare(colon + 1, std::string::npos, column) == 0 &&
               names_file(rel, v.substr(0, colon))) {
      return true;
    }
  }
  return false;
}

bool is_run_varying_file(const std::string& rel) {
  for (const std::string& v : run_varying_values()) {
    // An entry with an extension and no column names a file.
    if (v.find(':') == std::string::npos && v.find('.') != std::string::npos && names_file(rel, v))
      return true;
  }
  return false;
}

std::vector<std::string> compare_report_file(const std::string& rel, const std::string& expected,
                                             const std::string& actual, size_t limit) {
  if (expected == actual || limit == 0) return {};
  if (rel.ends_with(".csv")) return compare_csv(rel, expected, actual, limit);
  const auto a = lines_of(expected), b = lines_of(actual);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string la = i < a.size() ? a[i] : "(end of file)";
    const std::string lb = i < b.size() ? b[i] : "(end of file)";
    if (la != lb) {
      return {rel + " line " + std::to_string(i + 1) + ": expected " + shown(la) + ", this run " +
              shown(lb)};
    }
  }
  return {rel + ": the files differ in their line endings"};
}

std::vector<std::string> compare_report_folders(const std::string& expected,
                                                const std::string& actual, size_t limit,
                                                const std::string& prefix) {
  const std::vector<std::string> fa = files_under(expected), fb = files_under(actual);
  std::vector<std::string> out;
  auto full = [&]() { return out.size() >= limit; };
  for (const std::string& f : fa) {
    if (!std::binary_search(fb.begin(), fb.end(), f)) {
      out.push_back(prefix + f + ": expected, but this run did not write it");
      if (full()) return out;
    }
  }
  for (const std::string& f : fb) {
    if (!std::binary_search(fa.begin(), fa.end(), f)) {
      out.push_back(prefix + f + ": written by this run, but not expected");
      if (full()) return out;
    }
  }
  for (const std::string& f : fa) {
    const std::string rel = prefix + f;
    if (is_run_varying_file(rel) || !std::binary_search(fb.begin(), fb.end(), f)) continue;
    const std::string ea = read_file((fs::path(expected) / f).string());
    const std::string eb = read_file((fs::path(actual) / f).string());
    for (std::string& d : compare_report_file(rel, ea, eb, limit - out.size())) {
      out.push_back(std::move(d));
    }
    if (full()) return out;
  }
  return out;
}

}  // namespace dgs
