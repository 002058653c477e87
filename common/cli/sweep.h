#pragma once
// A paper's run as one share of a sweep, resumable, and the merge of the shares (README "Sweeps
// on several machines"):
//   repro_<paper> --all --shard I/N [--shard-costs FILE] [--skip-existing] --out DIR_I
//   repro_<paper> --merge DIR_0 ... DIR_N-1 --out OUT
// The work items are the experiments the run selects (--all, --fig, --table, after --model and
// --mode drop those that do not apply), in list order; shard I runs those assign_shards gives it
// (shard.h) and writes their reports to <out>/<paper>/ as a single run does, each item's
// completion record after its files (run_state.h), and at its end its shard record instead of
// summary.csv, items.csv and run_info.csv. --skip-existing skips an item complete in <out> for
// the same run (it keeps its recorded summary and wall time). The merge checks that the folders
// hold every shard of one sweep and every item complete, then copies each item's files and
// writes summary.csv (recomputed from the items' claims and cell errors, recorded at full
// precision, exactly as the single run computes it), items.csv and run_info.csv. Everything but
// the run-varying values (reports/run_varying.csv: wall times, run_info.csv) equals a single
// run's files byte for byte.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/cli/cli.h"
#include "common/cli/run_info.h"
#include "common/cli/run_state.h"
#include "common/cli/shard.h"

namespace dgs {

// How a run takes part in a sweep.
struct SweepOptions {
  std::optional<ShardSpec> shard;  // --shard I/N
  std::string shard_costs;         // --shard-costs FILE
  bool skip_existing = false;      // --skip-existing
};

// The options an experiment's results depend on: the paper, mode, seed, --hw, --model, --dim and
// the build (commit, build type, compiler). A completion record of another key is not reused.
RunKey experiment_run_key(const std::string& paper, const RunOptions& opts);

// A run's share of its work items, and its state (run_state.h) when it keeps one (--shard or
// --skip-existing; a plain run keeps none and writes exactly what it always wrote).
class SweepRun {
 public:
  // `work`: the ids of the selected experiments, in order. Throws UsageError for a bad
  // --shard-costs file.
  SweepRun(const PaperInfo& paper, const RunOptions& opts, SweepOptions sweep,
           std::vector<std::string> work, bool all);
  bool sharded() const { return sweep_.shard.has_value(); }
  bool keeps_state() const { return sharded() || sweep_.skip_existing; }
  // Whether work item k is in this run's share (always, unsharded).
  bool runs(size_t k) const;
  size_t share_size() const;
  // "shard 1/3: fig8, fig11 (2 of 5 work items; round-robin)", "" unsharded.
  std::string header_line() const;
  // With --skip-existing: whether `item` is complete in <out> for this run; then its record and
  // summary are the recorded ones. `why`: why an item with a record is not complete ("" if none).
  bool completed(const std::string& item, ItemRecord* record, ItemSummary* summary,
                 std::string* why) const;
  // After an item's files are written (`written`: their paths): its completion record, when the
  // run keeps state.
  void item_done(const ItemRecord& record, const ItemSummary& summary,
                 const std::vector<std::string>& written) const;
  // At the end of a shard: writes its record (`records`: every experiment of the list;
  // `run_info`: this process's run_info_table) and prints how to merge.
  void finish_shard(const std::vector<ItemRecord>& records, const Table& run_info,
                    std::ostream& out) const;

 private:
  std::string paper_, out_dir_;
  RunKey key_;
  SweepOptions sweep_;
  std::vector<std::string> work_;
  std::vector<int> assignment_;
  bool all_ = false;
};

// The run_info table of a merged sweep from its shards' tables: each field once, in the first
// shard's order; a value that differs between shards is started_utc's earliest, wall_s's sum,
// hardware_configs' union, or the distinct values joined by "; "; then "shards" (N) and
// "longest_shard_wall_s".
Table merged_run_info(const std::vector<Table>& shard_run_infos);

// --merge DIR...: joins the shards of one sweep of `paper` found in `dirs` into
// <out_dir>/<paper>/. Everything is checked before anything is written; bad input throws
// UsageError in one line naming what and where (collect_shards; an item a shard did not complete;
// a file missing or changed since its shard wrote it). Prints the summary as --all does.
void merge_sweep(const PaperInfo& paper, const std::vector<std::string>& dirs,
                 const std::string& out_dir, std::ostream& out);

}  // namespace dgs
