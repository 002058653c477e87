// Speed of the DSA model (common/dsamodel): one evaluation of
//   - ResNet-50 at batch 64 on STCP920 (the layer-split test plan, 32 parts per op; target < 50
//   ms),
//   - a plan of at least 50,000 tasks on the 8 x 8 mesh (ResNet-50 at batch 8, 320 parts per
//     op; target < 500 ms).
//   bench_dsamodel --benchmark_counters_tabular=true
// The plans come from dgs::layer_split_test_plan (a test plan, not any paper's scheduler); they
// are built once, outside the timed loop.
#include <benchmark/benchmark.h>

#include <string>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/layer_split_plan.h"
#include "common/hw/dsa_spec.h"
#include "models/zoo.h"

namespace {

struct Case {
  dgs::Graph graph;
  dgs::DsaSpec spec;
  dgs::Plan plan;
};

Case make_case(const char* hw, int64_t batch, int64_t parts) {
  Case c;
  dgs::ZooOptions zo;
  zo.batch = batch;
  c.graph = dgs::build_zoo_model("resnet50", zo);
  c.spec = dgs::load_dsa_spec(hw);
  c.plan = dgs::layer_split_test_plan(c.graph, c.spec, parts);
  return c;
}

void run(benchmark::State& state, const Case& c) {
  double latency = 0;
  for (auto _ : state) {
    const dgs::EvaluationResult r = dgs::evaluate_dsa_plan(c.graph, c.plan, c.spec);
    // The const overload: the non-const one's "+m,r" constraint miscompiles with GCC in Google
    // Benchmark 1.7 (the value read back is an uninitialised stack slot).
    benchmark::DoNotOptimize(r);
    latency = r.latency_us;
  }
  state.counters["tasks"] = static_cast<double>(c.plan.num_tasks());
  state.SetLabel("model latency " + std::to_string(latency / 1000) + " ms");
  state.counters["tasks_per_s"] = benchmark::Counter(
      static_cast<double>(c.plan.num_tasks()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_ResNet50Batch64OnStcp920(benchmark::State& state) {
  static const Case c = make_case("stcp920", 64, 32);
  run(state, c);
}
BENCHMARK(BM_ResNet50Batch64OnStcp920)->Unit(benchmark::kMillisecond);

void BM_FiftyThousandTasksOnMesh8x8(benchmark::State& state) {
  static const Case c = make_case("atomic_mesh", 8, 320);
  if (c.plan.num_tasks() < 50000) {
    state.SkipWithError("the plan has fewer than 50,000 tasks");
    return;
  }
  run(state, c);
}
BENCHMARK(BM_FiftyThousandTasksOnMesh8x8)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
