// Speed of Welder's scheduler with the analytic cost model (issue §5: any zoo model in under 1 s
// on one core; all of --fig 13 in under 5 s).
//   bench_welder_schedule --benchmark_out=welder_schedule.json --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "common/hw/hardware.h"
#include "models/zoo.h"
#include "reproductions/welder/scheduler.h"

namespace {

using namespace dgs;
using namespace dgs::welder;

const TileGraph& tile_graph(const std::string& model, int64_t batch) {
  static std::map<std::pair<std::string, int64_t>, std::unique_ptr<TileGraph>> cache;
  auto& p = cache[{model, batch}];
  if (!p) {
    ZooOptions zo;
    zo.batch = batch;
    p = std::make_unique<TileGraph>(build_tile_graph(build_zoo_model(model, zo)));
  }
  return *p;
}

// One full schedule (graph connecting + tiling, nothing cached between iterations).
void BM_WelderSchedule(benchmark::State& state, const std::string& model, int64_t batch,
                       Variant v) {
  const TileGraph& tg = tile_graph(model, batch);
  const WelderArch arch = arch_from_gpu(load_gpu_spec("v100_pcie"), false);
  ScheduleOptions o;
  o.variant = v;
  int64_t candidates = 0;
  for (auto _ : state) {
    const Schedule s = schedule_graph(tg, arch, o);
    candidates = s.candidates_costed;
    benchmark::DoNotOptimize(s.metrics.latency_ms);
  }
  state.counters["ops"] = static_cast<double>(tg.ops.size());
  state.counters["candidates"] = static_cast<double>(candidates);
}

// All of Fig. 13: three models at batch 64, four variants, including building the graphs.
void BM_WelderFig13(benchmark::State& state) {
  const WelderArch arch = arch_from_gpu(load_gpu_spec("v100_pcie"), false);
  for (auto _ : state) {
    for (const char* m : {"nafnet", "vit_s32", "swin_t"}) {
      ZooOptions zo;
      zo.batch = 64;
      const TileGraph tg = build_tile_graph(build_zoo_model(m, zo));
      for (Variant v : {Variant::AnsorLike, Variant::None, Variant::Base, Variant::Welder}) {
        ScheduleOptions o;
        o.variant = v;
        benchmark::DoNotOptimize(schedule_graph(tg, arch, o).metrics.latency_ms);
      }
    }
  }
}

}  // namespace

BENCHMARK_CAPTURE(BM_WelderSchedule, bert_base, std::string("bert_base"), 1, Variant::Welder)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_WelderSchedule, mobilenet_v2, std::string("mobilenet_v2"), 1, Variant::Welder)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_WelderSchedule, conformer, std::string("conformer"), 1, Variant::Welder)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_WelderSchedule, swin_t_bs64, std::string("swin_t"), 64, Variant::Welder)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_WelderSchedule, nafnet_bs64, std::string("nafnet"), 64, Variant::Welder)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WelderFig13)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
