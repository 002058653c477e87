// CUTLASS's back-to-back convolution fusion (library_kernels.h: cutlass_b2b_conv2d_f16): conv0
// (any window) + ReLU, then a 1x1 conv1 + ReLU, in one kernel, FP16 NHWC on tensor cores with
// FP32 accumulation. The fused kernel is CUTLASS's example 13_two_tensor_op_fusion (fetched with
// the headers, cmake/cutlass.cmake):
// a threadblock computes a tile of conv0's output pixels over ALL its channels, rounds it to FP16
// and feeds it to conv1 as the A operand, so conv0's output never reaches global memory.
// Instantiations (the list cutlass_b2b_configs() returns; threadblock N = the width, so every
// output channel of both convs lies in one threadblock, as the fusion requires):
//   64 channels   register-resident: threadblock 64x64x32, warps 32x64 (each warp spans all 64
//                 channels, so conv0's accumulators are conv1's operands in registers), 3 stages
//   128           shared-memory-resident: threadblock 64x128x32, warps 32x64, 3 stages
//   256           shared-memory-resident: threadblock 64x256x32, warps 64x64, 3 stages
//   512           shared-memory-resident: threadblock 64x512x32, warps 64x64, 2 stages (3 would
//                 need 177 KB of shared memory, more than an A100 gives a block)
#include "common/cuda/cutlass/cutlass_common.cuh"
#include "common/cuda/library_kernels.h"
#include "cutlass/conv/kernel/default_conv2d_fprop.h"
#include "cutlass/epilogue/thread/linear_combination_relu.h"
#include "cutlass/gemm/threadblock/threadblock_swizzle.h"
#include "device/b2b_implicit_gemm_convolution.h"

namespace dgs::gpu {

namespace {

using cutlass::half_t;
using namespace cutlass_detail;
using Instruction = cutlass::gemm::GemmShape<16, 8, 16>;

template <int TileM, int Width, int WarpM, int WarpN, int Stages, bool SmemResident>
using B2bConvF16 = cutlass::conv::device::B2bImplicitGemmConvolution<
    typename cutlass::conv::kernel::DefaultB2bConv2dFprop<
        half_t, NHWC, half_t, NHWC, half_t, NHWC, float, cutlass::arch::OpClassTensorOp,
        cutlass::arch::Sm80, cutlass::gemm::GemmShape<TileM, Width, 32>,
        cutlass::gemm::GemmShape<TileM, Width, 32>, cutlass::gemm::GemmShape<WarpM, WarpN, 32>,
        cutlass::gemm::GemmShape<WarpM, WarpN, 32>, Instruction,
        // conv0's epilogue works on the accumulator fragments of one mma instruction.
        cutlass::epilogue::thread::LinearCombinationRelu<
            half_t, Instruction::kM * Instruction::kN / 32, float, float,
            cutlass::epilogue::thread::ScaleType::OnlyAlphaScaling>,
        cutlass::epilogue::thread::LinearCombinationRelu<
            half_t, 128 / cutlass::sizeof_bits<half_t>::value, float, float,
            cutlass::epilogue::thread::ScaleType::OnlyAlphaScaling>,
        cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<1>, Stages,
        cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized,
        SmemResident>::Kernel>;

// conv0's per-channel bias (the fusion always adds one; the suite's convolutions have none):
// zeros for the widest instantiation, allocated once and kept for the process (a device
// allocation per launch would synchronise the device).
const float* zero_bias() {
  static float* zeros = [] {
    void* p = nullptr;
    DGS_CUDA_CHECK(cudaMalloc(&p, 512 * sizeof(float)));
    DGS_CUDA_CHECK(cudaMemset(p, 0, 512 * sizeof(float)));
    return static_cast<float*>(p);
  }();
  return zeros;
}

template <typename B2b>
void run_b2b(KernelLauncher& l, const Conv2dShape& c0, const Conv2dShape& c1, const uint16_t* x,
             const uint16_t* w0, const uint16_t* w1, uint16_t* y) {
  using Kernel = typename B2b::B2bImplicitGemmKernel;
  using BiasRef = typename Kernel::TensorRefScaleBias0;
  using BiasLayout = typename B2b::LayoutScaleBias;
  const BiasRef bias(const_cast<float*>(zero_bias()),
                     BiasLayout::packed({1, static_cast<int>(c0.out_c)}));
  const BiasRef no_scale(nullptr, BiasLayout::packed({1, static_cast<int>(c0.out_c)}));
  const HalfRef out = nhwc_ref(y, c1.n, c1.out_h, c1.out_w, c1.out_c);
  // ReLU on both: threshold 0.
  typename B2b::Arguments args(
      conv_problem(c0), conv_problem(c1), nhwc_ref(x, c0.n, c0.h, c0.w, c0.c),
      nhwc_ref(w0, c0.out_c, c0.r, c0.s, c0.c), out, no_scale, bias,
      nhwc_ref(w1, c1.out_c, 1, 1, c1.c), out, out, {1.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f});
  check(B2b::can_implement(args), "CUTLASS back-to-back convolution");
  B2b op;
  check(op.initialize(args, nullptr, stream_of(l)),
        "CUTLASS back-to-back convolution (initialize)");
  check(op.run(stream_of(l)), "CUTLASS back-to-back convolution (launch)");
  l.count_launch();
}

}  // namespace

void cutlass_b2b_conv2d_f16(KernelLauncher& l, const Conv2dShape& conv0, const Conv2dShape& conv1,
                            const uint16_t* x, const uint16_t* w0, const uint16_t* w1,
                            uint16_t* y) {
  const B2bConvConfig cfg = cutlass_b2b_config(conv0, conv1);  // throws with the reason
  switch (cfg.width) {
    case 64:
      return run_b2b<B2bConvF16<64, 64, 32, 64, 3, false>>(l, conv0, conv1, x, w0, w1, y);
    case 128:
      return run_b2b<B2bConvF16<64, 128, 32, 64, 3, true>>(l, conv0, conv1, x, w0, w1, y);
    case 256:
      return run_b2b<B2bConvF16<64, 256, 64, 64, 3, true>>(l, conv0, conv1, x, w0, w1, y);
    case 512:
      return run_b2b<B2bConvF16<64, 512, 64, 64, 2, true>>(l, conv0, conv1, x, w0, w1, y);
    default:
      throw Error("CUTLASS back-to-back convolution: width " + std::to_string(cfg.width) +
                  " is listed by cutlass_b2b_configs() but not instantiated");
  }
}

}  // namespace dgs::gpu
