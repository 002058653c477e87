#include "reproductions/ios/experiment_util.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "common/util/parallel_for.h"
#include "models/randwire.h"
#include "models/zoo.h"

namespace dgs::ios {

namespace {

struct LoadedNetwork {
  Graph graph;
  Network net;
};

std::map<std::tuple<std::string, int64_t, uint64_t>, std::unique_ptr<LoadedNetwork>>& net_cache() {
  static std::map<std::tuple<std::string, int64_t, uint64_t>, std::unique_ptr<LoadedNetwork>> c;
  return c;
}

using SearchKey = std::tuple<std::string, int64_t, uint64_t, std::string, std::string, int, int>;
std::map<SearchKey, SearchResult>& search_cache() {
  static std::map<SearchKey, SearchResult> c;
  return c;
}

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
  auto key = std::make_tuple(model, batch, seed);
  auto& cache = net_cache();
  auto it = cache.find(key);
  if (it != cache.end()) return it->second->net;
  auto loaded = std::make_unique<LoadedNetwork>();
  ZooOptions opts;
  opts.batch = batch;
  opts.dim_values = ctx.options().dims;
  loaded->graph =
      model == "randwire_ws" ? build_randwire_ws(opts, seed) : load_model_at_batch(model, opts);
  loaded->net = make_network(loaded->graph, default_part_rule(model));
  const Network& n = loaded->net;
  cache.emplace(key, std::move(loaded));
  return n;
}

SearchResult fresh_search(const Network& net, const GpuSpec& spec, StrategySet strategies,
                          const Pruning& prune) {
  GpuModelStageCost cost(spec);
  SearchResult r;
  r.schedule = ios_schedule(net, strategies, prune, cost, &r.stats);
  r.simulations = cost.simulations();
  return r;
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
  struct Job {
    SearchKey key;
    const Network* net;
    StrategySet strategies;
    SearchResult result;
  };
  std::vector<Job> jobs;
  auto& cache = search_cache();
  for (const std::string& m : models)
    for (const std::string& name : schedule_names) {
      if (name == "Sequential" || name == "Greedy") continue;  // no search
      SearchKey key = search_key(ctx, m, batch, spec, name, prune);
      if (cache.count(key)) continue;
      const bool queued =
          std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.key == key; });
      if (queued) continue;
      // Networks are built here, on this thread (their cache is not shared by the workers).
      jobs.push_back(Job{std::move(key), &network(ctx, m, batch), strategies_of(name), {}});
    }
  parallel_for(static_cast<int64_t>(jobs.size()), available_cpus(), [&](int64_t i) {
    Job& j = jobs[static_cast<size_t>(i)];
    j.result = fresh_search(*j.net, spec, j.strategies, prune);
  });
  for (Job& j : jobs) cache.emplace(std::move(j.key), std::move(j.result));
  return static_cast<int>(jobs.size());
}

const SearchResult& schedule_for(const ExperimentContext& ctx, const std::string& model,
                                 int64_t batch, const GpuSpec& spec,
                                 const std::string& schedule_name, const Pruning& prune) {
  SearchKey key = search_key(ctx, model, batch, spec, schedule_name, prune);
  auto& cache = search_cache();
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const Network& net = network(ctx, model, batch);
  SearchResult r;
  if (schedule_name == "Sequential") {
    r.schedule = sequential_schedule(net);
  } else if (schedule_name == "Greedy") {
    r.schedule = greedy_schedule(net);
  } else {
    r = fresh_search(net, spec, strategies_of(schedule_name), prune);
  }
  return cache.emplace(key, std::move(r)).first->second;
}

double latency_ms(const ExperimentContext& ctx, const std::string& model, int64_t batch,
                  const GpuSpec& spec, const IosSchedule& s) {
  return evaluate_schedule(network(ctx, model, batch), s, spec).latency_us / 1e3;
}

Cell cell(std::optional<double> v) {
  if (!v) return Missing{};
  return *v;
}

std::optional<double> ratio(std::optional<double> ours, std::optional<double> p) {
  if (!ours || !p || *p == 0) return std::nullopt;
  return *ours / *p;
}

double claim_value(const std::string& claim) {
  static const PaperData d = PaperData::load("ios", "claims.csv");
  auto v = d.value({{"claim", claim}}, "value");
  if (!v) throw Error("data/ios/claims.csv has no value for claim '" + claim + "'");
  return *v;
}

std::string claim_source(const std::string& claim) {
  static const PaperData d = PaperData::load("ios", "claims.csv");
  return d.source({{"claim", claim}});
}

Claim make_claim(const std::string& id, const std::string& text, double ours, ClaimKind kind) {
  Claim c;
  c.text = text;
  c.source = claim_source(id);
  c.paper = claim_value(id);
  c.ours = ours;
  c.kind = kind;
  static const PaperData d = PaperData::load("ios", "claims.csv");
  c.unit = d.text({{"claim", id}}, "unit").value_or("");
  return c;
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

}  // namespace dgs::ios
