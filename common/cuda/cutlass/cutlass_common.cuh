#pragma once
// Internal to the CUTLASS kernels (common/cuda/cutlass/*.cu): the suite's shapes as CUTLASS
// problem sizes and tensor references, and CUTLASS statuses as the suite's one-line errors.
#include <cuda_runtime.h>

#include <string>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/gemm_kernels.h"
#include "common/util/error.h"
#include "cutlass/conv/conv2d_problem_size.h"
#include "cutlass/cutlass.h"
#include "cutlass/layout/tensor.h"
#include "cutlass/numeric_types.h"
#include "cutlass/tensor_ref.h"

namespace dgs::gpu::cutlass_detail {

// Throws "<what>: <CUTLASS status>" unless `st` is kSuccess.
inline void check(cutlass::Status st, const std::string& what) {
  if (st != cutlass::Status::kSuccess)
    throw Error(what + ": CUTLASS says " + cutlass::cutlassGetStatusString(st));
}

// A checked Conv2dShape (cutlass_conv2d_f16_unsupported passed: every size fits an int).
inline cutlass::conv::Conv2dProblemSize conv_problem(const Conv2dShape& s) {
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  return cutlass::conv::Conv2dProblemSize(i(s.n), i(s.h), i(s.w), i(s.c), i(s.out_c), i(s.r),
                                          i(s.s), i(s.out_h), i(s.out_w), i(s.pad_top),
                                          i(s.pad_left), i(s.stride_h), i(s.stride_w), 1, 1,
                                          cutlass::conv::Mode::kCrossCorrelation);
}

using NHWC = cutlass::layout::TensorNHWC;
using HalfRef = cutlass::TensorRef<cutlass::half_t, NHWC>;

// A packed NHWC tensor of FP16 bits [n, h, w, c].
inline HalfRef nhwc_ref(const uint16_t* p, int64_t n, int64_t h, int64_t w, int64_t c) {
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  return HalfRef(reinterpret_cast<cutlass::half_t*>(const_cast<uint16_t*>(p)),
                 NHWC::packed(cutlass::Tensor4DCoord(i(n), i(h), i(w), i(c))));
}

inline cudaStream_t stream_of(const KernelLauncher& l) {
  return static_cast<cudaStream_t>(l.stream_handle());
}

}  // namespace dgs::gpu::cutlass_detail
