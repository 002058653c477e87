#pragma once
// The arithmetic core of the brick kernels (brick_kernels.cu): the device layout's addressing and
// one Conv + bias (+ ReLU) layer over a box of its output. Plain C++ that nvcc compiles for the
// device and any host compiler for the host, so that the CPU tests run the very code the kernels
// run (tests/cuda/brick_conv_box_test.cpp): on the device the work items of a box are split over
// the block's threads (first = threadIdx.x, step = blockDim.x), on the host one loop does them all.
//
// Loop order: for each output element, the taps (kz, ky, kx) outside and the input channels
// inside, so that the brick addressing (divisions by the brick edge) is done once per tap and the
// inner loop is two loads and a multiply-add with constant strides (C x B^3 layout: channel c of a
// brick is c * B^3 floats after channel 0). The former order (channels outside, taps inside)
// recomputed the brick offset, six integer divisions, for every multiply-add.
#include <cstdint>

#if defined(__CUDACC__)
#define DGS_BRICK_HD __host__ __device__ __forceinline__
#else
#define DGS_BRICK_HD inline
#endif

namespace dgs::gpu::brick {

inline constexpr int kMaxLayers = 8;

struct LayerDev {
  int cin, cout, k, s, p, d, relu;
  int in[3], out[3], gin[3], gout[3];  // spatial extents and brick grids of input and output
  const float* w;                      // [cout, cin, k, k, k]
  const float* b;                      // [cout]
};

// How a source is read: a dense box [c][z][y][x]; bricked and not written during the kernel (the
// read-only cache path); bricked and written by other blocks during the kernel (through L2, which
// is coherent across blocks: the memoized kernel's intermediates).
enum class Source { Dense, BrickedReadOnly, BrickedCoherent };

// Offset of element (c, z, y, x) of a bricked (1, C, D, H, W) tensor: bricks in row-major order
// over the grid g (g[1], g[2] bricks along H and W), C x B^3 floats per brick.
DGS_BRICK_HD int64_t brick_offset(int c, int z, int y, int x, const int* g, int B, int channels) {
  const int64_t brick = (static_cast<int64_t>(z / B) * g[1] + y / B) * g[2] + x / B;
  const int64_t vol = static_cast<int64_t>(B) * B * B;
  return brick * channels * vol + static_cast<int64_t>(c) * vol + ((z % B) * B + (y % B)) * B +
         (x % B);
}

DGS_BRICK_HD float load_readonly(const float* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

DGS_BRICK_HD float load_coherent(const float* p) {
#if defined(__CUDA_ARCH__)
  return __ldcg(p);
#else
  return *p;
#endif
}

// sum over ci of src[ci * src_stride] * w[ci * w_stride], read as `kind` says.
template <Source kind>
DGS_BRICK_HD float channel_dot(const float* src, int64_t src_stride, const float* w,
                               int64_t w_stride, int channels) {
  float acc = 0.0f;
  for (int ci = 0; ci < channels; ++ci) {
    const float a = kind == Source::Dense             ? src[ci * src_stride]
                    : kind == Source::BrickedReadOnly ? load_readonly(src + ci * src_stride)
                                                      : load_coherent(src + ci * src_stride);
    acc += a * load_readonly(w + ci * w_stride);
  }
  return acc;
}

// Layer L over the output box at out_lo with extent out_ext, work items first, first + step, ...
// Source: bricked (src_lo / src_ext unused) or a dense box at src_lo with extent src_ext.
// Destination: bricked (dst_bricked; elements outside the tensor written 0, bricks hold whole
// B^3 boxes) or a dense box at out_lo with extent out_ext.
template <Source kind>
DGS_BRICK_HD void conv_box(const LayerDev& L, int B, const float* src, const int* src_lo,
                           const int* src_ext, float* dst, const int* out_lo, const int* out_ext,
                           bool dst_bricked, int64_t first, int64_t step) {
  const int64_t box = static_cast<int64_t>(out_ext[0]) * out_ext[1] * out_ext[2];
  const int64_t taps = static_cast<int64_t>(L.k) * L.k * L.k;
  const int64_t src_stride = kind == Source::Dense
                                 ? static_cast<int64_t>(src_ext[0]) * src_ext[1] * src_ext[2]
                                 : static_cast<int64_t>(B) * B * B;
  for (int64_t i = first; i < L.cout * box; i += step) {
    const int co = static_cast<int>(i / box);
    const int64_t v = i % box;
    const int oz = out_lo[0] + static_cast<int>(v / (out_ext[1] * out_ext[2]));
    const int oy = out_lo[1] + static_cast<int>((v / out_ext[2]) % out_ext[1]);
    const int ox = out_lo[2] + static_cast<int>(v % out_ext[2]);
    float acc = 0.0f;
    const bool inside = oz < L.out[0] && oy < L.out[1] && ox < L.out[2];
    if (inside) {
      acc = load_readonly(&L.b[co]);
      const float* w_co = L.w + static_cast<int64_t>(co) * L.cin * taps;
      for (int kz = 0; kz < L.k; ++kz) {
        const int z = oz * L.s - L.p + kz * L.d;
        if (z < 0 || z >= L.in[0]) continue;
        for (int ky = 0; ky < L.k; ++ky) {
          const int y = oy * L.s - L.p + ky * L.d;
          if (y < 0 || y >= L.in[1]) continue;
          for (int kx = 0; kx < L.k; ++kx) {
            const int x = ox * L.s - L.p + kx * L.d;
            if (x < 0 || x >= L.in[2]) continue;
            const int64_t at =
                kind == Source::Dense
                    ? (static_cast<int64_t>(z - src_lo[0]) * src_ext[1] + (y - src_lo[1])) *
                              src_ext[2] +
                          (x - src_lo[2])
                    : brick_offset(0, z, y, x, L.gin, B, L.cin);
            acc += channel_dot<kind>(src + at, src_stride, w_co + (kz * L.k + ky) * L.k + kx, taps,
                                     L.cin);
          }
        }
      }
      if (L.relu) acc = acc > 0.0f ? acc : 0.0f;
    }
    if (dst_bricked) {
      const int g[3] = {0, L.gout[1], L.gout[2]};
      dst[brick_offset(co, oz, oy, ox, g, B, L.cout)] = acc;
    } else {
      dst[i] = acc;
    }
  }
}

}  // namespace dgs::gpu::brick
