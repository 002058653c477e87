// The Atomic Dataflow Rounds (the priority rules' fill, snake mapping with the Eq. 2 search) of
// ResNet-50 at batch 20 on the 8 x 8 mesh, as Table II, Fig. 9 and Fig. 11 run them: the SA's
// atoms of the batch-20 graph, with and without Algorithm 3's buffering. At batch 20 every
// sample's first layer is ready from the start, so a Round's choice among the ready atoms is
// what this measures (schedule.cpp keeps them per sample).
#include <benchmark/benchmark.h>

#include "common/hw/dsa_spec.h"
#include "models/zoo.h"
#include "reproductions/atomic/atom_search.h"
#include "reproductions/atomic/schedule.h"

namespace {

using namespace dgs;
using namespace dgs::atomic;

const Graph& resnet50_b20() {
  static const Graph g = build_zoo_model("resnet50", {.batch = 20});
  return g;
}
const DsaSpec& mesh() {
  static const DsaSpec s = load_dsa_spec("atomic_mesh");
  return s;
}
const AtomicDag& sa_dag() {
  static const AtomicDag dag = sa_atomic_dag(resnet50_b20(), mesh(), 1);
  return dag;
}

void BM_RoundsBatch20(benchmark::State& state) {
  const ScheduleOptions o{.on_chip_reuse = false};
  for (auto _ : state) {
    const AtomSchedule s = schedule_atoms(resnet50_b20(), sa_dag(), mesh(), o);
    benchmark::DoNotOptimize(s.transfer_byte_hops);
    state.counters["atoms"] = static_cast<double>(sa_dag().atoms.size());
    state.counters["rounds"] = static_cast<double>(s.rounds.size());
  }
}
BENCHMARK(BM_RoundsBatch20)->Unit(benchmark::kMillisecond);

// With the buffering, whose atoms' tilings come from the process-wide cache: filled before the
// timing (a first schedule), as for every candidate after the first that shares the atoms' shapes.
void BM_ScheduleAtomsBatch20(benchmark::State& state) {
  benchmark::DoNotOptimize(schedule_atoms(resnet50_b20(), sa_dag(), mesh(), {}).transfer_byte_hops);
  for (auto _ : state) {
    const AtomSchedule s = schedule_atoms(resnet50_b20(), sa_dag(), mesh(), {});
    benchmark::DoNotOptimize(s.transfer_byte_hops);
  }
}
BENCHMARK(BM_ScheduleAtomsBatch20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
