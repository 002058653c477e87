// The Atomic Dataflow search (the iterative search of Fig. 4b: shape options, SA, and per candidate
// atom set the atomic DAG, the priority-rule Rounds with snake mapping and buffering, and the DSA
// model's evaluation; search_ad of reproductions/atomic/experiments/ad_runs.h) per network at batch
// 1 on the 8 x 8 mesh. Targets (issue #13): ResNet-50 under 1 s, ResNet-1001 under 10 s on 2 cores
// (the paper: 66.5 s and 1044.6 s on a Xeon E5-2620 v3). bench_atomic_search times the steps of
// ResNet-50's search one by one.
#include <benchmark/benchmark.h>

#include <string>

#include "common/hw/dsa_spec.h"
#include "models/zoo.h"
#include "reproductions/atomic/experiments/ad_runs.h"

namespace {

using namespace dgs;
using namespace dgs::atomic;

void BM_AtomicSearch(benchmark::State& state, const std::string& net) {
  const Graph g = build_zoo_model(net, {.batch = 1});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  for (auto _ : state) {
    const AdSearch s = search_ad(g, spec, 1);
    state.counters["atoms"] = static_cast<double>(s.atoms);
    state.counters["rounds"] = static_cast<double>(s.rounds);
    state.counters["candidates"] = static_cast<double>(s.candidates);
  }
}
BENCHMARK_CAPTURE(BM_AtomicSearch, resnet50, std::string("resnet50"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AtomicSearch, resnet152, std::string("resnet152"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AtomicSearch, resnet1001, std::string("resnet1001"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AtomicSearch, vgg19, std::string("vgg19"))->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
