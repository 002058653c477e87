// GPU microbenchmarks of the suite's GEMM-based kernels (common/cuda/gemm*_kernels.h), timed with
// CUDA events around each iteration and reported through Google Benchmark's manual time:
//   - tiled GEMM at every instantiated tile (1024^3);
//   - Welder Fig. 2 on BERT-base attention at batch 64 (768 matrices of 128x64 . 64x128, scale,
//     mask, softmax): the Matmul (32x64 tile) and Softmax (4 rows per block) kernels alone, the
//     unfused pair, and the fused GEMM+softmax at each fused tile (16x128 is the paper's);
//   - the NeRF MLP (1920x1080 rows, 6 layers 64->64 with ReLU, then 64->3; Welder Table 4) as one
//     chain kernel per tile, and layer by layer (7 GEMM launches, intermediates in DRAM);
//   - a 3x3 convolution as implicit GEMM with a bias+ReLU epilogue;
//   - the library kernels beside their library baselines (the second half of this file).
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
#include "common/cuda/library_kernels.h"
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

// ---------------------------------------------------------------------------------------------
// Library kernels (common/cuda/library_kernels.h) beside their library baselines:
//   - GEMM: the suite's unfused GEMM path (cuBLASLt, as the stage executor runs Gemm/MatMul)
//     against plain cublasSgemm on the same shapes (square 1024 and 4096, and Welder Fig. 2's
//     98304x128x64);
//   - Welder Fig. 2 (§2: A [98304x64] . B [64x128], row softmax): cuBLAS SGEMM + the softmax at
//     4 rows per block (unfused) against CUTLASS's GEMM with the softmax epilogue (fused);
//   - GraphTurbo Table 5's ResNet18-Tailor layers at batch 64, FP16 NHWC: each convolution
//     through cuDNN and through CUTLASS, and each stage's pair as CUTLASS's back-to-back fusion
//     against the two cuDNN and the two CUTLASS convolutions.
// ---------------------------------------------------------------------------------------------

BlasContext& blas() {
  static BlasContext b(false);  // FP32 on CUDA cores
  return b;
}

const int64_t kGemmShapes[][3] = {{1024, 1024, 1024}, {4096, 4096, 4096}, {98304, 128, 64}};

// One of kGemmShapes (range(0)), its operands, and the label "MxNxK".
struct GemmShapeBuffers {
  int64_t m, n, k;
  DeviceBuffer a, b, c;
  explicit GemmShapeBuffers(benchmark::State& state)
      : m(kGemmShapes[state.range(0)][0]),
        n(kGemmShapes[state.range(0)][1]),
        k(kGemmShapes[state.range(0)][2]),
        a(filled(m * k)),
        b(filled(k * n)),
        c(filled(m * n)) {
    state.SetLabel(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
  }
  double flops() const { return 2.0 * m * n * k; }
};

void BM_CublasSgemm(benchmark::State& state) {
  const GemmShapeBuffers g(state);
  time_iterations(
      state,
      [&] {
        cublas_sgemm(device().launcher, blas(), g.m, g.n, g.k, g.a.floats(), g.b.floats(),
                     g.c.floats());
      },
      g.flops());
}
BENCHMARK(BM_CublasSgemm)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_BlasGemm(benchmark::State& state) {
  const GemmShapeBuffers g(state);
  time_iterations(
      state,
      [&] {
        blas_gemm(device().launcher, blas(), 1, g.m, g.n, g.k, row_major(g.a.floats(), g.k),
                  row_major(g.b.floats(), g.n), row_major_out(g.c.floats(), g.n));
      },
      g.flops());
}
BENCHMARK(BM_BlasGemm)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);

struct Fig2Section2 {
  static constexpr int64_t kRows = 98304, kK = 64, kN = 128;
  DeviceBuffer a = filled(kRows * kK), b = filled(kK * kN), c = filled(kRows * kN),
               d = filled(kRows * kN);
  static double flops() { return 2.0 * kRows * kN * kK; }
};

void BM_Fig2Library_Unfused(benchmark::State& state) {
  Fig2Section2 w;
  state.SetLabel("cublasSgemm + row_softmax 4 rows/block");
  time_iterations(
      state,
      [&] {
        cublas_sgemm(device().launcher, blas(), w.kRows, w.kN, w.kK, w.a.floats(), w.b.floats(),
                     w.c.floats());
        row_softmax(device().launcher, 4, w.kRows, w.kN, w.c.floats(), w.d.floats());
      },
      Fig2Section2::flops());
}
BENCHMARK(BM_Fig2Library_Unfused)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_Fig2Library_Fused(benchmark::State& state) {
  Fig2Section2 w;
  const CutlassSoftmaxTile t = cutlass_gemm_softmax_tiles().at(static_cast<size_t>(state.range(0)));
  state.SetLabel(t.str());
  time_iterations(
      state,
      [&] {
        cutlass_gemm_softmax(device().launcher, t, w.kRows, w.kN, w.kK, w.a.floats(), w.b.floats(),
                             w.d.floats());
      },
      Fig2Section2::flops());
}
BENCHMARK(BM_Fig2Library_Fused)->DenseRange(0, 1)->UseManualTime()->Unit(benchmark::kMillisecond);

