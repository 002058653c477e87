#pragma once
// The GPU stage executor's internals (see stage_executor.h), shared by its files:
// stage_executor.cu (construction, device memory, the support check, op dispatch, streams and
// stages, the public classes), stage_executor_conv.cu (cuDNN convolutions and merged
// convolutions) and stage_executor_ops.cu (the kernels of one op per family: pooling,
// normalisation, element-wise, data movement, Gemm/MatMul). Include only from those.
#include "common/cuda/stage_executor.h"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "common/cuda/cuda_check.cuh"
#include "common/cuda/device.h"
#include "common/cuda/gemm_kernels.h"
#include "common/cuda/library_kernels.h"
#include "common/cuda/tensor_kernels.h"
#include "common/exec/executor.h"
#include "common/graph/window.h"

namespace dgs::gpu {

// The executor's helpers: cuDNN descriptor owners, attribute readers, per-stream resources,
// prepared convolutions.
namespace stage_exec {
// --- cuDNN descriptor owners (never copied or moved; held by unique_ptr'd structs) --------------
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc() { DGS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d)); }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};
struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc() { DGS_CUDNN_CHECK(cudnnCreateFilterDescriptor(&d)); }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};
struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc() { DGS_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d)); }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};
struct ActDesc {
  cudnnActivationDescriptor_t d = nullptr;
  ActDesc() { DGS_CUDNN_CHECK(cudnnCreateActivationDescriptor(&d)); }
  ~ActDesc() { cudnnDestroyActivationDescriptor(d); }
  ActDesc(const ActDesc&) = delete;
  ActDesc& operator=(const ActDesc&) = delete;
};
struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  PoolDesc() { DGS_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&d)); }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
};

inline const float kOne = 1.0f;
inline const float kZero = 0.0f;

[[noreturn]] inline void unsupported(const Graph& g, int op, const std::string& what) {
  const Op& o = g.op(op);
  throw Error("stage executor: op '" + o.name + "' (" + std::string(op_kind_name(o.kind)) +
              "): " + what);
}

inline int to_int(const Graph& g, int op, int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX) unsupported(g, op, std::string(what) + " out of cuDNN's int range");
  return static_cast<int>(v);
}

inline void set_4d(const Graph& g, int op, TensorDesc& t, int64_t n, int64_t c, int64_t h,
                   int64_t w) {
  DGS_CUDNN_CHECK(cudnnSetTensor4dDescriptor(t.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                             to_int(g, op, n, "N"), to_int(g, op, c, "C"),
                                             to_int(g, op, h, "H"), to_int(g, op, w, "W")));
}

inline int64_t normalize_axis(const Graph& g, int op, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= std::max<int64_t>(r, 1)) unsupported(g, op, "axis out of range");
  return axis < 0 ? axis + r : axis;
}

// Integer values of a Constant input (Reshape shape, Slice starts, Split sizes, Pad pads).
inline std::vector<int64_t> const_ints(const Graph& g, int op, size_t input) {
  const Op& o = g.op(op);
  if (input >= o.inputs.size() || o.inputs[input] < 0) return {};
  const Tensor& t = g.tensor(o.inputs[input]);
  if (t.role != TensorRole::Constant) {
    unsupported(g, op,
                "input " + std::to_string(input) + " ('" + t.name +
                    "') must be a constant (its values decide what runs)");
  }
  return t.int_data;
}
inline std::optional<float> const_float(const Graph& g, int op, size_t input) {
  const Op& o = g.op(op);
  if (input >= o.inputs.size() || o.inputs[input] < 0) return std::nullopt;
  const Tensor& t = g.tensor(o.inputs[input]);
  if (t.role != TensorRole::Constant || t.float_data.size() != 1) {
    unsupported(g, op, "input " + std::to_string(input) + " must be a scalar float constant");
  }
  return t.float_data[0];
}

