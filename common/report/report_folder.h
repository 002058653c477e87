#pragma once
// A paper's reports folder read back (<dir>/<paper>/): its run record, summary and the files of
// each item. Used by the report page (report_page.h) and its tests.
#include <map>
#include <string>
#include <vector>

namespace dgs {

// A CSV file read back, by column name.
struct CsvFile {
  std::string name;  // file name within its folder
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int column(const std::string& name) const;  // -1 if absent
  // The cell of `row` in column `name`; "" when the column is absent.
  std::string get(size_t row, const std::string& column) const;
};
// Throws dgs::Error naming the file and line when the CSV is malformed.
CsvFile read_csv_file(const std::string& path);

struct ReportItem {
  std::string id;                   // "fig4.1"
  std::string caption;              // from items.csv ("" if not known)
  std::string status;               // from items.csv ("ran", "not implemented yet", ...)
  std::string hardware;             // from items.csv
  std::string wall_s;               // from items.csv, as written
  std::vector<std::string> svgs;    // file names, in name order
  std::vector<std::string> tables;  // CSV files other than the claims
  std::string claims;               // <id>_claims.csv, "" if none
  std::string notes;                // <id>_notes.txt, "" if none
  std::vector<std::string> others;  // any other file (plans, ...)
  bool has_files() const;
};

struct ReportFolder {
  std::string key;    // the folder's name (a paper's, or "compare")
  std::string path;   // the folder
  std::string title;  // run_info.csv's title, else the key
  std::vector<std::pair<std::string, std::string>> run_info;  // (field, value), in file order
  bool has_summary = false;
  CsvFile summary;                // summary.csv (empty if none)
  std::vector<ReportItem> items;  // items.csv's order, then items found only by their files
  std::string run_info_value(const std::string& field) const;  // "" if absent
};

// Reads one folder. Items come from items.csv; a file belongs to the item whose id is the longest
// prefix of its name followed by '.' or '_' ("fig4.1_claims.csv" -> fig4.1, not fig4); a file of
// no known item starts an item of its own (its name up to the first '_', else without the
// extension).
ReportFolder read_report_folder(const std::string& path);

// The display name of an item id: "fig4.1" -> "Fig. 4.1", "table3" -> "Table 3".
std::string item_display_name(const std::string& id);

}  // namespace dgs
