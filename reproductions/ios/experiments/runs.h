#pragma once
// Helpers shared by the IOS experiments: networks and searches cached for the whole run (so that
// `--all` searches each (network, batch, GPU, strategy, pruning) once), paper values and claims.
// An experiment's GPU is ExperimentContext::gpu() (--hw or the experiment's default_hardware).
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/hw/hardware.h"
#include "common/report/report.h"
#include "reproductions/ios/scheduler.h"

namespace dgs::ios {

// The four networks of the thesis' evaluation, or the one given with --model.
std::vector<std::string> evaluation_models(const ExperimentContext& ctx);
// The zoo name (or file) used for the thesis' network `model`, honouring
// --model.
std::string display_name(const std::string& model);

// A network at a batch size, built once per run. RandWire's generated variant
// ("randwire_ws") takes --seed.
const Network& network(const ExperimentContext& ctx, const std::string& model, int64_t batch);

struct SearchResult {
  IosSchedule schedule;
  SearchStats stats;
  int64_t simulations = 0;  // GPU-model stage simulations run (after kernel-identical dedupe)
};

// Sequential / Greedy / IOS-Merge / IOS-Parallel / IOS-Both under the GPU model
// of `spec`, cached for the run. `schedule_name` is one of kScheduleNames.
inline const std::vector<std::string> kScheduleNames = {"Sequential", "Greedy", "IOS-Merge",
                                                        "IOS-Parallel", "IOS-Both"};
const SearchResult& schedule_for(const ExperimentContext& ctx, const std::string& model,
                                 int64_t batch, const GpuSpec& spec,
                                 const std::string& schedule_name, const Pruning& prune = {});
// Runs the searches that schedule_for would run for every network of `models` and schedule of
// `schedule_names` and has not cached yet, one network per CPU at a time (its searches one after
// another on one cost model, GpuModelStageCost::start_search, so that a stage simulated for one
// of them is not simulated again for the next; each into its own slot, cached in order): the
// same results and statistics as running them one by one on fresh cost models. Each search's
// seconds are its own wall time (beside another network's searches), with the stages of the
// network's earlier searches at hand. A progress line as each network's searches end. Returns
// the searches run.
int prefetch_searches(const ExperimentContext& ctx, const std::vector<std::string>& models,
                      int64_t batch, const GpuSpec& spec,
                      const std::vector<std::string>& schedule_names, const Pruning& prune = {});
// The same search with a fresh cost model and no cache (for search-time
// measurements).
SearchResult fresh_search(const Network& net, const GpuSpec& spec, StrategySet strategies,
                          const Pruning& prune);

// The latency of `s` on `hw` (a GPU), priced by evaluate() (evaluate_schedule).
double latency_ms(const ExperimentContext& ctx, const std::string& model, int64_t batch,
                  const HardwareSpec& hw, const IosSchedule& s);

// Paper values (the tables' own data: ExperimentContext::paper_data).
Cell cell(std::optional<double> v);
std::optional<double> ratio(std::optional<double> ours, std::optional<double> paper);
double claim_value(const ExperimentContext& ctx, const std::string& claim);  // data/ios/claims.csv
std::string claim_source(const ExperimentContext& ctx, const std::string& claim);
// A claim whose paper value comes from data/ios/claims.csv; `kind` gives its tolerance rule.
Claim make_claim(const ExperimentContext& ctx, const std::string& id, const std::string& text,
                 double ours, ClaimKind kind);

// The notes every IOS experiment repeats: cost model, units, pruning.
void common_notes(ExperimentContext& ctx, const GpuSpec& spec);
// The item's GPU (ctx.gpu()) after the common notes and then the item's own `note`.
const GpuSpec& gpu_and_notes(ExperimentContext& ctx, const std::string& note);

// A value the thesis does not print (a table cell without a paper value, a chart gap).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The schedule unit of `net` named `name`; throws dgs::Error naming it when there is none.
int unit_by_name(const Network& net, const std::string& name);

// Why a claim that IOS-Both is at least as fast as Sequential, IOS-Merge or IOS-Parallel cannot
// deviate (informational).
extern const char* const kDpContainsSchedules;

}  // namespace dgs::ios
