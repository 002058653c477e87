// The suite's own data-movement, element-wise and pooling kernels (see tensor_kernels.h).
#include "common/cuda/tensor_kernels.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/cuda/cuda_check.cuh"

namespace dgs::gpu {

namespace {

constexpr int kThreads = 256;                     // threads per block of the grid-stride kernels
constexpr int64_t kMaxBlocks = int64_t{1} << 20;  // grid-stride loops cover the rest

struct IndexMap {  // passed by value: dims and up to three operand stride sets
  int rank = 0;
  int64_t dims[kMaxKernelRank] = {};
  int64_t s0[kMaxKernelRank] = {};
  int64_t s1[kMaxKernelRank] = {};
  int64_t s2[kMaxKernelRank] = {};
  int64_t o0 = 0, o1 = 0, o2 = 0;
  int64_t n = 1;
};

IndexMap make_map(const std::vector<int64_t>& dims, const StridedView* v0, const StridedView* v1,
                  const StridedView* v2, const char* what) {
  if (dims.size() > static_cast<size_t>(kMaxKernelRank)) {
    throw Error(std::string(what) + ": rank " + std::to_string(dims.size()) +
                "; expected <= " + std::to_string(kMaxKernelRank));
  }
  IndexMap m;
  m.rank = static_cast<int>(dims.size());
  const std::vector<int64_t> contiguous = contiguous_strides(dims);
  const StridedView* views[3] = {v0, v1, v2};
  int64_t* strides[3] = {m.s0, m.s1, m.s2};
  int64_t* offsets[3] = {&m.o0, &m.o1, &m.o2};
  for (int k = 0; k < 3; ++k) {
    if (views[k] && views[k]->strides.size() != dims.size()) {
      throw Error(std::string(what) + ": view " + std::to_string(k) + " has " +
                  std::to_string(views[k]->strides.size()) + " strides for rank " +
                  std::to_string(dims.size()));
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      strides[k][d] = views[k] ? views[k]->strides[d] : contiguous[d];
    }
    *offsets[k] = views[k] ? views[k]->offset : 0;
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    m.dims[d] = dims[d];
    m.n *= dims[d];
  }
  return m;
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

cudaStream_t stream_of(const KernelLauncher& l) {
  return static_cast<cudaStream_t>(l.stream_handle());
}

__global__ void strided_copy_kernel(IndexMap m, const float* __restrict__ src,
                                    float* __restrict__ dst) {
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < m.n;
       idx += int64_t{gridDim.x} * blockDim.x) {
    int64_t rem = idx, s = m.o0, d = m.o1;
    for (int k = m.rank - 1; k >= 0; --k) {
      const int64_t i = rem % m.dims[k];
      rem /= m.dims[k];
      s += i * m.s0[k];
      d += i * m.s1[k];
    }
    dst[d] = src[s];
  }
}

__global__ void fill_kernel(float* dst, int64_t n, float value) {
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < n;
       idx += int64_t{gridDim.x} * blockDim.x) {
    dst[idx] = value;
  }
}

__device__ float apply_ew(EwOp op, float x, float y, EwParams p) {
  switch (op) {
    case EwOp::Relu:
      return x > 0.0f ? x : 0.0f;
    case EwOp::LeakyRelu:
      return x >= 0.0f ? x : p.alpha * x;
    case EwOp::Sigmoid:
      return 1.0f / (1.0f + expf(-x));
    case EwOp::Tanh:
      return tanhf(x);
    case EwOp::Gelu:
      return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case EwOp::GeluTanh:
      return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
    case EwOp::Erf:
      return erff(x);
    case EwOp::Clip:
      return fminf(fmaxf(x, p.alpha), p.beta);
    case EwOp::Identity:
      return x;
    case EwOp::Exp:
      return expf(x);
    case EwOp::Log:
      return logf(x);
    case EwOp::Sqrt:
      return sqrtf(x);
    case EwOp::Reciprocal:
      return 1.0f / x;
    case EwOp::Neg:
      return -x;
    case EwOp::Abs:
      return fabsf(x);
    case EwOp::HardSigmoid:
      return fmaxf(0.0f, fminf(1.0f, p.alpha * x + p.beta));
    case EwOp::HardSwish:
      return x * fmaxf(0.0f, fminf(1.0f, x / 6.0f + 0.5f));
    case EwOp::Sin:
      return sinf(x);
    case EwOp::Cos:
      return cosf(x);
    case EwOp::Not:
      return x == 0.0f ? 1.0f : 0.0f;
    case EwOp::IsNaN:
      return isnan(x) ? 1.0f : 0.0f;
    case EwOp::Add:
      return x + y;
    case EwOp::Sub:
      return x - y;
    case EwOp::Mul:
      return x * y;
    case EwOp::Div:
      return x / y;
    case EwOp::Pow:
      return powf(x, y);
    case EwOp::Max:
      return fmaxf(x, y);
    case EwOp::Min:
      return fminf(x, y);
    case EwOp::Equal:
      return x == y ? 1.0f : 0.0f;
    case EwOp::And:
      return x != 0.0f && y != 0.0f ? 1.0f : 0.0f;
  }
  return x;
}

__global__ void elementwise_kernel(IndexMap m, EwOp op, EwParams p, bool binary, const float* a,
                                   const float* b, float* out) {
  // No __restrict__: a variadic Max/Min folds into `out`, which then aliases `a`.
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < m.n;
       idx += int64_t{gridDim.x} * blockDim.x) {
    int64_t rem = idx, ia = m.o0, ib = m.o1;
    for (int k = m.rank - 1; k >= 0; --k) {
      const int64_t i = rem % m.dims[k];
      rem /= m.dims[k];
      ia += i * m.s0[k];
      ib += i * m.s1[k];
    }
    out[idx] = apply_ew(op, a[ia], binary ? b[ib] : 0.0f, p);
  }
}

