#pragma once
// Operators -> kernels: the kernels a cuDNN-class library launches for each operator, and for
// convolutions merged into one.
#include <string_view>
#include <vector>

#include "common/gpumodel/kernel.h"
#include "common/graph/graph.h"
#include "common/hw/hardware.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Operators -> kernels (the named rules a cuDNN-class library follows)
// ---------------------------------------------------------------------------------------------
// Rules, one per op family (constants in model_internal.h):
//  ImplicitGemm  Conv (not depthwise), ConvTranspose, Gemm, MatMul: output tiles (M x N) of
//                128 x 64, or 64 x 64, or 64 x 32: the largest whose grid has >= one block per SM
//                (else the smallest; no split-K); 256 threads, 126 registers/thread (a profiled
//                cuDNN convolution kernel, whose 48-block launch this rule reproduces),
//                shared memory = double-buffered A/B K-slices of 8 (12 KiB FP32 at 128 x 64);
//                conv: M = N*OH*OW, N = C_out/g, K = C_in/g*KH*KW, grid = g*ceil(M/tm)*ceil(N/tn);
//                matmul: grid = batch*ceil(M/tm)*ceil(N/tn). FLOPs and DRAM bytes (inputs incl.
//                weights + outputs once each; L2 absorbs the re-reads) from op_cost
//                (common/graph/op_cost.h); L2 bytes = DRAM bytes + the tile re-reads: every
//                tile reads its tm x K A-panel and K x tn B-panel; the kernel's tile (tm x tn)
//                feeds the operand rule (kernel.h). Name "<op>:implicit_gemm_TMxTN".
//  DepthwiseDirect  Conv with groups == C_in and C_out a multiple of C_in: 256 threads, one
//                output element per thread, 32 registers, no shared memory.
//  ElementwiseMemory  element-wise, pooling, BatchNorm, Softmax, LayerNorm, reductions, Concat,
//                Split, Slice, Transpose, Pad, Resize, Gather, Expand, ...: 256 threads, one output
//                element per thread, 32 registers, no shared memory; for reductions the grid
//                covers max(outputs, inputs / 16) threads (a thread reads <= 16 inputs).
//  LayoutOnly    Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout: no kernel.
enum class KernelRule : uint8_t { ImplicitGemm, DepthwiseDirect, ElementwiseMemory, LayoutOnly };
std::string_view kernel_rule_name(KernelRule r);
KernelRule kernel_rule_for(const Graph& g, int op);

struct KernelOptions {
  // FP16 convolutions/GEMMs use tensor cores when the GPU has them (peak_tensor_tflops > 0).
  // false: FP16 runs on SIMT FP16 (FP16 "without tensor cores" experiments). FP32 never uses
  // them (cuDNN with CUDNN_DEFAULT_MATH runs FP32 on FMA units).
  bool tensor_cores = true;
  // A Relu whose input is produced by a Conv/ConvTranspose/Gemm/MatMul with no other consumer
  // launches nothing: it runs in that kernel's epilogue (as cudnnConvolutionBiasActivationForward
  // does). The producer's kernel is unchanged (the epilogue costs nothing extra).
  bool fold_activation = false;
};

// Whether op `op` is a Relu that fold_activation removes (see KernelOptions).
bool is_folded_activation(const Graph& g, int op);

// The kernels op `op` launches (empty for layout-only ops). Throws dgs::Error naming the op for a
// kind the rules do not cover.
std::vector<KernelLaunch> kernels_for_op(const Graph& g, int op, const GpuSpec& spec,
                                         const KernelOptions& opts = {});

// Operator merge: convolutions `ops` that read the same input tensor, merged into one
// convolution whose kernel is the largest KH x KW among them (smaller kernels zero-padded, padding
// FLOPs counted), C_out = sum of C_out, output = the concatenation. Requires same input, stride,
// dilation and groups == 1, and "same"-style padding so outputs agree (checked; throws dgs::Error
// naming the op otherwise). Returns the merged conv's kernel (implicit GEMM), whose DRAM bytes
// are input once + zero-padded weights + biases + the outputs; the split back into the original
// outputs is a channel-range view (no copy), so it launches nothing. A single op
// gives kernels_for_op.
std::vector<KernelLaunch> kernels_for_merged_conv(const Graph& g, const std::vector<int>& ops,
                                                  const GpuSpec& spec,
                                                  const KernelOptions& opts = {});

// The kernels of a Merged plan task (operator merge): `ops` holds the convolutions to merge
// (read the same input; see kernels_for_merged_conv) plus, optionally, element-wise ops that run
// in those convolutions' epilogues (is_folded_activation; requires opts.fold_activation, e.g.
// Conv+Relu units that a scheduler merges as one). Each epilogue op must follow (through a chain of
// epilogue ops) a convolution of the task. Returns the merged conv's kernel with `ops` = the task's
// ops. Throws dgs::Error naming the op that is neither.
std::vector<KernelLaunch> kernels_for_merged_task(const Graph& g, const std::vector<int>& ops,
                                                  const GpuSpec& spec,
                                                  const KernelOptions& opts = {});

}  // namespace dgs
