// Speed of Welder's scheduler with the analytic cost model (issue #4: any zoo model in under 1 s
// on one core; all of --fig 13 in under 5 s; issue #27: Fig. 12's tile searches). One benchmark per
// model and batch size that repro_welder schedules (Table 2's models at batch 1 and, where the
// artifact runs them, 64; Table 6's CNNs; Fig. 14's largest inputs), with the Welder variant (the
// slowest: it tries three connection levels per edge).
//   bench_welder_schedule --benchmark_out=welder_schedule.json --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "common/hw/hardware.h"
#include "models/zoo.h"
#include "reproductions/welder/experiments/experiments.h"
#include "reproductions/welder/scheduler.h"

namespace {

using namespace dgs;
using namespace dgs::welder;

struct ModelCase {
  std::string model;
  int64_t batch = 1;
  int64_t image_size = 0;  // 0: the model's default
  int64_t seq_len = 0;     // 0: the model's default
};

const TileGraph& tile_graph(const ModelCase& c) {
  static std::map<std::tuple<std::string, int64_t, int64_t, int64_t>, std::unique_ptr<TileGraph>>
      cache;
  auto& p = cache[{c.model, c.batch, c.image_size, c.seq_len}];
  if (!p) {
    ZooOptions zo;
    zo.batch = c.batch;
    zo.image_size = c.image_size;
    zo.seq_len = c.seq_len;
    p = std::make_unique<TileGraph>(build_tile_graph(build_zoo_model(c.model, zo)));
  }
  return *p;
}

// One full schedule (graph connecting + tiling, nothing cached between iterations).
void BM_WelderSchedule(benchmark::State& state, const ModelCase& c, Variant v) {
  const TileGraph& tg = tile_graph(c);
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

// All of Fig. 13 as repro_welder runs it: three models at batch 64, the four variants of each
// through run_variants, including building the graphs.
void BM_WelderFig13(benchmark::State& state) {
  const WelderArch arch = arch_from_gpu(load_gpu_spec("v100_pcie"), false);
  for (auto _ : state) {
    for (const char* m : {"nafnet", "vit_s32", "swin_t"}) {
      ZooOptions zo;
      zo.batch = 64;
      const TileGraph tg = build_tile_graph(build_zoo_model(m, zo));
      const auto s = run_variants(
          tg, arch, {Variant::AnsorLike, Variant::None, Variant::Base, Variant::Welder});
      benchmark::DoNotOptimize(s.back().metrics.latency_ms);
    }
  }
}

// Fig. 12's tile searches as repro_welder runs them on the RTX 3090: Table 2's models in FP32 on
// SIMT and FP16 on TensorCore, batch 1 (ten models) and 64 (seven), the four variants of each
// through run_variants (the 34 cases' schedules; the tile-graphs are built once, outside the
// timing; the V100 half of the figure's claim repeats Figs. 9 and 10, whose schedules --all keeps).
void BM_WelderFig12(benchmark::State& state) {
  const GpuSpec rtx3090 = load_gpu_spec("rtx3090");
  struct Case {
    const TileGraph* tg;
    bool tc;
  };
  std::vector<Case> cases;
  for (bool fp16 : {false, true})
    for (int64_t batch : {int64_t{1}, int64_t{64}})
      for (const Table2Model& m : kTable2) {
        if (batch == 64 && !m.batch64) continue;
        ZooOptions zo;
        zo.batch = batch;
        zo.dtype = fp16 ? DType::F16 : DType::F32;
        cases.push_back({&zoo_tile_graph(m.zoo, zo), fp16});
      }
  const WelderArch simt = arch_from_gpu(rtx3090, false), tc = arch_from_gpu(rtx3090, true);
  int64_t candidates = 0;
  for (auto _ : state) {
    candidates = 0;
    for (const Case& c : cases) {
      const auto s =
          run_variants(*c.tg, c.tc ? tc : simt,
                       {Variant::AnsorLike, Variant::None, Variant::Base, Variant::Welder});
      for (const Schedule& x : s) candidates += x.candidates_costed;
    }
  }
  state.counters["cases"] = static_cast<double>(cases.size());
  state.counters["candidates"] = static_cast<double>(candidates);
}

}  // namespace

#define DGS_WELDER_BENCH(name, ...)                                                   \
  BENCHMARK_CAPTURE(BM_WelderSchedule, name, ModelCase{__VA_ARGS__}, Variant::Welder) \
      ->Unit(benchmark::kMillisecond)

// Table 2's models (Figs. 9-12, 15): batch 1, and batch 64 for the artifact's seven.
DGS_WELDER_BENCH(mobilenet_v2, "mobilenet_v2", 1);
DGS_WELDER_BENCH(mobilenet_v2_bs64, "mobilenet_v2", 64);
DGS_WELDER_BENCH(bert_base, "bert_base", 1);
DGS_WELDER_BENCH(bert_base_bs64, "bert_base", 64);
DGS_WELDER_BENCH(vit_s32, "vit_s32", 1);
DGS_WELDER_BENCH(vit_s32_bs64, "vit_s32", 64);
DGS_WELDER_BENCH(conformer, "conformer", 1);
DGS_WELDER_BENCH(conformer_bs64, "conformer", 64);
DGS_WELDER_BENCH(mobilevit_s, "mobilevit_s", 1);
DGS_WELDER_BENCH(mobilevit_s_bs64, "mobilevit_s", 64);
DGS_WELDER_BENCH(swin_t, "swin_t", 1);
DGS_WELDER_BENCH(swin_t_bs64, "swin_t", 64);
DGS_WELDER_BENCH(nerf_mlp, "nerf_mlp", 1);
DGS_WELDER_BENCH(nafnet, "nafnet", 1);
DGS_WELDER_BENCH(nafnet_bs64, "nafnet", 64);
DGS_WELDER_BENCH(restormer, "restormer", 1);
DGS_WELDER_BENCH(bsrn, "bsrn", 1);
// Table 6 (batch 1; UNet at 224x224) and the zoo's UNet at its default 8192x8192.
DGS_WELDER_BENCH(resnet50, "resnet50", 1);
DGS_WELDER_BENCH(resnet18, "resnet18", 1);
DGS_WELDER_BENCH(unet_224, "unet", 1, 224);
DGS_WELDER_BENCH(unet, "unet", 1);
DGS_WELDER_BENCH(vgg16, "vgg16", 1);
// Fig. 14's largest inputs.
DGS_WELDER_BENCH(nafnet_1024, "nafnet", 1, 1024);
DGS_WELDER_BENCH(bert_base_seq512, "bert_base", 1, 0, 512);
BENCHMARK(BM_WelderFig13)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_WelderFig12)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
