// Speed of the DSA model's per-task demands (dsa_task_demand, common/dsamodel) through one demand
// cache, as evaluate_dsa_plan asks for them: every task of a plan of at least 50,000 tasks
// (ResNet-50 at batch 8 on the 8 x 8 mesh, 320 parts per op, as bench_dsamodel's), its regions
// computed for each task and its shape's part taken from the cache after the first task of that
// shape (arg 1), or every demand computed in full (arg 0). Each op's iteration space is built once
// (an IterationSpaceMemo, as evaluate_dsa_plan holds one).
//   bench_dsa_demand --benchmark_counters_tabular=true
// The plan comes from dgs::layer_split_test_plan (a test plan, not any paper's scheduler); it is
// built once, outside the timed loop.
#include <benchmark/benchmark.h>

#include <optional>

#include "common/dsamodel/dsa_task.h"
#include "common/graph/iteration_space.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"
#include "microbench/resnet50_dsa_plan.h"

namespace {

using Case = dgs::bench::Resnet50DsaPlan;
const Case& mesh_case() {
  return dgs::bench::fifty_thousand_task_mesh_plan();
}

void BM_DemandsOfFiftyThousandTasks(benchmark::State& state) {
  const Case& c = mesh_case();
  const bool cached = state.range(0) != 0;
  double macs = 0;
  for (auto _ : state) {
    const dgs::IterationSpaceMemo spaces(c.graph);
    std::optional<dgs::DsaDemandCache> cache;
    if (cached) cache.emplace();
    macs = 0;
    for (const dgs::Stage& s : c.plan.stages)
      for (const dgs::Task& t : s.tasks) {
        const dgs::DsaTaskDemand d =
            dgs::dsa_task_demand(c.graph, t, c.spec, dgs::dsa_placement_units(t.placement, c.spec),
                                 cached ? &*cache : nullptr);
        macs += d.macs;
        benchmark::DoNotOptimize(d);
      }
  }
  state.counters["tasks"] = static_cast<double>(c.plan.num_tasks());
  state.counters["macs"] = macs;
  state.counters["tasks_per_s"] = benchmark::Counter(
      static_cast<double>(c.plan.num_tasks()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.SetLabel(cached ? "one demand cache" : "no cache");
}
BENCHMARK(BM_DemandsOfFiftyThousandTasks)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
