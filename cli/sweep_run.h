#pragma once
// One run of a sweep over any list of work items (README "Sweeps on several machines"): its
// share (--shard I/N, shard.h), resuming (--skip-existing) and its records (run_state.h); and the
// input of a merge, every work item complete in its shard's folder. Nothing here knows what an
// item computes: a caller keeps in each item's completion record the data its merge needs (the
// repro_* executables: an experiment's summary line, experiment_sweep.h; a comparison over
// (model, hardware, scheduler, seed): the item's rows), and writes its merged files from that
// data in work-list order with the code a single run uses, so that both write the same bytes.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/run_state.h"
#include "cli/shard.h"

namespace dgs {

// How a run takes part in a sweep.
struct SweepOptions {
  std::optional<ShardSpec> shard = {};  // --shard I/N
  std::string shard_costs = {};         // --shard-costs FILE
  bool skip_existing = false;           // --skip-existing
};

class SweepRun {
 public:
  // `scope`: the folder under `out_dir` the items' reports go to (a paper's key); `run`: the
  // options the results depend on (compute it only when keeps_state(sweep)); `work`: every work
  // item's key, in list order. Throws UsageError for a bad --shard-costs file.
  SweepRun(std::string scope, std::string out_dir, RunKey run, SweepOptions sweep,
           std::vector<std::string> work);
  static bool keeps_state(const SweepOptions& s) { return s.shard || s.skip_existing; }
  bool sharded() const { return sweep_.shard.has_value(); }
  // Whether the run writes completion records (--shard or --skip-existing; a plain run writes
  // none, and exactly the files it always wrote).
  bool keeps_state() const { return keeps_state(sweep_); }
  // Whether work item k is in this run's share (always, unsharded).
  bool runs(size_t k) const;
  size_t share_size() const;
  // "shard 1/3: fig8, fig11 (2 of 5 work items; round-robin over the list)"; "" unsharded.
  std::string header_line() const;
  // The report folder of the items: <out_dir>/<scope>.
  std::string folder() const;
  // With --skip-existing: the data of `item`'s completion record when the item is complete in
  // <out_dir> for this run (completed_item); else nullopt, `why` saying why an item with a
  // record is not ("" when it has none, or without --skip-existing).
  std::optional<nlohmann::json> completed(const std::string& item, std::string* why) const;
  // After an item's files are written (`written`: their paths, under folder()): its completion
  // record with `data`, when the run keeps state.
  void item_done(const std::string& item, const nlohmann::json& data,
                 const std::vector<std::string>& written) const;
  // At the end of a shard (nothing unsharded): its record, with the status of each item of its
  // share and `data`; returns the record's path.
  std::string finish_shard(const std::map<std::string, std::string>& status,
                           const nlohmann::json& data) const;

 private:
  std::string scope_, out_dir_;
  RunKey run_;
  SweepOptions sweep_;
  std::vector<std::string> work_;
  std::vector<int> assignment_;
};

// A work item of a merged sweep: its completion record and where its files are.
struct SweepItem {
  ItemMarker marker;
  std::string folder;        // the item's report folder (<shard's out>/<scope>)
  const ShardRecord* shard;  // the shard that ran it (an element of the shards given)
};
// Every work item of the sweep of `shards` (collect_shards), in list order, each complete in its
// shard's folder: a completion record of the shards' run, every file it lists present as written.
// Throws UsageError in one line, prefixed with `flag`, naming the item, its shard and folder and
// what is wrong (no record, with the shard's status for it; a record of another run; a file
// missing or changed), and how to finish it ("rerun shard I/N with --skip-existing").
std::vector<SweepItem> sweep_items(const std::vector<ShardRecord>& shards, const std::string& scope,
                                   const std::string& flag = "--merge");

}  // namespace dgs
