#pragma once
// Shared by the no-CUDA stubs: the one error every GPU entry point throws in a build without nvcc.
#include <string>

#include "common/util/error.h"

namespace dgs::gpu {

[[noreturn]] inline void throw_no_cuda(const std::string& what) {
  throw Error(what +
              ": this build has no CUDA support (nvcc was not found at configure time); "
              "rebuild with nvcc and cuDNN to use a GPU");
}

}  // namespace dgs::gpu
