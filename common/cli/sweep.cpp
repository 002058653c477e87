// A paper's run as one share of a sweep, resumable, and the merge of the shares (sweep.h).
#include "common/cli/sweep.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "common/util/build_info.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A --hw or --model value, with the hash of the file's text when it names a file (a file of the
// same name with other contents is another run).
std::string input_identity(const std::string& value) {
  std::error_code ec;
  if (value.empty() || !fs::is_regular_file(value, ec)) return value;
  const fs::path p(value);
  return value + "#" + digest_file(p.parent_path().string(), p.filename().string()).fnv1a;
}

json item_data(const ItemRecord& r, const ItemSummary& s) {
  const ClaimTally& c = s.claims;
  return {{"status", r.status},
          {"hardware", r.hardware},
          {"wall_s", std::isnan(r.wall_s) ? json(nullptr) : json(r.wall_s)},
          {"claims",
           {{"own_hold", c.own_hold},
            {"own_deviate", c.own_deviate},
            {"stand_in_hold", c.stand_in_hold},
            {"stand_in_deviate", c.stand_in_deviate},
            {"informational", c.informational},
            {"calibration", c.calibration}}},
          // Full precision (the shortest text that reads back as the same double), so that the
          // merge recomputes the summary's medians and 90th percentiles exactly.
          {"cell_errors", s.cell_errors}};
}

// Fills the recorded status, hardware and wall time of `r`, and `s`, from item_data's JSON.
void read_item_data(const json& d, const std::string& origin, ItemRecord* r, ItemSummary* s) {
  try {
    r->status = d.at("status").get<std::string>();
    r->hardware = d.at("hardware").get<std::string>();
    r->wall_s = d.at("wall_s").is_null() ? std::nan("") : d.at("wall_s").get<double>();
    const json& c = d.at("claims");
    s->claims.own_hold = c.at("own_hold").get<int>();
    s->claims.own_deviate = c.at("own_deviate").get<int>();
    s->claims.stand_in_hold = c.at("stand_in_hold").get<int>();
    s->claims.stand_in_deviate = c.at("stand_in_deviate").get<int>();
    s->claims.informational = c.at("informational").get<int>();
    s->claims.calibration = c.at("calibration").get<int>();
    s->cell_errors = d.at("cell_errors").get<std::vector<double>>();
  } catch (const json::exception& e) {
    throw Error(origin + ": not an experiment's completion data: " + e.what());
  }
}

json records_json(const std::vector<ItemRecord>& records) {
  json a = json::array();
  for (const ItemRecord& r : records) {
    a.push_back({{"item", r.item},
                 {"caption", r.caption},
                 {"status", r.status},
                 {"hardware", r.hardware},
                 {"wall_s", std::isnan(r.wall_s) ? json(nullptr) : json(r.wall_s)}});
  }
  return a;
}

std::vector<ItemRecord> records_from(const json& a) {
  std::vector<ItemRecord> out;
  for (const json& r : a) {
    out.push_back({r.at("item").get<std::string>(), r.at("caption").get<std::string>(),
                   r.at("status").get<std::string>(), r.at("hardware").get<std::string>(),
                   r.at("wall_s").is_null() ? std::nan("") : r.at("wall_s").get<double>()});
  }
  return out;
}

json table_rows_json(const Table& t) {
  json a = json::array();
  for (const auto& row : t.rows()) {
    json r = json::array();
    for (const Cell& c : row) r.push_back(format_cell(c, 17));
    a.push_back(r);
  }
  return a;
}

std::string number(double v, int digits) {
  std::ostringstream os;
  os.precision(digits);
  os << std::fixed << v;
  return os.str();
}

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

RunKey experiment_run_key(const std::string& paper, const RunOptions& opts) {
  std::string dims;
  for (const auto& [name, value] : opts.dims)
    dims += (dims.empty() ? "" : ",") + name + "=" + std::to_string(value);
  const BuildInfo& b = build_info();
  return {{"paper", paper},
          {"mode", opts.mode == RunMode::Model ? "model" : "measured"},
          {"seed", std::to_string(opts.seed)},
          {"hw", input_identity(opts.hw)},
          {"model", input_identity(opts.model)},
          {"dims", dims},
          {"commit", b.commit},
          {"build_type", b.build_type},
          {"compiler", b.compiler}};
}

// ---------------------------------------------------------------------------------------------
// SweepRun
// ---------------------------------------------------------------------------------------------

