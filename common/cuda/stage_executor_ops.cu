// The stage executor's kernels of one op (see stage_executor_impl.cuh), by family: cuDNN
// activations, pooling, normalisation and softmax; element-wise and Where; data movement
// (GatherND, Concat, Split, Slice, Transpose, Expand, Pad); Gemm and MatMul.
#include "common/cuda/stage_executor_impl.cuh"

namespace dgs::gpu {

void StageExecutor::Impl::run_cudnn_activation(int oi, Context& cx, cudnnActivationMode_t mode) {
  TensorDesc t;
  ActDesc a;
  set_4d(g, oi, t, 1, numel(out_shape(oi)), 1, 1);
  DGS_CUDNN_CHECK(cudnnSetActivationDescriptor(a.d, mode, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  DGS_CUDNN_CHECK(cudnnActivationForward(cx.cudnn, a.d, &kOne, t.d, buf(oi, g.op(oi).inputs[0]),
                                         &kZero, t.d, buf(oi, g.op(oi).outputs[0])));
  cx.launcher.count_launch();
}

void StageExecutor::Impl::run_pool(int oi, Context& cx) {
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

void StageExecutor::Impl::run_batchnorm(int oi, Context& cx) {
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

void StageExecutor::Impl::run_softmax(int oi, Context& cx) {
  const Shape& xs = in_shape(oi, 0);
  const int64_t axis = normalize_axis(g, oi, g.op(oi).attrs.get_int("axis", -1), xs.size());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= xs[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < xs.size(); ++i) inner *= xs[i];
  TensorDesc t;
  set_4d(g, oi, t, outer, xs.empty() ? 1 : xs[static_cast<size_t>(axis)], inner, 1);
  DGS_CUDNN_CHECK(cudnnSoftmaxForward(cx.cudnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL,
                                      &kOne, t.d, buf(oi, g.op(oi).inputs[0]), &kZero, t.d,
                                      buf(oi, g.op(oi).outputs[0])));
  cx.launcher.count_launch();
}

void StageExecutor::Impl::run_elementwise(int oi, Context& cx, EwOp ew) {
  const Op& op = g.op(oi);
  const Shape& ys = out_shape(oi);
  float* y = buf(oi, op.outputs[0]);
  EwParams p;
  if (op.kind == OpKind::LeakyRelu) p.alpha = static_cast<float>(op.attrs.get_float("alpha", 0.01));
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

void StageExecutor::Impl::run_where(int oi, Context& cx) {
  const Op& op = g.op(oi);
  const Shape& ys = out_shape(oi);
  auto view = [&](size_t i) {
    return StridedView{broadcast_strides(shape(op.inputs.at(i)), ys), 0};
  };
  where_select(cx.launcher, ys, buf(oi, op.inputs[0]), view(0), buf(oi, op.inputs[1]), view(1),
               buf(oi, op.inputs[2]), view(2), buf(oi, op.outputs[0]));
}

std::pair<std::vector<int64_t>, int64_t> StageExecutor::Impl::gather_nd_offsets(int oi) const {
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
          unsupported(
              g, oi,
              "index " + std::to_string(v) + " out of range for axis size " + std::to_string(dim));
        }
        if (v < 0) v += dim;
        off += v * st[static_cast<size_t>(b + j)];
      }
      offsets.push_back(off);
    }
  }
  return {offsets, inner};
}

void StageExecutor::Impl::run_gather_nd(int oi, Context& cx) {
  const auto [offsets, slice] = gather_nd_offsets(oi);
  auto it = gather_offsets.find(oi);
  if (it == gather_offsets.end()) {
    DeviceBuffer d(std::max<size_t>(offsets.size(), 1) * sizeof(int64_t));
    d.upload(offsets.data(), offsets.size() * sizeof(int64_t));
    it = gather_offsets.emplace(oi, std::move(d)).first;
  }
  const Op& op = g.op(oi);
  gather_slices(cx.launcher, buf(oi, op.inputs[0]), static_cast<const int64_t*>(it->second.data()),
                static_cast<int64_t>(offsets.size()), slice, buf(oi, op.outputs[0]));
}

void StageExecutor::Impl::run_concat(int oi, Context& cx) {
  const Op& op = g.op(oi);
  const Shape& ys = out_shape(oi);
  const int64_t axis = normalize_axis(g, oi, op.attrs.get_int("axis", 0), ys.size());
  const std::vector<int64_t> ystr = contiguous_strides(ys);
  int64_t off = 0;
  for (int t : op.inputs) {
    if (t < 0) continue;
    const Shape& xs = shape(t);
    strided_copy(cx.launcher, xs, buf(oi, t), StridedView{contiguous_strides(xs), 0},
                 buf(oi, op.outputs[0]), StridedView{ystr, off * ystr[static_cast<size_t>(axis)]});
    off += xs[static_cast<size_t>(axis)];
  }
}

void StageExecutor::Impl::run_split(int oi, Context& cx) {
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

void StageExecutor::Impl::run_slice(int oi, Context& cx) {
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

void StageExecutor::Impl::run_transpose(int oi, Context& cx) {
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
  strided_copy(cx.launcher, ys, buf(oi, op.inputs[0]), StridedView{str, 0}, buf(oi, op.outputs[0]),
               StridedView{contiguous_strides(ys), 0});
}

void StageExecutor::Impl::run_expand(int oi, Context& cx) {
  const Op& op = g.op(oi);
  const Shape& ys = out_shape(oi);
  strided_copy(cx.launcher, ys, buf(oi, op.inputs[0]),
               StridedView{broadcast_strides(in_shape(oi, 0), ys), 0}, buf(oi, op.outputs[0]),
               StridedView{contiguous_strides(ys), 0});
}

void StageExecutor::Impl::run_pad(int oi, Context& cx) {
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

void StageExecutor::Impl::gemm_kernel(Context& cx, int64_t batch, int64_t m, int64_t n, int64_t k,
                                      const MatrixArg& a, const MatrixArg& b, const OutMatrixArg& c,
                                      const Epilogue& e) {
  if (blas_gemm_unsupported(batch, m, n, k, a, b, c, e).empty()) {
    if (!cx.blas) cx.blas = std::make_unique<BlasContext>(opts.allow_tf32);
    blas_gemm(cx.launcher, *cx.blas, batch, m, n, k, a, b, c, e);
  } else {
    gemm(cx.launcher, default_gemm_tile(), batch, m, n, k, a, b, c, e);
  }
}

void StageExecutor::Impl::run_gemm(int oi, Context& cx) {
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

void StageExecutor::Impl::run_matmul(int oi, Context& cx) {
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

}  // namespace dgs::gpu
