// Speed of the GPU performance model: kernels simulated per second (target >= 1e5 on one core)
// and the stage simulation of a typical IOS stage.
//   bench_gpumodel --benchmark_counters_tabular=true
// items_per_second = kernels simulated per second.
#include <benchmark/benchmark.h>

#include "common/gpumodel/gpu_model.h"
#include "common/hw/hardware.h"
#include "models/zoo.h"

namespace {

using dgs::GpuSpec;
using dgs::KernelLaunch;

// The simulation rate as its own counter: kernels simulated per second (= items_per_second).
void report_kernel_rate(benchmark::State& state, int64_t kernels) {
  state.counters["kernels_per_s"] =
      benchmark::Counter(static_cast<double>(kernels), benchmark::Counter::kIsRate);
}

// The built-in V100 config (compiled into the executable: no file is read).
GpuSpec bench_v100() {
  static const GpuSpec spec = dgs::load_gpu_spec("v100");
  return spec;
}

// An implicit-GEMM conv kernel of the 128x64 rule: M x N x K.
KernelLaunch conv_kernel(int64_t m, int64_t n, int64_t k) {
  KernelLaunch l;
  l.name = "conv";
  l.grid_blocks = ((m + 127) / 128) * ((n + 63) / 64);
  l.threads_per_block = 256;
  l.registers_per_thread = 126;
  l.shared_bytes_per_block = 12288;
  l.flops = 2.0 * static_cast<double>(m * n * k);
  l.dram_bytes = 4.0 * static_cast<double>(m * k / 9 + k * n + m * n);
  l.l2_bytes = l.dram_bytes + static_cast<double>(l.grid_blocks) * 192.0 * k * 4;
  l.klass = dgs::KernelClass::Gemm;
  return l;
}

KernelLaunch memory_kernel(int64_t elements) {
  KernelLaunch l;
  l.name = "relu";
  l.grid_blocks = (elements + 255) / 256;
  l.threads_per_block = 256;
  l.registers_per_thread = 32;
  l.flops = static_cast<double>(elements);
  l.dram_bytes = 8.0 * static_cast<double>(elements);
  l.l2_bytes = l.dram_bytes;
  l.klass = dgs::KernelClass::Memory;
  return l;
}

// One kernel alone, simulated block by block (sizes of Inception-V3 convolutions, batch 1 to 32).
void BM_SimulateSingleKernel(benchmark::State& state) {
  const GpuSpec v = bench_v100();
  const int64_t batch = state.range(0);
  const std::vector<std::vector<KernelLaunch>> streams = {{conv_kernel(batch * 17 * 17, 192, 768)}};
  int64_t events = 0;
  for (auto _ : state) {
    const auto r = dgs::simulate_stage(v, streams);
    events += r.events;
    benchmark::DoNotOptimize(r.latency_us);
  }
  state.SetItemsProcessed(state.iterations());
  report_kernel_rate(state, state.iterations());
  state.counters["blocks"] = static_cast<double>(streams[0][0].grid_blocks);
  state.counters["events_per_kernel"] =
      static_cast<double>(events) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SimulateSingleKernel)->Arg(1)->Arg(8)->Arg(32);

// The analytic fast path for the same kernels.
void BM_EstimateKernel(benchmark::State& state) {
  const GpuSpec v = bench_v100();
  const KernelLaunch k = conv_kernel(state.range(0) * 17 * 17, 192, 768);
  for (auto _ : state) benchmark::DoNotOptimize(dgs::estimate_kernel(v, k).latency_us);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateKernel)->Arg(1)->Arg(32);

// A typical IOS stage: the four branches of an Inception-C block (batch given), each on its own
// stream: 1x1 conv; 1x1 -> 1x7 -> 7x1; 1x1 -> 7x1 -> 1x7 -> 7x1 -> 1x7; pool -> 1x1.
void BM_SimulateIosStage(benchmark::State& state) {
  const GpuSpec v = bench_v100();
  const int64_t m = state.range(0) * 17 * 17;
  const std::vector<std::vector<KernelLaunch>> streams = {
      {conv_kernel(m, 192, 768)},
      {conv_kernel(m, 128, 768), conv_kernel(m, 128, 128 * 7), conv_kernel(m, 192, 128 * 7)},
      {conv_kernel(m, 128, 768), conv_kernel(m, 128, 128 * 7), conv_kernel(m, 128, 128 * 7),
       conv_kernel(m, 128, 128 * 7), conv_kernel(m, 192, 128 * 7)},
      {memory_kernel(m * 768), conv_kernel(m, 192, 768)}};
  int64_t kernels = 0, events = 0;
  for (const auto& s : streams) kernels += static_cast<int64_t>(s.size());
  for (auto _ : state) {
    const auto r = dgs::simulate_stage(v, streams);
    events += r.events;
    benchmark::DoNotOptimize(r.latency_us);
  }
  state.SetItemsProcessed(state.iterations() * kernels);
  report_kernel_rate(state, state.iterations() * kernels);
  state.counters["stages_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["events_per_stage"] =
      static_cast<double>(events) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SimulateIosStage)->Arg(1)->Arg(32);

// Many small kernels on many streams (a Greedy stage of RandWire width 8, batch 1).
void BM_SimulateWideStage(benchmark::State& state) {
  const GpuSpec v = bench_v100();
  std::vector<std::vector<KernelLaunch>> streams;
  for (int s = 0; s < 8; ++s)
    streams.push_back({memory_kernel(78 * 28 * 28),
                       conv_kernel(28 * 28, 78, 78 * 9 / 9 + 9 * (s + 1)),
                       conv_kernel(28 * 28, 78, 78)});
  int64_t kernels = 0;
  for (const auto& s : streams) kernels += static_cast<int64_t>(s.size());
  for (auto _ : state) benchmark::DoNotOptimize(dgs::simulate_stage(v, streams).latency_us);
  state.SetItemsProcessed(state.iterations() * kernels);
  report_kernel_rate(state, state.iterations() * kernels);
}
BENCHMARK(BM_SimulateWideStage);

// A whole network: the Sequential plan of Inception V3 (zoo, batch given), op -> kernel mapping
// included, on the built-in V100 config. items_per_second = kernels evaluated per second.
void BM_EvaluateInceptionV3Sequential(benchmark::State& state) {
  const GpuSpec v = dgs::load_gpu_spec("v100");
  dgs::ZooOptions zo;
  zo.batch = state.range(0);
  const dgs::Graph g = dgs::build_zoo_model("inception_v3", zo);
  dgs::Plan p;
  for (int op : g.topo_order()) {
    dgs::Task t;
    t.ops = {op};
    p.stages.push_back(dgs::Stage{{t}});
  }
  int64_t kernels = 0;
  for (auto _ : state) {
    const auto e = dgs::evaluate_plan(g, p, v);
    kernels += e.kernels;
    benchmark::DoNotOptimize(e.latency_us);
  }
  state.SetItemsProcessed(kernels);
  report_kernel_rate(state, kernels);
}
BENCHMARK(BM_EvaluateInceptionV3Sequential)->Arg(1)->Arg(32);

}  // namespace

BENCHMARK_MAIN();
