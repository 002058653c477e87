// The cuDNN per-layer baseline of a 3-D convolution chain (cudnn_conv3d.h).
#include <algorithm>
#include <string>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/cudnn_conv3d.h"
#include "common/cuda/device_fault.h"

namespace dgs::gpu {

struct CudnnConv3dChain::Impl {
  std::vector<BrickConvLayer> layers;
  std::vector<std::array<int64_t, 3>> dims;
  cudnnHandle_t handle = nullptr;
  std::vector<cudnnTensorDescriptor_t> tensors;  // dims.size()
  std::vector<cudnnTensorDescriptor_t> biases;
  std::vector<cudnnFilterDescriptor_t> filters;
  std::vector<cudnnConvolutionDescriptor_t> convs;
  cudnnActivationDescriptor_t relu = nullptr;
  std::vector<cudnnConvolutionFwdAlgo_t> algos;
  std::vector<DeviceBuffer> inter;
  DeviceBuffer workspace;
};

CudnnConv3dChain::CudnnConv3dChain(std::vector<BrickConvLayer> layers,
                                   std::array<int64_t, 3> input_dims, const Stream& stream,
                                   bool find_fastest)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.layers = std::move(layers);
  m.dims = brick_chain_dims(m.layers, input_dims);
  DGS_CUDNN_CHECK(cudnnCreate(&m.handle));
  DGS_CUDNN_CHECK(cudnnSetStream(m.handle, static_cast<cudaStream_t>(stream.handle())));
  auto tensor = [](int64_t c, const std::array<int64_t, 3>& d) {
    cudnnTensorDescriptor_t t;
    DGS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&t));
    const int dim[5] = {1, static_cast<int>(c), static_cast<int>(d[0]), static_cast<int>(d[1]),
                        static_cast<int>(d[2])};
    const int stride[5] = {dim[1] * dim[2] * dim[3] * dim[4], dim[2] * dim[3] * dim[4],
                           dim[3] * dim[4], dim[4], 1};
    DGS_CUDNN_CHECK(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 5, dim, stride));
    return t;
  };
  m.tensors.push_back(tensor(m.layers[0].in_channels, m.dims[0]));
  size_t ws = 0;
  DGS_CUDNN_CHECK(cudnnCreateActivationDescriptor(&m.relu));
  DGS_CUDNN_CHECK(
      cudnnSetActivationDescriptor(m.relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const BrickConvLayer& L = m.layers[l];
    if (!L.relu) throw Error("cuDNN 3-D chain: layer " + std::to_string(l) + " has no ReLU");
    m.tensors.push_back(tensor(L.out_channels, m.dims[l + 1]));
    m.biases.push_back(tensor(L.out_channels, {1, 1, 1}));
    cudnnFilterDescriptor_t f;
    DGS_CUDNN_CHECK(cudnnCreateFilterDescriptor(&f));
    const int k = static_cast<int>(L.kernel);
    const int fd[5] = {static_cast<int>(L.out_channels), static_cast<int>(L.in_channels), k, k, k};
    DGS_CUDNN_CHECK(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 5, fd));
    m.filters.push_back(f);
    cudnnConvolutionDescriptor_t cv;
    DGS_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&cv));
    const int p = static_cast<int>(L.pad), s = static_cast<int>(L.stride),
              d = static_cast<int>(L.dilation);
    const int pads[3] = {p, p, p}, strides[3] = {s, s, s}, dil[3] = {d, d, d};
    DGS_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(cv, 3, pads, strides, dil,
                                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    DGS_CUDNN_CHECK(cudnnSetConvolutionMathType(cv, CUDNN_FMA_MATH));
    m.convs.push_back(cv);
    // cuDNN's own algorithm search (every algorithm run once), or its heuristic ranking.
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    if (find_fastest) {
      DGS_CUDNN_CHECK(
          cudnnFindConvolutionForwardAlgorithm(m.handle, m.tensors[l], f, cv, m.tensors[l + 1],
                                               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf));
    } else {
      DGS_CUDNN_CHECK(
          cudnnGetConvolutionForwardAlgorithm_v7(m.handle, m.tensors[l], f, cv, m.tensors[l + 1],
                                                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf));
    }
    AlgorithmCandidate cand[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    const size_t n = static_cast<size_t>(std::max(0, found));
    for (size_t i = 0; i < n; ++i)
      cand[i] = {static_cast<int>(perf[i].algo), perf[i].status == CUDNN_STATUS_SUCCESS};
    const std::string shape = "3-D convolution " + std::to_string(L.in_channels) + "->" +
                              std::to_string(L.out_channels) + " k" + std::to_string(k) + " on " +
                              std::to_string(m.dims[l][0]) + "x" + std::to_string(m.dims[l][1]) +
                              "x" + std::to_string(m.dims[l][2]);
    const cudnnConvolutionFwdAlgo_t algo =
        perf[choose_algorithm(cand, n, shape, "no algorithm succeeded")].algo;
    m.algos.push_back(algo);
    size_t need = 0;
    DGS_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(m.handle, m.tensors[l], f, cv,
                                                            m.tensors[l + 1], algo, &need));
    ws = std::max(ws, need);
    if (l + 1 < m.layers.size())
      m.inter.emplace_back(static_cast<size_t>(L.out_channels * m.dims[l + 1][0] *
                                               m.dims[l + 1][1] * m.dims[l + 1][2]) *
                           sizeof(float));
  }
  if (ws > 0) m.workspace = DeviceBuffer(ws);
}

CudnnConv3dChain::~CudnnConv3dChain() {
  Impl& m = *impl_;
  for (auto t : m.tensors) cudnnDestroyTensorDescriptor(t);
  for (auto t : m.biases) cudnnDestroyTensorDescriptor(t);
  for (auto f : m.filters) cudnnDestroyFilterDescriptor(f);
  for (auto c : m.convs) cudnnDestroyConvolutionDescriptor(c);
  if (m.relu) cudnnDestroyActivationDescriptor(m.relu);
  if (m.handle) cudnnDestroy(m.handle);
}

const std::vector<std::array<int64_t, 3>>& CudnnConv3dChain::dims() const {
  return impl_->dims;
}

void CudnnConv3dChain::run(KernelLauncher& launcher, const float* input, float* output) {
  Impl& m = *impl_;
  const float one = 1.0f, zero = 0.0f;
  const float* x = input;
  for (size_t l = 0; l < m.layers.size(); ++l) {
    float* y = l + 1 < m.layers.size() ? m.inter[l].floats() : output;
    DGS_CUDNN_CHECK(cudnnConvolutionBiasActivationForward(
        m.handle, &one, m.tensors[l], x, m.filters[l], m.layers[l].weight, m.convs[l], m.algos[l],
        m.workspace.empty() ? nullptr : m.workspace.data(), m.workspace.bytes(), &zero,
        m.tensors[l + 1], y, m.biases[l], m.layers[l].bias, m.relu, m.tensors[l + 1], y));
    launcher.count_launch();
    x = y;
  }
}

}  // namespace dgs::gpu
