// Brick-layout conversion, the padded and memoized persistent kernels of a 3-D conv chain, and
// the cuDNN per-layer baseline (brick_kernels.h).
#include <algorithm>

#include "common/cuda/brick_conv_box.h"
#include "common/cuda/brick_kernels.h"
#include "common/cuda/cuda_check.cuh"
#include "common/cuda/device.h"

namespace dgs::gpu {

namespace {

constexpr int kThreads = 256;
enum : int { kNotStarted = 0, kInProgress = 1, kComplete = 2 };

using brick::brick_offset;
using brick::LayerDev;
using brick::Source;
static_assert(brick::kMaxLayers == kMaxBrickChainLayers);

struct ChainDev {
  int layers;
  int edge;
  LayerDev layer[kMaxBrickChainLayers];
  float* act[kMaxBrickChainLayers + 1];  // bricked tensors: [0] input, [l] layer l's output
  int* tags[kMaxBrickChainLayers + 1];   // [l] for l >= 1
  int nbricks[kMaxBrickChainLayers + 1];
  unsigned long long* counters;  // [0] compulsory, [1] conflicting
};

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// ---- conversion ------------------------------------------------------------------------------

__global__ void to_bricks_kernel(const float* __restrict__ src, float* __restrict__ dst, int C,
                                 int D, int H, int W, int B, int g1, int g2, int64_t total) {
  const int64_t vol = static_cast<int64_t>(B) * B * B;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t brick = i / (C * vol);
    const int64_t r = i % (C * vol);
    const int c = static_cast<int>(r / vol);
    const int inner = static_cast<int>(r % vol);
    const int bx = static_cast<int>(brick % g2), by = static_cast<int>((brick / g2) % g1),
              bz = static_cast<int>(brick / (static_cast<int64_t>(g1) * g2));
    const int z = bz * B + inner / (B * B), y = by * B + (inner / B) % B, x = bx * B + inner % B;
    dst[i] =
        (z < D && y < H && x < W) ? src[((static_cast<int64_t>(c) * D + z) * H + y) * W + x] : 0.0f;
  }
}

__global__ void from_bricks_kernel(const float* __restrict__ src, float* __restrict__ dst, int C,
                                   int D, int H, int W, int B, int g1, int g2, int64_t total) {
  const int g[3] = {0, g1, g2};
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int x = static_cast<int>(i % W), y = static_cast<int>((i / W) % H),
              z = static_cast<int>((i / (static_cast<int64_t>(W) * H)) % D),
              c = static_cast<int>(i / (static_cast<int64_t>(W) * H * D));
    dst[i] = src[brick_offset(c, z, y, x, g, B, C)];
  }
}

// The input brick range [lo, hi] along dim `i` that output bricks' range [c, c] of layer L needs.
__device__ void dep_range(const LayerDev& L, int B, int c, int i, int* lo, int* hi) {
  const int o_lo = c * B, o_hi = min(c * B + B, L.out[i]) - 1;
  const int in_lo = max(0, o_lo * L.s - L.p);
  const int in_hi = min(L.in[i] - 1, o_hi * L.s - L.p + (L.k - 1) * L.d);
  *lo = in_lo / B;
  *hi = in_lo > in_hi ? *lo - 1 : in_hi / B;
}

