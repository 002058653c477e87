// The host-side shapes of a brick chain (brick_kernels.h): plain C++, built with and without CUDA,
// so that the GPU model's brick-kernel cases (validation/suite_kernels.cpp) call the one rule the
// kernels use.
#include "common/cuda/brick_kernels.h"
#include "common/util/error.h"

namespace dgs::gpu {

namespace {
int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
}  // namespace

std::vector<std::array<int64_t, 3>> brick_chain_dims(const std::vector<BrickConvLayer>& layers,
                                                     const std::array<int64_t, 3>& input) {
  std::vector<std::array<int64_t, 3>> dims = {input};
  for (const BrickConvLayer& L : layers) {
    std::array<int64_t, 3> o{};
    for (size_t i = 0; i < 3; ++i)
      o[i] = (dims.back()[i] + 2 * L.pad - L.dilation * (L.kernel - 1) - 1) / L.stride + 1;
    if (o[0] < 1 || o[1] < 1 || o[2] < 1) throw Error("brick chain: a layer's output is empty");
    dims.push_back(o);
  }
  return dims;
}

int64_t bricked_floats(int64_t channels, const std::array<int64_t, 3>& dims, int64_t edge) {
  return ceil_div(dims[0], edge) * ceil_div(dims[1], edge) * ceil_div(dims[2], edge) * channels *
         edge * edge * edge;
}

}  // namespace dgs::gpu
