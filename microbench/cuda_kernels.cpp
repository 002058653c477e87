// GPU microbenchmarks of the suite's GEMM-based kernels (common/cuda/gemm*_kernels.h), timed with
// CUDA events around each iteration and reported through Google Benchmark's manual time:
//   - tiled GEMM at every instantiated tile (1024^3);
//   - Welder Fig. 2 on BERT-base attention at batch 64 (768 matrices of 128x64 . 64x128, scale,
//     mask, softmax): the Matmul (32x64 tile) and Softmax (4 rows per block) kernels alone, the
//     unfused pair, and the fused GEMM+softmax at each fused tile (16x128 is the paper's);
//   - the NeRF MLP (1920x1080 rows, 6 layers 64->64 with ReLU, then 64->3; Welder Table 4) as one
//     chain kernel per tile, and layer by layer (7 GEMM launches, intermediates in DRAM);
//   - a 3x3 convolution as implicit GEMM with a bias+ReLU epilogue.
// Counters: "kernels" (launches per iteration, from the launcher) and FLOP rates.
// Without a usable GPU the program prints one line saying why and exits 0 (nothing to measure).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/cuda/device.h"
#include "common/cuda/gemm_chain_kernels.h"
#include "common/cuda/gemm_kernels.h"
#include "common/cuda/gemm_softmax_kernels.h"
#include "common/cuda/runtime.h"
#include "common/cuda/tensor_kernels.h"

namespace {

using namespace dgs::gpu;

// Input values do not change the kernels' speed; a constant keeps set-up off the host.
constexpr float kFillValue = 0.01f;

struct Device {
  Stream stream;
  KernelLauncher launcher{stream};
  Event start, end;
};
Device& device() {
  static Device d;  // created on first use, after main() checked for a GPU
  return d;
}

DeviceBuffer filled(int64_t count) {
  DeviceBuffer b(static_cast<size_t>(count) * sizeof(float));
  fill(device().launcher, b.floats(), count, kFillValue);
  device().stream.synchronize();
  return b;
}

// Times `launch` once per iteration with events on the launcher's stream (after one warm-up).
template <class F>
void time_iterations(benchmark::State& state, F&& launch, double flops_per_iteration = 0) {
  Device& d = device();
  launch();
  d.stream.synchronize();
  const int64_t before = d.launcher.launches();
  int64_t iterations = 0;
  for (auto _ : state) {
    d.start.record(d.stream);
    launch();
    d.end.record(d.stream);
    d.end.synchronize();
    state.SetIterationTime(elapsed_ms(d.start, d.end) / 1e3);
    ++iterations;
  }
  if (iterations > 0) {
    state.counters["kernels"] =
        static_cast<double>(d.launcher.launches() - before) / static_cast<double>(iterations);
  }
  if (flops_per_iteration > 0) {
    state.counters["FLOP/s"] =
        benchmark::Counter(flops_per_iteration, benchmark::Counter::kIsIterationInvariantRate);
  }
}

void BM_Gemm(benchmark::State& state) {
  const GemmTile tile = gemm_tiles().at(static_cast<size_t>(state.range(0)));
  const int64_t n = 1024;
  DeviceBuffer a = filled(n * n), b = filled(n * n), c = filled(n * n);
  state.SetLabel(tile.str());
  time_iterations(
      state,
      [&] {
        gemm(device().launcher, tile, 1, n, n, n, row_major(a.floats(), n),
             row_major(b.floats(), n), row_major_out(c.floats(), n));
      },
      2.0 * n * n * n);
}
BENCHMARK(BM_Gemm)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);

