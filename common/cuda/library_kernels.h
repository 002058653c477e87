#pragma once
// Library-class kernels for the measured mode, where the papers' baselines use a vendor library
// (README, "Measured mode", lists which measured item runs which):
//
//   cuBLASLt  blas_gemm          FP32 (batched, strided) GEMM with alpha, per-column bias,
//                                residual add and ReLU in cuBLASLt's epilogue: the stage
//                                executor's Gemm and MatMul (common/cuda/cublas_gemm.cu).
//   cuBLAS    cublas_sgemm       plain cublasSgemm, the baseline the benchmarks compare with.
//   CUTLASS   (common/cuda/cutlass/, the release pinned in cmake/cutlass.cmake)
//             cutlass_conv2d_f16 implicit-GEMM convolution, FP16 NHWC on tensor cores with FP32
//                                accumulation, ReLU in the epilogue (a layer per kernel).
//             cutlass_b2b_conv2d_f16
//                                CUTLASS's back-to-back convolution fusion (its example
//                                13_two_tensor_op_fusion): conv+ReLU -> 1x1 conv+ReLU in one
//                                kernel, the first output kept in registers or shared memory.
//             cutlass_gemm_softmax
//                                FP32 GEMM on CUDA cores (CUTLASS's SIMT main loop) whose
//                                epilogue normalises each whole output row (softmax) before the
//                                single store: GEMM + softmax fused in one kernel.
//   cuDNN     CudnnConvF16       FP16 NHWC convolution + ReLU through
//                                cudnnConvolutionBiasActivationForward (tensor cores, FP32
//                                accumulation): the library baseline of the CUTLASS convolutions
//                                in their precision and layout.
//   layout    nchw_f32_to_nhwc_f16, nhwc_f16_to_nchw_f32: the suite's FP32 NCHW tensors to and
//             from the FP16 NHWC operands of the tensor-core kernels (weights OIHW -> KRSC are the
//             same transform with n = K).
//
// Conventions as gemm_kernels.h: device pointers, the launcher's stream, every kernel (and every
// library call, counted as one) counted on the launcher. FP16 device data is `uint16_t` holding
// IEEE binary16 bits. Each entry point first checks its arguments on the host with the matching
// *_unsupported function below (CUDA-free, compiled in every build and tested without a GPU) and
// throws a one-line dgs::Error with its reason; without CUDA every entry point throws "this build
// has no CUDA support".
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/cuda/gemm_kernels.h"
#include "common/cuda/runtime.h"
#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "common/graph/graph.h"

