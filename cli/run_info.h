#pragma once
// The record that every run (--all, or items selected with --fig and --table of which at least
// one completed; not a shard, whose merge writes it) leaves in its folder, for readers of the
// reports folder (repro_report's page, a comparison with committed reports):
//   <out>/<paper>/items.csv     every experiment of the paper's list, in list order: its caption,
//                               what the run did with it, the machine(s) it ran on, and its wall
//                               time (columns item, caption, status, hardware, wall_s); a run of
//                               selected items writes its items' rows and keeps the other rows
//                               the folder's items.csv holds (an earlier run's), else "not run"
//   <out>/<paper>/run_info.csv  the environment fingerprint of the folder's last run (columns
//                               field, value): the paper, mode, seed, the items it ran ("all" for
//                               --all, else their ids), commit, build type, compiler, CUDA and
//                               cuDNN versions, the hardware configs read, the host's CPU, in
//                               measured mode the GPU's name, driver, clock and memory, the start
//                               time and the wall time of the whole run
// Only --all writes summary.csv (and checks that every paper value is read).
// Everything that differs between machines or runs of the same code is in run_info.csv or in a
// column named in kRunVaryingValues (common/report/report_compare.h).
#include <iosfwd>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/report/report.h"

namespace dgs {

struct ItemRecord {
  std::string item;      // "fig13"
  std::string caption;   // the paper's caption, from the experiment list
  std::string status;    // "ran", "failed", "not implemented yet", "skipped: <why>"
  std::string hardware;  // the configs it ran on ("hw_configs/v100.json; ..."), "" if none
  double wall_s = std::numeric_limits<double>::quiet_NaN();  // NaN: it did not run
};

// columns: item, caption, status, hardware, wall_s
Table items_table(const std::vector<ItemRecord>& items);

// The configs read by this process from index `first` on (hardware_configs_read()), plus
// `machine` (the experiment's own, "" if none), each once, sorted, "; "-separated: the hardware
// column of an item.
std::string configs_since(size_t first, const std::string& machine);

// The environment of this process and run, as (field, value) rows; `items`: what the run ran
// ("all", or the selected ids joined by ", "); `gpu_measured`: the run used the GPU (measured
// mode), so its name, driver, clock and memory are added; the hardware configs are those this
// process read from index `configs_first` on (hardware_configs_read(): the run's own).
Table run_info_table(const PaperInfo& paper, const RunOptions& opts, const std::string& items,
                     bool gpu_measured, const std::string& started_utc, double wall_s,
                     size_t configs_first);

// The run_info table of a merged sweep from its shards' tables: each field once, in the first
// shard's order; a value that differs between shards is started_utc's earliest, wall_s's sum,
// hardware_configs' union, or the distinct values joined by "; "; then "shards" (N) and
// "longest_shard_wall_s".
Table merged_run_info(const std::vector<Table>& shard_run_infos);

// The end of a --all run (or of the merge of its shards, sweep.h): prints the summary table of
// `items` (summary_table), the claims line and the tolerance rules, and writes summary.csv,
// items.csv (items_table(records)) and run_info.csv (`run_info`), each atomically, to
// <out_dir>/<paper>/.
void write_run_summary(const std::string& paper, const std::string& out_dir,
                       const std::vector<ItemSummary>& items,
                       const std::vector<ItemRecord>& records, const Table& run_info,
                       std::ostream& out);

// The end of a run of selected items (not --all), or of the merge of its shards: writes
// items.csv and run_info.csv (`run_info`), each atomically, to <out_dir>/<paper>/. items.csv has
// `records`' row for each item in `ran` (this run's) and for each other item whose record says
// "not run" the row of the same item in the folder's items.csv if it has one (an earlier run's: an
// item run into the folder of an --all keeps the others' rows), else `records`' own (an item not
// implemented stays "not implemented yet"); a folder's items.csv that cannot be read counts as
// none.
void write_run_record(const std::string& paper, const std::string& out_dir,
                      std::vector<ItemRecord> records, const std::set<std::string>& ran,
                      const Table& run_info, std::ostream& out);

// The driver version in the first line of /proc/driver/nvidia/version: its first word of digits
// and dots. The proprietary module's line is "NVRM version: NVIDIA UNIX x86_64 Kernel Module
// 535.104.05  Sat Aug 19 ..."; the open module's is "NVRM version: NVIDIA UNIX Open Kernel Module
// for x86_64  580.159.04  Release Build ...". The whole line if it has no such word.
std::string nvidia_driver_version(const std::string& version_line);

// "build <commit> (<build type>, <compiler>, CUDA <v>, cuDNN <v>)": the run header's line.
std::string build_line();

// The current time as "2026-11-28T03:20:27Z".
std::string utc_now();

}  // namespace dgs
