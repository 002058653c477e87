#pragma once
// What a resumable or sharded run keeps beside its reports, so that an interrupted run resumes
// (--skip-existing) and a merge step joins the shards of a sweep (--merge), for any list of work
// items (shard.h):
//   <out>/.run_state/<scope>/<item>.done.json         one work item's completion record
//   <out>/.run_state/<scope>/shard-<I>-of-<N>.json    a shard's record, written when it ends
// <scope> is the folder the items' reports go to under <out> (a paper's key). The folder starts
// with a dot and holds no summary.csv, so the report page and the comparison of report folders
// never see it.
//
// Completeness: an item's files are each written atomically (write_file_atomic), then its
// completion record, last and atomically, listing every file with its size and FNV-1a hash and
// the run it belongs to (RunKey: the options its results depend on). An item is complete when its
// record exists, belongs to the same run, and every file it lists is present with that size and
// hash (completed_item); a run killed at any point leaves the item incomplete, and it runs again.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/shard.h"

namespace dgs {

// The options a run's results depend on, as (field, value) pairs in a fixed order ("seed", "1").
using RunKey = std::vector<std::pair<std::string, std::string>>;
// The first field (in `a`'s order, then `b`'s) whose value differs between the keys, a field that
// one key lacks counting as "none"; "" when they are equal.
std::string run_key_differing_field(const RunKey& a, const RunKey& b);
// The value of `field` in `k`, quoted ('1'), or none.
std::string run_key_value(const RunKey& k, const std::string& field);

// <out_dir>/.run_state/<scope>
std::string run_state_dir(const std::string& out_dir, const std::string& scope);

struct FileDigest {
  std::string name;  // relative to the item's report folder ("fig13.csv")
  uint64_t bytes = 0;
  std::string fnv1a;  // 16 hex digits
};
// The digest of `content`, named `name`.
FileDigest digest_content(const std::string& name, const std::string& content);
// The digest of `folder`/`name`; throws dgs::Error when it cannot be read.
FileDigest digest_file(const std::string& folder, const std::string& name);

struct ItemMarker {
  std::string item;  // the work item's key ("fig13"; any text: the file name is escaped)
  RunKey run;
  std::vector<FileDigest> files;
  nlohmann::json data;  // what the caller needs to resume or merge the item (its summary)
};
// <state_dir>/<item>.done.json (characters outside [A-Za-z0-9._-] written as %XX)
std::string item_marker_path(const std::string& state_dir, const std::string& item);
// Writes the item's completion record (atomically; call it after the item's files).
void write_item_marker(const std::string& state_dir, const ItemMarker& m);
// The item's completion record; nullopt when there is none. Throws dgs::Error naming the file
// when it is malformed.
std::optional<ItemMarker> read_item_marker(const std::string& state_dir, const std::string& item);
// "" when every file `m` lists is in `folder` with its recorded size and hash; else the first
// that is not, as "<folder>/<file> is missing" or "... has N bytes (M when written)" or "...
// differs from what was written (hash)".
std::string missing_files(const ItemMarker& m, const std::string& folder);
// The record of `item` when the item is complete in this state folder for run `run`, its files in
// `folder`; otherwise nullopt, with `why` (when given) saying why, "" when there is no record at
// all ("fig13.csv is missing", "recorded by another run: seed 2 (here 1)", "unreadable ...").
std::optional<ItemMarker> completed_item(const std::string& state_dir, const std::string& item,
                                         const RunKey& run, const std::string& folder,
                                         std::string* why = nullptr);

// A shard's record: the sweep it belongs to (the run, the whole work list and its assignment,
// the same in every shard) and what it did (the status of each item of its share, and data).
struct ShardRecord {
  ShardSpec shard;
  RunKey run;
  std::vector<std::string> work;  // every work item of the sweep, in list order
  std::vector<int> assignment;    // the shard of each (assign_shards)
  // What the shard did with each item of its share ("ran", "failed: <why>", ...).
  std::map<std::string, std::string> status;
  nlohmann::json data;  // anything else the caller's merge needs
  std::string path;     // the file it was read from (read_shard_records)
  std::string folder;   // the output folder (<out>) it was found in (collect_shards)
  // The items of this shard, in list order.
  std::vector<std::string> share() const;
};
// <state_dir>/shard-<I>-of-<N>.json, atomically.
std::string shard_record_path(const std::string& state_dir, const ShardSpec& shard);
void write_shard_record(const std::string& state_dir, const ShardRecord& r);
// Every shard-*-of-*.json in `state_dir`, sorted by name. Throws dgs::Error naming a malformed
// file.
std::vector<ShardRecord> read_shard_records(const std::string& state_dir);

// The shards of one sweep, found in the output folders `dirs` (each the --out of some shards;
// one folder may hold all of them): exactly one record for each shard 0..N-1, all of the same
// sweep (run key, shard count, work list, assignment). Returns them by shard index. Throws
// UsageError in one line, prefixed with `flag`, naming what and where: a folder that does not
// exist or holds no shard record of `scope`, a malformed record, a shard given twice, a shard
// missing ("shard 2/3 is missing: no shard-2-of-3.json in ..."), shards of different sweeps
// mixed ("... has seed 2, ... has seed 1").
std::vector<ShardRecord> collect_shards(const std::vector<std::string>& dirs,
                                        const std::string& scope,
                                        const std::string& flag = "--merge");

}  // namespace dgs
