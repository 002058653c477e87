#pragma once
// Internal to the CUDA build (included only by common/cuda/*.cu): every CUDA runtime and cuDNN
// call goes through DGS_CUDA_CHECK / DGS_CUDNN_CHECK, which turn a failure into a dgs::Error of
// one line: "<file>:<line>: <call> failed: <error name> (<error string>)".
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>

#include "common/util/error.h"

namespace dgs::gpu::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cudnn_error(cudnnStatus_t st, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, call, file, line);
}
inline void check_cudnn(cudnnStatus_t st, const char* call, const char* file, int line) {
  if (st != CUDNN_STATUS_SUCCESS) throw_cudnn_error(st, call, file, line);
}

}  // namespace dgs::gpu::detail

#define DGS_CUDA_CHECK(expr) ::dgs::gpu::detail::check_cuda((expr), #expr, __FILE__, __LINE__)
#define DGS_CUDNN_CHECK(expr) ::dgs::gpu::detail::check_cudnn((expr), #expr, __FILE__, __LINE__)
// After a <<<...>>> launch: launch-configuration errors surface here, not at the next call.
#define DGS_CUDA_CHECK_LAUNCH() DGS_CUDA_CHECK(cudaGetLastError())
