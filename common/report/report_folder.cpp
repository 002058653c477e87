// A paper's reports folder read back: run record, summary, the files of each item.
#include "common/report/report_folder.h"

#include <algorithm>
#include <filesystem>

#include "common/report/report.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

namespace fs = std::filesystem;

// The files of a --all run that describe the run, not an item.
bool is_run_file(const std::string& name) {
  return name == "summary.csv" || name == "items.csv" || name == "run_info.csv";
}

// The item a file of no known item starts: its name up to the first '_', else without the
// extension.
std::string item_of_unknown_file(const std::string& name) {
  const size_t underscore = name.find('_');
  if (underscore != std::string::npos && underscore > 0) return name.substr(0, underscore);
  const size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

}  // namespace

int CsvFile::column(const std::string& name) const {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

std::string CsvFile::get(size_t row, const std::string& name) const {
  const int c = column(name);
  if (c < 0 || row >= rows.size() || static_cast<size_t>(c) >= rows[row].size()) return "";
  return rows[row][static_cast<size_t>(c)];
}

CsvFile read_csv_file(const std::string& path) {
  CsvFile f;
  f.name = fs::path(path).filename().string();
  auto records = parse_csv(read_file(path), path);
  if (records.empty()) return f;
  f.header = std::move(records[0]);
  f.rows.assign(std::make_move_iterator(records.begin() + 1),
                std::make_move_iterator(records.end()));
  return f;
}

bool ReportItem::has_files() const {
  return !svgs.empty() || !tables.empty() || !claims.empty() || !notes.empty() || !others.empty();
}

std::string ReportFolder::run_info_value(const std::string& field) const {
  for (const auto& [f, v] : run_info)
    if (f == field) return v;
  return "";
}

std::string item_display_name(const std::string& id) {
  if (id.rfind("fig", 0) == 0 && id.size() > 3) return "Fig. " + id.substr(3);
  if (id.rfind("table", 0) == 0 && id.size() > 5) return "Table " + id.substr(5);
  return id;
}

ReportFolder read_report_folder(const std::string& path) {
  ReportFolder r;
  r.path = path;
  r.key = fs::path(path).filename().string();
  r.title = r.key;
  const fs::path dir(path);
  if (fs::exists(dir / "run_info.csv")) {
    const CsvFile info = read_csv_file((dir / "run_info.csv").string());
    for (size_t i = 0; i < info.rows.size(); ++i)
      r.run_info.emplace_back(info.get(i, "field"), info.get(i, "value"));
    if (!r.run_info_value("title").empty()) r.title = r.run_info_value("title");
  }
  if (fs::exists(dir / "summary.csv")) {
    r.summary = read_csv_file((dir / "summary.csv").string());
    r.has_summary = true;
  }
  if (fs::exists(dir / "items.csv")) {
    const CsvFile items = read_csv_file((dir / "items.csv").string());
    for (size_t i = 0; i < items.rows.size(); ++i) {
      ReportItem it;
      it.id = items.get(i, "item");
      it.caption = items.get(i, "caption");
      it.status = items.get(i, "status");
      it.hardware = items.get(i, "hardware");
      it.wall_s = items.get(i, "wall_s");
      if (!it.id.empty()) r.items.push_back(std::move(it));
    }
  }
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& name : files) {
    if (is_run_file(name)) continue;
    ReportItem* owner = nullptr;
    for (ReportItem& it : r.items) {
      const bool prefix = name.size() > it.id.size() && name.rfind(it.id, 0) == 0 &&
                          (name[it.id.size()] == '.' || name[it.id.size()] == '_');
      if (prefix && (owner == nullptr || it.id.size() > owner->id.size())) owner = &it;
    }
    if (owner == nullptr) {
      ReportItem it;
      it.id = item_of_unknown_file(name);
      r.items.push_back(std::move(it));
      owner = &r.items.back();
    }
    const std::string suffix = name.substr(owner->id.size());
    if (name.ends_with(".svg")) {
      owner->svgs.push_back(name);
    } else if (suffix == "_claims.csv") {
      owner->claims = name;
    } else if (suffix == "_notes.txt") {
      owner->notes = name;
    } else if (name.ends_with(".csv")) {
      owner->tables.push_back(name);
    } else {
      owner->others.push_back(name);
    }
  }
  return r;
}

}  // namespace dgs
