// Speed of the CPU reference executor's convolution (im2col + Eigen GEMM) on ResNet-50's distinct
// convolution layers (batch 1, one thread), against Eigen's plain GEMM rate on comparable
// matrices. Counters: GFLOP/s (2 * MACs per second, bias excluded).
//
//   bench_exec_conv --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "common/exec/executor.h"

namespace {

using dgs::Attributes;
using dgs::DType;
using dgs::Op;
using dgs::OpKind;
using dgs::TensorData;

// One ResNet-50 (torchvision v1.5: stride in the 3x3 convolutions) conv layer at batch 1.
struct ConvLayer {
  const char* name;
  int64_t c, m, hw, k, stride;
};

constexpr ConvLayer kResNet50Convs[] = {
    {"conv1_7x7_s2", 3, 64, 224, 7, 2},
    {"l1_1x1_64_64", 64, 64, 56, 1, 1},
    {"l1_3x3_64", 64, 64, 56, 3, 1},
    {"l1_1x1_64_256", 64, 256, 56, 1, 1},
    {"l1_1x1_256_64", 256, 64, 56, 1, 1},
    {"l2_1x1_256_128", 256, 128, 56, 1, 1},
    {"l2_3x3_128_s2", 128, 128, 56, 3, 2},
    {"l2_1x1_128_512", 128, 512, 28, 1, 1},
    {"l2_ds_256_512_s2", 256, 512, 56, 1, 2},
    {"l2_1x1_512_128", 512, 128, 28, 1, 1},
    {"l2_3x3_128", 128, 128, 28, 3, 1},
    {"l3_1x1_512_256", 512, 256, 28, 1, 1},
    {"l3_3x3_256_s2", 256, 256, 28, 3, 2},
    {"l3_1x1_256_1024", 256, 1024, 14, 1, 1},
    {"l3_ds_512_1024_s2", 512, 1024, 28, 1, 2},
    {"l3_1x1_1024_256", 1024, 256, 14, 1, 1},
    {"l3_3x3_256", 256, 256, 14, 3, 1},
    {"l4_1x1_1024_512", 1024, 512, 14, 1, 1},
    {"l4_3x3_512_s2", 512, 512, 14, 3, 2},
    {"l4_1x1_512_2048", 512, 2048, 7, 1, 1},
    {"l4_ds_1024_2048_s2", 1024, 2048, 14, 1, 2},
    {"l4_1x1_2048_512", 2048, 512, 7, 1, 1},
    {"l4_3x3_512", 512, 512, 7, 3, 1},
};

void BM_ExecutorConv(benchmark::State& state, ConvLayer L) {
  Eigen::setNbThreads(1);
  const int64_t pad = L.k / 2;
  const TensorData x = dgs::random_tensor({1, L.c, L.hw, L.hw}, DType::F32, 1);
  const TensorData w = dgs::random_tensor({L.m, L.c, L.k, L.k}, DType::F32, 2);
  const TensorData b = dgs::random_tensor({L.m}, DType::F32, 3);
  Op op;
  op.name = L.name;
  op.kind = OpKind::Conv;
  op.attrs.set("strides", std::vector<int64_t>{L.stride, L.stride});
  op.attrs.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  const int64_t out = (L.hw + 2 * pad - L.k) / L.stride + 1;
  for (auto _ : state) {
    auto y = dgs::compute_op(op, {&x, &w, &b}, 1);
    benchmark::DoNotOptimize(y[0].f.data());
  }
  const double flops = 2.0 * static_cast<double>(L.m * out * out * L.c * L.k * L.k);
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::to_string(L.m) + "x" + std::to_string(L.c * L.k * L.k) + "x" +
                 std::to_string(out * out));
}

// Eigen's plain row-major GEMM C[M,N] = A[M,K] * B[K,N], the operation the executor's
// convolution reduces to.
void BM_EigenGemm(benchmark::State& state) {
  Eigen::setNbThreads(1);
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const TensorData a = dgs::random_tensor({m, k}, DType::F32, 1);
  const TensorData bt = dgs::random_tensor({k, n}, DType::F32, 2);
  Eigen::Map<const RowMatrix> am(a.f.data(), m, k), bm(bt.f.data(), k, n);
  RowMatrix c(m, n);
  for (auto _ : state) {
    c.noalias() = am * bm;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(m * n * k) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
}

BENCHMARK(BM_EigenGemm)
    ->Args({512, 512, 512})
    ->Args({64, 576, 3136})   // im2col GEMM of l1_3x3_64
    ->Args({256, 2304, 196})  // im2col GEMM of l3_3x3_256
    ->Args({64, 147, 12544})  // im2col GEMM of conv1_7x7_s2
    ->Unit(benchmark::kMillisecond);

int register_convs() {
  for (const ConvLayer& L : kResNet50Convs) {
    benchmark::RegisterBenchmark((std::string("BM_ExecutorConv/") + L.name).c_str(),
                                 BM_ExecutorConv, L)
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
[[maybe_unused]] const int kRegistered = register_convs();

}  // namespace

BENCHMARK_MAIN();