// A 2-D conv/pool window, resolved by resolve_window (common/graph/window.h).
struct Window2d {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
};
inline Window2d window2d(const Graph& g, int op) {
  const Window r = resolve_window(g, op);
  if (r.spatial_dims() != 2) unsupported(g, op, "only 2-D windows");
  Window2d w;
  w.kh = r.kernel[0];
  w.kw = r.kernel[1];
  w.sh = r.strides[0];
  w.sw = r.strides[1];
  w.dh = r.dilations[0];
  w.dw = r.dilations[1];
  w.pt = r.pads_begin[0];
  w.pl = r.pads_begin[1];
  w.pb = r.pads_end[0];
  w.pr = r.pads_end[1];
  return w;
}

// --- per-context resources ----------------------------------------------------------------------
struct Context {
  Stream stream;
  cudnnHandle_t cudnn = nullptr;
  DeviceBuffer workspace;
  KernelLauncher launcher;
  Event done;                         // joins this stream into stream 0 at the end of a pass
  std::unique_ptr<BlasContext> blas;  // cuBLASLt, created by the first Gemm/MatMul on it
  explicit Context(size_t ws_bytes) : workspace(ws_bytes), launcher(stream) {
    DGS_CUDNN_CHECK(cudnnCreate(&cudnn));
    DGS_CUDNN_CHECK(cudnnSetStream(cudnn, static_cast<cudaStream_t>(stream.handle())));
  }
  ~Context() { cudnnDestroy(cudnn); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
};

// A prepared convolution (an op's, or a merged one).
struct ConvRun {
  TensorDesc x, y, bias;
  FilterDesc w;
  ConvDesc conv;
  ActDesc relu;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t ws_bytes = 0;
  int64_t out_c = 0;
  const float* bias_ptr = nullptr;  // the op's bias, or zeros for the fused path
  DeviceBuffer zero_bias;
  // Asymmetric padding: x is first copied into the interior of a zero-bordered buffer.
  bool prepad = false;
  DeviceBuffer padded;
  std::vector<int64_t> x_dims;  // original input dims [n, c, h, w]
  StridedView padded_view;      // where x goes inside `padded`
  bool fused_relu_ok = true;    // cudnnConvolutionBiasActivationForward accepted the algo
  bool ran_fused = false;       // a run went through that fused call (Conv+bias+ReLU)
};

struct AlgoChoice {
  cudnnConvolutionFwdAlgo_t algo;
  size_t ws_bytes;
  cudnnMathType_t math;
};

// A prepared Merged task.
struct MergedRun {
  std::unique_ptr<ConvRun> conv;
  DeviceBuffer weight, bias, out;
  struct Part {
    int op;      // the conv op
    float* dst;  // where its channels go (the conv's output, or its fused Relu's)
    int64_t channel_offset, channels;
  };
  std::vector<Part> parts;
  std::vector<int64_t> out_dims;  // [n, sum of channels, h, w]
  bool relu_fused = false;
  std::vector<int> rest;  // ops of the task run after the split
};
}  // namespace stage_exec

using namespace stage_exec;  // NOLINT(build/namespaces): the executor's own helpers, above

// --- the executor -------------------------------------------------------------------------------
struct StageExecutor::Impl {
  Graph g;
  StageExecutorOptions opts;
  GpuSpec gpu;
  std::vector<DeviceBuffer> own;  // per tensor (empty when aliased or not float)
  std::vector<float*> ptr;        // per tensor device pointer (nullptr when none)
  std::vector<std::unique_ptr<Context>> ctx;
  std::vector<std::unique_ptr<ConvRun>> conv_runs;  // per op
  std::map<std::string, AlgoChoice> algo_cache;
  std::map<std::string, std::unique_ptr<MergedRun>> merged;
  std::map<int, DeviceBuffer> gather_offsets;  // per GatherND op: flat offsets of its slices
  std::unique_ptr<Event> pass_start;           // created after the GPU check

  explicit Impl(const Graph& graph, StageExecutorOptions o);

  Context& context(size_t j) { return *ctx.at(j); }

  void ensure_contexts(size_t n);

  // Buffers: one per float tensor, except outputs of layout-only ops, which alias their input.
  void allocate();

