// Search time of the IOS dynamic program (thesis §4.6.1; target: NasNet r=3,s=8
// with the GPU model under 1 s on one core, Inception V3 under 50 ms) and the
// GPU model's simulation rate.
//   bench_ios_search --benchmark_out=ios_search.json
//   --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include "common/gpumodel/gpu_model.h"
#include "common/hw/hardware.h"
#include "models/zoo.h"
#include "reproductions/ios/scheduler.h"

namespace {

using namespace dgs;
using namespace dgs::ios;

struct Loaded {
  Graph graph;
  Network net;
  explicit Loaded(const std::string& m) : graph(build_zoo_model(m)) {
    net = make_network(graph, default_part_rule(m));
  }
};

const Loaded& loaded(const std::string& m) {
  static std::map<std::string, std::unique_ptr<Loaded>> cache;
  auto& p = cache[m];
  if (!p) p = std::make_unique<Loaded>(m);
  return *p;
}

// Full search with a fresh GPU-model cost (no stage cached between iterations; the block
// simulator's per-thread rate memo, block_simulation.h, stays warm after the first iteration, so
// the single-iteration NasNet rows are the cold search).
void BM_IosSearchGpuModelOn(benchmark::State& state, const std::string& model, int r, int s,
                            const std::string& gpu) {
  const Loaded& l = loaded(model);
  const GpuSpec spec = load_gpu_spec(gpu);
  SearchStats stats;
  int64_t sims = 0, kernels = 0;
  for (auto _ : state) {
    GpuModelStageCost cost(spec);
    benchmark::DoNotOptimize(ios_schedule(l.net, StrategySet::Both, Pruning{r, s}, cost, &stats));
    sims = cost.simulations();
    kernels += cost.simulated_kernels();
  }
  state.counters["transitions"] = static_cast<double>(stats.transitions);
  state.counters["stages_costed"] = static_cast<double>(stats.stages_costed);
  // Stages the GPU model simulated (the others were memoised or ruled out by lower bounds).
  state.counters["simulations"] = static_cast<double>(sims);
  // The GPU model's simulation rate within the search: kernels simulated per second of the
  // search (the DP's own work included).
  state.counters["sim_kernels_per_s"] =
      benchmark::Counter(static_cast<double>(kernels), benchmark::Counter::kIsRate);
}

void BM_IosSearchGpuModel(benchmark::State& state, const std::string& model, int r, int s) {
  BM_IosSearchGpuModelOn(state, model, r, s, "v100");
}

// IOS-Merge, IOS-Parallel and IOS-Both of one network, as repro_ios runs them (Figs. 4.1 and
// 4.4): on fresh cost models (shared = false) or one after another on one cost model
// (GpuModelStageCost::start_search; the same schedules and statistics, each stage simulated once).
void BM_IosThreeSearches(benchmark::State& state, const std::string& model, const std::string& gpu,
                         bool shared) {
  const Loaded& l = loaded(model);
  const GpuSpec spec = load_gpu_spec(gpu);
  int64_t sims = 0;
  for (auto _ : state) {
    GpuModelStageCost one(spec);
    sims = 0;
    for (StrategySet ss : {StrategySet::Merge, StrategySet::Parallel, StrategySet::Both}) {
      GpuModelStageCost fresh(spec);
      GpuModelStageCost& cost = shared ? one : fresh;
      cost.start_search();
      benchmark::DoNotOptimize(ios_schedule(l.net, ss, Pruning{3, 8}, cost));
      sims += cost.simulations();
    }
  }
  state.counters["simulations"] = static_cast<double>(sims);  // summed: equal in both
}

// The DP alone, with a constant-time dummy cost (the authors' "dummy cost
// model" comparison).
class DummyCost : public StageCostModel {
 public:
  double stage_latency_us(const Network&, const IosStage& s) override {
    return 1.0 + s.num_units() + 2.0 * static_cast<double>(s.groups.size());
  }
  std::string describe() const override { return "dummy"; }
};

void BM_IosSearchDummyCost(benchmark::State& state, const std::string& model) {
  const Loaded& l = loaded(model);
  SearchStats stats;
  for (auto _ : state) {
    DummyCost cost;
    benchmark::DoNotOptimize(ios_schedule(l.net, StrategySet::Both, Pruning{3, 8}, cost, &stats));
  }
  state.counters["transitions"] = static_cast<double>(stats.transitions);
}

// GPU model simulation rate: a stage of the concurrent branches of NasNet's
// first cell.
void BM_GpuModelSimulateStage(benchmark::State& state) {
  const Loaded& l = loaded("nasnet_large");
  const GpuSpec spec = load_gpu_spec("v100");
  KernelOptions o;
  o.fold_activation = true;
  std::vector<std::vector<KernelLaunch>> streams;
  const Part& p = l.net.parts[3];
  for (int u : p.units) {
    std::vector<KernelLaunch> ks;
    for (int op : l.net.units[static_cast<size_t>(u)].ops)
      for (auto& k : kernels_for_op(l.graph, op, spec, o)) ks.push_back(k);
    if (!ks.empty() && streams.size() < static_cast<size_t>(state.range(0))) streams.push_back(ks);
  }
  int64_t kernels = 0;
  for (const auto& s : streams) kernels += static_cast<int64_t>(s.size());
  for (auto _ : state) benchmark::DoNotOptimize(simulate_stage(spec, streams));
  state.SetItemsProcessed(state.iterations() * kernels);  // kernels simulated per second
  state.counters["kernels_per_stage"] = static_cast<double>(kernels);
  // The GPU model's simulation rate, kernels simulated per second (= items_per_second).
  state.counters["kernels_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kernels), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_IosSearchGpuModel, inception_v3_r3_s8, std::string("inception_v3"), 3, 8)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_IosSearchGpuModel, squeezenet_r3_s8, std::string("squeezenet"), 3, 8)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_IosSearchGpuModel, nasnet_r3_s8, std::string("nasnet_large"), 3, 8)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_IosSearchGpuModel, nasnet_r1_s8, std::string("nasnet_large"), 1, 8)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
// The costliest searches of repro_ios --all: RandWire's IOS-Both (Figs. 4.1 and 4.4).
BENCHMARK_CAPTURE(BM_IosSearchGpuModelOn, randwire_r3_s8_v100, std::string("randwire"), 3, 8,
                  std::string("v100"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_IosSearchGpuModelOn, randwire_r3_s8_rtx2080ti, std::string("randwire"), 3, 8,
                  std::string("rtx2080ti"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_IosThreeSearches, randwire_rtx2080ti_fresh, std::string("randwire"),
                  std::string("rtx2080ti"), false)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_IosThreeSearches, randwire_rtx2080ti_shared, std::string("randwire"),
                  std::string("rtx2080ti"), true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_IosSearchDummyCost, nasnet, std::string("nasnet_large"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_IosSearchDummyCost, inception_v3, std::string("inception_v3"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuModelSimulateStage)->Arg(1)->Arg(4)->Arg(8)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
