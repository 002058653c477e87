// One network's LS and AD run as the Atomic items make it (compute_ls_ad_run of
// reproductions/atomic/experiments/ls_ad_runs.h: LS, and AD's iterative search with its kept
// plan), with and without Table II's NoC overhead (one more pricing of the kept AD plan, on a
// mesh of infinitely wide links), which only Table II (KC-P, batch 20) asks for: the batch-1 runs
// of Figs. 8 and 10 and the sweeps, and Fig. 9's YX-P runs, go without it.
#include <benchmark/benchmark.h>

#include <string>

#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/experiments/ls_ad_runs.h"

namespace {

using namespace dgs;
using namespace dgs::atomic;

void BM_LsAdRun(benchmark::State& state, const std::string& net, bool noc_overhead) {
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  for (auto _ : state) {
    const LsAdRun run = compute_ls_ad_run(net, 1, spec, 1, noc_overhead);
    benchmark::DoNotOptimize(run.ad.result.latency_us);
  }
}
// Process CPU time: LS and AD run side by side, and AD's candidates one per CPU.
BENCHMARK_CAPTURE(BM_LsAdRun, resnet50, std::string("resnet50"), false)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LsAdRun, resnet50_with_noc_overhead, std::string("resnet50"), true)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
