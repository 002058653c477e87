// RFC 4180 CSV parsing and paper values (data/<paper>/*.csv).
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include "common/report/report.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {

std::vector<CsvRecord> parse_csv_records(const std::string& text, const std::string& origin) {
  std::vector<CsvRecord> records;
  size_t i = 0;
  const size_t n = text.size();
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;  // UTF-8 byte-order mark
  int line = 1;
  auto fail = [&](int at_line, const std::string& what) -> void {
    throw Error(origin + ":" + std::to_string(at_line) + ": " + what);
  };
  while (i < n) {
    // An empty line (outside quotes) is skipped.
    if (text[i] == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') {
      ++line;
      i += 2;
      continue;
    }
    CsvRecord rec;
    rec.line = line;
    while (true) {  // one field per iteration
      std::string field;
      if (i < n && text[i] == '"') {
        const int quote_line = line;
        ++i;
        while (true) {
          if (i >= n)
            fail(quote_line, "unterminated quoted field (a '\"' opened here is never closed)");
          const char ch = text[i];
          if (ch == '"') {
            if (i + 1 < n && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (ch == '\n') ++line;
          field += ch;
          ++i;
        }
        if (i < n && text[i] != ',' && text[i] != '\n' &&
            !(text[i] == '\r' && i + 1 < n && text[i + 1] == '\n')) {
          fail(line, std::string("unexpected character '") + text[i] +
                         "' after a closing quote (expected ',' or end of line)");
        }
      } else {
        while (i < n && text[i] != ',' && text[i] != '\n' &&
               !(text[i] == '\r' && i + 1 < n && text[i + 1] == '\n')) {
          if (text[i] == '"') {
            fail(line,
                 "quote inside an unquoted field (quote the whole field and double inner quotes)");
          }
          field += text[i];
          ++i;
        }
      }
      rec.fields.push_back(std::move(field));
      if (i < n && text[i] == ',') {
        ++i;
        continue;
      }
      // End of record: line break or end of text.
      if (i < n && text[i] == '\r') ++i;
      if (i < n && text[i] == '\n') {
        ++i;
        ++line;
      }
      break;
    }
    if (!records.empty() && rec.fields.size() != records.front().fields.size()) {
      fail(rec.line, "record has " + std::to_string(rec.fields.size()) + " fields, expected " +
                         std::to_string(records.front().fields.size()) + " (as in line " +
                         std::to_string(records.front().line) + ")");
    }
    records.push_back(std::move(rec));
  }
  return records;
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text,
                                                const std::string& origin) {
  std::vector<std::vector<std::string>> rows;
  for (CsvRecord& r : parse_csv_records(text, origin)) rows.push_back(std::move(r.fields));
  return rows;
}

// ---------------------------------------------------------------------------------------------
// PaperData
// ---------------------------------------------------------------------------------------------

namespace {
// The cells of paper data read in this process: "data/<paper>/<file>" -> (line, column).
struct ReadCells {
  std::mutex mutex;
  std::map<std::string, std::set<std::pair<int, int>>> cells;
};
ReadCells& read_cells() {
  static ReadCells r;
  return r;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  (void)std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0';
}
}  // namespace

void PaperData::mark_read(int row, int column, const std::vector<int>& key_columns) const {
  ReadCells& r = read_cells();
  const std::lock_guard<std::mutex> lock(r.mutex);
  auto& cells = r.cells[data_key_];
  cells.emplace(lines_[row], column);
  for (int k : key_columns) cells.emplace(lines_[row], k);
}

std::vector<std::string> unread_paper_values(const std::string& paper,
                                             const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  const std::string folder = "data/" + paper + "/";
  for (const std::string& path : builtin_resources_under(folder)) {
    if (std::find(inputs.begin(), inputs.end(), path.substr(folder.size())) != inputs.end())
      continue;
    const PaperData d = PaperData::parse(std::string(*builtin_resource(path)), path);
    std::set<std::pair<int, int>> read;
    {
      ReadCells& r = read_cells();
      const std::lock_guard<std::mutex> lock(r.mutex);
      if (auto it = r.cells.find(path); it != r.cells.end()) read = it->second;
    }
    for (size_t row = 0; row < d.rows().size(); ++row) {
      for (size_t c = 0; c < d.columns().size(); ++c) {
        const std::string& v = d.rows()[row][c];
        if (d.columns()[c] == "source" || !is_number(v)) continue;
        if (read.count({d.line_of_row(static_cast<int>(row)), static_cast<int>(c)})) continue;
        out.push_back(path + ":" + std::to_string(d.line_of_row(static_cast<int>(row))) + " " +
                      d.columns()[c] + " (" + v + ")");
      }
    }
  }
  return out;
}

PaperData PaperData::load(const std::string& paper, const std::string& file) {
  const std::string rel = "data/" + paper + "/" + file;
  if (const char* dir = std::getenv("DGS_DATA_DIR"); dir != nullptr && *dir != '\0') {
    const std::string path = std::string(dir) + "/" + paper + "/" + file;
    PaperData d = parse(read_file(path), path);
    d.data_key_ = rel;
    return d;
  }
  const auto content = builtin_resource(rel);
  if (!content) {
    std::string known;
    for (const std::string& p : builtin_resources_under("data/" + paper + "/")) {
      known += (known.empty() ? "" : ", ") + p;
    }
    throw Error("no built-in paper data " + rel + " (built-in files for '" + paper +
                "': " + (known.empty() ? "none" : known) + ")");
  }
  return parse(std::string(*content), rel);
}

PaperData PaperData::parse(const std::string& csv_text, const std::string& origin) {
  PaperData d;
  d.origin = origin;
  d.data_key_ = origin;
  std::vector<CsvRecord> records = parse_csv_records(csv_text, origin);
  if (records.empty())
    throw Error(origin + ":1: empty file (expected a header row with a 'source' column)");
  std::set<std::string> seen;
  for (const std::string& c : records.front().fields) {
    if (c.empty())
      throw Error(origin + ":" + std::to_string(records.front().line) +
                  ": empty column name in the header");
    if (!seen.insert(c).second) {
      throw Error(origin + ":" + std::to_string(records.front().line) + ": duplicate column '" + c +
                  "'");
    }
  }
  d.columns_ = records.front().fields;
  if (!seen.count("source")) {
    throw Error(origin + ":" + std::to_string(records.front().line) +
                ": no 'source' column in the header (every paper value needs its source)");
  }
  const int src = d.column_index("source");
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].fields[src].empty()) {
      throw Error(origin + ":" + std::to_string(records[r].line) +
                  ": empty 'source' (name the paper's table, figure or section)");
    }
    d.rows_.push_back(std::move(records[r].fields));
    d.lines_.push_back(records[r].line);
  }
  return d;
}

