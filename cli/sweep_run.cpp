// One run of a sweep over any work list, and the input of a merge (sweep_run.h).
#include "cli/sweep_run.h"

#include <cmath>
#include <filesystem>

#include "common/util/error.h"

namespace dgs {

namespace fs = std::filesystem;

SweepRun::SweepRun(std::string scope, std::string out_dir, RunKey run, SweepOptions sweep,
                   std::vector<std::string> work)
    : scope_(std::move(scope)),
      out_dir_(std::move(out_dir)),
      run_(std::move(run)),
      sweep_(std::move(sweep)),
      work_(std::move(work)),
      assignment_(work_.size(), 0) {
  if (!sweep_.shard) return;
  const std::vector<double> costs = sweep_.shard_costs.empty()
                                        ? std::vector<double>(work_.size(), std::nan(""))
                                        : shard_costs_from_csv(sweep_.shard_costs, work_);
  assignment_ = assign_shards(costs, sweep_.shard->count);
}

bool SweepRun::runs(size_t k) const {
  return !sweep_.shard || assignment_.at(k) == sweep_.shard->index;
}

size_t SweepRun::share_size() const {
  size_t n = 0;
  for (size_t k = 0; k < work_.size(); ++k) n += runs(k) ? 1 : 0;
  return n;
}

std::string SweepRun::header_line() const {
  if (!sweep_.shard) return "";
  std::string mine;
  size_t n = 0;
  for (size_t k = 0; k < work_.size(); ++k) {
    if (!runs(k)) continue;
    mine += (mine.empty() ? "" : ", ") + work_[k];
    ++n;
  }
  return "shard " + sweep_.shard->str() + ": " + (mine.empty() ? "no item" : mine) + " (" +
         std::to_string(n) + " of " + std::to_string(work_.size()) + " work items; " +
         (sweep_.shard_costs.empty() ? std::string("round-robin over the list")
                                     : "balanced by the costs in " + sweep_.shard_costs) +
         ")";
}

std::string SweepRun::folder() const {
  return (fs::path(out_dir_) / scope_).string();
}

std::optional<nlohmann::json> SweepRun::completed(const std::string& item, std::string* why) const {
  why->clear();
  if (!sweep_.skip_existing) return std::nullopt;
  const std::optional<ItemMarker> m =
      completed_item(run_state_dir(out_dir_, scope_), item, run_, folder(), why);
  if (!m) return std::nullopt;
  return m->data;
}

void SweepRun::item_done(const std::string& item, const nlohmann::json& data,
                         const std::vector<std::string>& written) const {
  if (!keeps_state()) return;
  ItemMarker m{item, run_, {}, data};
  for (const std::string& path : written) {
    const std::string rel = fs::path(path).lexically_relative(folder()).generic_string();
    m.files.push_back(digest_file(folder(), rel));
  }
  write_item_marker(run_state_dir(out_dir_, scope_), m);
}

std::string SweepRun::finish_shard(const std::map<std::string, std::string>& status,
                                   const nlohmann::json& data) const {
  if (!sweep_.shard) return "";
  ShardRecord r;
  r.shard = *sweep_.shard;
  r.run = run_;
  r.work = work_;
  r.assignment = assignment_;
  r.status = status;
  r.data = data;
  const std::string state = run_state_dir(out_dir_, scope_);
  write_shard_record(state, r);
  return shard_record_path(state, r.shard);
}

std::vector<SweepItem> sweep_items(const std::vector<ShardRecord>& shards, const std::string& scope,
                                   const std::string& flag) {
  std::vector<SweepItem> out;
  if (shards.empty()) return out;
  const ShardRecord& first = shards.front();
  for (size_t k = 0; k < first.work.size(); ++k) {
    const std::string& item = first.work[k];
    const ShardRecord& owner = shards.at(static_cast<size_t>(first.assignment[k]));
    const std::string where = item + " (shard " + owner.shard.str() + ", " + owner.folder + ")";
    const std::string rerun = "; rerun shard " + owner.shard.str() +
                              " with --skip-existing (it runs only what is not complete)";
    const std::string state = run_state_dir(owner.folder, scope);
    std::optional<ItemMarker> m;
    try {
      m = read_item_marker(state, item);
    } catch (const Error& e) {
      throw UsageError(flag + ": " + where + ": " + e.what() + rerun);
    }
    if (!m) {
      const auto status = owner.status.find(item);
      throw UsageError(flag + ": " + where + " is not complete: no " +
                       item_marker_path(state, item) + " (its shard's status: " +
                       (status == owner.status.end() ? "none" : status->second) + ")" + rerun);
    }
    if (const std::string f = run_key_differing_field(owner.run, m->run); !f.empty()) {
      throw UsageError(flag + ": " + item_marker_path(state, item) + " is of another run: " + f +
                       " " + run_key_value(m->run, f) + ", its shard's " +
                       run_key_value(owner.run, f) + rerun);
    }
    const std::string folder = (fs::path(owner.folder) / scope).string();
    if (const std::string missing = missing_files(*m, folder); !missing.empty())
      throw UsageError(flag + ": " + where + ": " + missing + rerun);
    out.push_back({std::move(*m), folder, &owner});
  }
  return out;
}

}  // namespace dgs
