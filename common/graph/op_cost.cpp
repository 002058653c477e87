#include "common/graph/op_cost.h"

#include <algorithm>
#include <vector>

#include "common/graph/op_signature.h"

namespace dgs {

namespace {

// FLOPs per element of the normalisation ops (see op_cost.h for what each counts).
constexpr int64_t kBatchNormFlopsPerElement = 2;  // folded scale and shift
constexpr int64_t kLayerNormFlopsPerElement = 8;  // mean 1, variance 3, normalise 2, affine 2
constexpr int64_t kSoftmaxFlopsPerElement = 5;    // max, subtract, exp, sum, divide
constexpr int64_t kLerpFlops = 3;                 // linear interpolation: sub, mul, add
constexpr int64_t kCubicFlopsPerTap = 2;          // multiply-add per tap of a cubic filter

int64_t prod(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

int64_t int_pow(int64_t b, int64_t e) {
  int64_t r = 1;
  while (e-- > 0) r *= b;
  return r;
}

bool has_input(const Op& op, int i) {
  return i < static_cast<int>(op.inputs.size()) && op.inputs[i] >= 0;
}

}  // namespace

OpCost& OpCost::operator+=(const OpCost& o) {
  flops += o.flops;
  macs += o.macs;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  params += o.params;
  return *this;
}

OpCost op_cost(const Graph& g, int o) {
  const Op& op = g.op(o);
  OpCost c;
  auto in = [&](int i) -> const Tensor& { return g.tensor(op.inputs[i]); };
  const Tensor& out = g.tensor(op.outputs.at(0));
  const int64_t out_n = out.numel();

  // Bytes and parameters.
  std::vector<int> seen;
  for (int i = 0; i < static_cast<int>(op.inputs.size()); ++i) {
    int t = op.inputs[i];
    if (t < 0 || is_shape_input(op.kind, i)) continue;
    if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
    seen.push_back(t);
    const Tensor& x = g.tensor(t);
    if (is_learned_weight(x)) c.params += x.numel();
    if (op.kind == OpKind::Slice && i == 0) {
      c.bytes_read += out.bytes();
    } else if ((op.kind == OpKind::Gather || op.kind == OpKind::GatherND) && i == 0) {
      c.bytes_read += out_n * dtype_size(x.dtype);
    } else {
      c.bytes_read += x.bytes();
    }
  }
  for (int t : op.outputs) {
    if (t >= 0) c.bytes_written += g.tensor(t).bytes();
  }

  switch (op.kind) {
    case OpKind::Conv: {
      const Shape& w = in(1).shape;  // [M, C/group, k...]
      c.macs = out_n * w[1] * prod(w, 2, w.size());
      c.flops = 2 * c.macs + (has_input(op, 2) ? out_n : 0);
      break;
    }
    case OpKind::ConvTranspose: {
      const Shape& w = in(1).shape;  // [C, M/group, k...]
      c.macs = in(0).numel() * w[1] * prod(w, 2, w.size());
      c.flops = 2 * c.macs + (has_input(op, 2) ? out_n : 0);
      break;
    }
    case OpKind::Gemm: {
      const Shape& a = in(0).shape;
      const int64_t k = op.attrs.get_int("transA", 0) ? a[0] : a[1];
      c.macs = out_n * k;
      c.flops = 2 * c.macs + (has_input(op, 2) ? out_n : 0);
      break;
    }
    case OpKind::MatMul: {
      const Shape& a = in(0).shape;
      c.macs = out_n * a.back();
      c.flops = 2 * c.macs;
      break;
    }
    case OpKind::MaxPool:
    case OpKind::AveragePool: {
      const std::vector<int64_t> k = op.attrs.get_ints("kernel_shape", {});
      c.flops = out_n * prod(k, 0, k.size());
      break;
    }
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      c.flops = in(0).numel();
      break;
    case OpKind::BatchNormalization:
      c.flops = kBatchNormFlopsPerElement * out_n;
      break;
    case OpKind::LayerNormalization:
      c.flops = kLayerNormFlopsPerElement * out_n;
      break;
    case OpKind::Softmax:
      c.flops = kSoftmaxFlopsPerElement * out_n;
      break;
    case OpKind::Identity:
    case OpKind::Dropout:
    case OpKind::Cast:
      break;
    case OpKind::Max:
    case OpKind::Min:
      c.flops = out_n * std::max<int64_t>(1, static_cast<int64_t>(op.inputs.size()) - 1);
      break;
    case OpKind::ReduceMean:
      c.flops = in(0).numel() + out_n;
      break;
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      c.flops = in(0).numel();
      break;
    case OpKind::Resize: {
      const Shape& x = in(0).shape;
      int64_t k = 0;
      for (size_t i = 0; i < x.size(); ++i) k += x[i] != out.shape[i] ? 1 : 0;
      const std::string mode = op.attrs.get_string("mode", "nearest");
      if (mode == "linear") c.flops = out_n * kLerpFlops * (int_pow(2, k) - 1);
      if (mode == "cubic") c.flops = out_n * kCubicFlopsPerTap * int_pow(4, k);
      break;
    }
    default:
      if (is_elementwise(op.kind)) c.flops = out_n;  // other unary and binary arithmetic
      break;                                         // data movement: 0 FLOPs
  }
  return c;
}

GraphCost graph_cost(const Graph& g) {
  GraphCost gc;
  gc.per_op.reserve(g.num_ops());
  for (int o = 0; o < g.num_ops(); ++o) {
    gc.per_op.push_back(op_cost(g, o));
    gc.total += gc.per_op.back();
  }
  // A weight shared by several ops is one set of parameters.
  int64_t params = 0;
  std::vector<bool> used(g.num_tensors(), false);
  for (const Op& op : g.ops()) {
    for (int t : op.inputs) {
      if (t >= 0 && !used[t] && g.tensor(t).role == TensorRole::Weight) {
        used[t] = true;
        params += g.tensor(t).numel();
      }
    }
  }
  gc.total.params = params;
  return gc;
}

OpCost group_cost(const Graph& g, const std::vector<int>& ops) {
  std::vector<bool> in_group(g.num_ops(), false);
  for (int o : ops) in_group.at(o) = true;
  OpCost c;
  std::vector<bool> counted(g.num_tensors(), false);
  for (int o : ops) {
    const Op& op = g.op(o);
    const OpCost oc = op_cost(g, o);
    c.flops += oc.flops;
    c.macs += oc.macs;
    for (int i = 0; i < static_cast<int>(op.inputs.size()); ++i) {
      const int t = op.inputs[i];
      if (t < 0 || counted[t] || is_shape_input(op.kind, i)) continue;
      const Tensor& x = g.tensor(t);
      if (x.producer >= 0 && in_group[x.producer]) continue;
      counted[t] = true;
      c.bytes_read += x.bytes();
      if (is_learned_weight(x)) c.params += x.numel();
    }
    for (int t : op.outputs) {
      if (t < 0) continue;
      const Tensor& y = g.tensor(t);
      bool external = y.role == TensorRole::Output;
      for (int u : y.consumers) external = external || !in_group[u];
      if (external) c.bytes_written += y.bytes();
    }
  }
  return c;
}

bool is_learned_weight(const Tensor& t) {
  return t.role == TensorRole::Weight && t.dtype != DType::Bool;
}

int64_t parameter_count(const Graph& g) {
  int64_t n = 0;
  for (int t : g.weight_tensors()) n += is_learned_weight(g.tensor(t)) ? g.tensor(t).numel() : 0;
  return n;
}

}  // namespace dgs
