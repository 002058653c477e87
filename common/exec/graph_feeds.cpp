// Input generation for the CPU reference executor: graph feeds (given, constant or random values)
// and the values of Constant tensors (executor.h).
#include <algorithm>
#include <cmath>

#include "common/exec/executor.h"

namespace dgs {

TensorData constant_value(const Tensor& t) {
  TensorData v;
  v.shape = t.shape;
  v.dtype = t.dtype;
  if (v.is_float()) {
    if (!t.float_data.empty()) {
      v.f = t.float_data;
    } else {
      v.f.assign(t.int_data.begin(), t.int_data.end());
    }
  } else {
    if (!t.int_data.empty()) {
      v.i = t.int_data;
    } else {
      for (float f : t.float_data) v.i.push_back(static_cast<int64_t>(f));
    }
  }
  check_tensor_data(v, "constant '" + t.name + "'");
  return v;
}

namespace {

// Random weights are scaled like He (Kaiming) uniform initialisation, uniform in
// [-sqrt(6 / fan_in), sqrt(6 / fan_in)], so that activations keep their magnitude through deep
// networks without normalisation (with plain [-1, 1] weights they grow by ~sqrt(fan_in / 3) per
// layer and overflow float32 in Inception-size networks, making comparisons meaningless).
constexpr double kHeUniformGain = 6.0;
// BatchNormalization variances are drawn uniform in [1 - w, 1 + w]: positive, near 1.
constexpr float kRandomVarianceHalfWidth = 0.5f;

// How a random Weight tensor consumed by `op` as input `index` is shaped: the fan-in of the
// product it is the weight of (0: not a weight operand), and whether it is a variance.
struct WeightUse {
  int64_t fan_in = 0;
  bool variance = false;
};

WeightUse weight_use(const Op& op, size_t index, const Tensor& w) {
  WeightUse u;
  const Shape& s = w.shape;
  switch (op.kind) {
    case OpKind::Conv:
      if (index == 1 && !s.empty() && s[0] > 0) u.fan_in = w.numel() / s[0];
      break;
    case OpKind::ConvTranspose:
      if (index == 1 && s.size() >= 2 && s[1] > 0) {
        u.fan_in = w.numel() / (s[1] * std::max<int64_t>(1, op.attrs.get_int("group", 1)));
      }
      break;
    case OpKind::Gemm:
      if (index == 1 && s.size() == 2) u.fan_in = op.attrs.get_int("transB", 0) ? s[1] : s[0];
      break;
    case OpKind::MatMul:
      if (index == 1 && s.size() >= 2) u.fan_in = s[s.size() - 2];
      break;
    case OpKind::BatchNormalization:
      u.variance = index == 4;
      break;
    default:
      break;
  }
  return u;
}

}  // namespace

TensorValues make_graph_feeds(const Graph& g, const TensorValues& feeds, uint64_t seed) {
  TensorValues values;
  for (int t = 0; t < g.num_tensors(); ++t) {
    const Tensor& ten = g.tensor(t);
    if (auto it = feeds.find(t); it != feeds.end()) {
      check_tensor_data(it->second, "value fed for tensor '" + ten.name + "'");
      if (it->second.shape != ten.shape) {
        throw Error("value fed for tensor '" + ten.name + "' has shape " +
                    shape_str(it->second.shape) + "; the graph says " + shape_str(ten.shape));
      }
      values[t] = it->second;
      continue;
    }
    if (ten.role == TensorRole::Constant) {
      values[t] = constant_value(ten);
    } else if (ten.role == TensorRole::Input || ten.role == TensorRole::Weight) {
      int64_t bound = 2;  // integer inputs: 0/1 unless used as Gather indices
      WeightUse use;
      for (int c : ten.consumers) {
        const Op& op = g.op(c);
        for (size_t i = 0; i < op.inputs.size(); ++i) {
          if (op.inputs[i] != t) continue;
          if (op.kind == OpKind::Gather && i == 1 && op.inputs[0] >= 0) {
            const Tensor& data = g.tensor(op.inputs[0]);
            const int64_t rank = static_cast<int64_t>(data.shape.size());
            int64_t axis = op.attrs.get_int("axis", 0);
            if (axis < 0) axis += rank;
            if (axis >= 0 && axis < rank) bound = data.shape[axis];
          }
          if (ten.role == TensorRole::Weight) {
            const WeightUse u = weight_use(op, i, ten);
            use.fan_in = std::max(use.fan_in, u.fan_in);
            use.variance = use.variance || u.variance;
          }
        }
      }
      TensorData v = random_tensor(ten.shape, ten.dtype, tensor_seed(seed, ten.name), bound);
      if (v.is_float() && use.variance) {
        for (float& x : v.f) x = 1.0f + kRandomVarianceHalfWidth * x;
      } else if (v.is_float() && use.fan_in > 0) {
        const float scale =
            static_cast<float>(std::sqrt(kHeUniformGain / static_cast<double>(use.fan_in)));
        for (float& x : v.f) x *= scale;
      }
      values[t] = std::move(v);
    }
  }
  return values;
}

}  // namespace dgs
