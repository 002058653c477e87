// Normalisation operators of the CPU reference executor (ops.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/exec/ops.h"

namespace dgs::exec_ops {

TensorData batch_norm(const Op& op, const std::vector<const TensorData*>& in, int num_outputs) {
  if (op.attrs.get_int("training_mode", 0) != 0 || num_outputs > 1) {
    unsupported(op, "BatchNormalization in training mode");
  }
  const TensorData& x = in_float(op, in, 0);
  const TensorData& scale = in_float(op, in, 1);
  const TensorData& bias = in_float(op, in, 2);
  const TensorData& mean = in_float(op, in, 3);
  const TensorData& var = in_float(op, in, 4);
  const double eps = op.attrs.get_float("epsilon", 1e-5);
  if (x.shape.size() < 2) fail(op, "input " + shape_str(x.shape) + "; expected rank >= 2");
  const int64_t n = x.shape[0], c = x.shape[1];
  const int64_t sp = n * c == 0 ? 0 : x.numel() / (n * c);
  if (scale.numel() != c || bias.numel() != c || mean.numel() != c || var.numel() != c) {
    fail(op, "scale/B/mean/var sizes do not match " + std::to_string(c) + " channels");
  }
  TensorData y = x;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const double inv = 1.0 / std::sqrt(static_cast<double>(var.f[ch]) + eps);
      const float a = static_cast<float>(scale.f[ch] * inv);
      const float s = static_cast<float>(bias.f[ch] - mean.f[ch] * scale.f[ch] * inv);
      float* p = y.f.data() + (b * c + ch) * sp;
      for (int64_t k = 0; k < sp; ++k) p[k] = p[k] * a + s;
    }
  }
  return y;
}

std::vector<TensorData> layer_norm(const Op& op, const std::vector<const TensorData*>& in,
                                   int num_outputs) {
  const TensorData& x = in_float(op, in, 0);
  const TensorData& scale = in_float(op, in, 1);
  const TensorData* bias = in_opt(in, 2);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = norm_axis(op, op.attrs.get_int("axis", -1), rank);
  const double eps = op.attrs.get_float("epsilon", 1e-5);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= x.shape[d];
  const Shape norm_shape(x.shape.begin() + axis, x.shape.end());
  const TensorData sc = broadcast_to(scale, norm_shape);
  const TensorData bi = bias ? broadcast_to(*bias, norm_shape) : TensorData::zeros(norm_shape);
  TensorData y = TensorData::zeros(x.shape);
  Shape stat_shape(x.shape.begin(), x.shape.begin() + axis);
  stat_shape.resize(static_cast<size_t>(rank), 1);
  TensorData mean_t = TensorData::zeros(stat_shape), inv_t = TensorData::zeros(stat_shape);
  for (int64_t o = 0; o < outer; ++o) {
    const float* xp = x.f.data() + o * inner;
    double s = 0.0;
    for (int64_t k = 0; k < inner; ++k) s += xp[k];
    const double mean = s / static_cast<double>(inner);
    double v = 0.0;
    for (int64_t k = 0; k < inner; ++k) v += (xp[k] - mean) * (xp[k] - mean);
    const double inv = 1.0 / std::sqrt(v / static_cast<double>(inner) + eps);
    float* yp = y.f.data() + o * inner;
    for (int64_t k = 0; k < inner; ++k) {
      yp[k] = static_cast<float>((xp[k] - mean) * inv * sc.f[k] + bi.f[k]);
    }
    mean_t.f[o] = static_cast<float>(mean);
    inv_t.f[o] = static_cast<float>(inv);
  }
  std::vector<TensorData> outs{std::move(y)};
  if (num_outputs > 1) outs.push_back(std::move(mean_t));
  if (num_outputs > 2) outs.push_back(std::move(inv_t));
  return outs;
}

TensorData softmax(const Op& op, const TensorData& x) {
  if (!x.is_float()) unsupported(op, "input of dtype " + std::string(dtype_name(x.dtype)));
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = norm_axis(op, op.attrs.get_int("axis", -1), rank);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  const int64_t n = x.shape[axis];
  TensorData y = x;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      float* p = y.f.data() + o * n * inner + in;
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < n; ++k) m = std::max(m, p[k * inner]);
      double s = 0.0;
      for (int64_t k = 0; k < n; ++k) {
        p[k * inner] = std::exp(p[k * inner] - m);
        s += p[k * inner];
      }
      const float inv = static_cast<float>(1.0 / s);
      for (int64_t k = 0; k < n; ++k) p[k * inner] *= inv;
    }
  }
  return y;
}

}  // namespace dgs::exec_ops
