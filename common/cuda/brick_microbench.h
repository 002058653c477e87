#pragma once
// Synthetic microbenchmarks of the constants of a brick time breakdown (time per atomic, time per
// brick), as device kernels timed with CUDA events:
//   - atomics: `threads` threads, each on its own 32-byte line (no conflicts, no
//     coalescing), each doing `iterations` atomicCAS in a loop; T_atomic = T / (threads x
//     iterations) is the inverse of the aggregate atomic rate;
//   - brick compute: `bricks` independent bricks, one per thread block, each a 3-D
//     convolution (kernel^3, `channels` -> `channels`, bias + ReLU) of an edge^3 output brick
//     from its (edge + kernel - 1)^3 input, repeated `repeats` times; T_brick = T / (bricks x
//     repeats). Bricks could sit in shared memory; here they are in
//     global memory (L2-resident at these sizes), since a 64-channel 8^3 brick is 128 KB.
// CUDA-free header; without CUDA both throw "no CUDA support".
#include <cstdint>

#include "common/cuda/runtime.h"

namespace dgs::gpu {

double time_private_cas_ms(KernelLauncher& l, int64_t threads, int64_t iterations);
double time_brick_conv_ms(KernelLauncher& l, int64_t edge, int64_t channels, int64_t kernel,
                          int64_t bricks, int64_t repeats);

}  // namespace dgs::gpu
