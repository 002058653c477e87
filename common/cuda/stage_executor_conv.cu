// The stage executor's convolutions (see stage_executor_impl.cuh): cuDNN algorithm choice and
// setup, asymmetric pre-padding, the fused bias + ReLU path, and merged convolutions (operator
// merge: several convs that read one input run as one).
#include "common/cuda/stage_executor_impl.cuh"

namespace dgs::gpu {

AlgoChoice StageExecutor::Impl::find_algo(ConvRun& c, const float* x, const float* w, float* y,
                                          const std::string& key) {
  auto it = algo_cache.find(key);
  if (it != algo_cache.end()) return it->second;
  Context& c0 = context(0);
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  DGS_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
      c0.cudnn, c.x.d, x, c.w.d, w, c.conv.d, c.y.d, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned,
      perf, c0.workspace.data(), c0.workspace.bytes()));
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

void StageExecutor::Impl::setup_conv(ConvRun& c, int oi, const Shape& xs, const Shape& ws,
                                     const Shape& ys, const Window2d& win, int64_t groups,
                                     const float* x, const float* w, float* y, const float* bias) {
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
  DGS_CUDNN_CHECK(cudnnSetFilter4dDescriptor(c.w.d, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                             to_int(g, oi, ws[0], "K"), to_int(g, oi, ws[1], "C"),
                                             to_int(g, oi, ws[2], "R"), to_int(g, oi, ws[3], "S")));
  DGS_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
      c.conv.d, to_int(g, oi, ph, "pad"), to_int(g, oi, pw, "pad"), to_int(g, oi, win.sh, "stride"),
      to_int(g, oi, win.sw, "stride"), to_int(g, oi, win.dh, "dilation"),
      to_int(g, oi, win.dw, "dilation"), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  DGS_CUDNN_CHECK(cudnnSetConvolutionGroupCount(c.conv.d, to_int(g, oi, groups, "group")));
  DGS_CUDNN_CHECK(
      cudnnSetConvolutionMathType(c.conv.d, opts.allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  int on = 0, oc = 0, oh = 0, ow = 0;
  DGS_CUDNN_CHECK(
      cudnnGetConvolution2dForwardOutputDim(c.conv.d, c.x.d, c.w.d, &on, &oc, &oh, &ow));
  if (on != ys[0] || oc != ys[1] || oh != ys[2] || ow != ys[3]) {
    unsupported(g, oi,
                "cuDNN computes output [" + std::to_string(on) + "," + std::to_string(oc) + "," +
                    std::to_string(oh) + "," + std::to_string(ow) + "] but the graph says " +
                    shape_str(ys));
  }
  DGS_CUDNN_CHECK(
      cudnnSetActivationDescriptor(c.relu.d, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
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

void StageExecutor::Impl::run_prepad(ConvRun& c, Context& cx, const float* x) {
  strided_copy(cx.launcher, c.x_dims, x, StridedView{contiguous_strides(c.x_dims), 0},
               c.padded.floats(), c.padded_view);
}

void StageExecutor::Impl::run_conv(ConvRun& c, Context& cx, const float* x, const float* w,
                                   const float* bias, float* y, bool relu) {
  if (c.prepad) run_prepad(c, cx, x);
  const float* xp = c.prepad ? c.padded.floats() : x;
  if (relu && c.fused_relu_ok) {
    DGS_CUDNN_CHECK(cudnnConvolutionBiasActivationForward(
        cx.cudnn, &kOne, c.x.d, xp, c.w.d, w, c.conv.d, c.algo, cx.workspace.data(), c.ws_bytes,
        &kZero, c.y.d, y, c.bias.d, bias ? bias : c.bias_ptr, c.relu.d, c.y.d, y));
    cx.launcher.count_launch();
    c.ran_fused = true;
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
    DGS_CUDNN_CHECK(cudnnActivationForward(cx.cudnn, c.relu.d, &kOne, c.y.d, y, &kZero, c.y.d, y));
    cx.launcher.count_launch();
  }
}

const float* StageExecutor::Impl::conv_bias(int oi) {
  const Op& op = g.op(oi);
  return op.inputs.size() > 2 && op.inputs[2] >= 0 ? buf(oi, op.inputs[2]) : nullptr;
}

ConvRun& StageExecutor::Impl::ensure_conv(int oi) {
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

bool StageExecutor::Impl::fusible_relu(int oi, int next) const {
  if (!opts.fuse_conv_relu || next < 0) return false;
  const Op& c = g.op(oi);
  const Op& r = g.op(next);
  if (c.kind != OpKind::Conv || r.kind != OpKind::Relu) return false;
  const Tensor& y = g.tensor(c.outputs[0]);
  return r.inputs[0] == c.outputs[0] && y.consumers.size() == 1 && y.role != TensorRole::Output;
}

std::string StageExecutor::Impl::task_key(const Task& t) {
  std::string k;
  for (int o : t.ops) k += std::to_string(o) + ",";
  return k;
}

MergedRun& StageExecutor::Impl::ensure_merged(const Task& task) {
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
    strided_copy(c0.launcher, ws, buf(o, g.op(o).inputs[1]), StridedView{contiguous_strides(ws), 0},
                 m->weight.floats(),
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

void StageExecutor::Impl::run_merged(const Task& task, Context& cx) {
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

}  // namespace dgs::gpu
