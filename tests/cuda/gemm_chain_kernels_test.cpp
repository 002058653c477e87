// Chains of small GEMMs in one kernel (common/cuda/gemm_chain_kernels.h) against the CPU reference
// executor on random inputs at every instantiated row tile, through the one kernel testbed
// (common/cuda/kernel_testbed.h). The GPU comparison skips without a GPU.
#include "common/cuda/gemm_chain_kernels.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/cuda/kernel_testbed.h"
#include "tests/cuda/gpu_test_util.h"

namespace dgs {
namespace {

using gpu::ChainLayer;
using gpu::DeviceTensors;
using gpu::KernelLauncher;
using testing::add;

using testing::expect_passes;
using testing::run_cpu_reference;

// A multilayer perceptron (MatMul Relu ... MatMul in one kernel), 4 layers of 64 features with
// MatMul weights [in, out], a bias on the first layer, 3 outputs.
TEST(GemmChainKernels, MlpChainInOneKernel) {
  const int64_t rows = 300, w = 64;
  Graph g;
  g.name = "mlp";
  int h = g.add_input("x", {rows, w});
  h = add(g, OpKind::MatMul, "mm0", {h, g.add_weight("w0", {w, w})});
  h = add(g, OpKind::Relu, "r0", {add(g, OpKind::Add, "b0", {h, g.add_weight("bias0", {w})})});
  h = add(g, OpKind::Relu, "r1", {add(g, OpKind::MatMul, "mm1", {h, g.add_weight("w1", {w, w})})});
  h = add(g, OpKind::Relu, "r2", {add(g, OpKind::MatMul, "mm2", {h, g.add_weight("w2", {w, w})})});
  g.mark_output(add(g, OpKind::MatMul, "mm3", {h, g.add_weight("w3", {w, 3})}));
  run_cpu_reference(g);
  DGS_REQUIRE_GPU();
  for (int tile : gpu::mlp_chain_tiles()) {
    expect_passes(
        g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          auto layer = [&](const char* wname, int64_t out, const float* bias, gpu::Activation a) {
            // MatMul weight [in, out]: W(o, i) at i * out + o.
            return ChainLayer{d.at(wname), 1, out, bias, w, out, a};
          };
          const std::vector<ChainLayer> layers = {
              layer("w0", w, d.at("bias0"), gpu::Activation::Relu),
              layer("w1", w, nullptr, gpu::Activation::Relu),
              layer("w2", w, nullptr, gpu::Activation::Relu),
              layer("w3", 3, nullptr, gpu::Activation::None)};
          gpu::mlp_chain(l, tile, rows, layers, gpu::RowsArg{d.at("x"), rows, 0, w, 1},
                         gpu::RowsOutArg{d.at("mm3:0"), rows, 0, 3, 1});
        },
        "mlp chain " + std::to_string(tile) + " rows", 1);
  }
}

// Back-to-back 1x1 convolutions on NCHW through the same chain kernel.
TEST(GemmChainKernels, PointwiseConvChainInOneKernel) {
  Graph g;
  g.name = "pw_chain";
  const int x = g.add_input("x", {2, 16, 5, 7});
  const int c0 =
      add(g, OpKind::Conv, "c0", {x, g.add_weight("w0", {32, 16, 1, 1}), g.add_weight("b0", {32})});
  const int r0 = add(g, OpKind::Relu, "r0", {c0});
  g.mark_output(add(g, OpKind::Conv, "c1", {r0, g.add_weight("w1", {8, 32, 1, 1})}));
  run_cpu_reference(g);
  DGS_REQUIRE_GPU();
  for (int tile : gpu::mlp_chain_tiles()) {
    expect_passes(
        g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          const std::vector<ChainLayer> layers = {
              ChainLayer{d.at("w0"), 16, 1, d.at("b0"), 16, 32, gpu::Activation::Relu},
              ChainLayer{d.at("w1"), 32, 1, nullptr, 32, 8, gpu::Activation::None}};
          gpu::pointwise_conv_chain(l, tile, 2, 16, 5, 7, layers, d.at("x"), d.at("c1:0"));
        },
        "pointwise chain " + std::to_string(tile) + " rows", 1);
  }
}

TEST(GemmChainKernels, RefusesRowTilesThatAreNotInstantiated) {
  DGS_REQUIRE_GPU();
  gpu::Stream st;
  KernelLauncher l(st);
  EXPECT_THROW(gpu::mlp_chain(l, 48, 4, {}, {}, {}), Error);
  EXPECT_EQ(l.launches(), 0);
}

}  // namespace
}  // namespace dgs
