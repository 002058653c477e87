#include "reproductions/ios/experiments/runs.h"

#include <algorithm>
#include <memory>
#include <tuple>

#include "cli/paper_values.h"
#include "cli/run_cache.h"
#include "common/util/parallel_for.h"
#include "models/randwire.h"
#include "models/zoo.h"

namespace dgs::ios {

namespace {

struct LoadedNetwork {
  Graph graph;
  Network net;
};

// Networks by (model, batch, seed) and searches by SearchKey, for the whole run.
RunCache<std::tuple<std::string, int64_t, uint64_t>, std::unique_ptr<LoadedNetwork>> net_cache;

using SearchKey = std::tuple<std::string, int64_t, uint64_t, std::string, std::string, int, int>;
RunCache<SearchKey, SearchResult> search_cache;

StrategySet strategies_of(const std::string& name) {
  if (name == "IOS-Merge") return StrategySet::Merge;
  if (name == "IOS-Parallel") return StrategySet::Parallel;
  if (name == "IOS-Both") return StrategySet::Both;
  throw Error("unknown IOS schedule '" + name +
              "'; expected Sequential, Greedy, IOS-Merge, IOS-Parallel or IOS-Both");
}

}  // namespace

std::vector<std::string> evaluation_models(const ExperimentContext& ctx) {
  if (!ctx.options().model.empty()) return {ctx.options().model};
  return {"inception_v3", "randwire", "nasnet_large", "squeezenet"};
}

std::string display_name(const std::string& model) {
  return model_display_name(model);
}

const Network& network(const ExperimentContext& ctx, const std::string& model, int64_t batch) {
  const uint64_t seed = model == "randwire_ws" ? ctx.options().seed : 0;
  const auto load = [&] {
    auto loaded = std::make_unique<LoadedNetwork>();
    ZooOptions opts;
    opts.batch = batch;
    opts.dim_values = ctx.options().dims;
    loaded->graph =
        model == "randwire_ws" ? build_randwire_ws(opts, seed) : load_model_at_batch(model, opts);
    loaded->net = make_network(loaded->graph, default_part_rule(model));
    return loaded;
  };
  return net_cache.get(std::make_tuple(model, batch, seed), load)->net;
}

namespace {
// A search on `cost` (start_search: the same result and statistics as on a fresh cost model).
SearchResult search_on(GpuModelStageCost& cost, const Network& net, StrategySet strategies,
                       const Pruning& prune) {
  cost.start_search();
  SearchResult r;
  r.schedule = ios_schedule(net, strategies, prune, cost, &r.stats);
  r.simulations = cost.simulations();
  return r;
}
}  // namespace

SearchResult fresh_search(const Network& net, const GpuSpec& spec, StrategySet strategies,
                          const Pruning& prune) {
  GpuModelStageCost cost(spec);
  return search_on(cost, net, strategies, prune);
}

namespace {
SearchKey search_key(const ExperimentContext& ctx, const std::string& model, int64_t batch,
                     const GpuSpec& spec, const std::string& schedule_name, const Pruning& prune) {
  const uint64_t seed = model == "randwire_ws" ? ctx.options().seed : 0;
  return SearchKey{model,
                   batch,
                   seed,
                   spec.name + "@" + spec.file,
                   schedule_name,
                   prune.max_group_size,
                   prune.max_num_groups};
}
}  // namespace

int prefetch_searches(const ExperimentContext& ctx, const std::vector<std::string>& models,
                      int64_t batch, const GpuSpec& spec,
                      const std::vector<std::string>& schedule_names, const Pruning& prune) {
  // One job per network: its searches one after another on one cost model, so that a stage
  // two of them ask for is simulated once (search_on: each still a fresh search's result).
  struct Job {
    std::string model;
    std::vector<std::pair<SearchKey, std::string>> searches;  // key, schedule name
  };
  std::vector<Job> jobs;
  int searches = 0;
  for (const std::string& m : models) {
    Job job{m, {}};
    for (const std::string& name : schedule_names) {
      if (name == "Sequential" || name == "Greedy") continue;  // no search
      SearchKey key = search_key(ctx, m, batch, spec, name, prune);
      if (search_cache.contains(key)) continue;
      const bool queued =
          std::any_of(jobs.begin(), jobs.end(),
                      [&](const Job& j) {
                        return std::any_of(j.searches.begin(), j.searches.end(),
                                           [&](const auto& s) { return s.first == key; });
                      }) ||
          std::any_of(job.searches.begin(), job.searches.end(),
                      [&](const auto& s) { return s.first == key; });
      if (queued) continue;
      job.searches.emplace_back(std::move(key), name);
    }
    if (job.searches.empty()) continue;
    network(ctx, m, batch);  // built here, before the workers
    searches += static_cast<int>(job.searches.size());
    jobs.push_back(std::move(job));
  }
  parallel_for(static_cast<int64_t>(jobs.size()), available_cpus(), [&](int64_t i) {
    const Job& j = jobs[static_cast<size_t>(i)];
    const Network& net = network(ctx, j.model, batch);
    GpuModelStageCost cost(spec);
    // (The strategies as a local: clang does not capture a structured binding in a lambda.)
    for (const auto& search : j.searches) {
      const StrategySet strategies = strategies_of(search.second);
      search_cache.get(search.first, [&] { return search_on(cost, net, strategies, prune); });
    }
    ctx.progress(j.model + ": " + std::to_string(j.searches.size()) +
                 (j.searches.size() == 1 ? " search" : " searches"));
  });
  return searches;
}

const SearchResult& schedule_for(const ExperimentContext& ctx, const std::string& model,
                                 int64_t batch, const GpuSpec& spec,
                                 const std::string& schedule_name, const Pruning& prune) {
  return search_cache.get(search_key(ctx, model, batch, spec, schedule_name, prune), [&] {
    const Network& net = network(ctx, model, batch);
    SearchResult r;
    if (schedule_name == "Sequential") {
      r.schedule = sequential_schedule(net);
    } else if (schedule_name == "Greedy") {
      r.schedule = greedy_schedule(net);
    } else {
      r = fresh_search(net, spec, strategies_of(schedule_name), prune);
    }
    return r;
  });
}

double latency_ms(const ExperimentContext& ctx, const std::string& model, int64_t batch,
                  const HardwareSpec& hw, const IosSchedule& s) {
  return evaluate_schedule(network(ctx, model, batch), s, hw).latency_us / 1e3;
}

Cell cell(std::optional<double> v) {
  if (!v) return Missing{};
  return *v;
}

std::optional<double> ratio(std::optional<double> ours, std::optional<double> p) {
  if (!ours || !p || *p == 0) return std::nullopt;
  return *ours / *p;
}

double claim_value(const ExperimentContext& ctx, const std::string& claim) {
  return paper_number(ctx.paper_data("claims.csv"), {{"claim", claim}}, "value");
}

std::string claim_source(const ExperimentContext& ctx, const std::string& claim) {
  return ctx.paper_data("claims.csv").source({{"claim", claim}});
}

Claim make_claim(const ExperimentContext& ctx, const std::string& id, const std::string& text,
                 double ours, ClaimKind kind) {
  const PaperData d = ctx.paper_data("claims.csv");
  Claim c;
  c.text = text;
  c.source = d.source({{"claim", id}});
  c.paper = paper_number(d, {{"claim", id}}, "value");
  c.ours = ours;
  c.kind = kind;
  c.unit = d.text({{"claim", id}}, "unit").value_or("");
  return c;
}

const GpuSpec& gpu_and_notes(ExperimentContext& ctx, const std::string& note) {
  const GpuSpec& spec = ctx.gpu();
  common_notes(ctx, spec);
  ctx.note(note);
  return spec;
}

void common_notes(ExperimentContext& ctx, const GpuSpec& spec) {
  ctx.note("model mode: stage latencies from the suite's GPU performance model (" + spec.name +
           ", " + spec.file + "), not measured; the thesis measured every stage on the GPU");
  ctx.note(
      "schedule units: Conv+Relu / Relu-SepConv / Relu-Conv / terms (Adds "
      "+ Concat) / other ops "
      "(reproductions/ios/network.h); Conv+bias+Relu is one kernel, as "
      "the authors' engine fuses it");
  ctx.note(
      "DP endings: head closures with disjoint groups (the authors' "
      "implementation), pruning "
      "r=3 ops per group, s=8 groups per stage unless stated; blocks "
      "split into parts of at "
      "most 50 units");
  ctx.note(
      "a multi-group stage's latency includes one stage synchronisation "
      "(stage_sync_us), as the authors' profiler synchronises after each run of such a stage; "
      "the end-to-end evaluation (the GPU model's evaluate_plan) charges the same rule "
      "(stage_ends_with_sync), so the DP's objective is the evaluated latency");
}

int unit_by_name(const Network& net, const std::string& name) {
  for (size_t i = 0; i < net.units.size(); ++i)
    if (net.units[i].name == name) return static_cast<int>(i);
  throw Error("IOS: no schedule unit named '" + name + "' in graph '" + net.graph->name + "'");
}

const char* const kDpContainsSchedules =
    "the DP minimises the same GPU model over a space that contains Sequential, IOS-Merge and "
    "IOS-Parallel (and Greedy's stages where they fit the pruning)";

}  // namespace dgs::ios
