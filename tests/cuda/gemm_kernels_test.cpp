// The tiled GEMM and the implicit-GEMM convolution (common/cuda/gemm_kernels.h) against the CPU
// reference executor on random inputs, at every instantiated tile shape, through the one kernel
// testbed (common/cuda/kernel_testbed.h). Sizes are not multiples of the tiles, so the edge tiles
// are exercised. Each fragment is first run on the CPU (everywhere); the GPU comparison skips
// without a GPU.
#include "common/cuda/gemm_kernels.h"

#include <gtest/gtest.h>

#include <string>

#include "common/cuda/kernel_testbed.h"
#include "tests/cuda/gpu_test_util.h"

namespace dgs {
namespace {

using gpu::DeviceTensors;
using gpu::KernelLauncher;
using testing::add;

using testing::expect_passes;
using testing::run_cpu_reference;

// y = act(A . B + bias): the epilogue applied in registers before the one store.
Graph gemm_bias_act(int64_t m, int64_t n, int64_t k, OpKind act) {
  Graph g;
  g.name = "gemm_bias_act";
  const int a = g.add_input("A", {m, k});
  const int mm = add(g, OpKind::MatMul, "mm", {a, g.add_weight("B", {k, n})});
  const int ad = add(g, OpKind::Add, "bias", {mm, g.add_weight("bias", {n})});
  g.mark_output(add(g, act, "act", {ad}));
  return g;
}

TEST(GemmKernels, TiledGemmWithBiasAndActivationEpilogue) {
  for (OpKind act : {OpKind::Relu, OpKind::Gelu}) {
    const int64_t m = 70, n = 45, k = 37;
    const Graph g = gemm_bias_act(m, n, k, act);
    run_cpu_reference(g);
    DGS_REQUIRE_GPU();
    for (const gpu::GemmTile& tile : gpu::gemm_tiles()) {
      expect_passes(
          g,
          [&](KernelLauncher& l, const DeviceTensors& d) {
            gpu::Epilogue e;
            e.bias = d.at("bias");
            e.act = act == OpKind::Relu ? gpu::Activation::Relu : gpu::Activation::Gelu;
            gpu::gemm(l, tile, 1, m, n, k, gpu::row_major(d.at("A"), k),
                      gpu::row_major(d.at("B"), n), gpu::row_major_out(d.at("act:0"), n), e);
          },
          "gemm " + tile.str() + " " + std::string(op_kind_name(act)), 1);
    }
  }
}

TEST(GemmKernels, BatchedGemm) {
  const int64_t b = 3, m = 33, n = 65, k = 20;
  Graph g;
  g.name = "batched_gemm";
  const int a = g.add_input("A", {b, m, k});
  g.mark_output(add(g, OpKind::MatMul, "mm", {a, g.add_input("B", {b, k, n})}));
  run_cpu_reference(g);
  DGS_REQUIRE_GPU();
  for (const gpu::GemmTile& tile : gpu::gemm_tiles()) {
    expect_passes(
        g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          gpu::gemm(l, tile, b, m, n, k, gpu::row_major(d.at("A"), k, m * k),
                    gpu::row_major(d.at("B"), n, k * n),
                    gpu::row_major_out(d.at("mm:0"), n, m * n));
        },
        "batched gemm " + tile.str(), 1);
  }
}

TEST(GemmKernels, GemmWithTransposedWeightAndResidualAdd) {
  const int64_t m = 50, n = 24, k = 40;
  Graph g;
  g.name = "gemm_residual";
  const int a = g.add_input("A", {m, k});
  const int gm = add(g, OpKind::Gemm, "gemm", {a, g.add_weight("W", {n, k})},
                     Attributes({{"transB", int64_t{1}}, {"alpha", 0.5}}));
  g.mark_output(add(g, OpKind::Add, "residual", {gm, g.add_input("R", {m, n})}));
  run_cpu_reference(g);
  DGS_REQUIRE_GPU();
  for (const gpu::GemmTile& tile : gpu::gemm_tiles()) {
    expect_passes(
        g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          gpu::Epilogue e;
          e.alpha = 0.5f;
          e.residual = d.at("R");
          // W is [n, k]: element (kk, col) of B = W^T sits at col * k + kk.
          gpu::gemm(l, tile, 1, m, n, k, gpu::row_major(d.at("A"), k),
                    gpu::MatrixArg{d.at("W"), 1, k, 0}, gpu::row_major_out(d.at("residual:0"), n),
                    e);
        },
        "gemm^T+residual " + tile.str(), 1);
  }
}

