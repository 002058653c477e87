// The kernel suite of gpu_validate (see validation_cases.h). Only the CUDA-free headers of
// common/cuda are used: in a build without CUDA every measure_ms throws the suite's one-line
// "no CUDA support" error (gpu_validate refuses before, exit 4).
#include "validation/validation_cases.h"

#include <array>
#include <memory>

#include "common/cuda/brick_kernels.h"
#include "common/cuda/device_fault.h"
#include "common/cuda/gemm_chain_kernels.h"
#include "common/cuda/gemm_kernels.h"
#include "common/cuda/gemm_softmax_kernels.h"
#include "common/cuda/tensor_kernels.h"
#include "common/gpumodel/gpu_model.h"
#include "common/gpumodel/kernel_family.h"
#include "common/util/error.h"
#include "validation/library_cases.h"
#include "validation/suite_kernels.h"

namespace dgs::validation {

namespace {

constexpr float kFillValue = 0.01f;  // values do not change the kernels' speed

double kernel_ms(const GpuSpec& spec, const KernelLaunch& k) {
  return estimate_kernel(spec, k).latency_us / 1000.0;
}
double stream_ms(const GpuSpec& spec, const std::vector<KernelLaunch>& ks) {
  return simulate_stage(spec, {ks}).latency_us / 1000.0;
}

// --- device side --------------------------------------------------------------------------------
struct Device {
  gpu::Stream stream;
  gpu::KernelLauncher launcher{stream};
  gpu::DeviceBuffer filled(int64_t count) {
    gpu::DeviceBuffer b(static_cast<size_t>(std::max<int64_t>(1, count)) * sizeof(float));
    gpu::fill(launcher, b.floats(), std::max<int64_t>(1, count), kFillValue);
    return b;
  }
  double time(const std::function<void()>& run, const MeasureOptions& o) {
    stream.synchronize();
    return gpu::time_with_events(run, stream, o.timing).median_ms;
  }
};

// A suite kernel case: its description for the model and its launch on the device.
using Launch = std::function<void(Device&, const MeasureOptions&, double* ms)>;

ValidationCase suite_case(std::string id, const std::vector<SuiteKernel>& ks, std::string shape,
                          std::string family, Launch launch) {
  ValidationCase c;
  c.id = std::move(id);
  c.family = family.empty() ? ks.front().family : std::move(family);
  c.shape = std::move(shape);
  c.predict_ms = [ks](const GpuSpec& spec) {
    std::vector<KernelLaunch> l;
    for (const SuiteKernel& k : ks) l.push_back(suite_kernel_launch(spec, k));
    return l.size() == 1 ? kernel_ms(spec, l[0]) : stream_ms(spec, l);
  };
  c.predict_before_ms = [ks](const GpuSpec& spec) {
    std::vector<KernelLaunch> l;
    for (const SuiteKernel& k : ks) l.push_back(library_class_launch(k));
    return l.size() == 1 ? kernel_ms(spec, l[0]) : stream_ms(spec, l);
  };
  c.measure_ms = [launch, id = c.id](const MeasureOptions& o) {
    const gpu::WorkScope where("case " + id);
    Device d;
    double ms = 0;
    launch(d, o, &ms);
    return ms;
  };
  return c;
}

// --- GEMM family ------------------------------------------------------------------------------
void add_gemm_cases(std::vector<ValidationCase>& out) {
  for (const gpu::GemmTile& t : gpu::gemm_tiles()) {
    constexpr int64_t n = 1024;
    out.push_back(suite_case(
        "gemm.1024." + t.str(), {gemm_kernel(t, 1, n, n, n, false)}, "1024^3 FP32", "",
        [t](Device& d, const MeasureOptions& o, double* ms) {
          gpu::DeviceBuffer a = d.filled(n * n), b = d.filled(n * n), c = d.filled(n * n);
          *ms = d.time(
              [&] {
                gpu::gemm(d.launcher, t, 1, n, n, n, gpu::row_major(a.floats(), n),
                          gpu::row_major(b.floats(), n), gpu::row_major_out(c.floats(), n));
              },
              o);
        }));
  }
  // Welder Fig. 2: A [98304 x 64] . B [64 x 128], one B.
  constexpr int64_t kRows = 98304, kK = 64, kN = 128;
  for (const gpu::GemmTile& t : gpu::gemm_tiles()) {
    out.push_back(suite_case(
        "fig2.matmul." + t.str(), {gemm_kernel(t, 1, kRows, kN, kK, false)},
        "Welder Fig. 2 Matmul 98304x128x64", "",
        [t](Device& d, const MeasureOptions& o, double* ms) {
          gpu::DeviceBuffer a = d.filled(kRows * kK), b = d.filled(kK * kN),
                            c = d.filled(kRows * kN);
          *ms = d.time(
              [&] {
                gpu::gemm(d.launcher, t, 1, kRows, kN, kK, gpu::row_major(a.floats(), kK),
                          gpu::row_major(b.floats(), kN), gpu::row_major_out(c.floats(), kN));
              },
              o);
        }));
  }
}

// BERT-base attention scores at batch 64 (768 matrices of 128x64 . 64x128, scale, mask): the
// workload of microbench/cuda_kernels.cpp's Fig. 2 benchmarks.
struct Attention {
  static constexpr int64_t kBatch = 64, kHeads = 12, kSeq = 128, kHeadDim = 64;
  static constexpr int64_t kMatrices = kBatch * kHeads;
  gpu::DeviceBuffer q, kt, mask, scores, probs;
  explicit Attention(Device& d)
      : q(d.filled(kMatrices * kSeq * kHeadDim)),
        kt(d.filled(kMatrices * kHeadDim * kSeq)),
        mask(d.filled(kBatch * kSeq)),
        scores(d.filled(kMatrices * kSeq * kSeq)),
        probs(d.filled(kMatrices * kSeq * kSeq)) {}
  gpu::SoftmaxArgs args() const {
    gpu::SoftmaxArgs s;
    s.scale = 0.125f;
    s.mask = mask.floats();
    s.mask_row_div = kHeads * kSeq;
    return s;
  }
  void matmul(Device& d, const gpu::GemmTile& t) const {
    gpu::gemm(d.launcher, t, kMatrices, kSeq, kSeq, kHeadDim,
              gpu::row_major(q.floats(), kHeadDim, kSeq * kHeadDim),
              gpu::row_major(kt.floats(), kSeq, kHeadDim * kSeq),
              gpu::row_major_out(scores.floats(), kSeq, kSeq * kSeq));
  }
  void softmax(Device& d, int rows) const {
    gpu::row_softmax(d.launcher, rows, kMatrices * kSeq, kSeq, scores.floats(), probs.floats(),
                     args());
  }
  void fused(Device& d, const gpu::SoftmaxTile& t) const {
    gpu::gemm_softmax(d.launcher, t, kMatrices, kSeq, kSeq, kHeadDim,
                      gpu::row_major(q.floats(), kHeadDim, kSeq * kHeadDim),
                      gpu::row_major(kt.floats(), kSeq, kHeadDim * kSeq),
                      gpu::row_major_out(probs.floats(), kSeq, kSeq * kSeq), args());
  }
};
constexpr gpu::GemmTile kAttentionMatmulTile{32, 64, 8, 2, 4};  // Welder Fig. 2's own tile
constexpr int kAttentionSoftmaxRows = 4;

void add_fused_cases(std::vector<ValidationCase>& out) {
  using A = Attention;
  const SuiteKernel mm =
      gemm_kernel(kAttentionMatmulTile, A::kMatrices, A::kSeq, A::kSeq, A::kHeadDim, true);
  const SuiteKernel sm =
      row_softmax_kernel(kAttentionSoftmaxRows, A::kMatrices * A::kSeq, A::kSeq, true);
  const std::string what = "BERT-base attention scores, batch 64";
  out.push_back(suite_case("attention.matmul." + kAttentionMatmulTile.str(), {mm}, what, "",
                           [](Device& d, const MeasureOptions& o, double* ms) {
                             const Attention a(d);
                             *ms = d.time([&] { a.matmul(d, kAttentionMatmulTile); }, o);
                           }));
  out.push_back(suite_case("attention.softmax.4rows", {sm}, what + ", softmax with mask", "",
                           [](Device& d, const MeasureOptions& o, double* ms) {
                             const Attention a(d);
                             *ms = d.time([&] { a.softmax(d, kAttentionSoftmaxRows); }, o);
                           }));
  out.push_back(suite_case("attention.unfused", {mm, sm}, what + ": Matmul then softmax",
                           "sequence", [](Device& d, const MeasureOptions& o, double* ms) {
                             const Attention a(d);
                             *ms = d.time(
                                 [&] {
                                   a.matmul(d, kAttentionMatmulTile);
                                   a.softmax(d, kAttentionSoftmaxRows);
                                 },
                                 o);
                           }));
  for (const gpu::SoftmaxTile& t : gpu::gemm_softmax_tiles()) {
    if (t.n_max < A::kSeq) continue;  // a row of 128 must fit the tile
    out.push_back(suite_case(
        "attention.fused." + t.str(),
        {gemm_softmax_kernel(t, A::kMatrices, A::kSeq, A::kSeq, A::kHeadDim, true, true)},
        what + ", fused", "", [t](Device& d, const MeasureOptions& o, double* ms) {
          const Attention a(d);
          *ms = d.time([&] { a.fused(d, t); }, o);
        }));
  }
  // The 8x64 fused tile, on rows of 64: 98304 x 64 . 64 x 64.
  const gpu::SoftmaxTile small = gpu::gemm_softmax_tiles().front();
  constexpr int64_t kRows = 98304, kK = 64, kN = 64;
  out.push_back(suite_case(
      "fused64.gemm_softmax." + small.str(),
      {gemm_softmax_kernel(small, 1, kRows, kN, kK, false, false)}, "98304x64x64, fused", "",
      [small](Device& d, const MeasureOptions& o, double* ms) {
        gpu::DeviceBuffer a = d.filled(kRows * kK), b = d.filled(kK * kN), y = d.filled(kRows * kN);
        *ms = d.time(
            [&] {
              gpu::gemm_softmax(d.launcher, small, 1, kRows, kN, kK, gpu::row_major(a.floats(), kK),
                                gpu::row_major(b.floats(), kN), gpu::row_major_out(y.floats(), kN));
            },
            o);
      }));
  // Welder Fig. 2 (98304 x 128, one B, no mask): softmax at 8 and 32 rows per block, the unfused
  // pair at the scheduler's tiles, the fused kernel at 32x128.
  constexpr int64_t kN2 = 128;
  for (int rows : {8, 32}) {
    out.push_back(suite_case(
        "fig2.softmax." + std::to_string(rows) + "rows",
        {row_softmax_kernel(rows, kRows, kN2, false)}, "Welder Fig. 2 Softmax 98304x128", "",
        [rows](Device& d, const MeasureOptions& o, double* ms) {
          gpu::DeviceBuffer x = d.filled(kRows * kN2), y = d.filled(kRows * kN2);
          *ms = d.time(
              [&] { gpu::row_softmax(d.launcher, rows, kRows, kN2, x.floats(), y.floats()); }, o);
        }));
  }
  const gpu::GemmTile t128 = gpu::gemm_tiles().back();
  out.push_back(suite_case(
      "fig2.unfused",
      {gemm_kernel(t128, 1, kRows, kN2, kK, false), row_softmax_kernel(8, kRows, kN2, false)},
      "Welder Fig. 2: gemm " + t128.str() + " then row_softmax 8 rows/block", "sequence",
      [t128](Device& d, const MeasureOptions& o, double* ms) {
        gpu::DeviceBuffer a = d.filled(kRows * kK), b = d.filled(kK * kN2),
                          c = d.filled(kRows * kN2), y = d.filled(kRows * kN2);
        *ms = d.time(
            [&] {
              gpu::gemm(d.launcher, t128, 1, kRows, kN2, kK, gpu::row_major(a.floats(), kK),
                        gpu::row_major(b.floats(), kN2), gpu::row_major_out(c.floats(), kN2));
              gpu::row_softmax(d.launcher, 8, kRows, kN2, c.floats(), y.floats());
            },
            o);
      }));
  const gpu::SoftmaxTile t32 = gpu::gemm_softmax_tiles().back();
  out.push_back(suite_case(
      "fig2.fused." + t32.str(), {gemm_softmax_kernel(t32, 1, kRows, kN2, kK, false, false)},
      "Welder Fig. 2 fused", "", [t32](Device& d, const MeasureOptions& o, double* ms) {
        gpu::DeviceBuffer a = d.filled(kRows * kK), b = d.filled(kK * kN2),
                          y = d.filled(kRows * kN2);
        *ms = d.time(
            [&] {
              gpu::gemm_softmax(d.launcher, t32, 1, kRows, kN2, kK, gpu::row_major(a.floats(), kK),
                                gpu::row_major(b.floats(), kN2),
                                gpu::row_major_out(y.floats(), kN2));
            },
            o);
      }));
}

// --- the NeRF MLP (1920x1080 rows, 6 layers 64->64 with ReLU, then 64->3) -----------------------
void add_mlp_cases(std::vector<ValidationCase>& out) {
  constexpr int64_t kRows = 1920 * 1080, kWidth = 64, kOut = 3;
  constexpr int kLayers = 7;
  struct Nerf {
    gpu::DeviceBuffer x, h0, h1, y;
    std::vector<gpu::DeviceBuffer> w;
    explicit Nerf(Device& d)
        : x(d.filled(kRows * kWidth)),
          h0(d.filled(kRows * kWidth)),
          h1(d.filled(kRows * kWidth)),
          y(d.filled(kRows * kOut)) {
      for (int i = 0; i < kLayers; ++i) w.push_back(d.filled(kWidth * kWidth));
    }
    std::vector<gpu::ChainLayer> layers() const {
      std::vector<gpu::ChainLayer> ls;
      for (int i = 0; i < kLayers; ++i) {
        const bool last = i + 1 == kLayers;
        ls.push_back(gpu::ChainLayer{w[static_cast<size_t>(i)].floats(), kWidth, 1, nullptr, kWidth,
                                     last ? kOut : kWidth,
                                     last ? gpu::Activation::None : gpu::Activation::Relu});
      }
      return ls;
    }
  };
  for (int rows : gpu::mlp_chain_tiles()) {
    out.push_back(suite_case(
        "nerf.chain." + std::to_string(rows) + "rows",
        {mlp_chain_kernel(rows, kRows, kLayers, kOut)}, "NeRF MLP 1920x1080 rows, 7 layers, fused",
        "", [rows](Device& d, const MeasureOptions& o, double* ms) {
          const Nerf n(d);
          const std::vector<gpu::ChainLayer> ls = n.layers();
          *ms = d.time(
              [&] {
                gpu::mlp_chain(d.launcher, rows, kRows, ls,
                               gpu::RowsArg{n.x.floats(), kRows, 0, kWidth, 1},
                               gpu::RowsOutArg{n.y.floats(), kRows, 0, kOut, 1});
              },
              o);
        }));
  }
  const gpu::GemmTile t = gpu::default_gemm_tile();
  std::vector<SuiteKernel> seq;
  for (int i = 0; i < kLayers; ++i)
    seq.push_back(gemm_kernel(t, 1, kRows, i + 1 == kLayers ? kOut : kWidth, kWidth, false));
  out.push_back(suite_case(
      "nerf.layer_by_layer", seq, "NeRF MLP, 7 GEMMs " + t.str() + " (intermediates in DRAM)",
      "sequence", [t](Device& d, const MeasureOptions& o, double* ms) {
        const Nerf n(d);
        const std::vector<gpu::ChainLayer> ls = n.layers();
        *ms = d.time(
            [&] {
              const float* in = n.x.floats();
              for (size_t i = 0; i < ls.size(); ++i) {
                const bool last = i + 1 == ls.size();
                float* o2 = last ? n.y.floats() : (i % 2 == 0 ? n.h0.floats() : n.h1.floats());
                gpu::Epilogue e;
                e.act = ls[i].act;
                gpu::gemm(d.launcher, t, 1, kRows, ls[i].out_features, kWidth,
                          gpu::row_major(in, kWidth), gpu::MatrixArg{ls[i].weight, 1, kWidth, 0},
                          gpu::row_major_out(o2, ls[i].out_features), e);
                in = o2;
              }
            },
            o);
      }));
}

// --- implicit-GEMM convolution, element-wise, pooling -----------------------------------------
void add_conv_and_memory_cases(std::vector<ValidationCase>& out) {
  gpu::Conv2dShape s;
  s.n = 32, s.c = 64, s.h = 56, s.w = 56, s.out_c = 64, s.r = 3, s.s = 3, s.out_h = 56,
  s.out_w = 56, s.pad_top = s.pad_left = 1;
  for (const gpu::GemmTile& t : gpu::gemm_tiles()) {
    out.push_back(suite_case(
        "conv3x3.32x64x56x56." + t.str(), {conv_kernel(t, s)}, "3x3 conv 64->64 on 32x64x56x56", "",
        [t, s](Device& d, const MeasureOptions& o, double* ms) {
          gpu::DeviceBuffer x = d.filled(s.n * s.c * s.h * s.w), w = d.filled(s.out_c * s.c * 9),
                            b = d.filled(s.out_c), y = d.filled(s.n * s.out_c * s.out_h * s.out_w);
          gpu::Epilogue e;
          e.bias = b.floats();
          e.act = gpu::Activation::Relu;
          *ms = d.time(
              [&] {
                gpu::conv2d_implicit_gemm(d.launcher, t, s, x.floats(), w.floats(), y.floats(), e);
              },
              o);
        }));
  }
  constexpr int64_t kCount = int64_t{32} * 64 * 112 * 112;
  const std::vector<int64_t> dims = {kCount};
  const gpu::StridedView flat{{1}, 0};
  out.push_back(suite_case("elementwise.relu", {elementwise_kernel(kCount, 1)},
                           "ReLU of 32x64x112x112", "",
                           [dims, flat](Device& d, const MeasureOptions& o, double* ms) {
                             gpu::DeviceBuffer x = d.filled(kCount), y = d.filled(kCount);
                             *ms = d.time(
                                 [&] {
                                   gpu::elementwise(d.launcher, gpu::EwOp::Relu, {}, dims,
                                                    x.floats(), flat, nullptr, flat, y.floats());
                                 },
                                 o);
                           }));
  out.push_back(suite_case(
      "elementwise.add", {elementwise_kernel(kCount, 2)}, "Add of two 32x64x112x112", "",
      [dims, flat](Device& d, const MeasureOptions& o, double* ms) {
        gpu::DeviceBuffer x = d.filled(kCount), x2 = d.filled(kCount), y = d.filled(kCount);
        *ms = d.time(
            [&] {
              gpu::elementwise(d.launcher, gpu::EwOp::Add, {}, dims, x.floats(), flat, x2.floats(),
                               flat, y.floats());
            },
            o);
      }));
  gpu::Pool2dShape p;
  p.n = 32, p.c = 64, p.h = 112, p.w = 112, p.out_h = 56, p.out_w = 56, p.kh = p.kw = 3,
  p.sh = p.sw = 2, p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  out.push_back(suite_case(
      "pool.max3x3s2", {pool2d_kernel(p)}, "max pool 3x3 stride 2 on 32x64x112x112", "",
      [p](Device& d, const MeasureOptions& o, double* ms) {
        gpu::DeviceBuffer x = d.filled(p.n * p.c * p.h * p.w),
                          y = d.filled(p.n * p.c * p.out_h * p.out_w);
        *ms = d.time([&] { gpu::pool2d(d.launcher, true, false, p, x.floats(), y.floats()); }, o);
      }));
}

// --- BrickDL's brick kernels: a chain of 3x3x3 Conv + bias + ReLU in bricks
// ------------------------ Three layers of 16 channels on 48^3 (no padding: 46^3, 44^3, 42^3),
// bricks of edge 8, on the default persistent grid (4 blocks per SM): padded and memoized; small
// enough to take milliseconds (BrickDL's measured items run the paper's proxies).
void add_brick_cases(std::vector<ValidationCase>& out) {
  constexpr int64_t kChannels = 16, kEdge = 8, kLayers = 3, kKernel = 3;
  const std::array<int64_t, 3> dims = {48, 48, 48};
  std::vector<gpu::BrickConvLayer> layers(kLayers);
  for (gpu::BrickConvLayer& L : layers) {
    L.in_channels = L.out_channels = kChannels;
    L.kernel = kKernel;
  }
  for (bool memoized : {false, true}) {
    const std::string variant = memoized ? "memoized" : "padded";
    ValidationCase c;
    c.id = "brick." + variant + ".3x16ch.48cube.e8";
    c.family = "suite_brick_direct";
    c.shape = "BrickDL " + variant + " bricks: 3 layers of 3x3x3 Conv+bias+ReLU, 16 channels, " +
              "48^3 input, edge 8, 4 blocks per SM";
    auto kernel = [layers, dims, memoized](const GpuSpec& spec) {
      return brick_chain_kernel(layers, dims, kEdge, 4 * spec.sm_count, memoized);
    };
    c.predict_ms = [kernel](const GpuSpec& spec) {
      return kernel_ms(spec, suite_kernel_launch(spec, kernel(spec)));
    };
    c.predict_before_ms = [kernel](const GpuSpec& spec) {
      return kernel_ms(spec, library_class_launch(kernel(spec)));
    };
    c.measure_ms = [layers, dims, memoized, id = c.id](const MeasureOptions& o) {
      const gpu::WorkScope where("case " + id);
      Device d;
      std::vector<gpu::DeviceBuffer> weights;
      std::vector<gpu::BrickConvLayer> ls = layers;
      for (gpu::BrickConvLayer& L : ls) {
        weights.push_back(d.filled(L.out_channels * L.in_channels * kKernel * kKernel * kKernel));
        L.weight = weights.back().floats();
        weights.push_back(d.filled(L.out_channels));
        L.bias = weights.back().floats();
      }
      gpu::BrickChainRunner runner(ls, dims, kEdge);
      gpu::fill(d.launcher, runner.bricked_input(), gpu::bricked_floats(kChannels, dims, kEdge),
                kFillValue);
      return d.time(
          [&] { memoized ? runner.run_memoized(d.launcher) : runner.run_padded(d.launcher); }, o);
    };
    out.push_back(std::move(c));
  }
}

}  // namespace

std::vector<ValidationCase> validation_cases(bool full) {
  std::vector<ValidationCase> out;
  add_gemm_cases(out);
  add_fused_cases(out);
  add_mlp_cases(out);
  add_conv_and_memory_cases(out);
  add_brick_cases(out);
  add_cudnn_cases(out, full);  // library_cases.cpp, as the next four
  add_multistream_cases(out);
  add_ios_cases(out);
  if (full) {
    add_graphturbo_case(out);
    add_welder_cases(out);
  }
  return out;
}

std::vector<CasePair> validation_pairs() {
  std::vector<CasePair> p = {
      {"fig2.unfused", "fig2.fused.32x128", "Welder Fig. 2: unfused over fused (32x128)"},
      {"attention.unfused", "attention.fused.16x128",
       "BERT attention: unfused over fused (16x128)"},
      {"attention.unfused", "attention.fused.32x128",
       "BERT attention: unfused over fused (32x128)"},
      {"nerf.layer_by_layer", "nerf.chain.16rows", "NeRF MLP: layer by layer over fused (16 rows)"},
      {"nerf.layer_by_layer", "nerf.chain.32rows", "NeRF MLP: layer by layer over fused (32 rows)"},
      {"nerf.layer_by_layer", "nerf.chain.64rows", "NeRF MLP: layer by layer over fused (64 rows)"},
  };
  for (const std::string s : {"Greedy", "IOS-Merge", "IOS-Parallel", "IOS-Both"})
    p.push_back({"ios_fig1_2.Sequential", "ios_fig1_2." + s, "IOS Fig. 1.2: Sequential over " + s});
  p.push_back({"welder_fig13.vit_s32.b8.Welder-none", "welder_fig13.vit_s32.b8.Welder",
               "Welder Fig. 13 ViT-S/32: Welder-none over Welder"});
  return p;
}

}  // namespace dgs::validation
