// The Atomic Dataflow search on ResNet-50 at batch 1 on the 8 x 8 mesh (target: under 1 s; the
// paper: 66.5 s on a Xeon E5-2620 v3): shape options, SA atom generation (Algorithm 1, 1000
// iterations), the atomic DAG, and Rounds with snake mapping and buffering (the greedy
// priority-rule fill), each step alone and all together; the DSA model's evaluation of the SA's
// plan (the simulator on one network); then the iterative search (Fig. 4b) that
// repeats the DAG, Rounds and the DSA model's evaluation per candidate atom set (and the atoms'
// tilings from the cache that the buffering and the plan read); Plan::check of
// the SA's plan and the plan through evaluate() (check + model), what evaluate() would add per
// candidate.
#include <benchmark/benchmark.h>

#include <set>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/task_estimate.h"
#include "common/evaluate/evaluate.h"
#include "common/evaluate/plan_target.h"
#include "common/hw/dsa_spec.h"
#include "common/hw/hardware_spec.h"
#include "models/zoo.h"
#include "reproductions/atomic/atom_search.h"
#include "reproductions/atomic/atom_task.h"
#include "reproductions/atomic/iterative_search.h"
#include "reproductions/atomic/schedule.h"

namespace {

using namespace dgs;
using namespace dgs::atomic;

const Graph& resnet50() {
  static const Graph g = build_zoo_model("resnet50", {.batch = 1});
  return g;
}
const DsaSpec& mesh() {
  static const DsaSpec s = load_dsa_spec("atomic_mesh");
  return s;
}

void BM_ShapeOptions(benchmark::State& state) {
  const std::vector<Layer> layers = graph_layers(resnet50());
  for (auto _ : state) benchmark::DoNotOptimize(shape_options(resnet50(), layers, mesh()));
}
BENCHMARK(BM_ShapeOptions)->Unit(benchmark::kMillisecond);

void BM_Anneal(benchmark::State& state) {
  const auto options = shape_options(resnet50(), graph_layers(resnet50()), mesh());
  for (auto _ : state) benchmark::DoNotOptimize(anneal_atom_shapes(options, {}, 1));
}
BENCHMARK(BM_Anneal)->Unit(benchmark::kMillisecond);

void BM_WholeSearch(benchmark::State& state) {
  for (auto _ : state) {
    const AtomicDag dag = sa_atomic_dag(resnet50(), mesh(), 1);
    const AtomSchedule s = schedule_atoms(resnet50(), dag, mesh(), {});
    state.counters["atoms"] = static_cast<double>(dag.atoms.size());
    state.counters["rounds"] = static_cast<double>(s.rounds.size());
  }
}
BENCHMARK(BM_WholeSearch)->Unit(benchmark::kMillisecond);

// Rounds, snake mapping with the Eq. 2 search over layer orders, and buffering of the SA's atoms.
void BM_ScheduleAtoms(benchmark::State& state) {
  const AtomicDag dag = sa_atomic_dag(resnet50(), mesh(), 1);
  for (auto _ : state) {
    const AtomSchedule s = schedule_atoms(resnet50(), dag, mesh(), {});
    benchmark::DoNotOptimize(s.transfer_byte_hops);
  }
}
BENCHMARK(BM_ScheduleAtoms)->Unit(benchmark::kMillisecond);

// The tiling of every atom of the SA's DAG from the process-wide cache (atom_task.h), as the
// buffering and atom_plan ask for it per schedule and per plan: one AtomTilings (its config key
// and each op's contents key made once), every lookup a hit after the first iteration.
void BM_AtomTilingLookups(benchmark::State& state) {
  const AtomicDag dag = sa_atomic_dag(resnet50(), mesh(), 1);
  for (auto _ : state) {
    AtomTilings tilings;
    int64_t bytes = 0;
    for (size_t a = 0; a < dag.atoms.size(); ++a)
      bytes += tilings.of(resnet50(), dag, static_cast<int>(a), mesh()).working_bytes;
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["atoms"] = static_cast<double>(dag.atoms.size());
}
BENCHMARK(BM_AtomTilingLookups)->Unit(benchmark::kMillisecond);

// The first tilings of a batch-20 ResNet-50 atom set (Table II's size): the tile search
// (dsa_task_tile) that AtomTilings::of runs on a cache miss, once per distinct atom (its layer,
// region shape, which edges of the output it touches and its reduction slice), without the
// cache, so every iteration searches again (the array level's per-thread memo stays warm).
void BM_FirstTilingsOfResNet50Batch20Atoms(benchmark::State& state) {
  static const Graph g = build_zoo_model("resnet50", {.batch = 20});
  static const AtomicDag dag = sa_atomic_dag(g, mesh(), 1);
  std::vector<Task> tasks;
  std::set<std::vector<int64_t>> seen;
  for (size_t a = 0; a < dag.atoms.size(); ++a) {
    const Atom& atom = dag.atoms[a];
    const Layer& l = dag.layers[static_cast<size_t>(atom.layer)];
    if (!l.splittable) continue;
    std::vector<int64_t> key = {atom.layer, atom.c_in.size()};
    for (size_t ax = 0; ax < atom.region.size(); ++ax) {
      key.push_back(atom.region[ax].size());
      key.push_back((atom.region[ax].lo == 0 ? 1 : 0) +
                    (atom.region[ax].hi == l.shape[ax] ? 2 : 0));
    }
    if (seen.insert(key).second)
      tasks.push_back(atom_base_task(dag, static_cast<int>(a), mesh(), 0));
  }
  for (auto _ : state)
    for (const Task& t : tasks)
      benchmark::DoNotOptimize(dsa_task_tile(g, t, mesh(), mesh().local_bytes / 2));
  state.counters["atoms"] = static_cast<double>(dag.atoms.size());
  state.counters["searches"] = static_cast<double>(tasks.size());
}
BENCHMARK(BM_FirstTilingsOfResNet50Batch20Atoms)->Unit(benchmark::kMillisecond);

void BM_EvaluateSaPlan(benchmark::State& state) {
  const AtomicDag dag = sa_atomic_dag(resnet50(), mesh(), 1);
  const Plan plan =
      atom_plan(resnet50(), dag, schedule_atoms(resnet50(), dag, mesh(), {}), mesh(), "AD");
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_dsa_plan(resnet50(), plan, mesh()));
}
BENCHMARK(BM_EvaluateSaPlan)->Unit(benchmark::kMillisecond);

// What evaluate() adds to the DSA model for one search candidate: Plan::check of the SA's plan
// against the mesh (the search prices its candidates with evaluate_dsa_plan alone), and the two
// together through evaluate() (one memo of iteration spaces for both).
void BM_CheckSaPlan(benchmark::State& state) {
  const AtomicDag dag = sa_atomic_dag(resnet50(), mesh(), 1);
  const Plan plan =
      atom_plan(resnet50(), dag, schedule_atoms(resnet50(), dag, mesh(), {}), mesh(), "AD");
  const PlanTarget target = plan_target(dsa_hardware_spec(mesh()));
  for (auto _ : state) plan.check(resnet50(), &target);
  state.counters["tasks"] = static_cast<double>(plan.num_tasks());
}
BENCHMARK(BM_CheckSaPlan)->Unit(benchmark::kMillisecond);

// Plan::check of a batch-20 ResNet-50 SA atom plan against the mesh (Table II's size: what
// evaluate() checks for every candidate of repro_atomic --table 2); items = tasks checked.
void BM_CheckResNet50Batch20SaPlan(benchmark::State& state) {
  static const Graph g = build_zoo_model("resnet50", {.batch = 20});
  static const AtomicDag dag = sa_atomic_dag(g, mesh(), 1);
  static const Plan plan = atom_plan(g, dag, schedule_atoms(g, dag, mesh(), {}), mesh(), "AD");
  const PlanTarget target = plan_target(dsa_hardware_spec(mesh()));
  for (auto _ : state) plan.check(g, &target);
  state.counters["tasks"] = static_cast<double>(plan.num_tasks());
  state.SetItemsProcessed(state.iterations() * plan.num_tasks());
}
BENCHMARK(BM_CheckResNet50Batch20SaPlan)->Unit(benchmark::kMillisecond);

void BM_EvaluateSaPlanChecked(benchmark::State& state) {
  const AtomicDag dag = sa_atomic_dag(resnet50(), mesh(), 1);
  const Plan plan =
      atom_plan(resnet50(), dag, schedule_atoms(resnet50(), dag, mesh(), {}), mesh(), "AD");
  const HardwareSpec hw = dsa_hardware_spec(mesh());
  for (auto _ : state) benchmark::DoNotOptimize(evaluate(resnet50(), plan, hw));
}
BENCHMARK(BM_EvaluateSaPlanChecked)->Unit(benchmark::kMillisecond);

void BM_IterativeSearch(benchmark::State& state) {
  for (auto _ : state) {
    const IterativeSearch s = iterative_atomic_search(resnet50(), mesh(), 1);
    state.counters["candidates"] = static_cast<double>(s.candidates.size());
  }
}
BENCHMARK(BM_IterativeSearch)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
