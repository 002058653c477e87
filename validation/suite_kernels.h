#pragma once
// The suite's own CUDA kernels (common/cuda/*_kernels.h) described for the GPU model's
// suite-kernel families (common/gpumodel/kernel_family.h): each builder states what a launch of
// that kernel is (grid, threads, registers, shared memory, compulsory traffic) and what one
// thread does per step of its main loop, from the kernel's template tile and the problem shape.
// Registers are those ptxas reports for sm_90 (CUDA 13.0); gpu_validate prints them beside its
// results.
#include <cstdint>
#include <vector>

#include "common/cuda/brick_kernels.h"
#include "common/cuda/gemm_kernels.h"
#include "common/cuda/gemm_softmax_kernels.h"
#include "common/cuda/tensor_kernels.h"
#include "common/gpumodel/kernel_family.h"
#include "common/tileprog/tile_program.h"

namespace dgs::validation {

// Registers per thread of each instantiation (ptxas -v, nvcc 13.0, sm_90, -O3).
int gemm_registers(const gpu::GemmTile& t, bool conv);
int gemm_softmax_registers(const gpu::SoftmaxTile& t);
int mlp_chain_registers(int rows_per_block);

// gemm(): C[b] = A[b] (m x k) . B[b] (k x n); `b_batched`: every batch has its own B.
SuiteKernel gemm_kernel(const gpu::GemmTile& t, int64_t batch, int64_t m, int64_t n, int64_t k,
                        bool b_batched = true);
// conv2d_implicit_gemm() with a bias (+ReLU) epilogue.
SuiteKernel conv_kernel(const gpu::GemmTile& t, const gpu::Conv2dShape& s);
// gemm_softmax(): softmax(scale * A[b] . B[b] (+ mask)) over rows of n.
SuiteKernel gemm_softmax_kernel(const gpu::SoftmaxTile& t, int64_t batch, int64_t m, int64_t n,
                                int64_t k, bool b_batched, bool mask);
// row_softmax(): `rows` rows of n, one warp per row.
SuiteKernel row_softmax_kernel(int rows_per_block, int64_t rows, int64_t n, bool mask);
// mlp_chain(): `layers` layers of width 64 (the last `last_out` wide) over `rows` rows.
SuiteKernel mlp_chain_kernel(int rows_per_block, int64_t rows, int layers, int64_t last_out);
// elementwise(): `count` outputs of an op of `inputs` inputs (1 unary, 2 binary).
SuiteKernel elementwise_kernel(int64_t count, int inputs);
// pool2d(): max or average window over NCHW.
SuiteKernel pool2d_kernel(const gpu::Pool2dShape& s);
// One launch of the tile-program interpreter (tile_program_kernel) running `p` on `blocks`
// persistent blocks of kTpThreadsPerBlock (block b runs tiles b, b + blocks, ...): its main-loop
// "steps" are the memory waits of the block's busiest thread (each op's elements over the
// block's threads, each element one wait for its operands plus its reduction loop's waits),
// its instructions and FP32 operations those of that thread (family suite_tile_program).
SuiteKernel tile_program_kernel(const TileProgram& p, int blocks);
// One launch of a brick kernel (brick_kernels.h) over the chain `layers` on a (1, C, dims)
// input with bricks of edge `edge`, on `blocks` persistent blocks of 256 threads (family
// suite_brick_direct): padded (memoized false) computes, per output brick of the last layer,
// every layer's region that brick needs (halos recomputed: interior extents B, then
// s (E - 1) + d (k - 1) + 1 per layer back); memoized computes every brick of every layer once
// (blocks claim bricks as they go: the work spread evenly). One step per multiply-add (an input
// and a weight load), the busiest thread's.
SuiteKernel brick_chain_kernel(const std::vector<gpu::BrickConvLayer>& layers,
                               const std::array<int64_t, 3>& dims, int64_t edge, int blocks,
                               bool memoized);
// The registers ptxas gives padded_chain_kernel and memoized_chain_kernel (nvcc 13.0, sm_90).
inline constexpr int kPaddedBrickRegisters = 72, kMemoizedBrickRegisters = 64;
// The registers ptxas gives tile_program_kernel (nvcc 13.0, sm_90).
inline constexpr int kTileProgramRegisters = 104;

}  // namespace dgs::validation
