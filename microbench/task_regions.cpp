// Speed of the input regions of plan tasks (task_needed_regions, common/plan), the first thing
// the DSA model computes for every task of a plan (dsa_task_demand) and the part of an Atomic
// Dataflow search that grew with the number of atoms: the regions of every task of a plan of at
// least 50,000 tasks (ResNet-50 at batch 8 on the 8 x 8 mesh, 320 parts per op, as
// bench_dsamodel's), with each op's iteration space built once (an IterationSpaceMemo, as
// evaluate_dsa_plan holds one; arg 1) or for every task (arg 0).
//   bench_task_regions --benchmark_counters_tabular=true
// The plan comes from dgs::layer_split_test_plan (a test plan, not any paper's scheduler); it is
// built once, outside the timed loop.
#include <benchmark/benchmark.h>

#include <optional>

#include "common/graph/iteration_space.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"
#include "microbench/resnet50_dsa_plan.h"

namespace {

using Case = dgs::bench::Resnet50DsaPlan;
const Case& mesh_case() {
  return dgs::bench::fifty_thousand_task_mesh_plan();
}

void BM_TaskRegionsOfFiftyThousandTasks(benchmark::State& state) {
  const Case& c = mesh_case();
  const bool memo = state.range(0) != 0;
  int64_t regions = 0;
  for (auto _ : state) {
    std::optional<dgs::IterationSpaceMemo> spaces;
    if (memo) spaces.emplace(c.graph);
    regions = 0;
    for (const dgs::Stage& s : c.plan.stages)
      for (const dgs::Task& t : s.tasks) {
        const auto needed = dgs::task_needed_regions(c.graph, t);
        regions += static_cast<int64_t>(needed.size());
        benchmark::DoNotOptimize(needed);
      }
  }
  state.counters["tasks"] = static_cast<double>(c.plan.num_tasks());
  state.counters["regions"] = static_cast<double>(regions);
  state.counters["tasks_per_s"] = benchmark::Counter(
      static_cast<double>(c.plan.num_tasks()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.SetLabel(memo ? "iteration spaces memoised" : "iteration space per task");
}
BENCHMARK(BM_TaskRegionsOfFiftyThousandTasks)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
