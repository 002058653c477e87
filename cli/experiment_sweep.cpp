// A paper's experiments as a sweep, and the merge of its shards (experiment_sweep.h).
#include "cli/experiment_sweep.h"

#include <cmath>
#include <filesystem>
#include <ostream>
#include <set>

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

}  // namespace

json experiment_item_data(const ItemRecord& r, const ItemSummary& s) {
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

void read_experiment_item_data(const json& d, const std::string& origin, ItemRecord* r,
                               ItemSummary* s) {
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

bool completed_experiment(const SweepRun& sweep, const std::string& id, ItemRecord* record,
                          ItemSummary* summary, std::string* why) {
  const std::optional<json> data = sweep.completed(id, why);
  if (!data) return false;
  ItemRecord r = *record;
  ItemSummary s;
  try {
    read_experiment_item_data(*data, id, &r, &s);
  } catch (const Error& e) {
    *why = e.what();
    return false;
  }
  s.item = id;
  *record = std::move(r);
  *summary = std::move(s);
  return true;
}

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

json experiment_shard_data(bool all, const std::vector<ItemRecord>& records,
                           const Table& run_info) {
  return {
      {"all", all}, {"records", records_json(records)}, {"run_info", table_rows_json(run_info)}};
}

// ---------------------------------------------------------------------------------------------
// Merge
// ---------------------------------------------------------------------------------------------

void merge_experiment_shards(const PaperInfo& paper, const std::vector<std::string>& dirs,
                             const std::string& out_dir, std::ostream& out) {
  const std::vector<ShardRecord> shards = collect_shards(dirs, paper.key);
  const ShardRecord& first = shards.front();
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
  for (const SweepItem& w : sweep_items(shards, paper.key)) {
    const std::string& item = w.marker.item;
    const std::string origin = item_marker_path(run_state_dir(w.shard->folder, paper.key), item);
    ItemRecord* record = nullptr;
    for (ItemRecord& r : records)
      if (r.item == item) record = &r;
    if (record == nullptr) {
      throw UsageError("--merge: " + first.path + ": work item " + item +
                       " is not in its list of experiments");
    }
    ItemSummary s;
    try {
      read_experiment_item_data(w.marker.data, origin, record, &s);
    } catch (const Error& e) {
      throw UsageError(std::string("--merge: ") + e.what());
    }
    s.item = item;
    items.push_back(std::move(s));
    for (const FileDigest& f : w.marker.files) {
      const fs::path from = fs::path(w.folder) / f.name;
      Copy c{from, target / f.name, read_file(from.string())};
      const FileDigest now = digest_content(f.name, c.content);
      if (now.bytes != f.bytes || now.fnv1a != f.fnv1a)
        throw UsageError("--merge: " + from.string() + " changed while merging");
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
  if (all) {
    write_run_summary(paper.key, out_dir, items, records, merged_run_info(run_infos), out);
  } else {
    std::set<std::string> ran;
    for (const ItemSummary& done : items) ran.insert(done.item);
    write_run_record(paper.key, out_dir, records, ran, merged_run_info(run_infos), out);
  }
}

}  // namespace dgs
