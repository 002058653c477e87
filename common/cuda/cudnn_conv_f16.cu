// cuDNN's FP16 NHWC convolution + ReLU (library_kernels.h): the library baseline of the CUTLASS
// FP16 convolutions, in their precision and layout.
#include <cuda_fp16.h>
#include <cudnn.h>

#include <map>
#include <sstream>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/library_kernels.h"

namespace dgs::gpu {

namespace {

// One convolution shape: descriptors, the algorithm, whether the fused call accepts it.
struct F16Conv {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  size_t ws_bytes = 0;
  bool fused_ok = false;
  DeviceBuffer zero_bias;  // FP16 zeros, out_c of them
  F16Conv() {
    DGS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    DGS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    DGS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&bias));
    DGS_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
    DGS_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    DGS_CUDNN_CHECK(cudnnCreateActivationDescriptor(&relu));
  }
  ~F16Conv() {
    cudnnDestroyActivationDescriptor(relu);
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(bias);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
  }
  F16Conv(const F16Conv&) = delete;
  F16Conv& operator=(const F16Conv&) = delete;
};

std::string shape_key(const Conv2dShape& s) {
  std::ostringstream k;
  k << s.n << "x" << s.h << "x" << s.w << "x" << s.c << "*" << s.out_c << "x" << s.r << "x" << s.s
    << " s" << s.stride_h << "," << s.stride_w << " p" << s.pad_top << "," << s.pad_left;
  return k.str();
}

const float kOne = 1.0f, kZero = 0.0f;

}  // namespace

struct CudnnConvF16::Impl {
  cudnnHandle_t handle = nullptr;
  DeviceBuffer workspace;
  std::map<std::string, std::unique_ptr<F16Conv>> convs;
  explicit Impl(size_t ws) : workspace(ws) {}
  ~Impl() {
    convs.clear();
    if (handle) cudnnDestroy(handle);
  }

  F16Conv& prepare(KernelLauncher& l, const Conv2dShape& s, const uint16_t* x, const uint16_t* w,
                   uint16_t* y) {
    std::unique_ptr<F16Conv>& slot = convs[shape_key(s)];
    if (slot) return *slot;
    auto c = std::make_unique<F16Conv>();
    const auto i32 = [](int64_t v) { return static_cast<int>(v); };  // checked < 2^31 before
    DGS_CUDNN_CHECK(cudnnSetTensor4dDescriptor(c->x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, i32(s.n),
                                               i32(s.c), i32(s.h), i32(s.w)));
    DGS_CUDNN_CHECK(cudnnSetTensor4dDescriptor(c->y, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, i32(s.n),
                                               i32(s.out_c), i32(s.out_h), i32(s.out_w)));
    DGS_CUDNN_CHECK(cudnnSetTensor4dDescriptor(c->bias, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 1,
                                               i32(s.out_c), 1, 1));
    DGS_CUDNN_CHECK(cudnnSetFilter4dDescriptor(c->w, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC,
                                               i32(s.out_c), i32(s.c), i32(s.r), i32(s.s)));
    // FP16 operands, FP32 accumulation (cuDNN's "pseudo half" configuration), tensor cores.
    DGS_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(c->conv, i32(s.pad_top), i32(s.pad_left),
                                                    i32(s.stride_h), i32(s.stride_w), 1, 1,
                                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    DGS_CUDNN_CHECK(cudnnSetConvolutionMathType(c->conv, CUDNN_TENSOR_OP_MATH));
    DGS_CUDNN_CHECK(
        cudnnSetActivationDescriptor(c->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    DGS_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
        handle, c->x, x, c->w, w, c->conv, c->y, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
        perf, workspace.data(), workspace.bytes()));
    bool found = false;
    for (int i = 0; i < returned && !found; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > workspace.bytes()) continue;
      c->algo = perf[i].algo;
      c->ws_bytes = perf[i].memory;
      DGS_CUDNN_CHECK(cudnnSetConvolutionMathType(c->conv, perf[i].mathType));
      found = true;
    }
    if (!found)
      throw Error("cuDNN FP16 convolution: no forward algorithm for " + shape_key(s) +
                  " within a workspace of " + std::to_string(workspace.bytes()) + " bytes");
    c->zero_bias = DeviceBuffer(static_cast<size_t>(s.out_c) * sizeof(__half));
    c->zero_bias.fill_bytes(0);
    // Does the fused conv + bias + ReLU call accept this algorithm? Tried once; a refusal means
    // the convolution and the ReLU run as two calls.
    const cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
        handle, &kOne, c->x, x, c->w, w, c->conv, c->algo, workspace.data(), c->ws_bytes, &kZero,
        c->y, y, c->bias, c->zero_bias.data(), c->relu, c->y, y);
    c->fused_ok = st == CUDNN_STATUS_SUCCESS;
    DGS_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(l.stream_handle())));
    slot = std::move(c);
    return *slot;
  }
};

CudnnConvF16::CudnnConvF16(const Stream& stream, size_t workspace_bytes)
    : impl_(std::make_unique<Impl>(workspace_bytes)) {
  DGS_CUDNN_CHECK(cudnnCreate(&impl_->handle));
  DGS_CUDNN_CHECK(cudnnSetStream(impl_->handle, static_cast<cudaStream_t>(stream.handle())));
}

CudnnConvF16::~CudnnConvF16() = default;

void CudnnConvF16::run(KernelLauncher& l, const Conv2dShape& s, const uint16_t* x,
                       const uint16_t* w, uint16_t* y, bool relu) {
  if (std::string why = cutlass_conv2d_f16_unsupported(s); !why.empty())
    throw Error("cuDNN FP16 convolution: " + why);
  if (l.stream_handle() == nullptr)
    throw Error("cuDNN FP16 convolution: the launcher has no stream");
  Impl& m = *impl_;
  DGS_CUDNN_CHECK(cudnnSetStream(m.handle, static_cast<cudaStream_t>(l.stream_handle())));
  F16Conv& c = m.prepare(l, s, x, w, y);
  if (relu && c.fused_ok) {
    DGS_CUDNN_CHECK(cudnnConvolutionBiasActivationForward(
        m.handle, &kOne, c.x, x, c.w, w, c.conv, c.algo, m.workspace.data(), c.ws_bytes, &kZero,
        c.y, y, c.bias, c.zero_bias.data(), c.relu, c.y, y));
    l.count_launch();
    return;
  }
  DGS_CUDNN_CHECK(cudnnConvolutionForward(m.handle, &kOne, c.x, x, c.w, w, c.conv, c.algo,
                                          m.workspace.data(), c.ws_bytes, &kZero, c.y, y));
  l.count_launch();
  if (relu) {
    DGS_CUDNN_CHECK(cudnnActivationForward(m.handle, c.relu, &kOne, c.y, y, &kZero, c.y, y));
    l.count_launch();
  }
}

}  // namespace dgs::gpu
