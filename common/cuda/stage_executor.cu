// The stage executor on a GPU (see stage_executor.h).
#include "common/cuda/stage_executor.h"

#include "common/cuda/device_fault.h"

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

namespace {

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

const float kOne = 1.0f;
const float kZero = 0.0f;

[[noreturn]] void unsupported(const Graph& g, int op, const std::string& what) {
  const Op& o = g.op(op);
  throw Error("stage executor: op '" + o.name + "' (" + std::string(op_kind_name(o.kind)) +
              "): " + what);
}

int to_int(const Graph& g, int op, int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX) unsupported(g, op, std::string(what) + " out of cuDNN's int range");
  return static_cast<int>(v);
}

void set_4d(const Graph& g, int op, TensorDesc& t, int64_t n, int64_t c, int64_t h, int64_t w) {
  DGS_CUDNN_CHECK(cudnnSetTensor4dDescriptor(t.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                             to_int(g, op, n, "N"), to_int(g, op, c, "C"),
                                             to_int(g, op, h, "H"), to_int(g, op, w, "W")));
}

int64_t normalize_axis(const Graph& g, int op, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= std::max<int64_t>(r, 1)) unsupported(g, op, "axis out of range");
  return axis < 0 ? axis + r : axis;
}

// Integer values of a Constant input (Reshape shape, Slice starts, Split sizes, Pad pads).
std::vector<int64_t> const_ints(const Graph& g, int op, size_t input) {
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
std::optional<float> const_float(const Graph& g, int op, size_t input) {
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
Window2d window2d(const Graph& g, int op) {
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

bool is_alias_op(OpKind k) {
  return k == OpKind::Reshape || k == OpKind::Flatten || k == OpKind::Squeeze ||
         k == OpKind::Unsqueeze || k == OpKind::Identity || k == OpKind::Dropout;
}

std::optional<EwOp> ew_op_of(OpKind k) {
  switch (k) {
    case OpKind::Relu:
      return EwOp::Relu;
    case OpKind::LeakyRelu:
      return EwOp::LeakyRelu;
    case OpKind::Sigmoid:
      return EwOp::Sigmoid;
    case OpKind::Tanh:
      return EwOp::Tanh;
    case OpKind::Gelu:
      return EwOp::Gelu;
    case OpKind::Erf:
      return EwOp::Erf;
    case OpKind::Clip:
      return EwOp::Clip;
    case OpKind::Exp:
      return EwOp::Exp;
    case OpKind::Log:
      return EwOp::Log;
    case OpKind::Sqrt:
      return EwOp::Sqrt;
    case OpKind::Reciprocal:
      return EwOp::Reciprocal;
    case OpKind::Neg:
      return EwOp::Neg;
    case OpKind::Abs:
      return EwOp::Abs;
    case OpKind::HardSigmoid:
      return EwOp::HardSigmoid;
    case OpKind::HardSwish:
      return EwOp::HardSwish;
    case OpKind::Sin:
      return EwOp::Sin;
    case OpKind::Cos:
      return EwOp::Cos;
    case OpKind::Add:
      return EwOp::Add;
    case OpKind::Sub:
      return EwOp::Sub;
    case OpKind::Mul:
      return EwOp::Mul;
    case OpKind::Div:
      return EwOp::Div;
    case OpKind::Pow:
      return EwOp::Pow;
    case OpKind::Max:
      return EwOp::Max;
    case OpKind::Min:
      return EwOp::Min;
    case OpKind::Equal:
      return EwOp::Equal;
    case OpKind::And:
      return EwOp::And;
    case OpKind::Not:
      return EwOp::Not;
    case OpKind::IsNaN:
      return EwOp::IsNaN;
    default:
      return std::nullopt;
  }
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

}  // namespace

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

  explicit Impl(const Graph& graph, StageExecutorOptions o) : g(graph), opts(o) {
    std::string why;
    if (!cuda_gpu_available(&why)) throw Error("stage executor needs a GPU: " + why);
    if (opts.max_streams < 0) throw Error("stage executor: max_streams must be >= 0 (0: no limit)");
    validate(g);
    gpu = query_gpu_spec(0);
    allocate();
    conv_runs.resize(static_cast<size_t>(g.num_ops()));
    for (int i = 0; i < g.num_ops(); ++i) check_supported(i);
    ensure_contexts(1);
    pass_start = std::make_unique<Event>();
  }

  Context& context(size_t j) { return *ctx.at(j); }

  void ensure_contexts(size_t n) {
    if (opts.max_streams > 0 && n > static_cast<size_t>(opts.max_streams)) {
      throw Error("stage executor: a stage with " + std::to_string(n) +
                  " tasks exceeds max_streams " + std::to_string(opts.max_streams));
    }
    while (ctx.size() < n) ctx.push_back(std::make_unique<Context>(opts.workspace_bytes));
  }

  // Buffers: one per float tensor, except outputs of layout-only ops, which alias their input.
  void allocate() {
    const size_t nt = static_cast<size_t>(g.num_tensors());
    own.resize(nt);
    ptr.assign(nt, nullptr);
    std::vector<bool> alias(nt, false);
    for (int oi : g.topo_order()) {
      const Op& op = g.op(oi);
      if (is_alias_op(op.kind) && !op.inputs.empty() && op.inputs[0] >= 0) {
        alias[static_cast<size_t>(op.outputs[0])] = true;
      }
    }
    for (size_t t = 0; t < nt; ++t) {
      const Tensor& ts = g.tensor(static_cast<int>(t));
      if (!on_device(ts.dtype) || alias[t]) continue;
      if (ts.role == TensorRole::Constant && ts.float_data.empty() && ts.int_data.empty()) continue;
      own[t] = DeviceBuffer(static_cast<size_t>(ts.numel()) * sizeof(float));
      own[t].fill_bytes(0);  // defined values for stages measured alone (inputs not computed)
      ptr[t] = own[t].floats();
    }
    for (int oi : g.topo_order()) {
      const Op& op = g.op(oi);
      if (is_alias_op(op.kind) && !op.inputs.empty() && op.inputs[0] >= 0) {
        ptr[static_cast<size_t>(op.outputs[0])] = ptr[static_cast<size_t>(op.inputs[0])];
      }
    }
    const TensorValues feeds = make_graph_feeds(g, {}, opts.seed);
    for (const auto& [t, v] : feeds) {
      if (ptr[static_cast<size_t>(t)] && on_device(v.dtype)) upload(t, v);
    }
  }

  // Device tensors: float32, and bool (masks) as float32 buffers holding 0 and 1.
  static bool on_device(DType d) { return d == DType::F32 || d == DType::Bool; }

  // Uploads a float32 value, or a bool one as 0/1 floats.
  void upload(int t, const TensorData& v) {
    if (v.dtype == DType::F32) {
      own[static_cast<size_t>(t)].upload(v.f.data(), v.f.size() * sizeof(float));
      return;
    }
    std::vector<float> f(v.i.size());
    for (size_t k = 0; k < f.size(); ++k) f[k] = v.i[k] != 0 ? 1.0f : 0.0f;
    own[static_cast<size_t>(t)].upload(f.data(), f.size() * sizeof(float));
  }

  float* buf(int op, int t) {
    if (t < 0 || ptr[static_cast<size_t>(t)] == nullptr) {
      unsupported(g, op,
                  "tensor '" + (t < 0 ? std::string("<omitted>") : g.tensor(t).name) +
                      "' is not a float32 or bool tensor on the device");
    }
    return ptr[static_cast<size_t>(t)];
  }
  const Shape& shape(int t) const { return g.tensor(t).shape; }
  const Shape& in_shape(int op, size_t i) const { return shape(g.op(op).inputs.at(i)); }
  const Shape& out_shape(int op) const { return shape(g.op(op).outputs.at(0)); }

  // Rejects, at construction, every op this executor cannot run (one line naming it).
  void check_supported(int oi) {
    const Op& op = g.op(oi);
    for (int t : op.outputs) {
      if (t >= 0 && !on_device(g.tensor(t).dtype) && !g.tensor(t).consumers.empty()) {
        unsupported(g, oi, "output '" + g.tensor(t).name + "' is not float32 or bool");
      }
    }
    const OpKind k = op.kind;
    if (is_alias_op(k)) {
      if (k == OpKind::Dropout && op.outputs.size() > 1 && op.outputs[1] >= 0 &&
          (!g.tensor(op.outputs[1]).consumers.empty() ||
           g.tensor(op.outputs[1]).role == TensorRole::Output)) {
        unsupported(g, oi, "the mask output is not produced");
      }
      return;
    }
    switch (k) {
      case OpKind::Conv:
      case OpKind::MaxPool:
      case OpKind::AveragePool:
        if (in_shape(oi, 0).size() != 4) unsupported(g, oi, "only 2-D (NCHW) windows");
        if (k == OpKind::MaxPool && op.outputs.size() > 1) unsupported(g, oi, "Indices output");
        return;
      case OpKind::GlobalAveragePool:
      case OpKind::GlobalMaxPool:
        if (in_shape(oi, 0).size() != 4) unsupported(g, oi, "only NCHW input");
        return;
      case OpKind::BatchNormalization:
        if (op.attrs.get_int("training_mode", 0) != 0 || op.outputs.size() > 1) {
          unsupported(g, oi, "training mode");
        }
        if (in_shape(oi, 0).size() < 2) unsupported(g, oi, "input rank < 2");
        return;
      case OpKind::Softmax:
      case OpKind::Concat:
      case OpKind::Split:
      case OpKind::Slice:
      case OpKind::Transpose:
      case OpKind::Expand:
        return;
      case OpKind::Pad:
        if (op.attrs.get_string("mode", "constant") != "constant") {
          unsupported(g, oi, "only constant padding");
        }
        if (op.inputs.size() > 3 && op.inputs[3] >= 0) unsupported(g, oi, "the axes input");
        return;
      case OpKind::Gemm:
        return;
      case OpKind::MatMul:
        if (in_shape(oi, 0).size() < 2 || in_shape(oi, 1).size() < 2) {
          unsupported(g, oi, "1-D operands");
        }
        return;
      case OpKind::Gelu: {
        const std::string ap = op.attrs.get_string("approximate", "none");
        if (ap != "none" && ap != "tanh") unsupported(g, oi, "approximate '" + ap + "'");
        return;
      }
      case OpKind::Equal:
      case OpKind::And:
      case OpKind::Not:
      case OpKind::IsNaN:
      case OpKind::Where:
        for (int t : op.inputs) {
          if (t >= 0 && !on_device(g.tensor(t).dtype)) {
            unsupported(g, oi,
                        "input '" + g.tensor(t).name + "' is " +
                            std::string(dtype_name(g.tensor(t).dtype)) +
                            "; the device holds float32 and bool tensors");
          }
        }
        return;
      case OpKind::GatherND: {
        const Tensor& data = g.tensor(op.inputs.at(0));
        const Tensor& ind = g.tensor(op.inputs.at(1));
        if (!on_device(data.dtype)) unsupported(g, oi, "data of a type other than float or bool");
        if (ind.role != TensorRole::Constant || ind.int_data.empty()) {
          unsupported(g, oi, "indices computed at run time (only constant indices)");
        }
        (void)gather_nd_offsets(oi);  // refuses out-of-range indices now
        return;
      }
      default:
        if (ew_op_of(k)) return;
        unsupported(g, oi, "not implemented on the GPU");
    }
  }

  // --- convolution ----------------------------------------------------------------------------
  AlgoChoice find_algo(ConvRun& c, const float* x, const float* w, float* y,
                       const std::string& key) {
    auto it = algo_cache.find(key);
    if (it != algo_cache.end()) return it->second;
    Context& c0 = context(0);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    DGS_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
        c0.cudnn, c.x.d, x, c.w.d, w, c.conv.d, c.y.d, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
        &returned, perf, c0.workspace.data(), c0.workspace.bytes()));
    AlgorithmCandidate cand[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    const size_t n = static_cast<size_t>(std::max(0, returned));
    for (size_t i = 0; i < n; ++i) {
      const bool tensor_math = perf[i].mathType == CUDNN_TENSOR_OP_MATH ||
                               perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
      cand[i] = {static_cast<int>(perf[i].algo), perf[i].status == CUDNN_STATUS_SUCCESS &&
                                                     perf[i].memory <= c0.workspace.bytes() &&
                                                     (opts.allow_tf32 || !tensor_math)};
    }
    const size_t i = choose_algorithm(cand, n, "convolution " + key,
                                      "none of its " + std::to_string(n) +
                                          " algorithms ran within a workspace of " +
                                          std::to_string(c0.workspace.bytes()) + " bytes" +
                                          (opts.allow_tf32 ? "" : " on FP32 CUDA cores"));
    const AlgoChoice ch{perf[i].algo, perf[i].memory, perf[i].mathType};
    algo_cache.emplace(key, ch);
    return ch;
  }

  // Sets up `c` for x [n,c,h,w] * w [k, c/groups, r, s] -> y [n,k,oh,ow] with window `win`.
  void setup_conv(ConvRun& c, int oi, const Shape& xs, const Shape& ws, const Shape& ys,
                  const Window2d& win, int64_t groups, const float* x, const float* w, float* y,
                  const float* bias) {
    c.out_c = ws[0];
    c.x_dims = xs;
    const bool symmetric = win.pt == win.pb && win.pl == win.pr;
    int64_t ph = win.pt, pw = win.pl;
    Shape xin = xs;
    const float* xptr = x;
    if (!symmetric) {
      c.prepad = true;
      xin = {xs[0], xs[1], xs[2] + win.pt + win.pb, xs[3] + win.pl + win.pr};
      c.padded = DeviceBuffer(static_cast<size_t>(numel(xin)) * sizeof(float));
      c.padded.fill_bytes(0);
      const std::vector<int64_t> ps = contiguous_strides(xin);
      c.padded_view = StridedView{ps, win.pt * ps[2] + win.pl * ps[3]};
      xptr = c.padded.floats();
      ph = pw = 0;
    }
    set_4d(g, oi, c.x, xin[0], xin[1], xin[2], xin[3]);
    set_4d(g, oi, c.y, ys[0], ys[1], ys[2], ys[3]);
    set_4d(g, oi, c.bias, 1, ys[1], 1, 1);
    DGS_CUDNN_CHECK(cudnnSetFilter4dDescriptor(
        c.w.d, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, to_int(g, oi, ws[0], "K"),
        to_int(g, oi, ws[1], "C"), to_int(g, oi, ws[2], "R"), to_int(g, oi, ws[3], "S")));
    DGS_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        c.conv.d, to_int(g, oi, ph, "pad"), to_int(g, oi, pw, "pad"),
        to_int(g, oi, win.sh, "stride"), to_int(g, oi, win.sw, "stride"),
        to_int(g, oi, win.dh, "dilation"), to_int(g, oi, win.dw, "dilation"),
        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    DGS_CUDNN_CHECK(cudnnSetConvolutionGroupCount(c.conv.d, to_int(g, oi, groups, "group")));
    DGS_CUDNN_CHECK(cudnnSetConvolutionMathType(
        c.conv.d, opts.allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
    int on = 0, oc = 0, oh = 0, ow = 0;
    DGS_CUDNN_CHECK(
        cudnnGetConvolution2dForwardOutputDim(c.conv.d, c.x.d, c.w.d, &on, &oc, &oh, &ow));
    if (on != ys[0] || oc != ys[1] || oh != ys[2] || ow != ys[3]) {
      unsupported(g, oi,
                  "cuDNN computes output [" + std::to_string(on) + "," + std::to_string(oc) + "," +
                      std::to_string(oh) + "," + std::to_string(ow) + "] but the graph says " +
                      shape_str(ys));
    }
    DGS_CUDNN_CHECK(cudnnSetActivationDescriptor(c.relu.d, CUDNN_ACTIVATION_RELU,
                                                 CUDNN_NOT_PROPAGATE_NAN, 0.0));
    std::ostringstream key;
    key << shape_str(xin) << "*" << shape_str(ws) << " pad " << ph << "," << pw << " stride "
        << win.sh << "," << win.sw << " dil " << win.dh << "," << win.dw << " g" << groups
        << (opts.allow_tf32 ? " tf32" : " fma");
    if (c.prepad) run_prepad(c, context(0), x);
    const AlgoChoice ch = find_algo(c, xptr, w, y, key.str());
    c.algo = ch.algo;
    c.ws_bytes = ch.ws_bytes;
    if (opts.allow_tf32) DGS_CUDNN_CHECK(cudnnSetConvolutionMathType(c.conv.d, ch.math));
    if (bias) {
      c.bias_ptr = bias;
    } else {
      c.zero_bias = DeviceBuffer(static_cast<size_t>(c.out_c) * sizeof(float));
      c.zero_bias.fill_bytes(0);
      c.bias_ptr = c.zero_bias.floats();
    }
    // Does the fused Conv+bias+ReLU call accept this algorithm? (Tried once, before timing.)
    const float* xp = c.prepad ? c.padded.floats() : x;
    const cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
        context(0).cudnn, &kOne, c.x.d, xp, c.w.d, w, c.conv.d, c.algo, context(0).workspace.data(),
        c.ws_bytes, &kZero, c.y.d, y, c.bias.d, c.bias_ptr, c.relu.d, c.y.d, y);
    // Any refusal (NOT_SUPPORTED, BAD_PARAM for this algorithm) means: run the unfused calls.
    c.fused_relu_ok = st == CUDNN_STATUS_SUCCESS;
    DGS_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void run_prepad(ConvRun& c, Context& cx, const float* x) {
    strided_copy(cx.launcher, c.x_dims, x, StridedView{contiguous_strides(c.x_dims), 0},
                 c.padded.floats(), c.padded_view);
  }

  // y = conv(x) + bias, then ReLU when `relu`.
  void run_conv(ConvRun& c, Context& cx, const float* x, const float* w, const float* bias,
                float* y, bool relu) {
    if (c.prepad) run_prepad(c, cx, x);
    const float* xp = c.prepad ? c.padded.floats() : x;
    if (relu && c.fused_relu_ok) {
      DGS_CUDNN_CHECK(cudnnConvolutionBiasActivationForward(
          cx.cudnn, &kOne, c.x.d, xp, c.w.d, w, c.conv.d, c.algo, cx.workspace.data(), c.ws_bytes,
          &kZero, c.y.d, y, c.bias.d, bias ? bias : c.bias_ptr, c.relu.d, c.y.d, y));
      cx.launcher.count_launch();
      return;
    }
    DGS_CUDNN_CHECK(cudnnConvolutionForward(cx.cudnn, &kOne, c.x.d, xp, c.w.d, w, c.conv.d, c.algo,
                                            cx.workspace.data(), c.ws_bytes, &kZero, c.y.d, y));
    cx.launcher.count_launch();
    if (bias) {
      DGS_CUDNN_CHECK(cudnnAddTensor(cx.cudnn, &kOne, c.bias.d, bias, &kOne, c.y.d, y));
      cx.launcher.count_launch();
    }
    if (relu) {
      DGS_CUDNN_CHECK(
          cudnnActivationForward(cx.cudnn, c.relu.d, &kOne, c.y.d, y, &kZero, c.y.d, y));
      cx.launcher.count_launch();
    }
  }

  const float* conv_bias(int oi) {
    const Op& op = g.op(oi);
    return op.inputs.size() > 2 && op.inputs[2] >= 0 ? buf(oi, op.inputs[2]) : nullptr;
  }

  ConvRun& ensure_conv(int oi) {
    auto& slot = conv_runs[static_cast<size_t>(oi)];
    if (slot) return *slot;
    const Op& op = g.op(oi);
    const Shape& xs = in_shape(oi, 0);
    const Shape& ws = in_shape(oi, 1);
    const Window2d win = window2d(g, oi);
    slot = std::make_unique<ConvRun>();
    setup_conv(*slot, oi, xs, ws, out_shape(oi), win, op.attrs.get_int("group", 1),
               buf(oi, op.inputs[0]), buf(oi, op.inputs[1]), buf(oi, op.outputs[0]), conv_bias(oi));
    return *slot;
  }

  // The Relu that may be fused into conv `oi` when it is the next op `next` of the task.
  bool fusible_relu(int oi, int next) const {
    if (!opts.fuse_conv_relu || next < 0) return false;
    const Op& c = g.op(oi);
    const Op& r = g.op(next);
    if (c.kind != OpKind::Conv || r.kind != OpKind::Relu) return false;
    const Tensor& y = g.tensor(c.outputs[0]);
    return r.inputs[0] == c.outputs[0] && y.consumers.size() == 1 && y.role != TensorRole::Output;
  }

  // --- merged convolutions (operator merge) -----------------------------------------------------
  static std::string task_key(const Task& t) {
    std::string k;
    for (int o : t.ops) k += std::to_string(o) + ",";
    return k;
  }

  MergedRun& ensure_merged(const Task& task) {
    const std::string key = task_key(task);
    auto it = merged.find(key);
    if (it != merged.end()) return *it->second;
    auto m = std::make_unique<MergedRun>();
    std::vector<int> convs;
    for (int o : task.ops) {
      if (g.op(o).kind == OpKind::Conv) {
        if (!m->rest.empty()) {
          unsupported(g, o, "in a merged task the convolutions must come first");
        }
        convs.push_back(o);
      } else {
        m->rest.push_back(o);
      }
    }
    if (convs.empty()) throw Error("stage executor: a merged task has no convolution");
    const int first = convs.front();
    const int x = g.op(first).inputs[0];
    const Shape& xs = shape(x);
    const Shape& ys0 = out_shape(first);
    // Merged window: padding = the largest, kernel = large enough to hold every conv's kernel at
    // offset (pad_max - pad_i), so each conv reads exactly the input positions it read before.
    int64_t pad_h = 0, pad_w = 0, kh = 0, kw = 0, total_c = 0;
    std::vector<Window2d> wins;
    for (int o : convs) {
      const Op& op = g.op(o);
      if (op.inputs[0] != x) unsupported(g, o, "merged convolutions must share their input");
      if (op.attrs.get_int("group", 1) != 1) unsupported(g, o, "merging grouped convolutions");
      const Window2d w = window2d(g, o);
      if (w.pt != w.pb || w.pl != w.pr) unsupported(g, o, "merging asymmetric padding");
      if (w.dh != 1 || w.dw != 1) unsupported(g, o, "merging dilated convolutions");
      const Window2d& w0 = wins.empty() ? w : wins.front();
      if (w.sh != w0.sh || w.sw != w0.sw) unsupported(g, o, "merging different strides");
      const Shape& ys = out_shape(o);
      if (ys[0] != ys0[0] || ys[2] != ys0[2] || ys[3] != ys0[3]) {
        unsupported(g, o, "merged convolutions must have the same output size");
      }
      pad_h = std::max(pad_h, w.pt);
      pad_w = std::max(pad_w, w.pl);
      wins.push_back(w);
      total_c += ys[1];
    }
    for (const Window2d& w : wins) {
      kh = std::max(kh, pad_h - w.pt + w.kh);
      kw = std::max(kw, pad_w - w.pl + w.kw);
    }
    const int64_t cin = xs[1];
    const Shape mws = {total_c, cin, kh, kw};
    m->out_dims = {ys0[0], total_c, ys0[2], ys0[3]};
    m->weight = DeviceBuffer(static_cast<size_t>(numel(mws)) * sizeof(float));
    m->bias = DeviceBuffer(static_cast<size_t>(total_c) * sizeof(float));
    m->out = DeviceBuffer(static_cast<size_t>(numel(m->out_dims)) * sizeof(float));
    m->weight.fill_bytes(0);
    m->bias.fill_bytes(0);
    // Fuse the ReLU when every merged conv's only consumer is a Relu of this task.
    bool all_relu = opts.fuse_conv_relu;
    std::vector<int> relu_of(convs.size(), -1);
    for (size_t i = 0; i < convs.size(); ++i) {
      for (int r : m->rest) {
        if (fusible_relu(convs[i], r)) relu_of[i] = r;
      }
      all_relu = all_relu && relu_of[i] >= 0;
    }
    m->relu_fused = all_relu;
    if (all_relu) {
      std::vector<int> rest;
      for (int r : m->rest) {
        if (std::find(relu_of.begin(), relu_of.end(), r) == relu_of.end()) rest.push_back(r);
      }
      m->rest = rest;
    }
    // Build the merged weight and bias on the device: each conv's kernel embedded at its offset.
    Context& c0 = context(0);
    const std::vector<int64_t> mstr = contiguous_strides(mws);
    int64_t off_c = 0;
    for (size_t i = 0; i < convs.size(); ++i) {
      const int o = convs[i];
      const Shape& ws = in_shape(o, 1);
      const Window2d& w = wins[i];
      const int64_t oh = pad_h - w.pt, ow = pad_w - w.pl;
      strided_copy(c0.launcher, ws, buf(o, g.op(o).inputs[1]),
                   StridedView{contiguous_strides(ws), 0}, m->weight.floats(),
                   StridedView{mstr, off_c * mstr[0] + oh * mstr[2] + ow * mstr[3]});
      if (const float* b = conv_bias(o)) {
        strided_copy(c0.launcher, {ws[0]}, b, StridedView{{1}, 0}, m->bias.floats(),
                     StridedView{{1}, off_c});
      }
      float* dst = buf(o, all_relu ? g.op(relu_of[i]).outputs[0] : g.op(o).outputs[0]);
      m->parts.push_back({o, dst, off_c, ws[0]});
      off_c += ws[0];
    }
    DGS_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(c0.stream.handle())));
    Window2d mw;
    mw.kh = kh;
    mw.kw = kw;
    mw.sh = wins[0].sh;
    mw.sw = wins[0].sw;
    mw.pt = mw.pb = pad_h;
    mw.pl = mw.pr = pad_w;
    m->conv = std::make_unique<ConvRun>();
    setup_conv(*m->conv, first, xs, mws, m->out_dims, mw, 1, buf(first, x), m->weight.floats(),
               m->out.floats(), m->bias.floats());
    auto& ref = *m;
    merged.emplace(key, std::move(m));
    return ref;
  }

  void run_merged(const Task& task, Context& cx) {
    MergedRun& m = ensure_merged(task);
    const int x = g.op(m.parts.front().op).inputs[0];
    run_conv(*m.conv, cx, buf(m.parts.front().op, x), m.weight.floats(), m.bias.floats(),
             m.out.floats(), m.relu_fused);
    const std::vector<int64_t> ostr = contiguous_strides(m.out_dims);
    for (const MergedRun::Part& p : m.parts) {
      const std::vector<int64_t> dims = {m.out_dims[0], p.channels, m.out_dims[2], m.out_dims[3]};
      strided_copy(cx.launcher, dims, m.out.floats(), StridedView{ostr, p.channel_offset * ostr[1]},
                   p.dst, StridedView{contiguous_strides(dims), 0});
    }
    for (int o : m.rest) run_op(o, cx);
  }

  // --- one op ---------------------------------------------------------------------------------
  void run_cudnn_activation(int oi, Context& cx, cudnnActivationMode_t mode) {
    TensorDesc t;
    ActDesc a;
    set_4d(g, oi, t, 1, numel(out_shape(oi)), 1, 1);
    DGS_CUDNN_CHECK(cudnnSetActivationDescriptor(a.d, mode, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    DGS_CUDNN_CHECK(cudnnActivationForward(cx.cudnn, a.d, &kOne, t.d, buf(oi, g.op(oi).inputs[0]),
                                           &kZero, t.d, buf(oi, g.op(oi).outputs[0])));
    cx.launcher.count_launch();
  }

  void run_pool(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& xs = in_shape(oi, 0);
    const Shape& ys = out_shape(oi);
    const bool global = op.kind == OpKind::GlobalAveragePool || op.kind == OpKind::GlobalMaxPool;
    const bool is_max = op.kind == OpKind::MaxPool || op.kind == OpKind::GlobalMaxPool;
    Window2d w;
    if (global) {
      w.kh = xs[2];
      w.kw = xs[3];
    } else {
      w = window2d(g, oi);
    }
    const bool include_pad = op.attrs.get_int("count_include_pad", 0) != 0;
    const bool symmetric = w.pt == w.pb && w.pl == w.pr && w.dh == 1 && w.dw == 1;
    const float* x = buf(oi, op.inputs[0]);
    float* y = buf(oi, op.outputs[0]);
    if (symmetric) {
      PoolDesc p;
      TensorDesc xd, yd;
      set_4d(g, oi, xd, xs[0], xs[1], xs[2], xs[3]);
      const cudnnPoolingMode_t mode =
          is_max ? CUDNN_POOLING_MAX
                 : (include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
      DGS_CUDNN_CHECK(cudnnSetPooling2dDescriptor(
          p.d, mode, CUDNN_NOT_PROPAGATE_NAN, to_int(g, oi, w.kh, "kernel"),
          to_int(g, oi, w.kw, "kernel"), to_int(g, oi, w.pt, "pad"), to_int(g, oi, w.pl, "pad"),
          to_int(g, oi, w.sh, "stride"), to_int(g, oi, w.sw, "stride")));
      int n = 0, c = 0, h = 0, ww = 0;
      DGS_CUDNN_CHECK(cudnnGetPooling2dForwardOutputDim(p.d, xd.d, &n, &c, &h, &ww));
      if (n == ys[0] && c == ys[1] && h == ys[2] && ww == ys[3]) {
        set_4d(g, oi, yd, ys[0], ys[1], ys[2], ys[3]);
        DGS_CUDNN_CHECK(cudnnPoolingForward(cx.cudnn, p.d, &kOne, xd.d, x, &kZero, yd.d, y));
        cx.launcher.count_launch();
        return;
      }
    }
    // Windows cuDNN cannot express (asymmetric padding, ceil mode, dilation): the suite's kernel.
    Pool2dShape s;
    s.n = xs[0];
    s.c = xs[1];
    s.h = xs[2];
    s.w = xs[3];
    s.out_h = ys[2];
    s.out_w = ys[3];
    s.kh = w.kh;
    s.kw = w.kw;
    s.sh = w.sh;
    s.sw = w.sw;
    s.dh = w.dh;
    s.dw = w.dw;
    s.pad_top = w.pt;
    s.pad_left = w.pl;
    s.pad_bottom = w.pb;
    s.pad_right = w.pr;
    pool2d(cx.launcher, is_max, include_pad, s, x, y);
  }

  void run_batchnorm(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& xs = in_shape(oi, 0);
    int64_t rest = 1;
    for (size_t i = 2; i < xs.size(); ++i) rest *= xs[i];
    TensorDesc xd, bn;
    set_4d(g, oi, xd, xs[0], xs[1], rest, 1);
    DGS_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(bn.d, xd.d, CUDNN_BATCHNORM_SPATIAL));
    const double eps = op.attrs.get_float("epsilon", 1e-5);
    DGS_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
        cx.cudnn, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, xd.d, buf(oi, op.inputs[0]), xd.d,
        buf(oi, op.outputs[0]), bn.d, buf(oi, op.inputs[1]), buf(oi, op.inputs[2]),
        buf(oi, op.inputs[3]), buf(oi, op.inputs[4]), std::max(eps, CUDNN_BN_MIN_EPSILON)));
    cx.launcher.count_launch();
  }

  void run_softmax(int oi, Context& cx) {
    const Shape& xs = in_shape(oi, 0);
    const int64_t axis = normalize_axis(g, oi, g.op(oi).attrs.get_int("axis", -1), xs.size());
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= xs[static_cast<size_t>(i)];
    for (size_t i = static_cast<size_t>(axis) + 1; i < xs.size(); ++i) inner *= xs[i];
    TensorDesc t;
    set_4d(g, oi, t, outer, xs.empty() ? 1 : xs[static_cast<size_t>(axis)], inner, 1);
    DGS_CUDNN_CHECK(cudnnSoftmaxForward(
        cx.cudnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, t.d,
        buf(oi, g.op(oi).inputs[0]), &kZero, t.d, buf(oi, g.op(oi).outputs[0])));
    cx.launcher.count_launch();
  }

  void run_elementwise(int oi, Context& cx, EwOp ew) {
    const Op& op = g.op(oi);
    const Shape& ys = out_shape(oi);
    float* y = buf(oi, op.outputs[0]);
    EwParams p;
    if (op.kind == OpKind::LeakyRelu)
      p.alpha = static_cast<float>(op.attrs.get_float("alpha", 0.01));
    if (op.kind == OpKind::HardSigmoid) {
      p.alpha = static_cast<float>(op.attrs.get_float("alpha", 0.2));
      p.beta = static_cast<float>(op.attrs.get_float("beta", 0.5));
    }
    if (op.kind == OpKind::Clip) {
      p.alpha = const_float(g, oi, 1).value_or(
          static_cast<float>(op.attrs.get_float("min", -std::numeric_limits<float>::infinity())));
      p.beta = const_float(g, oi, 2).value_or(
          static_cast<float>(op.attrs.get_float("max", std::numeric_limits<float>::infinity())));
    }
    if (op.kind == OpKind::Gelu && op.attrs.get_string("approximate", "none") == "tanh") {
      ew = EwOp::GeluTanh;
    }
    const int a = op.inputs[0];
    const StridedView av{broadcast_strides(shape(a), ys), 0};
    if (!ew_is_binary(ew)) {
      elementwise(cx.launcher, ew, p, ys, buf(oi, a), av, nullptr, av, y);
      return;
    }
    // Binary, and variadic Max/Min folded left into y.
    const float* acc = buf(oi, a);
    StridedView acc_view = av;
    for (size_t i = 1; i < op.inputs.size(); ++i) {
      const int b = op.inputs[i];
      if (b < 0) continue;
      elementwise(cx.launcher, ew, p, ys, acc, acc_view, buf(oi, b),
                  StridedView{broadcast_strides(shape(b), ys), 0}, y);
      acc = y;
      acc_view = StridedView{contiguous_strides(ys), 0};
    }
    if (acc != y) {  // Max/Min of one input: a copy
      strided_copy(cx.launcher, ys, acc, acc_view, y, StridedView{contiguous_strides(ys), 0});
    }
  }

  void run_where(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& ys = out_shape(oi);
    auto view = [&](size_t i) {
      return StridedView{broadcast_strides(shape(op.inputs.at(i)), ys), 0};
    };
    where_select(cx.launcher, ys, buf(oi, op.inputs[0]), view(0), buf(oi, op.inputs[1]), view(1),
                 buf(oi, op.inputs[2]), view(2), buf(oi, op.outputs[0]));
  }

  // GatherND's gathered slices (constant indices): the flat offset in the data of each, and the
  // slice length. Same semantics as the CPU executor (batch_dims, negative indices).
  std::pair<std::vector<int64_t>, int64_t> gather_nd_offsets(int oi) const {
    const Op& op = g.op(oi);
    const Shape& xs = in_shape(oi, 0);
    const Tensor& ind = g.tensor(op.inputs.at(1));
    const int64_t b = op.attrs.get_int("batch_dims", 0);
    const auto r = static_cast<int64_t>(xs.size());
    const auto q = static_cast<int64_t>(ind.shape.size());
    if (q < 1 || b < 0 || b >= std::min(r, q)) {
      unsupported(g, oi, "batch_dims outside the inputs' ranks");
    }
    const int64_t k = ind.shape.back();
    if (k < 1 || b + k > r) unsupported(g, oi, "indices' last dimension exceeds the data's rank");
    int64_t batch = 1, inner = 1;
    for (int64_t d = 0; d < b; ++d) batch *= xs[static_cast<size_t>(d)];
    for (int64_t d = b + k; d < r; ++d) inner *= xs[static_cast<size_t>(d)];
    const int64_t tuples = numel(ind.shape) / k / batch;
    const std::vector<int64_t> st = contiguous_strides(xs);
    std::vector<int64_t> offsets;
    for (int64_t bi = 0; bi < batch; ++bi) {
      const int64_t base = b > 0 ? bi * st[static_cast<size_t>(b - 1)] : 0;
      for (int64_t t = 0; t < tuples; ++t) {
        int64_t off = base;
        for (int64_t j = 0; j < k; ++j) {
          const int64_t dim = xs[static_cast<size_t>(b + j)];
          int64_t v = ind.int_data.at(static_cast<size_t>((bi * tuples + t) * k + j));
          if (v < -dim || v >= dim) {
            unsupported(g, oi,
                        "index " + std::to_string(v) + " out of range for axis size " +
                            std::to_string(dim));
          }
          if (v < 0) v += dim;
          off += v * st[static_cast<size_t>(b + j)];
        }
        offsets.push_back(off);
      }
    }
    return {offsets, inner};
  }

  void run_gather_nd(int oi, Context& cx) {
    const auto [offsets, slice] = gather_nd_offsets(oi);
    auto it = gather_offsets.find(oi);
    if (it == gather_offsets.end()) {
      DeviceBuffer d(std::max<size_t>(offsets.size(), 1) * sizeof(int64_t));
      d.upload(offsets.data(), offsets.size() * sizeof(int64_t));
      it = gather_offsets.emplace(oi, std::move(d)).first;
    }
    const Op& op = g.op(oi);
    gather_slices(cx.launcher, buf(oi, op.inputs[0]),
                  static_cast<const int64_t*>(it->second.data()),
                  static_cast<int64_t>(offsets.size()), slice, buf(oi, op.outputs[0]));
  }

  void run_concat(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& ys = out_shape(oi);
    const int64_t axis = normalize_axis(g, oi, op.attrs.get_int("axis", 0), ys.size());
    const std::vector<int64_t> ystr = contiguous_strides(ys);
    int64_t off = 0;
    for (int t : op.inputs) {
      if (t < 0) continue;
      const Shape& xs = shape(t);
      strided_copy(cx.launcher, xs, buf(oi, t), StridedView{contiguous_strides(xs), 0},
                   buf(oi, op.outputs[0]),
                   StridedView{ystr, off * ystr[static_cast<size_t>(axis)]});
      off += xs[static_cast<size_t>(axis)];
    }
  }

  void run_split(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& xs = in_shape(oi, 0);
    const int64_t axis = normalize_axis(g, oi, op.attrs.get_int("axis", 0), xs.size());
    const std::vector<int64_t> xstr = contiguous_strides(xs);
    int64_t off = 0;
    for (int t : op.outputs) {
      if (t < 0) continue;
      const Shape& ys = shape(t);
      strided_copy(cx.launcher, ys, buf(oi, op.inputs[0]),
                   StridedView{xstr, off * xstr[static_cast<size_t>(axis)]}, buf(oi, t),
                   StridedView{contiguous_strides(ys), 0});
      off += ys[static_cast<size_t>(axis)];
    }
  }

  void run_slice(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& xs = in_shape(oi, 0);
    const Shape& ys = out_shape(oi);
    std::vector<int64_t> starts, axes, steps;
    if (op.inputs.size() > 1) {
      starts = const_ints(g, oi, 1);
      axes = const_ints(g, oi, 3);
      steps = const_ints(g, oi, 4);
    } else {
      starts = op.attrs.get_ints("starts", {});
      axes = op.attrs.get_ints("axes", {});
    }
    if (axes.empty()) {
      axes.resize(starts.size());
      std::iota(axes.begin(), axes.end(), 0);
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size()) {
      unsupported(g, oi, "starts, axes and steps of different lengths");
    }
    const std::vector<int64_t> xstr = contiguous_strides(xs);
    std::vector<int64_t> str = xstr;
    int64_t offset = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
      const size_t a = static_cast<size_t>(normalize_axis(g, oi, axes[i], xs.size()));
      const int64_t dim = xs[a], step = steps[i];
      if (step == 0) unsupported(g, oi, "step 0");
      int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
      s = step > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
      offset += s * xstr[a];
      str[a] = step * xstr[a];
    }
    strided_copy(cx.launcher, ys, buf(oi, op.inputs[0]), StridedView{str, offset},
                 buf(oi, op.outputs[0]), StridedView{contiguous_strides(ys), 0});
  }

  void run_transpose(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& xs = in_shape(oi, 0);
    std::vector<int64_t> perm(xs.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
    perm = op.attrs.get_ints("perm", perm);
    const std::vector<int64_t> xstr = contiguous_strides(xs);
    std::vector<int64_t> str(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      str[i] = xstr[static_cast<size_t>(normalize_axis(g, oi, perm[i], xs.size()))];
    }
    const Shape& ys = out_shape(oi);
    strided_copy(cx.launcher, ys, buf(oi, op.inputs[0]), StridedView{str, 0},
                 buf(oi, op.outputs[0]), StridedView{contiguous_strides(ys), 0});
  }

  void run_expand(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& ys = out_shape(oi);
    strided_copy(cx.launcher, ys, buf(oi, op.inputs[0]),
                 StridedView{broadcast_strides(in_shape(oi, 0), ys), 0}, buf(oi, op.outputs[0]),
                 StridedView{contiguous_strides(ys), 0});
  }

  void run_pad(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& xs = in_shape(oi, 0);
    const Shape& ys = out_shape(oi);
    std::vector<int64_t> pads =
        op.inputs.size() > 1 ? const_ints(g, oi, 1) : op.attrs.get_ints("pads", {});
    const float value = op.inputs.size() > 2 && op.inputs[2] >= 0
                            ? *const_float(g, oi, 2)
                            : static_cast<float>(op.attrs.get_float("value", 0.0));
    if (pads.size() != 2 * xs.size()) unsupported(g, oi, "pads must have 2 x rank values");
    const std::vector<int64_t> ystr = contiguous_strides(ys);
    int64_t offset = 0;
    for (size_t a = 0; a < xs.size(); ++a) {
      if (pads[a] < 0 || pads[a + xs.size()] < 0) unsupported(g, oi, "negative pads");
      offset += pads[a] * ystr[a];
    }
    float* y = buf(oi, op.outputs[0]);
    fill(cx.launcher, y, numel(ys), value);
    strided_copy(cx.launcher, xs, buf(oi, op.inputs[0]), StridedView{contiguous_strides(xs), 0}, y,
                 StridedView{ystr, offset});
  }

  // Gemm and MatMul: cuBLASLt (library_kernels.h), or the suite's tiled GEMM for an operand
  // layout cuBLAS cannot take (blas_gemm_unsupported says which).
  void gemm_kernel(Context& cx, int64_t batch, int64_t m, int64_t n, int64_t k, const MatrixArg& a,
                   const MatrixArg& b, const OutMatrixArg& c, const Epilogue& e = {}) {
    if (blas_gemm_unsupported(batch, m, n, k, a, b, c, e).empty()) {
      if (!cx.blas) cx.blas = std::make_unique<BlasContext>(opts.allow_tf32);
      blas_gemm(cx.launcher, *cx.blas, batch, m, n, k, a, b, c, e);
    } else {
      gemm(cx.launcher, default_gemm_tile(), batch, m, n, k, a, b, c, e);
    }
  }

  void run_gemm(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& as = in_shape(oi, 0);
    const Shape& bs = in_shape(oi, 1);
    const bool ta = op.attrs.get_int("transA", 0) != 0, tb = op.attrs.get_int("transB", 0) != 0;
    const int64_t m = ta ? as[1] : as[0], k = ta ? as[0] : as[1], n = tb ? bs[0] : bs[1];
    const MatrixArg a =
        ta ? MatrixArg{buf(oi, op.inputs[0]), 1, m, 0} : MatrixArg{buf(oi, op.inputs[0]), k, 1, 0};
    const MatrixArg b =
        tb ? MatrixArg{buf(oi, op.inputs[1]), 1, k, 0} : MatrixArg{buf(oi, op.inputs[1]), n, 1, 0};
    Epilogue e;
    e.alpha = static_cast<float>(op.attrs.get_float("alpha", 1.0));
    if (op.inputs.size() > 2 && op.inputs[2] >= 0) {
      const Shape& cs = in_shape(oi, 2);
      if (op.attrs.get_float("beta", 1.0) != 1.0) unsupported(g, oi, "beta != 1 with a C input");
      if (numel(cs) == n && (cs.size() == 1 || (cs.size() == 2 && cs[0] == 1))) {
        e.bias = buf(oi, op.inputs[2]);
      } else if (cs.size() == 2 && cs[0] == m && cs[1] == n) {
        e.residual = buf(oi, op.inputs[2]);
      } else {
        unsupported(g, oi, "C of shape " + shape_str(cs) + "; expected [N], [1,N] or [M,N]");
      }
    }
    gemm_kernel(cx, 1, m, n, k, a, b, OutMatrixArg{buf(oi, op.outputs[0]), n, 1, 0}, e);
  }

  void run_matmul(int oi, Context& cx) {
    const Op& op = g.op(oi);
    const Shape& as = in_shape(oi, 0);
    const Shape& bs = in_shape(oi, 1);
    const Shape& ys = out_shape(oi);
    const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    const int64_t batch = numel(ys) / (m * n);
    const int64_t a_batch = numel(as) / (m * k), b_batch = numel(bs) / (k * n);
    auto batch_stride = [&](int64_t count, int64_t size) -> int64_t {
      if (count == batch) return size;
      if (count == 1) return 0;
      unsupported(g, oi, "partially broadcast batch dimensions");
    };
    const MatrixArg a{buf(oi, op.inputs[0]), k, 1, batch_stride(a_batch, m * k)};
    const MatrixArg b{buf(oi, op.inputs[1]), n, 1, batch_stride(b_batch, k * n)};
    gemm_kernel(cx, batch, m, n, k, a, b, OutMatrixArg{buf(oi, op.outputs[0]), n, 1, m * n});
  }

  void run_op(int oi, Context& cx) {
    const Op& op = g.op(oi);
    switch (op.kind) {
      case OpKind::Conv: {
        ConvRun& c = ensure_conv(oi);
        run_conv(c, cx, buf(oi, op.inputs[0]), buf(oi, op.inputs[1]), conv_bias(oi),
                 buf(oi, op.outputs[0]), false);
        return;
      }
      case OpKind::Relu:
        return run_cudnn_activation(oi, cx, CUDNN_ACTIVATION_RELU);
      case OpKind::Sigmoid:
        return run_cudnn_activation(oi, cx, CUDNN_ACTIVATION_SIGMOID);
      case OpKind::Tanh:
        return run_cudnn_activation(oi, cx, CUDNN_ACTIVATION_TANH);
      case OpKind::MaxPool:
      case OpKind::AveragePool:
      case OpKind::GlobalAveragePool:
      case OpKind::GlobalMaxPool:
        return run_pool(oi, cx);
      case OpKind::BatchNormalization:
        return run_batchnorm(oi, cx);
      case OpKind::Softmax:
        return run_softmax(oi, cx);
      case OpKind::Concat:
        return run_concat(oi, cx);
      case OpKind::Split:
        return run_split(oi, cx);
      case OpKind::Slice:
        return run_slice(oi, cx);
      case OpKind::Transpose:
        return run_transpose(oi, cx);
      case OpKind::Expand:
        return run_expand(oi, cx);
      case OpKind::Pad:
        return run_pad(oi, cx);
      case OpKind::Gemm:
        return run_gemm(oi, cx);
      case OpKind::MatMul:
        return run_matmul(oi, cx);
      case OpKind::Where:
        return run_where(oi, cx);
      case OpKind::GatherND:
        return run_gather_nd(oi, cx);
      default:
        if (is_alias_op(op.kind)) return;  // the output aliases the input: nothing moves
        if (const auto ew = ew_op_of(op.kind)) return run_elementwise(oi, cx, *ew);
        unsupported(g, oi, "not implemented on the GPU");
    }
  }

  void run_task(const Task& task, Context& cx) {
    if (task.kind == TaskKind::Merged) {
      const WorkScope where(&g.op(task.ops.front()).name);  // the merged convolution's first op
      return run_merged(task, cx);
    }
    // Sequential and Fused tasks run op by op on the task's stream (fused kernels run through
    // their own launchers, e.g. tile programs (tile_program_gpu.h), not through this executor).
    for (size_t i = 0; i < task.ops.size(); ++i) {
      const int oi = task.ops[i];
      const WorkScope where(&g.op(oi).name);  // names the kernel in a device error
      const int next = i + 1 < task.ops.size() ? task.ops[i + 1] : -1;
      if (fusible_relu(oi, next) && ensure_conv(oi).fused_relu_ok) {
        const Op& op = g.op(oi);
        run_conv(ensure_conv(oi), cx, buf(oi, op.inputs[0]), buf(oi, op.inputs[1]), conv_bias(oi),
                 buf(next, g.op(next).outputs[0]), true);
        ++i;
        continue;
      }
      run_op(oi, cx);
    }
  }

  void run_stage(const Stage& s) {
    ensure_contexts(s.tasks.size());
    for (size_t j = 0; j < s.tasks.size(); ++j) run_task(s.tasks[j], context(j));
  }

  // One forward pass: other streams wait for stream 0's earlier work, a host sync between
  // stages (not between two single-task stages), and every stream joined into stream 0 at the end.
  void forward(const Plan& plan) {
    size_t width = 1;
    for (const Stage& s : plan.stages) width = std::max(width, s.tasks.size());
    ensure_contexts(width);
    pass_start->record(context(0).stream);
    for (size_t j = 1; j < width; ++j) pass_start->make_wait(context(j).stream);
    for (size_t si = 0; si < plan.stages.size(); ++si) {
      const WorkScope where(stage_labels(plan.stages.size()).at(si));
      run_stage(plan.stages[si]);
      const bool last = si + 1 == plan.stages.size();
      if (!last && !(plan.stages[si].tasks.size() == 1 && plan.stages[si + 1].tasks.size() == 1)) {
        device_synchronize();
      }
    }
    for (size_t j = 1; j < width; ++j) {
      context(j).done.record(context(j).stream);
      context(j).done.make_wait(context(0).stream);
    }
  }

  // "stage 1 of n", ... (built once per stage count, so a pass allocates no label).
  const std::vector<std::string>& stage_labels(size_t n) {
    if (labels.size() != n) {
      labels.clear();
      for (size_t i = 0; i < n; ++i)
        labels.push_back("stage " + std::to_string(i + 1) + " of " + std::to_string(n));
    }
    return labels;
  }
  std::vector<std::string> labels;

  void prepare(const Plan& plan) {
    plan.check(g);
    for (size_t si = 0; si < plan.stages.size(); ++si) {
      const Stage& s = plan.stages[si];
      const WorkScope where(stage_labels(plan.stages.size()).at(si));
      ensure_contexts(s.tasks.size());
      for (const Task& t : s.tasks) {
        if (t.kind == TaskKind::Merged) {
          ensure_merged(t);
          continue;
        }
        for (int o : t.ops) {
          const WorkScope op_where(&g.op(o).name);
          if (g.op(o).kind == OpKind::Conv) ensure_conv(o);
        }
      }
    }
    device_synchronize();
  }

  int64_t launches() const {
    int64_t n = 0;
    for (const auto& c : ctx) n += c->launcher.launches();
    return n;
  }
};

// --- StageExecutor ------------------------------------------------------------------------------
StageExecutor::StageExecutor(const Graph& g, StageExecutorOptions opts)
    : impl_(std::make_unique<Impl>(g, opts)) {}
StageExecutor::~StageExecutor() = default;

const Graph& StageExecutor::graph() const {
  return impl_->g;
}
const GpuSpec& StageExecutor::gpu() const {
  return impl_->gpu;
}
std::string StageExecutor::conv_math() const {
  return impl_->opts.allow_tf32 ? "default (TF32 tensor cores allowed)" : "FMA (FP32 CUDA cores)";
}

void StageExecutor::set_tensor(int tensor, const TensorData& value) {
  Impl& m = *impl_;
  if (tensor < 0 || tensor >= m.g.num_tensors()) {
    throw Error("StageExecutor::set_tensor: tensor index " + std::to_string(tensor) +
                " out of range");
  }
  const Tensor& t = m.g.tensor(tensor);
  if (t.role != TensorRole::Input && t.role != TensorRole::Weight) {
    throw Error("StageExecutor::set_tensor: '" + t.name + "' is not an input or a weight");
  }
  if (value.shape != t.shape || value.dtype != t.dtype || !Impl::on_device(t.dtype) ||
      value.size() != t.numel()) {
    throw Error("StageExecutor::set_tensor: '" + t.name + "' is " +
                std::string(dtype_name(t.dtype)) + shape_str(t.shape) + "; got " +
                tensor_data_str(value));
  }
  m.upload(tensor, value);
  if (t.role == TensorRole::Weight) m.merged.clear();  // merged weights are copies
}

TensorData StageExecutor::get_tensor(int tensor) const {
  const Impl& m = *impl_;
  if (tensor < 0 || tensor >= m.g.num_tensors() || m.ptr[static_cast<size_t>(tensor)] == nullptr) {
    throw Error("StageExecutor::get_tensor: tensor " + std::to_string(tensor) +
                " is not a float32 or bool tensor on the device");
  }
  device_synchronize();
  const Tensor& t = m.g.tensor(tensor);
  TensorData d = TensorData::zeros(t.shape);
  DGS_CUDA_CHECK(cudaMemcpy(d.f.data(), m.ptr[static_cast<size_t>(tensor)],
                            d.f.size() * sizeof(float), cudaMemcpyDeviceToHost));
  if (t.dtype == DType::Bool) {  // 0/1 floats on the device
    TensorData b;
    b.shape = t.shape;
    b.dtype = DType::Bool;
    b.i.resize(d.f.size());
    for (size_t k = 0; k < d.f.size(); ++k) b.i[k] = d.f[k] != 0.0f ? 1 : 0;
    return b;
  }
  return d;
}

std::map<int, TensorData> StageExecutor::outputs() const {
  std::map<int, TensorData> out;
  for (int t : impl_->g.output_tensors()) out.emplace(t, get_tensor(t));
  return out;
}

void StageExecutor::poison_activations() {
  Impl& m = *impl_;
  device_synchronize();
  for (int t = 0; t < m.g.num_tensors(); ++t) {
    const TensorRole r = m.g.tensor(t).role;
    DeviceBuffer& b = m.own[static_cast<size_t>(t)];
    if ((r == TensorRole::Activation || r == TensorRole::Output) && !b.empty()) b.fill_bytes(0xFF);
  }
}

void StageExecutor::prepare(const Plan& plan) {
  impl_->prepare(plan);
}

void StageExecutor::run(const Plan& plan) {
  impl_->prepare(plan);
  impl_->forward(plan);
  device_synchronize();
}

Timing StageExecutor::measure_stage(const Stage& stage) {
  Impl& m = *impl_;
  const WorkScope where("a stage of " + std::to_string(stage.tasks.size()) +
                        " task(s) timed alone");
  m.ensure_contexts(stage.tasks.size());
  for (const Task& t : stage.tasks) {
    if (t.kind == TaskKind::Merged) {
      m.ensure_merged(t);
    } else {
      for (int o : t.ops) {
        if (o < 0 || o >= m.g.num_ops()) throw Error("measure_stage: op index out of range");
        if (m.g.op(o).kind == OpKind::Conv) m.ensure_conv(o);
      }
    }
  }
  device_synchronize();
  const bool multi = stage.tasks.size() > 1;
  return time_with_events(
      [&] {
        m.run_stage(stage);
        if (multi) device_synchronize();  // a sync after each run of a multi-task stage
      },
      m.context(0).stream, m.opts.timing);
}

PlanLatency StageExecutor::measure(const Plan& plan, bool per_stage) {
  Impl& m = *impl_;
  m.prepare(plan);
  PlanLatency r;
  const int64_t before = m.launches();
  m.forward(plan);
  device_synchronize();
  r.kernel_calls = m.launches() - before;
  r.network = time_with_events([&] { m.forward(plan); }, m.context(0).stream, m.opts.timing);
  r.network_ms = r.network.median_ms;
  if (per_stage)
    for (const Stage& s : plan.stages) r.stage_ms.push_back(measure_stage(s).median_ms);
  return r;
}

// --- MeasuredStageCost --------------------------------------------------------------------------
MeasuredStageCost::MeasuredStageCost(const Graph& g, StageExecutorOptions opts)
    : exec_(std::make_unique<StageExecutor>(g, opts)) {}
MeasuredStageCost::~MeasuredStageCost() = default;

double MeasuredStageCost::stage_latency_ms(const std::vector<std::vector<int>>& groups,
                                           Strategy strategy) {
  std::string key = strategy == Strategy::Merge ? "M" : "C";
  for (const auto& grp : groups) {
    key += "|";
    for (int o : grp) key += std::to_string(o) + ",";
  }
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  Stage s;
  if (strategy == Strategy::Merge) {
    Task t;
    t.kind = TaskKind::Merged;
    for (const auto& grp : groups) t.ops.insert(t.ops.end(), grp.begin(), grp.end());
    // Convolutions first, then the element-wise ops, each in group order.
    std::stable_partition(t.ops.begin(), t.ops.end(),
                          [&](int o) { return exec_->graph().op(o).kind == OpKind::Conv; });
    s.tasks.push_back(std::move(t));
  } else {
    for (const auto& grp : groups) {
      Task t;
      t.kind = TaskKind::Sequential;
      t.ops = grp;
      s.tasks.push_back(std::move(t));
    }
  }
  const double ms = exec_->measure_stage(s).median_ms;
  cache_.emplace(key, ms);
  return ms;
}

int64_t MeasuredStageCost::measurements() const {
  return static_cast<int64_t>(cache_.size());
}

}  // namespace dgs::gpu