// BERT-base attention scores at batch 64 (Welder Fig. 2's workload, research/welder.md §2.1).
struct Attention {
  static constexpr int64_t kBatch = 64, kHeads = 12, kSeq = 128, kHeadDim = 64;
  static constexpr int64_t kMatrices = kBatch * kHeads;
  DeviceBuffer q = filled(kMatrices * kSeq * kHeadDim);
  DeviceBuffer kt = filled(kMatrices * kHeadDim * kSeq);
  DeviceBuffer mask = filled(kBatch * kSeq);
  DeviceBuffer scores = filled(kMatrices * kSeq * kSeq);
  DeviceBuffer probs = filled(kMatrices * kSeq * kSeq);
  SoftmaxArgs softmax_args() const {
    SoftmaxArgs s;
    s.scale = 0.125f;  // 1 / sqrt(64)
    s.mask = mask.floats();
    s.mask_row_div = kHeads * kSeq;
    return s;
  }
  void matmul(const GemmTile& tile) const {
    gemm(device().launcher, tile, kMatrices, kSeq, kSeq, kHeadDim,
         row_major(q.floats(), kHeadDim, kSeq * kHeadDim),
         row_major(kt.floats(), kSeq, kHeadDim * kSeq),
         row_major_out(scores.floats(), kSeq, kSeq * kSeq));
  }
  void softmax(int rows_per_block) const {
    row_softmax(device().launcher, rows_per_block, kMatrices * kSeq, kSeq, scores.floats(),
                probs.floats(), softmax_args());
  }
  void fused(const SoftmaxTile& tile) const {
    gemm_softmax(device().launcher, tile, kMatrices, kSeq, kSeq, kHeadDim,
                 row_major(q.floats(), kHeadDim, kSeq * kHeadDim),
                 row_major(kt.floats(), kSeq, kHeadDim * kSeq),
                 row_major_out(probs.floats(), kSeq, kSeq * kSeq), softmax_args());
  }
  static double flops() { return 2.0 * kMatrices * kSeq * kSeq * kHeadDim; }
};
constexpr GemmTile kFig2MatmulTile{32, 64, 8, 2, 4};  // Welder Fig. 2: standalone Matmul tile
constexpr int kFig2SoftmaxRows = 4;                   // Welder Fig. 2: standalone Softmax [4x128]

void BM_Fig2_Matmul(benchmark::State& state) {
  Attention a;
  state.SetLabel(kFig2MatmulTile.str());
  time_iterations(
      state, [&] { a.matmul(kFig2MatmulTile); }, Attention::flops());
}
void BM_Fig2_Softmax(benchmark::State& state) {
  Attention a;
  state.SetLabel(std::to_string(kFig2SoftmaxRows) + "x128");
  time_iterations(state, [&] { a.softmax(kFig2SoftmaxRows); });
}
void BM_Fig2_Unfused(benchmark::State& state) {
  Attention a;
  time_iterations(
      state,
      [&] {
        a.matmul(kFig2MatmulTile);
        a.softmax(kFig2SoftmaxRows);
      },
      Attention::flops());
}
void BM_Fig2_Fused(benchmark::State& state) {
  const SoftmaxTile tile = gemm_softmax_tiles().at(static_cast<size_t>(state.range(0)));
  Attention a;
  state.SetLabel(tile.str());
  time_iterations(
      state, [&] { a.fused(tile); }, Attention::flops());
}
BENCHMARK(BM_Fig2_Matmul)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Fig2_Softmax)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Fig2_Unfused)->UseManualTime()->Unit(benchmark::kMillisecond);
// Tiles 1 and 2 of gemm_softmax_tiles() (16x128, 32x128) hold a whole 128-long row.
BENCHMARK(BM_Fig2_Fused)->DenseRange(1, 2)->UseManualTime()->Unit(benchmark::kMillisecond);