bool PaperData::has_column(const std::string& name) const {
  for (const std::string& c : columns_) {
    if (c == name) return true;
  }
  return false;
}

int PaperData::column_index(const std::string& name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == name) return static_cast<int>(i);
  }
  std::string known;
  for (const std::string& c : columns_) known += (known.empty() ? "" : ", ") + c;
  throw Error(origin + ": no column '" + name + "' (columns: " + known + ")");
}

std::vector<int> PaperData::key_columns(
    const std::vector<std::pair<std::string, std::string>>& keys) const {
  std::vector<int> out;
  for (const auto& kv : keys) out.push_back(column_index(kv.first));
  return out;
}

int PaperData::find_row(const std::vector<std::pair<std::string, std::string>>& keys) const {
  std::vector<std::pair<int, const std::string*>> idx;
  for (const auto& [col, val] : keys) idx.emplace_back(column_index(col), &val);
  for (size_t r = 0; r < rows_.size(); ++r) {
    bool match = true;
    for (const auto& [c, v] : idx) {
      if (rows_[r][c] != *v) {
        match = false;
        break;
      }
    }
    if (match) return static_cast<int>(r);
  }
  return -1;
}

std::optional<std::string> PaperData::text(
    const std::vector<std::pair<std::string, std::string>>& keys, const std::string& column) const {
  const int c = column_index(column);
  const int r = find_row(keys);
  if (r < 0) return std::nullopt;
  mark_read(r, c, key_columns(keys));
  return rows_[r][c];
}

std::optional<double> PaperData::value(const std::vector<std::pair<std::string, std::string>>& keys,
                                       const std::string& column) const {
  const int c = column_index(column);
  const int r = find_row(keys);
  if (r < 0) return std::nullopt;
  mark_read(r, c, key_columns(keys));
  if (rows_[r][c].empty()) return std::nullopt;
  const std::string& s = rows_[r][c];
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') {
    throw Error(origin + ":" + std::to_string(lines_[r]) + ": column '" + column + "': '" + s +
                "' is not a number");
  }
  return v;
}

Cell PaperData::cell(const std::vector<std::pair<std::string, std::string>>& keys,
                     const std::string& column) const {
  const auto v = value(keys, column);
  if (!v) return Missing{};
  return *v;
}

std::string PaperData::source(const std::vector<std::pair<std::string, std::string>>& keys) const {
  if (!has_column("source")) return "";
  const int r = find_row(keys);
  if (r < 0) return "";
  return rows_[r][column_index("source")];
}

}  // namespace dgs