// ---- padded bricks
// --------------------------------------------------------------------------------
__global__ void padded_chain_kernel(ChainDev c, float* scratch, int64_t scratch_floats) {
  __shared__ int lo[kMaxBrickChainLayers + 1][3], ext[kMaxBrickChainLayers + 1][3];
  float* buf[2] = {scratch + 2 * scratch_floats * blockIdx.x,
                   scratch + 2 * scratch_floats * blockIdx.x + scratch_floats};
  const int B = c.edge;
  const LayerDev& last = c.layer[c.layers - 1];
  for (int root = blockIdx.x; root < c.nbricks[c.layers]; root += gridDim.x) {
    if (threadIdx.x == 0) {
      const int bc[3] = {root / (last.gout[1] * last.gout[2]), (root / last.gout[2]) % last.gout[1],
                         root % last.gout[2]};
      for (int i = 0; i < 3; ++i) {
        lo[c.layers][i] = bc[i] * B;
        ext[c.layers][i] = B;  // whole brick (the mask part is written 0)
      }
      for (int l = c.layers; l >= 1; --l) {
        const LayerDev& L = c.layer[l - 1];
        for (int i = 0; i < 3; ++i) {
          const int o_hi = min(lo[l][i] + ext[l][i], L.out[i]) - 1;
          const int a = max(0, lo[l][i] * L.s - L.p);
          const int b = min(L.in[i] - 1, o_hi * L.s - L.p + (L.k - 1) * L.d);
          lo[l - 1][i] = a;
          ext[l - 1][i] = max(0, b - a + 1);
        }
        if (l < c.layers)  // intermediates need only in-bound elements
          for (int i = 0; i < 3; ++i) ext[l][i] = max(0, min(ext[l][i], L.out[i] - lo[l][i]));
      }
    }
    __syncthreads();
    for (int l = 1; l <= c.layers; ++l) {
      const bool first = l == 1, final = l == c.layers;
      // The chain's input is not written during the kernel: the read-only cache path.
      float* dst = final ? c.act[l] : buf[l % 2];
      if (first)
        brick::conv_box<Source::BrickedReadOnly>(c.layer[0], B, c.act[0], nullptr, nullptr, dst,
                                                 lo[1], ext[1], final, threadIdx.x, blockDim.x);
      else
        brick::conv_box<Source::Dense>(c.layer[l - 1], B, buf[(l - 1) % 2], lo[l - 1], ext[l - 1],
                                       dst, lo[l], ext[l], final, threadIdx.x, blockDim.x);
      __syncthreads();
    }
  }
}

// ---- memoized bricks
// ------------------------------------------------------------------------------
struct Frame {
  int layer, brick, dep;
};

__global__ void memoized_chain_kernel(ChainDev c) {
  __shared__ Frame stack[kMaxBrickChainLayers + 1];
  __shared__ int sp, action_layer, action_brick;
  const int B = c.edge;
  unsigned long long compulsory = 0, conflicting = 0;  // thread 0's counts
  for (int root = blockIdx.x; root < c.nbricks[c.layers]; root += gridDim.x) {
    if (threadIdx.x == 0) {
      sp = 0;
      if (atomicCAS(&c.tags[c.layers][root], kNotStarted, kInProgress) == kNotStarted) {
        ++compulsory;
        stack[sp++] = {c.layers, root, 0};
      } else {
        ++conflicting;
      }
    }
    __syncthreads();
    while (true) {
      if (threadIdx.x == 0) {
        action_layer = -1;
        while (sp > 0) {
          Frame& f = stack[sp - 1];
          bool pushed = false;
          if (f.layer > 1) {
            const LayerDev& L = c.layer[f.layer - 1];
            const int bc[3] = {f.brick / (L.gout[1] * L.gout[2]), (f.brick / L.gout[2]) % L.gout[1],
                               f.brick % L.gout[2]};
            int dlo[3], dhi[3], n = 1;
            for (int i = 0; i < 3; ++i) {
              dep_range(L, B, bc[i], i, &dlo[i], &dhi[i]);
              n *= max(0, dhi[i] - dlo[i] + 1);
            }
            const int ny = dhi[1] - dlo[1] + 1, nx = dhi[2] - dlo[2] + 1;
            for (; f.dep < n && !pushed; ++f.dep) {
              const int dz = dlo[0] + f.dep / (ny * nx), dy = dlo[1] + (f.dep / nx) % ny,
                        dx = dlo[2] + f.dep % nx;
              const int d = (dz * L.gin[1] + dy) * L.gin[2] + dx;
              int* tag = &c.tags[f.layer - 1][d];
              if (*reinterpret_cast<volatile int*>(tag) == kComplete) continue;
              const int old = atomicCAS(tag, kNotStarted, kInProgress);
              if (old == kNotStarted) {
                ++compulsory;
                stack[sp] = {f.layer - 1, d, 0};
                pushed = true;
              } else {
                ++conflicting;
                if (old == kInProgress) {
                  while (true) {
                    ++conflicting;
                    if (atomicCAS(tag, kComplete, kComplete) == kComplete) break;
                    __nanosleep(64);
                  }
                }
              }
            }
            if (pushed) {
              ++sp;
              continue;
            }
          }
          action_layer = f.layer;
          action_brick = f.brick;
          __threadfence();  // acquire: the dependencies' data before the block reads it
          break;
        }
      }
      __syncthreads();
      if (action_layer < 0) break;
      {
        const LayerDev& L = c.layer[action_layer - 1];
        const int bc[3] = {action_brick / (L.gout[1] * L.gout[2]),
                           (action_brick / L.gout[2]) % L.gout[1], action_brick % L.gout[2]};
        const int lo[3] = {bc[0] * B, bc[1] * B, bc[2] * B}, ext[3] = {B, B, B};
        // Intermediates are written by other blocks during the kernel: read through L2. The
        // chain's input is not: the read-only cache path.
        if (action_layer == 1)
          brick::conv_box<Source::BrickedReadOnly>(L, B, c.act[0], nullptr, nullptr, c.act[1], lo,
                                                   ext, true, threadIdx.x, blockDim.x);
        else
          brick::conv_box<Source::BrickedCoherent>(L, B, c.act[action_layer - 1], nullptr, nullptr,
                                                   c.act[action_layer], lo, ext, true, threadIdx.x,
                                                   blockDim.x);
      }
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) {
        atomicExch(&c.tags[action_layer][action_brick], kComplete);
        ++compulsory;
        --sp;
      }
      __syncthreads();
    }
  }
  if (threadIdx.x == 0) {
    atomicAdd(&c.counters[0], compulsory);
    atomicAdd(&c.counters[1], conflicting);
  }
}

}  // namespace