  // Device tensors: float32, and bool (masks) as float32 buffers holding 0 and 1.
  static bool on_device(DType d) { return d == DType::F32 || d == DType::Bool; }

  // Uploads a float32 value, or a bool one as 0/1 floats.
  void upload(int t, const TensorData& v);

  float* buf(int op, int t);
  const Shape& shape(int t) const { return g.tensor(t).shape; }
  const Shape& in_shape(int op, size_t i) const { return shape(g.op(op).inputs.at(i)); }
  const Shape& out_shape(int op) const { return shape(g.op(op).outputs.at(0)); }

  // Rejects, at construction, every op this executor cannot run (one line naming it).
  void check_supported(int oi);

  // --- convolution ----------------------------------------------------------------------------
  AlgoChoice find_algo(ConvRun& c, const float* x, const float* w, float* y,
                       const std::string& key);

  // Sets up `c` for x [n,c,h,w] * w [k, c/groups, r, s] -> y [n,k,oh,ow] with window `win`.
  void setup_conv(ConvRun& c, int oi, const Shape& xs, const Shape& ws, const Shape& ys,
                  const Window2d& win, int64_t groups, const float* x, const float* w, float* y,
                  const float* bias);

  void run_prepad(ConvRun& c, Context& cx, const float* x);

  // y = conv(x) + bias, then ReLU when `relu`.
  void run_conv(ConvRun& c, Context& cx, const float* x, const float* w, const float* bias,
                float* y, bool relu);

  const float* conv_bias(int oi);

  ConvRun& ensure_conv(int oi);

  // The Relu that may be fused into conv `oi` when it is the next op `next` of the task.
  bool fusible_relu(int oi, int next) const;

  // --- merged convolutions (operator merge) -----------------------------------------------------
  static std::string task_key(const Task& t);

  MergedRun& ensure_merged(const Task& task);

  void run_merged(const Task& task, Context& cx);

  // --- one op ---------------------------------------------------------------------------------
  void run_cudnn_activation(int oi, Context& cx, cudnnActivationMode_t mode);

  void run_pool(int oi, Context& cx);

  void run_batchnorm(int oi, Context& cx);

  void run_softmax(int oi, Context& cx);

  void run_elementwise(int oi, Context& cx, EwOp ew);

  void run_where(int oi, Context& cx);

  // GatherND's gathered slices (constant indices): the flat offset in the data of each, and the
  // slice length. Same semantics as the CPU executor (batch_dims, negative indices).
  std::pair<std::vector<int64_t>, int64_t> gather_nd_offsets(int oi) const;

  void run_gather_nd(int oi, Context& cx);

  void run_concat(int oi, Context& cx);

  void run_split(int oi, Context& cx);

  void run_slice(int oi, Context& cx);

  void run_transpose(int oi, Context& cx);

  void run_expand(int oi, Context& cx);

  void run_pad(int oi, Context& cx);

  // Gemm and MatMul: cuBLASLt (library_kernels.h), or the suite's tiled GEMM for an operand
  // layout cuBLAS cannot take (blas_gemm_unsupported says which).
  void gemm_kernel(Context& cx, int64_t batch, int64_t m, int64_t n, int64_t k, const MatrixArg& a,
                   const MatrixArg& b, const OutMatrixArg& c, const Epilogue& e = {});

  void run_gemm(int oi, Context& cx);

  void run_matmul(int oi, Context& cx);

  void run_op(int oi, Context& cx);

  void run_task(const Task& task, Context& cx);

  void run_stage(const Stage& s);

  // One forward pass: other streams wait for stream 0's earlier work, a host sync between
  // stages (not between two single-task stages), and every stream joined into stream 0 at the end.
  void forward(const Plan& plan);

  // "stage 1 of n", ... (built once per stage count, so a pass allocates no label).
  const std::vector<std::string>& stage_labels(size_t n);
  std::vector<std::string> labels;

  void prepare(const Plan& plan);

  int64_t launches() const;
};

}  // namespace dgs::gpu