SweepRun::SweepRun(const PaperInfo& paper, const RunOptions& opts, SweepOptions sweep,
                   std::vector<std::string> work, bool all)
    : paper_(paper.key),
      out_dir_(opts.out_dir),
      key_(experiment_run_key(paper.key, opts)),
      sweep_(std::move(sweep)),
      work_(std::move(work)),
      assignment_(work_.size(), 0),
      all_(all) {
  if (!sweep_.shard) return;
  const std::vector<double> costs = sweep_.shard_costs.empty()
                                        ? std::vector<double>(work_.size(), std::nan(""))
                                        : shard_costs_from_csv(sweep_.shard_costs, work_);
  assignment_ = assign_shards(costs, sweep_.shard->count);
}

bool SweepRun::runs(size_t k) const {
  return !sweep_.shard || assignment_[k] == sweep_.shard->index;
}

size_t SweepRun::share_size() const {
  size_t n = 0;
  for (size_t k = 0; k < work_.size(); ++k) n += runs(k) ? 1 : 0;
  return n;
}

std::string SweepRun::header_line() const {
  if (!sweep_.shard) return "";
  std::vector<std::string> mine;
  for (size_t k = 0; k < work_.size(); ++k)
    if (runs(k)) mine.push_back(work_[k]);
  return "shard " + sweep_.shard->str() + ": " + (mine.empty() ? "no item" : joined(mine, ", ")) +
         " (" + std::to_string(mine.size()) + " of " + std::to_string(work_.size()) +
         " work items; " +
         (sweep_.shard_costs.empty() ? std::string("round-robin over the list")
                                     : "balanced by the costs in " + sweep_.shard_costs) +
         ")";
}

bool SweepRun::completed(const std::string& item, ItemRecord* record, ItemSummary* summary,
                         std::string* why) const {
  why->clear();
  if (!sweep_.skip_existing) return false;
  const std::string state = run_state_dir(out_dir_, paper_);
  const std::optional<ItemMarker> m =
      completed_item(state, item, key_, (fs::path(out_dir_) / paper_).string(), why);
  if (!m) return false;
  try {
    read_item_data(m->data, item_marker_path(state, item), record, summary);
  } catch (const Error& e) {
    *why = e.what();
    return false;
  }
  summary->item = item;
  return true;
}

void SweepRun::item_done(const ItemRecord& record, const ItemSummary& summary,
                         const std::vector<std::string>& written) const {
  if (!keeps_state()) return;
  const fs::path folder = fs::path(out_dir_) / paper_;
  ItemMarker m{record.item, key_, {}, item_data(record, summary)};
  for (const std::string& path : written) {
    const std::string rel = fs::path(path).lexically_relative(folder).generic_string();
    m.files.push_back(digest_file(folder.string(), rel));
  }
  write_item_marker(run_state_dir(out_dir_, paper_), m);
}

void SweepRun::finish_shard(const std::vector<ItemRecord>& records, const Table& run_info,
                            std::ostream& out) const {
  if (!sweep_.shard) return;
  ShardRecord r;
  r.shard = *sweep_.shard;
  r.run = key_;
  r.work = work_;
  r.assignment = assignment_;
  r.data = {
      {"all", all_}, {"records", records_json(records)}, {"run_info", table_rows_json(run_info)}};
  const std::string state = run_state_dir(out_dir_, paper_);
  write_shard_record(state, r);
  out << "shard " + r.shard.str() + ": wrote " << shard_record_path(state, r.shard)
      << "\nwhen every shard has ended, merge them: repro_" << paper_
      << " --merge <the shards' --out folders> --out <folder>\n";
}

// ---------------------------------------------------------------------------------------------
// Merge
// ---------------------------------------------------------------------------------------------

Table merged_run_info(const std::vector<Table>& shard_run_infos) {
  std::vector<std::string> fields;
  std::map<std::string, std::vector<std::string>> values;  // field -> value per shard
  for (const Table& t : shard_run_infos) {
    for (const auto& row : t.rows()) {
      const std::string f = format_cell(row.at(0), 17), v = format_cell(row.at(1), 17);
      if (!values.count(f)) fields.push_back(f);
      values[f].push_back(v);
    }
  }
  Table out({"field", "value"});
  double longest = 0;
  for (const std::string& f : fields) {
    std::vector<std::string> distinct;
    for (const std::string& v : values[f])
      if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
    std::string value = distinct.size() == 1 ? distinct[0] : "";
    if (f == "started_utc") {
      value = *std::min_element(values[f].begin(), values[f].end());
    } else if (f == "wall_s") {
      double sum = 0;
      for (const std::string& v : values[f]) {
        const double w = std::strtod(v.c_str(), nullptr);
        sum += w;
        longest = std::max(longest, w);
      }
      value = number(sum, 2);
    } else if (f == "hardware_configs" && distinct.size() > 1) {
      std::set<std::string> parts;
      for (const std::string& v : distinct) {
        std::istringstream is(v);
        std::string part;
        while (std::getline(is, part, ';')) {
          part.erase(0, part.find_first_not_of(' '));
          if (!part.empty()) parts.insert(part);
        }
      }
      value = joined({parts.begin(), parts.end()}, "; ");
    } else if (distinct.size() > 1) {
      value = joined(distinct, "; ");
    }
    out.add_row({f, value});
  }
  out.add_row({std::string("shards"), static_cast<int64_t>(shard_run_infos.size())});
  out.add_row({std::string("longest_shard_wall_s"), number(longest, 2)});
  return out;
}