// ---- host side ---------------------------------------------------------------------------------

// brick_chain_dims and bricked_floats: brick_chain_dims.cpp (host-only, built without CUDA too).

void to_bricks_3d(KernelLauncher& l, const float* ncdhw, float* bricked, int64_t channels,
                  const std::array<int64_t, 3>& dims, int64_t edge) {
  const int64_t total = bricked_floats(channels, dims, edge);
  const int blocks = static_cast<int>(std::min<int64_t>(ceil_div(total, kThreads), 65535));
  to_bricks_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(l.stream_handle())>>>(
      ncdhw, bricked, static_cast<int>(channels), static_cast<int>(dims[0]),
      static_cast<int>(dims[1]), static_cast<int>(dims[2]), static_cast<int>(edge),
      static_cast<int>(ceil_div(dims[1], edge)), static_cast<int>(ceil_div(dims[2], edge)), total);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void from_bricks_3d(KernelLauncher& l, const float* bricked, float* ncdhw, int64_t channels,
                    const std::array<int64_t, 3>& dims, int64_t edge) {
  const int64_t total = channels * dims[0] * dims[1] * dims[2];
  const int blocks = static_cast<int>(std::min<int64_t>(ceil_div(total, kThreads), 65535));
  from_bricks_kernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(l.stream_handle())>>>(
      bricked, ncdhw, static_cast<int>(channels), static_cast<int>(dims[0]),
      static_cast<int>(dims[1]), static_cast<int>(dims[2]), static_cast<int>(edge),
      static_cast<int>(ceil_div(dims[1], edge)), static_cast<int>(ceil_div(dims[2], edge)), total);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

struct BrickChainRunner::Impl {
  std::vector<BrickConvLayer> layers;
  std::vector<std::array<int64_t, 3>> dims;
  int64_t edge = 0;
  int blocks = 0;
  std::vector<DeviceBuffer> acts, tags;
  DeviceBuffer counters, scratch;
  int64_t scratch_floats = 0;
  ChainDev dev{};
  int64_t tagged = 0;
};

BrickChainRunner::BrickChainRunner(std::vector<BrickConvLayer> layers,
                                   std::array<int64_t, 3> input_dims, int64_t edge, int blocks)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (layers.empty() || layers.size() > static_cast<size_t>(kMaxBrickChainLayers))
    throw Error("brick chain: 1.." + std::to_string(kMaxBrickChainLayers) + " layers, got " +
                std::to_string(layers.size()));
  m.layers = std::move(layers);
  m.dims = brick_chain_dims(m.layers, input_dims);
  m.edge = edge;
  cudaDeviceProp prop{};
  DGS_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  m.blocks = blocks > 0 ? blocks : 4 * prop.multiProcessorCount;
  ChainDev& d = m.dev;
  d.layers = static_cast<int>(m.layers.size());
  d.edge = static_cast<int>(edge);
  auto grid = [&](const std::array<int64_t, 3>& x, int i) {
    return static_cast<int>(ceil_div(x[static_cast<size_t>(i)], edge));
  };
  m.acts.emplace_back(
      static_cast<size_t>(bricked_floats(m.layers[0].in_channels, m.dims[0], edge)) *
      sizeof(float));
  d.act[0] = m.acts.back().floats();
  d.nbricks[0] = grid(m.dims[0], 0) * grid(m.dims[0], 1) * grid(m.dims[0], 2);
  // Interior padded extents (for the scratch size): B, then s(E-1) + d(k-1) + 1 per layer.
  int64_t e = edge, scratch = 0;
  for (size_t l = m.layers.size(); l-- > 0;) {
    const BrickConvLayer& L = m.layers[l];
    scratch = std::max(scratch, L.out_channels * e * e * e);
    e = L.stride * (e - 1) + L.dilation * (L.kernel - 1) + 1;
  }
  m.scratch_floats = scratch;
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const BrickConvLayer& L = m.layers[l];
    LayerDev& x = d.layer[l];
    x = {static_cast<int>(L.in_channels),
         static_cast<int>(L.out_channels),
         static_cast<int>(L.kernel),
         static_cast<int>(L.stride),
         static_cast<int>(L.pad),
         static_cast<int>(L.dilation),
         L.relu ? 1 : 0,
         {},
         {},
         {},
         {},
         L.weight,
         L.bias};
    for (int i = 0; i < 3; ++i) {
      x.in[i] = static_cast<int>(m.dims[l][static_cast<size_t>(i)]);
      x.out[i] = static_cast<int>(m.dims[l + 1][static_cast<size_t>(i)]);
      x.gin[i] = grid(m.dims[l], i);
      x.gout[i] = grid(m.dims[l + 1], i);
    }
    const int n = x.gout[0] * x.gout[1] * x.gout[2];
    m.acts.emplace_back(static_cast<size_t>(bricked_floats(L.out_channels, m.dims[l + 1], edge)) *
                        sizeof(float));
    d.act[l + 1] = m.acts.back().floats();
    m.tags.emplace_back(static_cast<size_t>(n) * sizeof(int));
    d.tags[l + 1] = static_cast<int*>(m.tags.back().data());
    d.nbricks[l + 1] = n;
    m.tagged += n;
  }
  m.counters = DeviceBuffer(2 * sizeof(unsigned long long));
  d.counters = static_cast<unsigned long long*>(m.counters.data());
  m.scratch = DeviceBuffer(static_cast<size_t>(2 * m.scratch_floats * m.blocks) * sizeof(float));
}