// The NeRF MLP (research/welder.md §4.2): (1920*1080) rows, 7 bias-free Linear layers.
struct NerfMlp {
  static constexpr int64_t kRows = 1920 * 1080, kWidth = 64, kOut = 3, kLayers = 7;
  DeviceBuffer x = filled(kRows * kWidth);
  DeviceBuffer h0 = filled(kRows * kWidth), h1 = filled(kRows * kWidth);
  DeviceBuffer y = filled(kRows * kOut);
  std::vector<DeviceBuffer> weights;
  NerfMlp() {
    for (int64_t i = 0; i < kLayers; ++i) weights.push_back(filled(kWidth * kWidth));
  }
  std::vector<ChainLayer> layers() const {
    std::vector<ChainLayer> ls;
    for (int64_t i = 0; i < kLayers; ++i) {
      const bool last = i + 1 == kLayers;
      const int64_t out = last ? kOut : kWidth;
      // Gemm transB=1 layout: W [out, in].
      ls.push_back(ChainLayer{weights[static_cast<size_t>(i)].floats(), kWidth, 1, nullptr, kWidth,
                              out, last ? Activation::None : Activation::Relu});
    }
    return ls;
  }
  static double flops() { return 2.0 * kRows * kWidth * (kWidth * (kLayers - 1) + kOut); }
};

void BM_NerfMlp_Fused(benchmark::State& state) {
  const int rows_per_block = mlp_chain_tiles().at(static_cast<size_t>(state.range(0)));
  NerfMlp m;
  const std::vector<ChainLayer> ls = m.layers();
  state.SetLabel(std::to_string(rows_per_block) + " rows/block");
  time_iterations(
      state,
      [&] {
        mlp_chain(device().launcher, rows_per_block, NerfMlp::kRows, ls,
                  RowsArg{m.x.floats(), NerfMlp::kRows, 0, NerfMlp::kWidth, 1},
                  RowsOutArg{m.y.floats(), NerfMlp::kRows, 0, NerfMlp::kOut, 1});
      },
      NerfMlp::flops());
}
void BM_NerfMlp_LayerByLayer(benchmark::State& state) {
  NerfMlp m;
  const std::vector<ChainLayer> ls = m.layers();
  const GemmTile tile = default_gemm_tile();
  time_iterations(
      state,
      [&] {
        const float* in = m.x.floats();
        for (size_t i = 0; i < ls.size(); ++i) {
          const bool last = i + 1 == ls.size();
          float* out = last ? m.y.floats() : (i % 2 == 0 ? m.h0.floats() : m.h1.floats());
          Epilogue e;
          e.act = ls[i].act;
          // W [out, in] read as B (in x out): element (k, n) at n * in + k.
          gemm(device().launcher, tile, 1, NerfMlp::kRows, ls[i].out_features, NerfMlp::kWidth,
               row_major(in, NerfMlp::kWidth), MatrixArg{ls[i].weight, 1, NerfMlp::kWidth, 0},
               row_major_out(out, ls[i].out_features), e);
          in = out;
        }
      },
      NerfMlp::flops());
}
BENCHMARK(BM_NerfMlp_Fused)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NerfMlp_LayerByLayer)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_Conv3x3ImplicitGemm(benchmark::State& state) {
  const GemmTile tile = gemm_tiles().at(static_cast<size_t>(state.range(0)));
  Conv2dShape s;
  s.n = 32, s.c = 64, s.h = 56, s.w = 56, s.out_c = 64, s.r = 3, s.s = 3, s.out_h = 56,
  s.out_w = 56;
  s.pad_top = s.pad_left = 1;
  DeviceBuffer x = filled(s.n * s.c * s.h * s.w), w = filled(s.out_c * s.c * 9),
               b = filled(s.out_c), y = filled(s.n * s.out_c * s.out_h * s.out_w);
  Epilogue e;
  e.bias = b.floats();
  e.act = Activation::Relu;
  state.SetLabel(tile.str());
  time_iterations(
      state,
      [&] {
        conv2d_implicit_gemm(device().launcher, tile, s, x.floats(), w.floats(), y.floats(), e);
      },
      2.0 * s.n * s.out_c * s.out_h * s.out_w * s.c * 9);
}
BENCHMARK(BM_Conv3x3ImplicitGemm)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!dgs::cuda_gpu_available(&why)) {
    std::printf("bench_cuda_kernels: skipped, no usable GPU: %s\n", why.c_str());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
