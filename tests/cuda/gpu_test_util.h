#pragma once
// Helpers shared by the CUDA tests: the GPU guard and small graph builders.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>

#include "common/cuda/device.h"
#include "common/cuda/kernel_testbed.h"
#include "common/exec/executor.h"
#include "common/graph/graph.h"

// Skips the current test, with the reason, where no usable GPU is present.
#define DGS_REQUIRE_GPU()                                        \
  do {                                                           \
    std::string dgs_why_;                                        \
    if (!::dgs::cuda_gpu_available(&dgs_why_)) {                 \
      GTEST_SKIP() << "needs an NVIDIA GPU; here: " << dgs_why_; \
    }                                                            \
  } while (0)

namespace dgs::testing {

// The first output tensor of op `op`.
inline int out0(const Graph& g, int op) {
  return g.op(op).outputs.at(0);
}

// Adds op `kind` named `name` and returns its first output tensor.
inline int add(Graph& g, OpKind kind, const std::string& name, const std::vector<int>& inputs,
               Attributes a = {}) {
  return out0(g, g.add_op(kind, name, inputs, std::move(a)));
}

// Conv2d with a k x k kernel, square padding `pad`, stride `stride`, optional bias.
inline int conv(Graph& g, const std::string& name, int x, int64_t out_c, int64_t k, int64_t pad,
                int64_t stride = 1, bool bias = true, int64_t group = 1) {
  const int64_t in_c = g.tensor(x).shape.at(1);
  std::vector<int> in = {x, g.add_weight(name + ".w", {out_c, in_c / group, k, k})};
  if (bias) in.push_back(g.add_weight(name + ".b", {out_c}));
  return add(g, OpKind::Conv, name, in,
             Attributes({{"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                         {"strides", std::vector<int64_t>{stride, stride}},
                         {"group", group}}));
}

// Runs a kernel test's fragment on the CPU reference, so that the fixture is checked on every
// machine (the GPU comparison skips without a GPU).
inline void run_cpu_reference(const Graph& g, uint64_t seed) {
  const TensorValues ref = run_graph(g, {}, seed);
  for (int t : g.output_tensors()) EXPECT_TRUE(ref.count(t)) << g.tensor(t).name;
}

// check_kernel passes under `config` and launches exactly `expected_launches` kernels.
inline void expect_kernel_passes(const Graph& g, const gpu::KernelRunner& run, uint64_t seed,
                                 const std::string& config, int64_t expected_launches) {
  const gpu::KernelCheck c = gpu::check_kernel(g, run, seed);
  EXPECT_TRUE(c.passed) << config << "\n" << c.str(g);
  EXPECT_EQ(c.launches, expected_launches) << config;
}

// The seed of the GEMM kernel tests, and their two checks with it.
inline constexpr uint64_t kKernelTestSeed = 11;
inline void run_cpu_reference(const Graph& g) {
  run_cpu_reference(g, kKernelTestSeed);
}
inline void expect_passes(const Graph& g, const gpu::KernelRunner& run, const std::string& config,
                          int64_t expected_launches) {
  expect_kernel_passes(g, run, kKernelTestSeed, config, expected_launches);
}

}  // namespace dgs::testing