BrickChainRunner::~BrickChainRunner() = default;

float* BrickChainRunner::bricked_input() const {
  return impl_->dev.act[0];
}
void BrickChainRunner::use_bricked_input(float* bricked) {
  impl_->dev.act[0] = bricked;
}
float* BrickChainRunner::bricked_output() const {
  return impl_->dev.act[impl_->dev.layers];
}
const std::vector<std::array<int64_t, 3>>& BrickChainRunner::dims() const {
  return impl_->dims;
}

void BrickChainRunner::run_padded(KernelLauncher& l) {
  Impl& m = *impl_;
  padded_chain_kernel<<<m.blocks, kThreads, 0, static_cast<cudaStream_t>(l.stream_handle())>>>(
      m.dev, m.scratch.floats(), m.scratch_floats);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void BrickChainRunner::run_memoized(KernelLauncher& l) {
  Impl& m = *impl_;
  const auto stream = static_cast<cudaStream_t>(l.stream_handle());
  for (DeviceBuffer& t : m.tags) DGS_CUDA_CHECK(cudaMemsetAsync(t.data(), 0, t.bytes(), stream));
  DGS_CUDA_CHECK(cudaMemsetAsync(m.counters.data(), 0, m.counters.bytes(), stream));
  memoized_chain_kernel<<<m.blocks, kThreads, 0, stream>>>(m.dev);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

BrickAtomicCounts BrickChainRunner::atomic_counts() const {
  device_synchronize();
  unsigned long long c[2] = {0, 0};
  impl_->counters.download(c, sizeof c);
  return {static_cast<int64_t>(c[0]), static_cast<int64_t>(c[1]), impl_->tagged};
}

}  // namespace dgs::gpu
