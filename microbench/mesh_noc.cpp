// Speed of the mesh network's link schedule (common/dsamodel/mesh_noc.h): MeshNoc::send on the
// 8 x 8 mesh of atomic_mesh (8 B per cycle per link, 1 cycle per hop) under a fixed stream of
// transfers between random engines, in Rounds of 64 transfers whose ready times share a window
// (so that routes collide and transfers wait for gaps), forgetting the reservations older than
// the previous Round as the DSA model does per stage. The stream is the same every run (a fixed
// linear congruential generator), so the counters (hops, mean start delay) are too.
//   bench_mesh_noc
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "common/dsamodel/mesh_noc.h"

namespace {

struct Send {
  dgs::MeshPoint a, b;
  double bytes = 0;
  double ready = 0;
};

// 64 transfers per Round, Rounds 1,000 cycles apart, sizes 64 B to 4 KiB.
std::vector<Send> traffic(int rounds) {
  std::vector<Send> out;
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < 64; ++i) {
      Send s;
      s.a = {static_cast<int>(next(8)), static_cast<int>(next(8))};
      s.b = {static_cast<int>(next(8)), static_cast<int>(next(8))};
      s.bytes = static_cast<double>(64 * (1 + next(64)));
      s.ready = 1000.0 * r + static_cast<double>(next(500));
      out.push_back(s);
    }
  return out;
}

void BM_MeshNocSend(benchmark::State& state) {
  const int rounds = 200;
  const std::vector<Send> sends = traffic(rounds);
  double delay = 0, hops = 0;
  for (auto _ : state) {
    dgs::MeshNoc noc(8, 8, 8, 1);
    delay = 0;
    hops = 0;
    for (size_t i = 0; i < sends.size(); ++i) {
      if (i % 64 == 0 && i >= 128) noc.forget_before(sends[i - 64].ready);
      const dgs::MeshNoc::Transfer t =
          noc.send(sends[i].a, sends[i].b, sends[i].bytes, sends[i].ready);
      delay += t.start - sends[i].ready;
      hops += t.hops;
    }
    benchmark::DoNotOptimize(delay);
  }
  state.counters["sends_per_s"] = benchmark::Counter(
      static_cast<double>(sends.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["mean_delay_cycles"] = delay / static_cast<double>(sends.size());
  state.counters["mean_hops"] = hops / static_cast<double>(sends.size());
}
BENCHMARK(BM_MeshNocSend)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