// Conv -> Add(residual) -> Relu as one implicit-GEMM kernel with a fused epilogue.
TEST(GemmKernels, ImplicitGemmConvolutionWithEpilogue) {
  Graph g;
  g.name = "conv_residual_relu";
  const int x = g.add_input("x", {2, 5, 9, 11});
  const int c =
      add(g, OpKind::Conv, "conv", {x, g.add_weight("w", {7, 5, 3, 3}), g.add_weight("b", {7})},
          Attributes({{"pads", std::vector<int64_t>{1, 1, 1, 1}},
                      {"strides", std::vector<int64_t>{2, 2}}}));
  const int r = add(g, OpKind::Add, "res", {c, g.add_input("r", {2, 7, 5, 6})});
  g.mark_output(add(g, OpKind::Relu, "relu", {r}));
  ASSERT_EQ(g.tensor(c).shape, (Shape{2, 7, 5, 6}));
  run_cpu_reference(g);
  DGS_REQUIRE_GPU();
  gpu::Conv2dShape s;
  s.n = 2, s.c = 5, s.h = 9, s.w = 11, s.out_c = 7, s.r = 3, s.s = 3, s.out_h = 5, s.out_w = 6;
  s.stride_h = s.stride_w = 2;
  s.pad_top = s.pad_left = 1;
  for (const gpu::GemmTile& tile : gpu::gemm_tiles()) {
    expect_passes(
        g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          gpu::Epilogue e;
          e.bias = d.at("b");
          e.residual = d.at("r");
          e.act = gpu::Activation::Relu;
          gpu::conv2d_implicit_gemm(l, tile, s, d.at("x"), d.at("w"), d.at("relu:0"), e);
        },
        "conv " + tile.str(), 1);
  }
}

// A conv chain: grouped, dilated 3x3 conv then a 1x1 conv, two implicit-GEMM launches.
TEST(GemmKernels, ConvChainOfGroupedDilatedAndPointwiseConvolutions) {
  Graph g;
  g.name = "conv_chain";
  const int x = g.add_input("x", {1, 8, 7, 7});
  const int c1 = add(g, OpKind::Conv, "c1", {x, g.add_weight("w1", {6, 4, 3, 3})},
                     Attributes({{"pads", std::vector<int64_t>{2, 2, 2, 2}},
                                 {"dilations", std::vector<int64_t>{2, 2}},
                                 {"group", int64_t{2}}}));
  const int c2 = add(g, OpKind::Conv, "c2", {c1, g.add_weight("w2", {5, 6, 1, 1})});
  g.mark_output(c2);
  run_cpu_reference(g);
  DGS_REQUIRE_GPU();
  gpu::Conv2dShape s1;
  s1.n = 1, s1.c = 8, s1.h = 7, s1.w = 7, s1.out_c = 6, s1.r = 3, s1.s = 3, s1.out_h = 7,
  s1.out_w = 7;
  s1.pad_top = s1.pad_left = 2;
  s1.dil_h = s1.dil_w = 2;
  s1.groups = 2;
  gpu::Conv2dShape s2;
  s2.n = 1, s2.c = 6, s2.h = 7, s2.w = 7, s2.out_c = 5, s2.out_h = 7, s2.out_w = 7;
  for (const gpu::GemmTile& tile : {gpu::gemm_tiles().front(), gpu::gemm_tiles().back()}) {
    expect_passes(
        g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          gpu::conv2d_implicit_gemm(l, tile, s1, d.at("x"), d.at("w1"), d.at("c1:0"));
          gpu::conv2d_implicit_gemm(l, tile, s2, d.at("c1:0"), d.at("w2"), d.at("c2:0"));
        },
        "conv chain " + tile.str(), 2);
  }
}

TEST(GemmKernels, RefusesTilesThatAreNotInstantiated) {
  DGS_REQUIRE_GPU();
  gpu::Stream st;
  KernelLauncher l(st);
  gpu::DeviceBuffer b(64 * sizeof(float));
  const gpu::MatrixArg a = gpu::row_major(b.floats(), 4);
  try {
    gpu::gemm(l, gpu::GemmTile{16, 16, 4, 2, 2}, 1, 4, 4, 4, a, a,
              gpu::row_major_out(b.floats(), 4));
    FAIL() << "an uninstantiated tile ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("64x64x8/4x4"), std::string::npos) << e.what();
  }
  EXPECT_EQ(l.launches(), 0);
}

}  // namespace
}  // namespace dgs
