// Speed of the plan layer: Plan::check on large region plans (every accelerator evaluation checks
// its plan first) and run_plan on the CPU reference.
//   bench_plan --benchmark_counters_tabular=true
// items_per_second = tasks checked (or run) per second.
#include <benchmark/benchmark.h>

#include "common/exec/plan_exec.h"
#include "common/plan/plan.h"
#include "models/zoo.h"

namespace {

using namespace dgs;

// ResNet-50 (batch 1, 224x224) with every convolution split into atoms: `parts` rows x `parts`
// output-channel slices (clipped to the tensor) x 2 input-channel slices (partial sums), one stage
// per convolution; every other op a whole task in its own stage.
Plan atom_plan(const Graph& g, int64_t parts) {
  Plan p;
  p.scheduler = "atoms";
  for (int op : g.topo_order()) {
    const Op& o = g.op(op);
    Stage st;
    const int out = o.outputs[0];
    const Shape& y = g.tensor(out).shape;
    if (o.kind != OpKind::Conv || g.tensor(o.inputs[1]).shape[1] < 2) {
      Task t;
      t.ops = {op};
      st.tasks.push_back(t);
      p.stages.push_back(st);
      continue;
    }
    const int64_t cin = g.tensor(o.inputs[1]).shape[1];
    const int64_t rows = std::min(parts, y[2]), chans = std::min(parts, y[1]);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < chans; ++c)
        for (int64_t k = 0; k < 2; ++k) {
          Task t;
          t.ops = {op};
          t.regions[out] = {{0, y[0]},
                            {c * y[1] / chans, (c + 1) * y[1] / chans},
                            {r * y[2] / rows, (r + 1) * y[2] / rows},
                            {0, y[3]}};
          t.reduction.range = {"c_in", {k * cin / 2, (k + 1) * cin / 2}};
          t.placement.unit = UnitKind::Engine;
          t.placement.index = {static_cast<int>(c % 8), static_cast<int>(r % 8)};
          st.tasks.push_back(t);
        }
    p.stages.push_back(st);
  }
  return p;
}

void BM_PlanCheck_ResNet50Atoms(benchmark::State& state) {
  const Graph g = build_zoo_model("resnet50");
  const Plan p = atom_plan(g, state.range(0));
  for (auto _ : state) p.check(g);
  state.counters["tasks"] = p.num_tasks();
  state.SetItemsProcessed(state.iterations() * p.num_tasks());
}
BENCHMARK(BM_PlanCheck_ResNet50Atoms)->Arg(8)->Arg(24)->Unit(benchmark::kMillisecond);

// The residual block (64 channels, 56x56) as one fused task of 14x14 bricks, halos recomputed or
// shared, against the unscheduled graph on the reference executor.
void BM_RunPlan_ResidualBlockBricks(benchmark::State& state) {
  ZooOptions zo;
  zo.image_size = 56;
  const Graph g = build_zoo_model("test_residual_block", zo);
  Task t;
  t.kind = TaskKind::Fused;
  t.ops = g.topo_order();
  t.tile = {1, 64, 14, 14};
  if (state.range(0) == 1) t.halo = {HaloMode::Share, "l2"};
  Plan p;
  p.stages = {Stage{{t}}};
  const TensorValues feeds = make_graph_feeds(g, {}, 1);
  for (auto _ : state) benchmark::DoNotOptimize(run_plan(g, p, feeds));
  state.SetLabel(state.range(0) == 1 ? "halo share" : "halo recompute");
}
BENCHMARK(BM_RunPlan_ResidualBlockBricks)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_RunGraph_ResidualBlock(benchmark::State& state) {
  ZooOptions zo;
  zo.image_size = 56;
  const Graph g = build_zoo_model("test_residual_block", zo);
  for (auto _ : state) benchmark::DoNotOptimize(run_graph(g, {}, 1));
}
BENCHMARK(BM_RunGraph_ResidualBlock)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
