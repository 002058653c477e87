// The brick microbenchmarks on the device (brick_microbench.h).
#include "common/cuda/brick_microbench.h"
#include "common/cuda/cuda_check.cuh"

namespace dgs::gpu {

namespace {

constexpr int kLineInts = 8;  // one 32-byte line per thread
constexpr int kThreads = 256;

__global__ void private_cas_kernel(int* lines, int64_t threads, int64_t iterations) {
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t >= threads) return;
  int* mine = lines + t * kLineInts;
  int v = 0;
  for (int64_t i = 0; i < iterations; ++i) v = atomicCAS(mine, v, v + 1);
  if (v == -1) mine[1] = v;  // keeps the loop's result live
}

__global__ void brick_conv_kernel(const float* __restrict__ in, const float* __restrict__ w,
                                  const float* __restrict__ b, float* __restrict__ out, int edge,
                                  int channels, int k, int64_t repeats) {
  const int e_in = edge + k - 1;
  const int64_t in_vol = static_cast<int64_t>(channels) * e_in * e_in * e_in;
  const int64_t out_vol = static_cast<int64_t>(channels) * edge * edge * edge;
  const float* x = in + blockIdx.x * in_vol;
  float* y = out + blockIdx.x * out_vol;
  for (int64_t r = 0; r < repeats; ++r)
    for (int64_t i = threadIdx.x; i < out_vol; i += blockDim.x) {
      const int co = static_cast<int>(i / (edge * edge * edge));
      const int v = static_cast<int>(i % (edge * edge * edge));
      const int oz = v / (edge * edge), oy = (v / edge) % edge, ox = v % edge;
      float acc = b[co];
      for (int ci = 0; ci < channels; ++ci)
        for (int kz = 0; kz < k; ++kz)
          for (int ky = 0; ky < k; ++ky)
            for (int kx = 0; kx < k; ++kx)
              acc += x[((static_cast<int64_t>(ci) * e_in + oz + kz) * e_in + oy + ky) * e_in + ox +
                       kx] *
                     w[(((static_cast<int64_t>(co) * channels + ci) * k + kz) * k + ky) * k + kx];
      y[i] = fmaxf(acc, 0.0f);
    }
}

double timed(KernelLauncher& l, const std::function<void()>& launch) {
  Event start, end;
  start.record(l.stream());
  launch();
  end.record(l.stream());
  end.synchronize();
  return elapsed_ms(start, end);
}

}  // namespace

double time_private_cas_ms(KernelLauncher& l, int64_t threads, int64_t iterations) {
  DeviceBuffer lines(static_cast<size_t>(threads * kLineInts) * sizeof(int));
  lines.fill_bytes(0);
  const auto stream = static_cast<cudaStream_t>(l.stream_handle());
  const int blocks = static_cast<int>((threads + kThreads - 1) / kThreads);
  return timed(l, [&] {
    private_cas_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<int*>(lines.data()), threads,
                                                        iterations);
    DGS_CUDA_CHECK_LAUNCH();
    l.count_launch();
  });
}

double time_brick_conv_ms(KernelLauncher& l, int64_t edge, int64_t channels, int64_t kernel,
                          int64_t bricks, int64_t repeats) {
  const int64_t e_in = edge + kernel - 1;
  DeviceBuffer in(static_cast<size_t>(bricks * channels * e_in * e_in * e_in) * sizeof(float));
  DeviceBuffer out(static_cast<size_t>(bricks * channels * edge * edge * edge) * sizeof(float));
  DeviceBuffer w(static_cast<size_t>(channels * channels * kernel * kernel * kernel) *
                 sizeof(float));
  DeviceBuffer b(static_cast<size_t>(channels) * sizeof(float));
  for (DeviceBuffer* x : {&in, &w, &b}) x->fill_bytes(0);
  const auto stream = static_cast<cudaStream_t>(l.stream_handle());
  return timed(l, [&] {
    brick_conv_kernel<<<static_cast<int>(bricks), kThreads, 0, stream>>>(
        in.floats(), w.floats(), b.floats(), out.floats(), static_cast<int>(edge),
        static_cast<int>(channels), static_cast<int>(kernel), repeats);
    DGS_CUDA_CHECK_LAUNCH();
    l.count_launch();
  });
}

}  // namespace dgs::gpu
