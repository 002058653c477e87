// GEMM + softmax (common/cuda/gemm_softmax_kernels.h), fused in one kernel and unfused (gemm then
// row_softmax), against the CPU reference executor on random inputs at every instantiated tile,
// through the one kernel testbed (common/cuda/kernel_testbed.h). The GPU comparison skips without
// a GPU.
#include "common/cuda/gemm_softmax_kernels.h"

#include <gtest/gtest.h>

#include <string>

#include "common/cuda/device.h"
#include "common/cuda/gemm_kernels.h"
#include "common/cuda/kernel_testbed.h"
#include "tests/cuda/gpu_test_util.h"

namespace dgs {
namespace {

using gpu::DeviceTensors;
using gpu::KernelLauncher;
using testing::add;

using testing::expect_passes;
using testing::run_cpu_reference;

// Attention scores: MatMul -> Div (scale) -> Add (broadcast mask) -> Softmax.
struct AttentionFragment {
  Graph g;
  int64_t batch, heads, m, n, k;
};
AttentionFragment attention(int64_t batch, int64_t heads, int64_t m, int64_t n, int64_t k) {
  AttentionFragment f{Graph{}, batch, heads, m, n, k};
  Graph& g = f.g;
  g.name = "matmul_softmax";
  const int q = g.add_input("Q", {batch, heads, m, k});
  const int kt = g.add_input("Kt", {batch, heads, k, n});
  const int mm = add(g, OpKind::MatMul, "mm", {q, kt});
  const int dv = add(g, OpKind::Div, "scale", {mm, g.add_constant_floats("eight", {}, {8.0f})});
  const int ad = add(g, OpKind::Add, "mask", {dv, g.add_input("M", {batch, 1, 1, n})});
  g.mark_output(add(g, OpKind::Softmax, "softmax", {ad}, Attributes({{"axis", int64_t{-1}}})));
  return f;
}

TEST(GemmSoftmaxKernels, FusedGemmSoftmaxKeepsTheRowTileInSharedMemory) {
  const AttentionFragment f = attention(2, 3, 20, 50, 16);
  run_cpu_reference(f.g);
  DGS_REQUIRE_GPU();
  for (const gpu::SoftmaxTile& tile : gpu::gemm_softmax_tiles()) {
    expect_passes(
        f.g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          gpu::SoftmaxArgs s;
          s.scale = 1.0f / 8.0f;
          s.mask = d.at("M");
          s.mask_row_div = f.heads * f.m;  // global row b*m + r uses mask row b / heads
          gpu::gemm_softmax(l, tile, f.batch * f.heads, f.m, f.n, f.k,
                            gpu::row_major(d.at("Q"), f.k, f.m * f.k),
                            gpu::row_major(d.at("Kt"), f.n, f.k * f.n),
                            gpu::row_major_out(d.at("softmax:0"), f.n, f.m * f.n), s);
        },
        "gemm+softmax " + tile.str(), 1);
  }
  // A row longer than the tile is refused, not truncated.
  if (cuda_gpu_available(nullptr)) {
    gpu::Stream st;
    KernelLauncher l(st);
    EXPECT_THROW(gpu::gemm_softmax(l, gpu::SoftmaxTile{8, 64, 8, 1, 4}, 1, 4, 65, 4, {}, {}, {}),
                 Error);
  }
}

TEST(GemmSoftmaxKernels, UnfusedGemmThenRowSoftmax) {
  const AttentionFragment f = attention(2, 3, 20, 50, 16);
  run_cpu_reference(f.g);
  DGS_REQUIRE_GPU();
  for (int rows_per_block : {1, 4}) {
    expect_passes(
        f.g,
        [&](KernelLauncher& l, const DeviceTensors& d) {
          gpu::Epilogue e;
          e.alpha = 1.0f / 8.0f;  // the Div fused into the GEMM epilogue
          float* c = d.at("mm:0");
          gpu::gemm(l, gpu::gemm_tiles().front(), f.batch * f.heads, f.m, f.n, f.k,
                    gpu::row_major(d.at("Q"), f.k, f.m * f.k),
                    gpu::row_major(d.at("Kt"), f.n, f.k * f.n),
                    gpu::row_major_out(c, f.n, f.m * f.n), e);
          gpu::SoftmaxArgs s;
          s.mask = d.at("M");
          s.mask_row_div = f.heads * f.m;
          gpu::row_softmax(l, rows_per_block, f.batch * f.heads * f.m, f.n, c, d.at("softmax:0"),
                           s);
        },
        "gemm then softmax, " + std::to_string(rows_per_block) + " rows/block", 2);
  }
}

}  // namespace
}  // namespace dgs
