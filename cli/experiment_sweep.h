#pragma once
// A paper's experiments as a sweep (sweep_run.h), and the merge of its shards (README "Sweeps on
// several machines"):
//   repro_<paper> --all --shard I/N [--shard-costs FILE] [--skip-existing] --out DIR_I
//   repro_<paper> --merge DIR_0 ... DIR_N-1 --out OUT
// The work items are the experiments the run selects (--all, --fig, --table, after --model and
// --mode drop those that do not apply), in list order, keyed by id ("fig13"). Each one's
// completion record keeps its line of the summary (claims counted by kind, every paper-vs-ours
// cell error at full precision) and its items.csv row; a shard writes its record instead of
// summary.csv, items.csv and run_info.csv. The merge copies every item's files and writes those
// three from the records with the code a single --all uses (run_info.h: write_run_summary; a
// selection's items.csv and run_info.csv with write_run_record, as a single run of it), so
// everything but the run-varying values (reports/run_varying.csv: wall times, run_info.csv)
// equals a single run's files byte for byte.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/run_info.h"
#include "cli/run_state.h"
#include "cli/sweep_run.h"

namespace dgs {

// The options an experiment's results depend on: the paper, mode, seed, --hw, --model (each with
// the hash of its file's text when it names a file), --dim, and the build (commit, build type,
// compiler). A completion record of another key is not reused, and shards of different keys are
// not merged.
RunKey experiment_run_key(const std::string& paper, const RunOptions& opts);

// An experiment's completion data: its record's status, hardware and wall time, and its summary.
nlohmann::json experiment_item_data(const ItemRecord& record, const ItemSummary& summary);
// Reads it back into `record` (status, hardware, wall time) and `summary` (claims, cell errors);
// throws dgs::Error naming `origin` when it is malformed.
void read_experiment_item_data(const nlohmann::json& data, const std::string& origin,
                               ItemRecord* record, ItemSummary* summary);

// With --skip-existing: whether experiment `id` is complete in the sweep's folder for its run
// (SweepRun::completed); then `record`'s status, hardware and wall time and `summary` are the
// recorded ones. `why`: why an experiment with a record is not complete ("" if none).
bool completed_experiment(const SweepRun& sweep, const std::string& id, ItemRecord* record,
                          ItemSummary* summary, std::string* why);

// A shard's own data: whether it ran --all, every experiment's record (items.csv's rows), and
// its run_info_table.
nlohmann::json experiment_shard_data(bool all, const std::vector<ItemRecord>& records,
                                     const Table& run_info);

// --merge DIR...: joins the shards of one sweep of `paper` found in `dirs` into
// <out_dir>/<paper>/. Everything is checked before anything is written; bad input throws
// UsageError in one line naming what and where (collect_shards, sweep_items). Prints the summary
// as --all does.
void merge_experiment_shards(const PaperInfo& paper, const std::vector<std::string>& dirs,
                             const std::string& out_dir, std::ostream& out);

}  // namespace dgs