// ResNet18-Tailor at batch 64 (reproductions/graphturbo/tailor.h): stage s has 64 << s channels
// on a 56 >> s image; its 3x3 conv has stride 2 from stage 2 on; layer 2s is the 3x3, 2s+1 the 1x1.
constexpr int64_t kTailorBatch = 64;
Conv2dShape tailor_layer(int layer) {
  const int stage = layer / 2;
  const int64_t c = int64_t{64} << stage, hw = int64_t{56} >> stage;
  Conv2dShape s;
  s.n = kTailorBatch;
  s.out_c = c;
  if (layer % 2 == 0) {
    const int64_t stride = stage == 0 ? 1 : 2;
    s.c = stage == 0 ? 64 : c / 2;
    s.h = s.w = stage == 0 ? hw : hw * 2;
    s.r = s.s = 3;
    s.stride_h = s.stride_w = stride;
    s.pad_top = s.pad_left = 1;
  } else {
    s.c = c;
    s.h = s.w = hw;
  }
  s.out_h = s.out_w = hw;
  return s;
}

// FP16 buffers of small positive values (every byte 0x20: 2^-7 x 1.03).
DeviceBuffer filled_f16(int64_t count) {
  DeviceBuffer b(static_cast<size_t>(count) * sizeof(uint16_t));
  b.fill_bytes(0x20);
  return b;
}
uint16_t* h16(const DeviceBuffer& b) {
  return static_cast<uint16_t*>(b.data());
}
double conv_flops(const Conv2dShape& s) {
  return 2.0 * s.n * s.out_c * s.out_h * s.out_w * s.c * s.r * s.s;
}
std::string conv_label(const Conv2dShape& s) {
  return std::to_string(s.r) + "x" + std::to_string(s.s) + " " + std::to_string(s.c) + "->" +
         std::to_string(s.out_c) + " @" + std::to_string(s.out_h);
}

struct TailorLayerBuffers {
  Conv2dShape s;
  DeviceBuffer x, w, y;
  explicit TailorLayerBuffers(int layer)
      : s(tailor_layer(layer)),
        x(filled_f16(s.n * s.h * s.w * s.c)),
        w(filled_f16(s.out_c * s.r * s.s * s.c)),
        y(filled_f16(s.n * s.out_h * s.out_w * s.out_c)) {}
};

void BM_TailorConv_Cudnn(benchmark::State& state) {
  TailorLayerBuffers b(static_cast<int>(state.range(0)));
  static CudnnConvF16 cudnn(device().stream);
  state.SetLabel("cuDNN FP16 " + conv_label(b.s));
  time_iterations(
      state, [&] { cudnn.run(device().launcher, b.s, h16(b.x), h16(b.w), h16(b.y), true); },
      conv_flops(b.s));
}
BENCHMARK(BM_TailorConv_Cudnn)->DenseRange(0, 7)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_TailorConv_Cutlass(benchmark::State& state) {
  TailorLayerBuffers b(static_cast<int>(state.range(0)));
  state.SetLabel("CUTLASS " + cutlass_conv2d_f16_kernel(b.s) + " " + conv_label(b.s));
  time_iterations(
      state,
      [&] { cutlass_conv2d_f16(device().launcher, b.s, h16(b.x), h16(b.w), h16(b.y), true); },
      conv_flops(b.s));
}
BENCHMARK(BM_TailorConv_Cutlass)->DenseRange(0, 7)->UseManualTime()->Unit(benchmark::kMillisecond);

// One stage's pair: conv3x3+ReLU -> conv1x1+ReLU. range(1): 0 two cuDNN convs, 1 two CUTLASS
// convs, 2 CUTLASS's back-to-back fusion (one kernel).
void BM_TailorStage(benchmark::State& state) {
  const int stage = static_cast<int>(state.range(0));
  TailorLayerBuffers c0(2 * stage), c1(2 * stage + 1);
  static CudnnConvF16 cudnn(device().stream);
  const double flops = conv_flops(c0.s) + conv_flops(c1.s);
  switch (state.range(1)) {
    case 0:
      state.SetLabel("stage " + std::to_string(stage + 1) + " cuDNN x2");
      time_iterations(
          state,
          [&] {
            cudnn.run(device().launcher, c0.s, h16(c0.x), h16(c0.w), h16(c0.y), true);
            cudnn.run(device().launcher, c1.s, h16(c0.y), h16(c1.w), h16(c1.y), true);
          },
          flops);
      break;
    case 1:
      state.SetLabel("stage " + std::to_string(stage + 1) + " CUTLASS x2");
      time_iterations(
          state,
          [&] {
            cutlass_conv2d_f16(device().launcher, c0.s, h16(c0.x), h16(c0.w), h16(c0.y), true);
            cutlass_conv2d_f16(device().launcher, c1.s, h16(c0.y), h16(c1.w), h16(c1.y), true);
          },
          flops);
      break;
    default:
      state.SetLabel("stage " + std::to_string(stage + 1) + " CUTLASS " +
                     cutlass_b2b_config(c0.s, c1.s).str());
      time_iterations(
          state,
          [&] {
            cutlass_b2b_conv2d_f16(device().launcher, c0.s, c1.s, h16(c0.x), h16(c0.w), h16(c1.w),
                                   h16(c1.y));
          },
          flops);
  }
}
BENCHMARK(BM_TailorStage)
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

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