void merge_sweep(const PaperInfo& paper, const std::vector<std::string>& dirs,
                 const std::string& out_dir, std::ostream& out) {
  const std::vector<ShardRecord> shards = collect_shards(dirs, paper.key);
  const ShardRecord& first = shards.front();
  const std::string n = std::to_string(first.shard.count);
  std::vector<ItemRecord> records;
  bool all = false;
  std::vector<Table> run_infos;
  try {
    records = records_from(first.data.at("records"));
    all = first.data.at("all").get<bool>();
    for (const ShardRecord& r : shards) {
      Table t({"field", "value"});
      for (const json& row : r.data.at("run_info"))
        t.add_row({row.at(0).get<std::string>(), row.at(1).get<std::string>()});
      run_infos.push_back(std::move(t));
    }
  } catch (const json::exception& e) {
    throw UsageError("--merge: " + first.path +
                     ": not a shard record of a repro_* run: " + e.what());
  }
  // Every item, checked and read, before anything is written.
  struct Copy {
    fs::path from, to;
    std::string content;
  };
  std::vector<Copy> copies;
  std::vector<ItemSummary> items;
  const fs::path target = fs::path(out_dir) / paper.key;
  for (size_t k = 0; k < first.work.size(); ++k) {
    const std::string& item = first.work[k];
    const ShardRecord& owner = shards[static_cast<size_t>(first.assignment[k])];
    const std::string where = item + " (shard " + owner.shard.str() + ", " + owner.folder + ")";
    const std::string rerun = "; rerun shard " + owner.shard.str() +
                              " with --skip-existing (it runs only what is not complete)";
    const std::string state = run_state_dir(owner.folder, paper.key);
    std::optional<ItemMarker> m;
    try {
      m = read_item_marker(state, item);
    } catch (const Error& e) {
      throw UsageError("--merge: " + where + ": " + e.what() + rerun);
    }
    if (!m) {
      std::string status = "not recorded";
      for (const json& r : owner.data.at("records"))
        if (r.value("item", "") == item) status = r.value("status", status);
      throw UsageError("--merge: " + where + " is not complete: no " +
                       item_marker_path(state, item) + " (its shard's status: " + status + ")" +
                       rerun);
    }
    if (const std::string f = run_key_differing_field(owner.run, m->run); !f.empty()) {
      throw UsageError("--merge: " + item_marker_path(state, item) + " is of another run: " + f +
                       " " + run_key_value(m->run, f) + ", its shard's " +
                       run_key_value(owner.run, f) + rerun);
    }
    const fs::path folder = fs::path(owner.folder) / paper.key;
    if (const std::string missing = missing_files(*m, folder.string()); !missing.empty())
      throw UsageError("--merge: " + where + ": " + missing + rerun);
    ItemRecord* record = nullptr;
    for (ItemRecord& r : records)
      if (r.item == item) record = &r;
    if (record == nullptr) {
      throw UsageError("--merge: " + first.path + ": work item " + item +
                       " is not in its list of experiments");
    }
    ItemSummary s;
    try {
      read_item_data(m->data, item_marker_path(state, item), record, &s);
    } catch (const Error& e) {
      throw UsageError(std::string("--merge: ") + e.what() + rerun);
    }
    s.item = item;
    items.push_back(std::move(s));
    for (const FileDigest& f : m->files) {
      Copy c{folder / f.name, target / f.name, read_file((folder / f.name).string())};
      const FileDigest now = digest_content(f.name, c.content);
      if (now.bytes != f.bytes || now.fnv1a != f.fnv1a)
        throw UsageError("--merge: " + where + ": " + c.from.string() + " changed while merging");
      copies.push_back(std::move(c));
    }
  }
  // Then the files: each item's, copied (a folder merged into itself keeps them), and the run's.
  for (const Copy& c : copies) {
    std::error_code ec;
    if (fs::exists(c.to, ec) && fs::equivalent(c.from, c.to, ec)) continue;
    write_file_atomic(c.to.string(), c.content);
  }
  out << "merged " << shards.size() << " shard" << (shards.size() == 1 ? "" : "s") << " ("
      << first.work.size() << " work items, " << copies.size() << " files) into " << target.string()
      << "/\n";
  if (all) write_run_summary(paper.key, out_dir, items, records, merged_run_info(run_infos), out);
}

}  // namespace dgs
