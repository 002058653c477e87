// Speed of the DSA model (common/dsamodel): one evaluation of
//   - ResNet-50 at batch 64 on STCP920 (the layer-split test plan, 32 parts per op; target < 50
//   ms),
//   - a plan of at least 50,000 tasks on the 8 x 8 mesh (ResNet-50 at batch 8, 320 parts per
//     op; target < 500 ms).
//   - the model's tile search (dsa_task_tile, task_estimate.h) for every convolution and matrix
//     product of ResNet-50 at batch 1 on one engine of atomic_mesh with half its buffer (as the
//     atom tasks of reproductions/atomic ask),
//   - the array level's mapping search (array_nest, array_nest.h) for every convolution and
//     matrix product of ResNet-50 at batch 1, whole, on one engine of atomic_mesh, each call a
//     search (a port-sharing byte count new to the memo per iteration),
//   bench_dsamodel --benchmark_counters_tabular=true
// The plans come from dgs::layer_split_test_plan (a test plan, not any paper's scheduler); they
// are built once, outside the timed loop.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "common/dsamodel/array_nest.h"
#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/task_estimate.h"
#include "common/hw/dsa_spec.h"
#include "microbench/resnet50_dsa_plan.h"

namespace {

using Case = dgs::bench::Resnet50DsaPlan;
Case make_case(const char* hw, int64_t batch, int64_t parts) {
  return dgs::bench::resnet50_dsa_plan(hw, batch, parts);
}

void run(benchmark::State& state, const Case& c) {
  double latency = 0;
  for (auto _ : state) {
    const dgs::EvaluationResult r = dgs::evaluate_dsa_plan(c.graph, c.plan, c.spec);
    // The const overload: the non-const one's "+m,r" constraint miscompiles with GCC in Google
    // Benchmark 1.7 (the value read back is an uninitialised stack slot).
    benchmark::DoNotOptimize(r);
    latency = r.latency_us;
  }
  state.counters["tasks"] = static_cast<double>(c.plan.num_tasks());
  state.SetLabel("model latency " + std::to_string(latency / 1000) + " ms");
  state.counters["tasks_per_s"] = benchmark::Counter(
      static_cast<double>(c.plan.num_tasks()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_ResNet50Batch64OnStcp920(benchmark::State& state) {
  static const Case c = make_case("stcp920", 64, 32);
  run(state, c);
}
BENCHMARK(BM_ResNet50Batch64OnStcp920)->Unit(benchmark::kMillisecond);

void BM_FiftyThousandTasksOnMesh8x8(benchmark::State& state) {
  const Case& c = dgs::bench::fifty_thousand_task_mesh_plan();
  if (c.plan.num_tasks() < 50000) {
    state.SkipWithError("the plan has fewer than 50,000 tasks");
    return;
  }
  run(state, c);
}
BENCHMARK(BM_FiftyThousandTasksOnMesh8x8)->Unit(benchmark::kMillisecond);

// ResNet-50 at batch 1, and its matrix ops (convolutions and GEMMs), priced on one engine of
// atomic_mesh: the layers the tile and array-nest searches run per layer.
const dgs::Graph& resnet50_batch1() {
  static const dgs::Graph g = [] {
    dgs::ZooOptions zo;
    zo.batch = 1;
    return dgs::build_zoo_model("resnet50", zo);
  }();
  return g;
}

std::vector<int> matrix_ops(const dgs::Graph& g) {
  std::vector<int> ops;
  for (size_t op = 0; op < g.ops().size(); ++op) {
    const dgs::OpKind k = g.op(static_cast<int>(op)).kind;
    if (k == dgs::OpKind::Conv || k == dgs::OpKind::Gemm || k == dgs::OpKind::MatMul)
      ops.push_back(static_cast<int>(op));
  }
  return ops;
}

dgs::DsaSpec one_mesh_engine() {
  const dgs::DsaSpec mesh = dgs::load_dsa_spec("atomic_mesh");
  return dgs::dsa_with_mesh(mesh, 1, 1, mesh.matrix_tile_rows, mesh.matrix_tile_columns);
}

void BM_TileSearchOfEveryResNet50Layer(benchmark::State& state) {
  const dgs::Graph& g = resnet50_batch1();
  const dgs::DsaSpec spec = one_mesh_engine();
  std::vector<dgs::Task> tasks;
  for (int op : matrix_ops(g)) {
    dgs::Task t;
    t.kind = dgs::TaskKind::Fused;
    t.ops = {op};
    t.placement = dgs::dsa_unit_placement(spec, 0);
    tasks.push_back(t);
  }
  for (auto _ : state)
    for (const dgs::Task& t : tasks)
      benchmark::DoNotOptimize(dgs::dsa_task_tile(g, t, spec, spec.local_bytes / 2));
  state.counters["layers"] = static_cast<double>(tasks.size());
}
BENCHMARK(BM_TileSearchOfEveryResNet50Layer)->Unit(benchmark::kMillisecond);

void BM_ArrayNestSearchOfEveryResNet50Layer(benchmark::State& state) {
  const dgs::Graph& g = resnet50_batch1();
  const dgs::DsaSpec spec = one_mesh_engine();
  std::vector<dgs::ArrayShape> shapes;
  for (int op : matrix_ops(g)) {
    const dgs::Tensor& out = g.tensor(g.op(op).outputs.at(0));
    dgs::Region all;
    for (int64_t d : out.shape) all.push_back({0, d});
    shapes.push_back(dgs::matrix_shape(g, op, all, spec));
  }
  // A key the memo has not seen, in every iteration of every repetition (the memo is per thread
  // and outlives a repetition): every call searches.
  static double sharing = 0;
  for (auto _ : state) {
    sharing += 1;
    for (dgs::ArrayShape s : shapes) {
      s.port_sharing_bytes = sharing;
      benchmark::DoNotOptimize(dgs::array_nest(s, spec));
    }
  }
  state.counters["layers"] = static_cast<double>(shapes.size());
}
BENCHMARK(BM_ArrayNestSearchOfEveryResNet50Layer)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