__global__ void where_kernel(IndexMap m, const float* __restrict__ cond,
                             const float* __restrict__ x, const float* __restrict__ y,
                             float* __restrict__ out) {
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < m.n;
       idx += int64_t{gridDim.x} * blockDim.x) {
    int64_t rem = idx, ic = m.o0, ix = m.o1, iy = m.o2;
    for (int k = m.rank - 1; k >= 0; --k) {
      const int64_t i = rem % m.dims[k];
      rem /= m.dims[k];
      ic += i * m.s0[k];
      ix += i * m.s1[k];
      iy += i * m.s2[k];
    }
    out[idx] = cond[ic] != 0.0f ? x[ix] : y[iy];
  }
}

__global__ void gather_slices_kernel(const float* __restrict__ src,
                                     const int64_t* __restrict__ offsets, int64_t n, int64_t slice,
                                     float* __restrict__ out) {
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < n;
       idx += int64_t{gridDim.x} * blockDim.x) {
    out[idx] = src[offsets[idx / slice] + idx % slice];
  }
}

__global__ void pool2d_kernel(Pool2dShape s, bool is_max, bool include_pad,
                              const float* __restrict__ x, float* __restrict__ y) {
  const int64_t total = s.n * s.c * s.out_h * s.out_w;
  for (int64_t idx = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; idx < total;
       idx += int64_t{gridDim.x} * blockDim.x) {
    const int64_t ow = idx % s.out_w;
    const int64_t oh = (idx / s.out_w) % s.out_h;
    const int64_t plane = idx / (s.out_w * s.out_h);
    const float* xp = x + plane * s.h * s.w;
    const int64_t h0 = oh * s.sh - s.pad_top, w0 = ow * s.sw - s.pad_left;
    float best = -INFINITY;
    bool any = false;
    double sum = 0.0;
    int64_t count = 0;
    for (int64_t a = 0; a < s.kh; ++a) {
      const int64_t ih = h0 + a * s.dh;
      if (ih < 0 || ih >= s.h) continue;
      for (int64_t b = 0; b < s.kw; ++b) {
        const int64_t iw = w0 + b * s.dw;
        if (iw < 0 || iw >= s.w) continue;
        const float v = xp[ih * s.w + iw];
        if (!any || v > best) best = v;
        any = true;
        sum += v;
        ++count;
      }
    }
    if (is_max) {
      y[idx] = best;
    } else {
      int64_t divisor = count;
      if (include_pad) {
        const int64_t hh = min(h0 + (s.kh - 1) * s.dh + 1, s.h + s.pad_bottom);
        const int64_t ww = min(w0 + (s.kw - 1) * s.dw + 1, s.w + s.pad_right);
        divisor = ((hh - h0 + s.dh - 1) / s.dh) * ((ww - w0 + s.dw - 1) / s.dw);
      }
      y[idx] = divisor > 0 ? static_cast<float>(sum / static_cast<double>(divisor)) : 0.0f;
    }
  }
}

}  // namespace

void strided_copy(KernelLauncher& l, const std::vector<int64_t>& dims, const float* src,
                  const StridedView& src_view, float* dst, const StridedView& dst_view) {
  const IndexMap m = make_map(dims, &src_view, &dst_view, nullptr, "strided_copy");
  if (m.n == 0) return;
  strided_copy_kernel<<<grid_for(m.n), kThreads, 0, stream_of(l)>>>(m, src, dst);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void fill(KernelLauncher& l, float* dst, int64_t count, float value) {
  if (count <= 0) return;
  fill_kernel<<<grid_for(count), kThreads, 0, stream_of(l)>>>(dst, count, value);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void elementwise(KernelLauncher& l, EwOp op, const EwParams& params,
                 const std::vector<int64_t>& out_dims, const float* a, const StridedView& a_view,
                 const float* b, const StridedView& b_view, float* out) {
  const bool binary = ew_is_binary(op);
  if (binary && b == nullptr) throw Error("elementwise: binary operator without a second input");
  const IndexMap m =
      make_map(out_dims, &a_view, binary ? &b_view : nullptr, nullptr, "elementwise");
  if (m.n == 0) return;
  elementwise_kernel<<<grid_for(m.n), kThreads, 0, stream_of(l)>>>(m, op, params, binary, a,
                                                                   binary ? b : a, out);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void where_select(KernelLauncher& l, const std::vector<int64_t>& out_dims, const float* cond,
                  const StridedView& c_view, const float* x, const StridedView& x_view,
                  const float* y, const StridedView& y_view, float* out) {
  const IndexMap m = make_map(out_dims, &c_view, &x_view, &y_view, "where_select");
  if (m.n == 0) return;
  where_kernel<<<grid_for(m.n), kThreads, 0, stream_of(l)>>>(m, cond, x, y, out);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void gather_slices(KernelLauncher& l, const float* src, const int64_t* offsets, int64_t num_slices,
                   int64_t slice, float* out) {
  const int64_t n = num_slices * slice;
  if (n <= 0) return;
  gather_slices_kernel<<<grid_for(n), kThreads, 0, stream_of(l)>>>(src, offsets, n, slice, out);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

void pool2d(KernelLauncher& l, bool is_max, bool count_include_pad, const Pool2dShape& s,
            const float* x, float* y) {
  const int64_t total = s.n * s.c * s.out_h * s.out_w;
  if (total == 0) return;
  pool2d_kernel<<<grid_for(total), kThreads, 0, stream_of(l)>>>(s, is_max, count_include_pad, x, y);
  DGS_CUDA_CHECK_LAUNCH();
  l.count_launch();
}

}  // namespace dgs::gpu
