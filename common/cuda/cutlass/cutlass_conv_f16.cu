// CUTLASS implicit-GEMM convolution, FP16 NHWC on tensor cores with FP32 accumulation, ReLU in
// the epilogue (library_kernels.h: cutlass_conv2d_f16). Two instantiations of CUTLASS's Ampere
// fprop kernel (optimized iterators, 3-stage cp.async pipeline, mma 16x8x16):
//   128x128x64 threadblock, 64x64 warps   for out_c > 64
//   128x64x64  threadblock, 64x32 warps   for out_c <= 64 (a 128-wide tile would idle half)
// The ReLU is CUTLASS's LinearCombinationRelu; without it the same kernel runs with a threshold
// of -infinity (max(-inf, x) = x), so one instantiation serves both.
#include <limits>

#include "common/cuda/cutlass/cutlass_common.cuh"
#include "common/cuda/library_kernels.h"
#include "cutlass/conv/device/implicit_gemm_convolution.h"
#include "cutlass/conv/kernel/default_conv2d_fprop.h"
#include "cutlass/epilogue/thread/linear_combination_relu.h"
#include "cutlass/gemm/threadblock/threadblock_swizzle.h"

namespace dgs::gpu {

namespace {

using cutlass::half_t;
using namespace cutlass_detail;

template <int TbN, int WarpN>
using ConvF16 = cutlass::conv::device::ImplicitGemmConvolution<
    typename cutlass::conv::kernel::DefaultConv2dFprop<
        half_t, NHWC, half_t, NHWC, half_t, NHWC, float, cutlass::arch::OpClassTensorOp,
        cutlass::arch::Sm80, cutlass::gemm::GemmShape<128, TbN, 64>,
        cutlass::gemm::GemmShape<64, WarpN, 64>, cutlass::gemm::GemmShape<16, 8, 16>,
        cutlass::epilogue::thread::LinearCombinationRelu<
            half_t, 128 / cutlass::sizeof_bits<half_t>::value, float, float,
            cutlass::epilogue::thread::ScaleType::OnlyAlphaScaling>,
        cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<4>, 3,
        cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel>;

template <typename Conv>
void run_conv(KernelLauncher& l, const Conv2dShape& s, const uint16_t* x, const uint16_t* w,
              uint16_t* y, bool relu) {
  const float threshold = relu ? 0.0f : -std::numeric_limits<float>::infinity();
  const HalfRef out = nhwc_ref(y, s.n, s.out_h, s.out_w, s.out_c);
  typename Conv::Arguments args(conv_problem(s), nhwc_ref(x, s.n, s.h, s.w, s.c),
                                nhwc_ref(w, s.out_c, s.r, s.s, s.c), out, out,
                                {1.0f, 0.0f, threshold});
  check(Conv::can_implement(args), "CUTLASS FP16 convolution");
  Conv op;
  check(op.initialize(args, nullptr, stream_of(l)), "CUTLASS FP16 convolution (initialize)");
  check(op.run(stream_of(l)), "CUTLASS FP16 convolution (launch)");
  l.count_launch();
}

}  // namespace

void cutlass_conv2d_f16(KernelLauncher& l, const Conv2dShape& s, const uint16_t* x,
                        const uint16_t* w, uint16_t* y, bool relu) {
  if (std::string why = cutlass_conv2d_f16_unsupported(s); !why.empty())
    throw Error("CUTLASS FP16 convolution: " + why);
  if (s.out_c <= 64) {
    run_conv<ConvF16<64, 32>>(l, s, x, w, y, relu);
  } else {
    run_conv<ConvF16<128, 64>>(l, s, x, w, y, relu);
  }
}

}  // namespace dgs::gpu
