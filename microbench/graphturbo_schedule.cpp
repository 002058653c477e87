// Speed of GraphTurbo's scheduler (issue #12: any network of the paper in under 1 s): Algorithms
// 1-4 with instances and orders (schedule_graph), and the whole DSA plan (tiles and scopes) as
// repro_graphturbo builds it, for every zoo model of Table 2 at GraphTurbo's per-cluster batch.
//   bench_graphturbo_schedule --benchmark_out=graphturbo.json --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include "common/hw/dsa_spec.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/instances.h"

namespace {

using namespace dgs;
using namespace dgs::graphturbo;

struct ModelCase {
  const char* label;
  std::string model;
  int64_t per_cluster = 1;
  int64_t seq_len = 0;
};

Graph build(const ModelCase& c, int64_t batch) {
  ZooOptions o;
  o.batch = batch;
  o.seq_len = c.seq_len;
  return build_zoo_model(c.model, o);
}

void BM_Schedule(benchmark::State& state, const ModelCase& c) {
  const Graph g = build(c, c.per_cluster);
  const GtParams p = stcp920_gt_params(load_dsa_spec("stcp920"));
  int64_t instances = 0;
  for (auto _ : state) {
    const Schedule s = schedule_graph(g, p);
    instances = static_cast<int64_t>(s.instances.size());
    benchmark::DoNotOptimize(instances);
  }
  state.counters["ops"] = g.num_ops();
  state.counters["instances"] = static_cast<double>(instances);
}

void BM_DsaPlan(benchmark::State& state, const ModelCase& c) {
  const DsaSpec spec = load_dsa_spec("stcp920");
  const Graph one = build(c, c.per_cluster);
  const Graph g = build(c, c.per_cluster * spec.clusters);
  for (auto _ : state) {
    const DsaPlan plan = dsa_plan(g, &one, Approach::GraphTurbo, spec);
    benchmark::DoNotOptimize(plan.plan.stages.size());
  }
}

const ModelCase kCases[] = {{"resnet50/per_cluster_16", "resnet50", 16, 0},
                            {"bert128/per_cluster_8", "bert_base", 8, 128},
                            {"bert256/per_cluster_4", "bert_base", 4, 256},
                            {"bert512/per_cluster_2", "bert_base", 2, 512},
                            {"bert384_large/per_cluster_2", "bert_large", 2, 384},
                            {"dlrm/per_cluster_256", "dlrm", 256, 0},
                            {"mobilenet_v2/per_cluster_32", "mobilenet_v2", 32, 0},
                            {"vit_b16/per_cluster_8", "vit_b16", 8, 0},
                            {"densenet121/per_cluster_8", "densenet121", 8, 0},
                            {"conformer/per_cluster_3", "conformer", 3, 0}};

const bool kRegistered = [] {
  for (const ModelCase& c : kCases) {
    const std::string name = c.label;
    benchmark::RegisterBenchmark(("GraphTurboSchedule/" + name).c_str(), BM_Schedule, c)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("GraphTurboDsaPlan/" + name).c_str(), BM_DsaPlan, c)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
