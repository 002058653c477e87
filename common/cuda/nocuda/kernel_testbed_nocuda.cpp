// Built when nvcc was not found: the kernel testbed links, and refuses to run.
#include "common/cuda/kernel_testbed.h"
#include "common/cuda/nocuda/nocuda.h"

namespace dgs::gpu {

DeviceTensors::DeviceTensors(const Graph& g, const TensorValues&) : g_(&g) {
  throw_no_cuda("DeviceTensors");
}
float* DeviceTensors::operator[](int) const {
  throw_no_cuda("DeviceTensors");
}
float* DeviceTensors::at(const std::string&) const {
  throw_no_cuda("DeviceTensors");
}
TensorData DeviceTensors::download(int) const {
  throw_no_cuda("DeviceTensors::download");
}

KernelCheck check_kernel(const Graph&, const KernelRunner&, uint64_t, Tolerance,
                         const TensorValues&) {
  throw_no_cuda("check_kernel");
}

}  // namespace dgs::gpu
