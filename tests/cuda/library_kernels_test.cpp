// The library kernels (common/cuda/library_kernels.h: cuBLASLt, cuBLAS, CUTLASS, cuDNN FP16):
// their host-side argument checks and FP16 rounding on every machine, and each kernel against
// the CPU reference executor on random inputs through the one kernel testbed
// (common/cuda/kernel_testbed.h) on a GPU (skipped without one). FP16 kernels are checked on
// operands rounded to FP16 (the CPU reference reads the same values) with kGpuF16Tolerance.
#include "common/cuda/library_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "common/cuda/kernel_testbed.h"
#include "tests/cuda/gpu_test_util.h"

namespace dgs {
namespace {

using gpu::DeviceTensors;
using gpu::KernelLauncher;
using testing::add;
using testing::conv;
using testing::run_cpu_reference;

constexpr uint64_t kSeed = 17;

// ---------------------------------------------------------------------------------------------
// FP16 rounding (host)
// ---------------------------------------------------------------------------------------------

TEST(F16, ExactValuesAndRoundingToNearestEven) {
  EXPECT_EQ(gpu::f32_to_f16_bits(1.0f), 0x3C00);
  EXPECT_EQ(gpu::f32_to_f16_bits(-2.0f), 0xC000);
  EXPECT_EQ(gpu::f32_to_f16_bits(0.0f), 0x0000);
  EXPECT_EQ(gpu::f32_to_f16_bits(-0.0f), 0x8000);
  EXPECT_EQ(gpu::f32_to_f16_bits(65504.0f), 0x7BFF);  // the largest finite FP16
  EXPECT_EQ(gpu::f32_to_f16_bits(65520.0f), 0x7C00);  // halfway to 2^16: ties to even, infinity
  EXPECT_EQ(gpu::f32_to_f16_bits(1e9f), 0x7C00);      // overflow
  EXPECT_EQ(gpu::f32_to_f16_bits(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(gpu::f32_to_f16_bits(std::ldexp(1.0f, -25)), 0x0000);  // half of it: ties to even
  EXPECT_EQ(gpu::f32_to_f16_bits(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 of it: up
  EXPECT_EQ(gpu::f32_to_f16_bits(std::ldexp(1.0f, -14)), 0x0400);  // the smallest normal
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: even (1); 1 + 3 * 2^-11: even (1 + 2^-9).
  EXPECT_EQ(gpu::f32_to_f16_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(gpu::f32_to_f16_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(gpu::f32_to_f16_bits(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_TRUE(std::isnan(
      gpu::f16_bits_to_f32(gpu::f32_to_f16_bits(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(F16, EveryFiniteHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7C00u) == 0x7C00u) continue;  // infinities and NaNs
    const float f = gpu::f16_bits_to_f32(static_cast<uint16_t>(h));
    ASSERT_EQ(gpu::f32_to_f16_bits(f), h) << std::hex << h;
  }
  EXPECT_EQ(gpu::f16_bits_to_f32(0x3555), 0.333251953125f);
  EXPECT_EQ(gpu::f16_bits_to_f32(0x0001), std::ldexp(1.0f, -24));
}

TEST(F16, RoundValuesRoundsEveryFloatTensor) {
  TensorValues v;
  v[0] = TensorData::zeros({3});
  v[0].f = {1.0f / 3, 1.0f, 70000.0f};
  const TensorValues r = gpu::round_values_to_f16(v);
  EXPECT_EQ(r.at(0).f[0], 0.333251953125f);
  EXPECT_EQ(r.at(0).f[1], 1.0f);
  EXPECT_TRUE(std::isinf(r.at(0).f[2]));
}

// The three places that name the pinned CUTLASS release agree.
TEST(LibraryKernels, CutlassVersionIsPinnedOnce) {
  auto read = [](const std::string& rel) {
    std::ifstream in(std::string(DGS_SOURCE_DIR) + "/" + rel);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  const std::string v = gpu::kCutlassVersion;
  EXPECT_NE(read("cmake/cutlass.cmake").find("set(DGS_CUTLASS_VERSION " + v + ")"),
            std::string::npos);
  EXPECT_NE(read("tools/fetch_cutlass.sh").find("VERSION=" + v + "\n"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// cuBLASLt: operand mapping and refusals (host)
// ---------------------------------------------------------------------------------------------

TEST(BlasGemm, RowMajorAndTransposedOperandsMapToColumnMajorViews) {
  // Row-major [4 x 6], ld 6: cuBLAS's untransposed [6 x 4] with ld 6.
  gpu::BlasOperand o = gpu::blas_operand(gpu::MatrixArg{nullptr, 6, 1, 0}, 4, 6, "A");
  EXPECT_FALSE(o.transpose);
  EXPECT_EQ(o.ld, 6);
  // Padded rows (ld 8 > 6).
  o = gpu::blas_operand(gpu::MatrixArg{nullptr, 8, 1, 0}, 4, 6, "A");
  EXPECT_EQ(o.ld, 8);
  // A transposed view (a Gemm with transB=1: B [n x k] read as [k x n]).
  o = gpu::blas_operand(gpu::MatrixArg{nullptr, 1, 4, 0}, 4, 6, "B");
  EXPECT_TRUE(o.transpose);
  EXPECT_EQ(o.ld, 4);
  // A single row: any leading dimension.
  o = gpu::blas_operand(gpu::MatrixArg{nullptr, 0, 1, 0}, 1, 6, "A");
  EXPECT_FALSE(o.transpose);
  EXPECT_EQ(o.ld, 6);
}

TEST(BlasGemm, AlignmentOfViews) {
  EXPECT_EQ(gpu::blas_alignment(nullptr), 256u);
  EXPECT_EQ(gpu::blas_alignment(reinterpret_cast<const void*>(uintptr_t{0x7f0000000000})), 256u);
  EXPECT_EQ(gpu::blas_alignment(reinterpret_cast<const void*>(uintptr_t{0x7f0000000040})), 64u);
  // A float view 3 elements into a buffer: 4-byte aligned only.
  EXPECT_EQ(gpu::blas_alignment(reinterpret_cast<const void*>(uintptr_t{0x7f000000000c})), 4u);
}

TEST(BlasGemm, RefusesOperandsWithoutAUnitStride) {
  try {
    (void)gpu::blas_operand(gpu::MatrixArg{nullptr, 12, 2, 0}, 4, 6, "B");
    FAIL() << "a strided operand was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("operand B [4 x 6] has strides (12, 2)"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
  // Overlapping rows (ld 5 < 6 columns).
  EXPECT_THROW((void)gpu::blas_operand(gpu::MatrixArg{nullptr, 5, 1, 0}, 4, 6, "A"), Error);
}

TEST(BlasGemm, SaysWhichGemmsItRuns) {
  const gpu::MatrixArg a{nullptr, 8, 1, 0}, b{nullptr, 5, 1, 0};
  const gpu::OutMatrixArg c{nullptr, 5, 1, 0};
  EXPECT_EQ(gpu::blas_gemm_unsupported(1, 4, 5, 8, a, b, c, {}), "");
  gpu::Epilogue e;
  e.act = gpu::Activation::Relu;
  e.bias = reinterpret_cast<const float*>(16);
  EXPECT_EQ(gpu::blas_gemm_unsupported(1, 4, 5, 8, a, b, c, e), "");
  e.act = gpu::Activation::Gelu;
  EXPECT_NE(gpu::blas_gemm_unsupported(1, 4, 5, 8, a, b, c, e).find("GELU"), std::string::npos);
  e.act = gpu::Activation::None;
  e.bias_batch_stride = 5;
  EXPECT_NE(
      gpu::blas_gemm_unsupported(2, 4, 5, 8, a, b, {nullptr, 5, 1, 20}, e).find("per-batch bias"),
      std::string::npos);
  EXPECT_NE(gpu::blas_gemm_unsupported(1, 4, 5, 8, a, b, {nullptr, 5, 2, 0}, {}).find("row-major"),
            std::string::npos);
  EXPECT_NE(gpu::blas_gemm_unsupported(3, 4, 5, 8, a, b, {nullptr, 5, 1, 10}, {}).find("overlaps"),
            std::string::npos);
  EXPECT_NE(gpu::blas_gemm_unsupported(0, 4, 5, 8, a, b, c, {}).find("positive"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// CUTLASS and cuDNN FP16 convolutions: shape checks (host)
// ---------------------------------------------------------------------------------------------

gpu::Conv2dShape conv_shape(int64_t n, int64_t c, int64_t hw, int64_t out_c, int64_t k,
                            int64_t stride, int64_t pad) {
  gpu::Conv2dShape s;
  s.n = n, s.c = c, s.h = s.w = hw, s.out_c = out_c, s.r = s.s = k;
  s.stride_h = s.stride_w = stride, s.pad_top = s.pad_left = pad;
  s.out_h = s.out_w = (hw + 2 * pad - k) / stride + 1;
  return s;
}

TEST(CutlassConv, ShapeChecks) {
  EXPECT_EQ(gpu::cutlass_conv2d_f16_unsupported(conv_shape(2, 64, 56, 64, 3, 1, 1)), "");
  EXPECT_EQ(gpu::cutlass_conv2d_f16_unsupported(conv_shape(2, 64, 56, 128, 3, 2, 1)), "");
  EXPECT_NE(
      gpu::cutlass_conv2d_f16_unsupported(conv_shape(2, 3, 56, 64, 3, 1, 1)).find("multiples of 8"),
      std::string::npos);
  gpu::Conv2dShape s = conv_shape(2, 64, 56, 64, 3, 1, 1);
  s.groups = 2;
  EXPECT_NE(gpu::cutlass_conv2d_f16_unsupported(s).find("grouped"), std::string::npos);
  s = conv_shape(2, 64, 56, 64, 3, 1, 1);
  s.dil_h = 2;
  EXPECT_NE(gpu::cutlass_conv2d_f16_unsupported(s).find("dilated"), std::string::npos);
  s = conv_shape(2, 64, 56, 64, 3, 1, 1);
  s.out_h = 57;  // not what symmetric padding gives
  EXPECT_NE(gpu::cutlass_conv2d_f16_unsupported(s).find("symmetric"), std::string::npos);
  // 2^31 elements: CUTLASS's 32-bit coordinates.
  EXPECT_NE(
      gpu::cutlass_conv2d_f16_unsupported(conv_shape(1024, 512, 64, 64, 1, 1, 0)).find("2^31"),
      std::string::npos);
  EXPECT_EQ(gpu::cutlass_conv2d_f16_kernel(conv_shape(2, 64, 56, 64, 3, 1, 1)), "fprop 128x64x64");
  EXPECT_EQ(gpu::cutlass_conv2d_f16_kernel(conv_shape(2, 64, 56, 128, 3, 1, 1)),
            "fprop 128x128x64");
}

TEST(CutlassConv, ShapeOfAGraphConv) {
  Graph g;
  const int x = g.add_input("x", {2, 16, 9, 9});
  const int y = conv(g, "c", x, 24, 3, 1, 2, false);
  g.mark_output(y);
  const gpu::Conv2dShape s = gpu::conv2d_shape_of(g, g.tensor(y).producer);
  EXPECT_EQ(s.n, 2);
  EXPECT_EQ(s.c, 16);
  EXPECT_EQ(s.h, 9);
  EXPECT_EQ(s.out_c, 24);
  EXPECT_EQ(s.r, 3);
  EXPECT_EQ(s.stride_h, 2);
  EXPECT_EQ(s.pad_top, 1);
  EXPECT_EQ(s.out_h, 5);
  EXPECT_EQ(gpu::cutlass_conv2d_f16_unsupported(s), "");
  const int r = add(g, OpKind::Relu, "r", {y});
  EXPECT_THROW((void)gpu::conv2d_shape_of(g, g.tensor(r).producer), Error);
}

TEST(CutlassB2b, PicksTheInstantiationOfTheWidth) {
  for (const gpu::B2bConvConfig& cfg : gpu::cutlass_b2b_configs()) {
    const gpu::Conv2dShape c0 = conv_shape(2, 64, 14, cfg.width, 3, 2, 1);
    const gpu::Conv2dShape c1 = conv_shape(2, cfg.width, c0.out_h, cfg.width, 1, 1, 0);
    EXPECT_EQ(gpu::cutlass_b2b_unsupported(c0, c1), "") << cfg.str();
    EXPECT_EQ(gpu::cutlass_b2b_config(c0, c1).str(), cfg.str());
  }
  EXPECT_EQ(gpu::cutlass_b2b_configs().front().str(), "b2b 64ch rf 64px 2w");
}

TEST(CutlassB2b, RefusesWhatTheFusionCannotRun) {
  const gpu::Conv2dShape c0 = conv_shape(2, 64, 14, 64, 3, 1, 1);
  // A second 3x3 conv needs a halo of the first's output.
  EXPECT_NE(gpu::cutlass_b2b_unsupported(c0, conv_shape(2, 64, 14, 64, 3, 1, 1)).find("1x1"),
            std::string::npos);
  // conv1 must read conv0's output.
  EXPECT_NE(gpu::cutlass_b2b_unsupported(c0, conv_shape(2, 64, 7, 64, 1, 1, 0))
                .find("not conv0's output"),
            std::string::npos);
  // Unequal widths and widths without an instantiation.
  EXPECT_NE(
      gpu::cutlass_b2b_unsupported(c0, conv_shape(2, 64, 14, 128, 1, 1, 0)).find("equal widths"),
      std::string::npos);
  const gpu::Conv2dShape wide = conv_shape(2, 64, 14, 1024, 3, 1, 1);
  const std::string why =
      gpu::cutlass_b2b_unsupported(wide, conv_shape(2, 1024, 14, 1024, 1, 1, 0));
  EXPECT_NE(why.find("64, 128, 256, 512"), std::string::npos) << why;
  EXPECT_THROW((void)gpu::cutlass_b2b_config(wide, conv_shape(2, 1024, 14, 1024, 1, 1, 0)), Error);
  // conv0's own refusal is named as conv0's.
  EXPECT_NE(gpu::cutlass_b2b_unsupported(conv_shape(2, 3, 14, 64, 3, 1, 1),
                                         conv_shape(2, 64, 14, 64, 1, 1, 0))
                .rfind("conv0: ", 0),
            std::string::npos);
}

TEST(CutlassGemmSoftmax, ShapeChecks) {
  const gpu::CutlassSoftmaxTile t = gpu::cutlass_gemm_softmax_tiles().front();
  EXPECT_EQ(t.str(), "cutlass 32x128");
  EXPECT_EQ(gpu::cutlass_gemm_softmax_tiles().back().str(), "cutlass 64x128");
  EXPECT_EQ(gpu::cutlass_gemm_softmax_unsupported(t, 98304, 128, 64), "");
  EXPECT_EQ(gpu::cutlass_gemm_softmax_unsupported(t, 5, 1, 1), "");
  EXPECT_NE(gpu::cutlass_gemm_softmax_unsupported(t, 98304, 129, 64).find("exceed"),
            std::string::npos);
  EXPECT_NE(gpu::cutlass_gemm_softmax_unsupported({16, 64}, 10, 10, 10).find("not instantiated"),
            std::string::npos);
  EXPECT_NE(gpu::cutlass_gemm_softmax_unsupported(t, 0, 10, 10).find("positive"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// On a GPU: every kernel against the CPU reference
// ---------------------------------------------------------------------------------------------

// FP16 kernels: the testbed on operands rounded to FP16. launches < 0: not checked.
void expect_f16_passes(const Graph& g, const gpu::KernelRunner& run, const std::string& config,
                       int64_t launches) {
  const TensorValues feeds = gpu::round_values_to_f16(make_graph_feeds(g, {}, kSeed));
  const gpu::KernelCheck c = gpu::check_kernel(g, run, kSeed, gpu::kGpuF16Tolerance, feeds);
  EXPECT_TRUE(c.passed) << config << "\n" << c.str(g);
  if (launches >= 0) {
    EXPECT_EQ(c.launches, launches) << config;
  }
}

void expect_f32_passes(const Graph& g, const gpu::KernelRunner& run, const std::string& config,
                       int64_t launches) {
  const gpu::KernelCheck c = gpu::check_kernel(g, run, kSeed);
  EXPECT_TRUE(c.passed) << config << "\n" << c.str(g);
  EXPECT_EQ(c.launches, launches) << config;
}

gpu::DeviceBuffer f16_buffer(int64_t elements) {
  return gpu::DeviceBuffer(static_cast<size_t>(elements) * sizeof(uint16_t));
}
uint16_t* f16(const gpu::DeviceBuffer& b) {
  return static_cast<uint16_t*>(b.data());
}

TEST(BlasGemm, GemmWithBiasAndReluEqualsCpu) {
  // Gemm(A, B^T, bias) with transB (a Linear layer), then ReLU in cuBLASLt's epilogue.
  const int64_t m = 70, n = 45, k = 37;
  Graph g;
  const int a = g.add_input("A", {m, k});
  const int y =
      add(g, OpKind::Gemm, "fc", {a, g.add_weight("W", {n, k}), g.add_weight("bias", {n})},
          Attributes({{"transB", int64_t{1}}}));
  g.mark_output(add(g, OpKind::Relu, "relu", {y}));
  run_cpu_reference(g, kSeed);
  DGS_REQUIRE_GPU();
  gpu::BlasContext blas;
  expect_f32_passes(
      g,
      [&](KernelLauncher& l, const DeviceTensors& d) {
        gpu::Epilogue e;
        e.bias = d.at("bias");
        e.act = gpu::Activation::Relu;
        gpu::blas_gemm(l, blas, 1, m, n, k, gpu::row_major(d.at("A"), k),
                       gpu::MatrixArg{d.at("W"), 1, k, 0}, gpu::row_major_out(d.at("relu:0"), n),
                       e);
      },
      "cuBLASLt gemm + bias + relu", 1);
}

TEST(BlasGemm, TransposedAAlphaAndResidualEqualCpu) {
  // Gemm(A^T, B, C) with transA, alpha 0.5 and a full [m x n] C (the residual, beta 1).
  const int64_t m = 33, n = 20, k = 50;
  Graph g;
  const int a = g.add_input("A", {k, m});
  g.mark_output(add(g, OpKind::Gemm, "gemm",
                    {a, g.add_weight("B", {k, n}), g.add_input("C", {m, n})},
                    Attributes({{"transA", int64_t{1}}, {"alpha", 0.5}})));
  run_cpu_reference(g, kSeed);
  DGS_REQUIRE_GPU();
  gpu::BlasContext blas;
  expect_f32_passes(
      g,
      [&](KernelLauncher& l, const DeviceTensors& d) {
        gpu::Epilogue e;
        e.alpha = 0.5f;
        e.residual = d.at("C");
        gpu::blas_gemm(l, blas, 1, m, n, k, gpu::MatrixArg{d.at("A"), 1, m, 0},
                       gpu::row_major(d.at("B"), n), gpu::row_major_out(d.at("gemm:0"), n), e);
      },
      "cuBLASLt gemm transA alpha residual", 1);
}

TEST(BlasGemm, BatchedAndBroadcastMatMulEqualCpu) {
  const int64_t b = 3, m = 17, n = 40, k = 24;
  Graph g;
  const int a = g.add_input("A", {b, m, k});
  g.mark_output(add(g, OpKind::MatMul, "mm", {a, g.add_weight("B", {k, n})}));
  run_cpu_reference(g, kSeed);
  DGS_REQUIRE_GPU();
  gpu::BlasContext blas;
  for (int rep = 0; rep < 2; ++rep)  // the second run reuses the cached plan
    expect_f32_passes(
        g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          gpu::blas_gemm(l, blas, b, m, n, k, gpu::row_major(d.at("A"), k, m * k),
                         gpu::row_major(d.at("B"), n, 0),
                         gpu::row_major_out(d.at("mm:0"), n, m * n));
        },
        "cuBLASLt batched matmul, B broadcast", 1);
}

TEST(BlasGemm, CublasSgemmEqualsCpu) {
  const int64_t m = 65, n = 31, k = 48;
  Graph g;
  const int a = g.add_input("A", {m, k});
  g.mark_output(add(g, OpKind::MatMul, "mm", {a, g.add_weight("B", {k, n})}));
  run_cpu_reference(g, kSeed);
  DGS_REQUIRE_GPU();
  gpu::BlasContext blas;
  expect_f32_passes(
      g,
      [&](KernelLauncher& l, const DeviceTensors& d) {
        gpu::cublas_sgemm(l, blas, m, n, k, d.at("A"), d.at("B"), d.at("mm:0"));
      },
      "cublasSgemm", 1);
}

// x [n, c, hw, hw] -> conv k x k (no bias) -> ReLU (or not).
Graph conv_relu(int64_t n, int64_t c, int64_t hw, int64_t out_c, int64_t k, int64_t stride,
                int64_t pad, bool relu) {
  Graph g;
  g.name = "conv_relu";
  const int x = g.add_input("x", {n, c, hw, hw});
  const int y = conv(g, "conv", x, out_c, k, pad, stride, false);
  g.mark_output(relu ? add(g, OpKind::Relu, "relu", {y}) : y);
  return g;
}

enum class ConvLib { Cutlass, Cudnn };

void check_f16_conv(const Graph& g, bool relu, ConvLib lib, const std::string& config) {
  const gpu::Conv2dShape s = gpu::conv2d_shape_of(g, 0);  // op 0 is the conv
  const std::string out = relu ? "relu:0" : "conv:0";
  gpu::Stream cudnn_stream;
  std::unique_ptr<gpu::CudnnConvF16> cudnn;
  if (lib == ConvLib::Cudnn) cudnn = std::make_unique<gpu::CudnnConvF16>(cudnn_stream);
  expect_f16_passes(
      g,
      [&](KernelLauncher& l, const DeviceTensors& d) {
        const gpu::DeviceBuffer x = f16_buffer(s.n * s.c * s.h * s.w);
        const gpu::DeviceBuffer w = f16_buffer(s.out_c * s.c * s.r * s.s);
        const gpu::DeviceBuffer y = f16_buffer(s.n * s.out_c * s.out_h * s.out_w);
        gpu::nchw_f32_to_nhwc_f16(l, s.n, s.c, s.h, s.w, d.at("x"), f16(x));
        gpu::nchw_f32_to_nhwc_f16(l, s.out_c, s.c, s.r, s.s, d.at("conv.w"), f16(w));
        if (lib == ConvLib::Cutlass) {
          gpu::cutlass_conv2d_f16(l, s, f16(x), f16(w), f16(y), relu);
        } else {
          cudnn->run(l, s, f16(x), f16(w), f16(y), relu);  // searches its algorithm first
          l.reset_count();
          cudnn->run(l, s, f16(x), f16(w), f16(y), relu);
        }
        gpu::nhwc_f16_to_nchw_f32(l, s.n, s.out_c, s.out_h, s.out_w, f16(y), d.at(out));
        l.stream().synchronize();
      },
      // CUTLASS: 3 conversions + 1 kernel. cuDNN: 1 or 2 calls (fused ReLU when its algorithm
      // takes it) + 1 conversion, counted from the reset.
      config, lib == ConvLib::Cutlass ? 4 : -1);
}

TEST(CutlassConv, EveryTileAndWindowEqualsCpu) {
  struct Case {
    int64_t c, hw, out_c, k, stride, pad;
    bool relu;
  };
  const Case cases[] = {{64, 15, 64, 3, 1, 1, true},    // 128x64 tile, partial tiles
                        {64, 15, 128, 3, 2, 1, true},   // 128x128 tile, stride 2
                        {128, 7, 256, 1, 1, 0, false},  // 1x1, no ReLU (threshold -inf)
                        {16, 9, 8, 3, 1, 1, true}};     // narrow channels (multiples of 8)
  for (const Case& c : cases) {
    const Graph g = conv_relu(3, c.c, c.hw, c.out_c, c.k, c.stride, c.pad, c.relu);
    run_cpu_reference(g, kSeed);
  }
  DGS_REQUIRE_GPU();
  for (const Case& c : cases) {
    const Graph g = conv_relu(3, c.c, c.hw, c.out_c, c.k, c.stride, c.pad, c.relu);
    const std::string config = "CUTLASS " +
                               gpu::cutlass_conv2d_f16_kernel(gpu::conv2d_shape_of(g, 0)) + " " +
                               std::to_string(c.k) + "x" + std::to_string(c.k) + " " +
                               std::to_string(c.c) + "->" + std::to_string(c.out_c);
    check_f16_conv(g, c.relu, ConvLib::Cutlass, config);
  }
}

TEST(CudnnConvF16, EqualsCpu) {
  const Graph g = conv_relu(3, 64, 15, 128, 3, 2, 1, true);
  run_cpu_reference(g, kSeed);
  DGS_REQUIRE_GPU();
  check_f16_conv(g, true, ConvLib::Cudnn, "cuDNN FP16 3x3 64->128 stride 2");
  const Graph g1 = conv_relu(2, 128, 7, 128, 1, 1, 0, false);
  check_f16_conv(g1, false, ConvLib::Cudnn, "cuDNN FP16 1x1 no ReLU");
}

TEST(F16Layout, NchwToNhwcAndBackIsExactOnHalfValues) {
  Graph g;
  const int x = g.add_input("x", {2, 24, 5, 7});
  g.mark_output(add(g, OpKind::Identity, "id", {x}));
  run_cpu_reference(g, kSeed);
  DGS_REQUIRE_GPU();
  const TensorValues feeds = gpu::round_values_to_f16(make_graph_feeds(g, {}, kSeed));
  const gpu::KernelCheck c = gpu::check_kernel(
      g,
      [&](KernelLauncher& l, const DeviceTensors& d) {
        const gpu::DeviceBuffer h = f16_buffer(2 * 24 * 5 * 7);
        gpu::nchw_f32_to_nhwc_f16(l, 2, 24, 5, 7, d.at("x"), f16(h));
        gpu::nhwc_f16_to_nchw_f32(l, 2, 24, 5, 7, f16(h), d.at("id:0"));
        l.stream().synchronize();
      },
      kSeed, Tolerance{0, 0}, feeds);
  EXPECT_TRUE(c.passed) << c.str(g);
  EXPECT_EQ(c.launches, 2);
}

// x -> conv3x3 (stride) + ReLU -> conv1x1 + ReLU, both `width` channels out.
Graph two_convs(int64_t n, int64_t c, int64_t hw, int64_t width, int64_t stride) {
  Graph g;
  g.name = "two_convs";
  const int x = g.add_input("x", {n, c, hw, hw});
  const int a = add(g, OpKind::Relu, "relu0", {conv(g, "conv0", x, width, 3, 1, stride, false)});
  g.mark_output(add(g, OpKind::Relu, "relu1", {conv(g, "conv1", a, width, 1, 0, 1, false)}));
  return g;
}

TEST(CutlassB2b, EveryInstantiationEqualsCpu) {
  for (const gpu::B2bConvConfig& cfg : gpu::cutlass_b2b_configs())
    run_cpu_reference(two_convs(2, 64, 9, cfg.width, 2), kSeed);
  DGS_REQUIRE_GPU();
  for (const gpu::B2bConvConfig& cfg : gpu::cutlass_b2b_configs()) {
    for (int64_t stride : {1, 2}) {
      // 2 x 9 x 9 = 162 output pixels at stride 1: the 64-pixel tiles end partially.
      const Graph g = two_convs(2, 64, 9, cfg.width, stride);
      const gpu::Conv2dShape c0 = gpu::conv2d_shape_of(g, 0);
      const gpu::Conv2dShape c1 = gpu::conv2d_shape_of(g, 2);
      ASSERT_EQ(gpu::cutlass_b2b_config(c0, c1).str(), cfg.str());
      expect_f16_passes(
          g,
          [&](KernelLauncher& l, const DeviceTensors& d) {
            const gpu::DeviceBuffer x = f16_buffer(c0.n * c0.c * c0.h * c0.w);
            const gpu::DeviceBuffer w0 = f16_buffer(c0.out_c * c0.c * 9);
            const gpu::DeviceBuffer w1 = f16_buffer(c1.out_c * c1.c);
            const gpu::DeviceBuffer y = f16_buffer(c1.n * c1.out_c * c1.out_h * c1.out_w);
            gpu::nchw_f32_to_nhwc_f16(l, c0.n, c0.c, c0.h, c0.w, d.at("x"), f16(x));
            gpu::nchw_f32_to_nhwc_f16(l, c0.out_c, c0.c, 3, 3, d.at("conv0.w"), f16(w0));
            gpu::nchw_f32_to_nhwc_f16(l, c1.out_c, c1.c, 1, 1, d.at("conv1.w"), f16(w1));
            gpu::cutlass_b2b_conv2d_f16(l, c0, c1, f16(x), f16(w0), f16(w1), f16(y));
            gpu::nhwc_f16_to_nchw_f32(l, c1.n, c1.out_c, c1.out_h, c1.out_w, f16(y),
                                      d.at("relu1:0"));
            l.stream().synchronize();
          },
          cfg.str() + " stride " + std::to_string(stride), 5);
    }
  }
}

// D = Softmax(A . B) over rows.
Graph matmul_softmax(int64_t m, int64_t n, int64_t k) {
  Graph g;
  g.name = "matmul_softmax";
  const int a = g.add_input("A", {m, k});
  const int c = add(g, OpKind::MatMul, "mm", {a, g.add_weight("B", {k, n})});
  g.mark_output(add(g, OpKind::Softmax, "softmax", {c}, Attributes({{"axis", int64_t{-1}}})));
  return g;
}

TEST(CutlassGemmSoftmax, EqualsCpuOnFullAndMaskedRows) {
  // 100 rows: the last 32-row tile is partial; 128 columns fill the tile's row, 77 leave 51
  // columns masked out of the softmax.
  const int64_t m = 100, k = 64;
  for (int64_t n : {128, 77}) run_cpu_reference(matmul_softmax(m, n, k), kSeed);
  DGS_REQUIRE_GPU();
  for (int64_t n : {128, 77}) {
    for (const gpu::CutlassSoftmaxTile& t : gpu::cutlass_gemm_softmax_tiles()) {
      expect_f32_passes(
          matmul_softmax(m, n, k),
          [&](KernelLauncher& l, const DeviceTensors& d) {
            gpu::cutlass_gemm_softmax(l, t, m, n, k, d.at("A"), d.at("B"), d.at("softmax:0"));
          },
          t.str() + " n " + std::to_string(n), 1);
    }
  }
}

TEST(LibraryKernels, RefuseUnsupportedArgumentsBeforeTouchingTheGpu) {
  // The host checks run before any launch: the error names the reason.
  const gpu::Conv2dShape bad = conv_shape(2, 3, 14, 64, 3, 1, 1);
  std::string why;
  if (!cuda_gpu_available(&why))
    GTEST_SKIP() << "the entry points need a launcher (a GPU): " << why;
  gpu::Stream s;
  KernelLauncher l(s);
  try {
    gpu::cutlass_conv2d_f16(l, bad, nullptr, nullptr, nullptr, true);
    FAIL() << "an unaligned convolution was launched";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("multiples of 8"), std::string::npos) << e.what();
  }
  EXPECT_EQ(l.launches(), 0);
}

}  // namespace
}  // namespace dgs
