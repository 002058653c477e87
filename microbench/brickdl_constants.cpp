// BrickDL §4.3's constants as Google Benchmark programs: the time per atomic (§4.3.1: private
// 32-byte lines, CAS in a loop; paper: 87.45 ns on an A100) and the time per brick (§4.3.2: an
// 8^3 brick, 3^3 filter, one brick per thread block; paper: 6.72 us on an A100), on the GPU
// (manual time from CUDA events; registered only where a GPU is usable) and their CPU analogues
// (std::atomic CAS on private cache lines from std::threads; one 8^3 brick of a 3x3x3 conv on the
// CPU reference executor's region evaluation). Counters: ns_per_atomic, us_per_brick.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/cuda/brick_microbench.h"
#include "common/cuda/device.h"
#include "common/exec/executor.h"
#include "common/exec/region_eval.h"
#include "models/zoo.h"

namespace {

using namespace dgs;

// ---- GPU ---------------------------------------------------------------------------------------
struct Gpu {
  gpu::Stream stream;
  gpu::KernelLauncher launcher{stream};
};
Gpu& gpu_device() {
  static Gpu g;
  return g;
}

void BM_GpuAtomicCas(benchmark::State& state) {
  const int64_t threads = 64 * 1024;  // §4.3.1: a 32 x 64K array, one 32-byte line per thread
  const int64_t iterations = state.range(0);
  for (auto _ : state) {
    const double ms = gpu::time_private_cas_ms(gpu_device().launcher, threads, iterations);
    state.SetIterationTime(ms / 1e3);
    state.counters["ns_per_atomic"] = ms * 1e6 / static_cast<double>(threads * iterations);
  }
}

void BM_GpuBrickConv(benchmark::State& state) {
  const int64_t edge = 8, kernel = 3, channels = state.range(0), bricks = 1024, repeats = 10;
  for (auto _ : state) {
    const double ms =
        gpu::time_brick_conv_ms(gpu_device().launcher, edge, channels, kernel, bricks, repeats);
    state.SetIterationTime(ms / 1e3);
    state.counters["us_per_brick"] = ms * 1e3 / static_cast<double>(bricks * repeats);
  }
}

// ---- CPU analogues
// -------------------------------------------------------------------------------
struct alignas(64) Line {
  std::atomic<int> v{0};
};

// Wall time of `f`, in nanoseconds.
template <class F>
double wall_ns(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

void BM_CpuAtomicCas(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const int64_t iterations = 1 << 20;
  auto lines = std::make_unique<Line[]>(static_cast<size_t>(threads));
  double ns = 0;
  for (auto _ : state) {
    ns += wall_ns([&] {
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          std::atomic<int>& x = lines[static_cast<size_t>(t)].v;
          int v = x.load();
          for (int64_t i = 0; i < iterations; ++i) x.compare_exchange_strong(v, v + 1);
        });
      for (auto& th : pool) th.join();
    });
  }
  // The aggregate rate's inverse, as the paper defines T_atomic.
  state.counters["ns_per_atomic"] =
      ns / static_cast<double>(threads * iterations * static_cast<int64_t>(state.iterations()));
}

void BM_CpuBrickConv(benchmark::State& state) {
  // One 8^3 output brick of the three-layer proxy's first conv (64 -> 64, 3x3x3) on the CPU.
  const Graph g = build_zoo_model("brickdl_proxy3", {.image_size = 10});
  const TensorValues v = make_graph_feeds(g, {}, 1);
  const int conv = 0;
  std::vector<TensorPiece> pieces;
  for (int t : g.op(conv).inputs) pieces.push_back(whole_piece(v.at(t)));
  const Region brick = {{0, 1}, {0, 64}, {0, 8}, {0, 8}, {0, 8}};
  double ns = 0;
  for (auto _ : state)
    ns += wall_ns([&] { benchmark::DoNotOptimize(compute_op_region(g, conv, brick, pieces)); });
  state.counters["us_per_brick"] = ns * 1e-3 / static_cast<double>(state.iterations());
}

BENCHMARK(BM_CpuAtomicCas)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CpuBrickConv)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (dgs::cuda_gpu_available(&why)) {
    benchmark::RegisterBenchmark("BM_GpuAtomicCas", BM_GpuAtomicCas)
        ->Arg(1000)
        ->Arg(100000)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_GpuBrickConv", BM_GpuBrickConv)
        ->Arg(1)
        ->Arg(64)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  } else {
    std::printf("bench_brickdl_constants: GPU benchmarks not registered, no usable GPU: %s\n",
                why.c_str());
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