namespace dgs::gpu {

// The CUTLASS release the kernels are built with: pinned in cmake/cutlass.cmake and
// tools/fetch_cutlass.sh (a test checks that the three agree).
inline constexpr const char* kCutlassVersion = "4.2.0.0";

// ---------------------------------------------------------------------------------------------
// FP16 on the host
// ---------------------------------------------------------------------------------------------
// IEEE binary16 <-> float32, round to nearest even (overflow to infinity, NaN kept NaN).
uint16_t f32_to_f16_bits(float x);
float f16_bits_to_f32(uint16_t h);
inline float round_to_f16(float x) {
  return f16_bits_to_f32(f32_to_f16_bits(x));
}
// Every float32 value of `values` rounded to FP16: the CPU reference of an FP16 kernel runs on
// the same (rounded) operands the kernel reads, so only its accumulation and stores differ.
TensorValues round_values_to_f16(const TensorValues& values);

// Tolerance of FP16-storage kernels (FP16 operands and outputs, FP32 accumulation) against the
// CPU reference on FP16-rounded operands. Every stored FP16 value is rounded by up to 2^-11
// (4.9e-4) of itself; a chain of L layers with FP16 intermediates compounds about L such
// roundings (ResNet18-Tailor: 8 layers) while a wrong index or a missed tile errs by O(1) of the
// suite's He-scaled values. One rule for every FP16 comparison of the suite.
inline constexpr Tolerance kGpuF16Tolerance{1e-2, 1e-2};

// ---------------------------------------------------------------------------------------------
// cuBLASLt GEMM
// ---------------------------------------------------------------------------------------------
// One cuBLAS and one cuBLASLt handle, a cuBLASLt workspace, and the matmul plans (descriptors and
// the heuristic's algorithm) of the GEMM shapes already run. Not thread-safe; one per stream.
class BlasContext {
 public:
  // Throws dgs::Error without a GPU (or without CUDA). allow_tf32: FP32 GEMMs may use TF32
  // tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32); false: FP32 on CUDA cores (CUBLAS_COMPUTE_32F).
  explicit BlasContext(bool allow_tf32 = false);
  ~BlasContext();
  BlasContext(const BlasContext&) = delete;
  BlasContext& operator=(const BlasContext&) = delete;
  bool allow_tf32() const { return allow_tf32_; }
  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  bool allow_tf32_ = false;
  std::unique_ptr<Impl> impl_;
};

// cuBLASLt's workspace per context. Assumption (NVIDIA's guidance for Hopper, not measured):
// 32 MiB lets the heuristic choose every algorithm it has for the suite's shapes.
inline constexpr size_t kBlasWorkspaceBytes = size_t{32} << 20;

// A row-major operand as cuBLAS sees it. cuBLAS is column-major, so the suite computes the
// row-major C = A.B as the column-major C^T = B^T . A^T: a row-major [rows x cols] matrix with
// leading dimension ld is a column-major [cols x rows] one, used untransposed; a transposed view
// (row_stride 1, col_stride ld) is used transposed.
struct BlasOperand {
  bool transpose = false;  // CUBLAS_OP_T on the column-major view
  int64_t ld = 0;          // leading dimension in elements
};
// The operand of a MatrixArg of `rows` x `cols`, or throws dgs::Error naming `name` when neither
// stride is 1 (cuBLAS needs unit stride along one dimension) or the leading dimension is smaller
// than the extent it spans.
BlasOperand blas_operand(const MatrixArg& m, int64_t rows, int64_t cols, const std::string& name);
// The alignment cuBLASLt's heuristic is told a buffer has: the largest power of two up to 256
// dividing its address (its default assumption is 256: a view into a buffer, such as a batch
// slice, could otherwise get an algorithm its alignment does not allow). 256 for nullptr.
uint32_t blas_alignment(const void* p);
// "" when blas_gemm runs this GEMM, else why not: non-positive sizes, an operand without a unit
// stride, an output that is not row-major with unit column stride, a residual with another layout
// than the output (it is cuBLAS's C matrix), a GELU epilogue (cuBLASLt's GELU epilogue does not
// state its formula; the suite's Gelu is the erf form), a bias batch stride other than 0 or n.
std::string blas_gemm_unsupported(int64_t batch, int64_t m, int64_t n, int64_t k,
                                  const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& c,
                                  const Epilogue& e);
// C[b] = epilogue(A[b] (m x k) . B[b] (k x n)), as gemm() (gemm_kernels.h), through cuBLASLt: the
// bias in its BIAS epilogue, ReLU in RELU(_BIAS), the residual as its C matrix with beta = 1.
void blas_gemm(KernelLauncher& l, BlasContext& ctx, int64_t batch, int64_t m, int64_t n, int64_t k,
               const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& c,
               const Epilogue& e = {});
// C = A . B, all row-major and contiguous, through cublasSgemm (the benchmarks' baseline).
void cublas_sgemm(KernelLauncher& l, BlasContext& ctx, int64_t m, int64_t n, int64_t k,
                  const float* a, const float* b, float* c);

// ---------------------------------------------------------------------------------------------
// FP16 NHWC convolutions: CUTLASS, and cuDNN as their baseline
// ---------------------------------------------------------------------------------------------
// The shape fields of Conv2dShape (gemm_kernels.h) hold for NHWC too: input [n, h, w, c],
// weights [out_c, r, s, c] (KRSC), output [n, out_h, out_w, out_c].
//
// "" when cutlass_conv2d_f16 (and cudnn_conv2d_f16) run this convolution, else why not: one
// group, no dilation, symmetric padding (out_h/out_w as the padding gives), channels c and out_c
// multiples of kF16ChannelAlignment (CUTLASS's 128-bit accesses), every tensor under 2^31
// elements (CUTLASS's 32-bit coordinates).
inline constexpr int64_t kF16ChannelAlignment = 8;
// The Conv2dShape of a graph's 2-D Conv op (its NCHW input, OIHW weight and output shapes; padding
// from its begin pads), or throws dgs::Error naming the op when it is not a 2-D convolution.
Conv2dShape conv2d_shape_of(const Graph& g, int op);
std::string cutlass_conv2d_f16_unsupported(const Conv2dShape& s);
// The instantiation cutlass_conv2d_f16 runs for `s`: "fprop 128x64x64" (threadblock tile
// output pixels x output channels x reduction step) for out_c <= 64, else "fprop 128x128x64".
std::string cutlass_conv2d_f16_kernel(const Conv2dShape& s);
void cutlass_conv2d_f16(KernelLauncher& l, const Conv2dShape& s, const uint16_t* x,
                        const uint16_t* w, uint16_t* y, bool relu);

// The back-to-back fusion's instantiations: one per width, conv0's and conv1's output channels
// (CUTLASS's fusion needs the threadblock tile to span every output channel of both convs).
struct B2bConvConfig {
  int64_t width = 0;           // out_c of both convs, at most this
  bool smem_resident = false;  // conv0's tile stitched through shared memory (else registers)
  int tile_m = 0;              // output pixels per threadblock
  int warps = 0;
  std::string str() const;  // "b2b 64ch rf 64px 2w"
};
std::vector<B2bConvConfig> cutlass_b2b_configs();
// The instantiation that runs conv0 -> conv1 (the narrowest whose width holds both convs' output
// channels), or why none does: conv1 not 1x1 with stride 1 and no padding, conv1's input not
// conv0's output, conv0 unsupported by cutlass_conv2d_f16, or wider than every instantiation.
std::string cutlass_b2b_unsupported(const Conv2dShape& conv0, const Conv2dShape& conv1);
B2bConvConfig cutlass_b2b_config(const Conv2dShape& conv0, const Conv2dShape& conv1);  // throws
// y = relu(conv1(relu(conv0(x)))) in one kernel; conv0's output never reaches global memory.
void cutlass_b2b_conv2d_f16(KernelLauncher& l, const Conv2dShape& conv0, const Conv2dShape& conv1,
                            const uint16_t* x, const uint16_t* w0, const uint16_t* w1, uint16_t* y);

// cuDNN's FP16 NHWC convolution + ReLU (bias-free: a zero bias), the algorithm
// cudnnFindConvolutionForwardAlgorithmEx finds fastest once per shape, tensor-core math. Owns
// the cuDNN handle (bound to one stream at construction) and the per-shape plans.
class CudnnConvF16 {
 public:
  explicit CudnnConvF16(const Stream& stream, size_t workspace_bytes = size_t{128} << 20);
  ~CudnnConvF16();
  CudnnConvF16(const CudnnConvF16&) = delete;
  CudnnConvF16& operator=(const CudnnConvF16&) = delete;
  // Same shape rules as cutlass_conv2d_f16; the first call of a shape searches its algorithm
  // (and synchronises the stream), so time it after a warm-up run.
  void run(KernelLauncher& l, const Conv2dShape& s, const uint16_t* x, const uint16_t* w,
           uint16_t* y, bool relu);
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// NCHW float32 [n, c, h, w] -> NHWC FP16 [n, h, w, c], and back.
void nchw_f32_to_nhwc_f16(KernelLauncher& l, int64_t n, int64_t c, int64_t h, int64_t w,
                          const float* x, uint16_t* y);
void nhwc_f16_to_nchw_f32(KernelLauncher& l, int64_t n, int64_t c, int64_t h, int64_t w,
                          const uint16_t* x, float* y);

// ---------------------------------------------------------------------------------------------
// CUTLASS GEMM + softmax epilogue (FP32, CUDA cores)
// ---------------------------------------------------------------------------------------------
// Instantiated tiles: rows per threadblock and the widest row (n_max = the threadblock's N:
// every row lies in one threadblock, so its softmax needs no second pass).
struct CutlassSoftmaxTile {
  int bm = 32, n_max = 128;
  std::string str() const;  // "cutlass 32x128"
  bool operator==(const CutlassSoftmaxTile&) const = default;
};
std::vector<CutlassSoftmaxTile> cutlass_gemm_softmax_tiles();
// "" when the tile runs D = softmax(scale * A . B) for row-major contiguous A [m x k],
// B [k x n], D [m x n]; else why not (n > n_max, sizes not positive or over 2^31 elements).
std::string cutlass_gemm_softmax_unsupported(const CutlassSoftmaxTile& t, int64_t m, int64_t n,
                                             int64_t k);
void cutlass_gemm_softmax(KernelLauncher& l, const CutlassSoftmaxTile& t, int64_t m, int64_t n,
                          int64_t k, const float* a, const float* b, float* d, float scale = 1.0f);

}  // namespace dgs::gpu
