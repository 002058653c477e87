// Convolution and pooling operators of the CPU reference executor (ops.h); windows are
// resolved by resolve_window (common/graph/window.h), the arithmetic of convolutions is in
// kernels_linalg.cpp.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/exec/kernels.h"
#include "common/exec/ops.h"
#include "common/graph/window.h"

namespace dgs::exec_ops {

namespace {
// The window of a Conv or ConvTranspose over input x with weight w (rank 3..5 each).
Window weighted_window(const Op& op, const TensorData& x, const TensorData& w) {
  if (x.shape.size() < 3 || x.shape.size() > 5 || w.shape.size() != x.shape.size()) {
    fail(op, "input " + shape_str(x.shape) + " and weight " + shape_str(w.shape) +
                 "; expected rank 3..5 for both");
  }
  return resolve_window(op, Shape(x.shape.begin() + 2, x.shape.end()),
                        Shape(w.shape.begin() + 2, w.shape.end()));
}
}  // namespace

TensorData conv(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_float(op, in, 0);
  const TensorData& w = in_float(op, in, 1);
  const TensorData* b = in_opt(in, 2);
  const Window g = weighted_window(op, x, w);
  if (x.shape[1] % g.group != 0 || w.shape[0] % g.group != 0 ||
      w.shape[1] * g.group != x.shape[1]) {
    fail(op, "group " + std::to_string(g.group) + " does not fit input " + shape_str(x.shape) +
                 " and weight " + shape_str(w.shape));
  }
  return conv_forward(x, w, b, g);
}

TensorData conv_transpose(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_float(op, in, 0);
  const TensorData& w = in_float(op, in, 1);
  const TensorData* b = in_opt(in, 2);
  const Window g = weighted_window(op, x, w);
  if (x.shape[1] % g.group != 0 || w.shape[0] != x.shape[1]) {
    fail(op, "group " + std::to_string(g.group) + " does not fit input " + shape_str(x.shape) +
                 " and weight " + shape_str(w.shape));
  }
  return conv_transpose_forward(x, w, b, g);
}

// Pooling over 1-3 spatial dims (padded to 3 as in the kernels).
std::vector<TensorData> pool(const Op& op, const std::vector<const TensorData*>& in,
                             int num_outputs) {
  const TensorData& x = in_float(op, in, 0);
  if (x.shape.size() < 3 || x.shape.size() > 5) {
    fail(op, "input " + shape_str(x.shape) + "; expected rank 3..5");
  }
  const size_t nd = x.shape.size() - 2;
  const bool is_max = op.kind == OpKind::MaxPool;
  const bool include_pad = op.attrs.get_int("count_include_pad", 0) != 0;
  const bool storage_col = op.attrs.get_int("storage_order", 0) != 0;
  const Window g = resolve_window(op, Shape(x.shape.begin() + 2, x.shape.end()));
  int64_t in3[3] = {1, 1, 1}, out3[3] = {1, 1, 1}, k3[3] = {1, 1, 1}, s3[3] = {1, 1, 1},
          d3[3] = {1, 1, 1}, pb3[3] = {0, 0, 0}, pe3[3] = {0, 0, 0};
  const size_t off = 3 - nd;
  for (size_t i = 0; i < nd; ++i) {
    in3[off + i] = x.shape[2 + i];
    out3[off + i] = g.out_spatial[i];
    k3[off + i] = g.kernel[i];
    s3[off + i] = g.strides[i];
    d3[off + i] = g.dilations[i];
    pb3[off + i] = g.pads_begin[i];
    pe3[off + i] = g.pads_end[i];
  }
  Shape out_shape = {x.shape[0], x.shape[1]};
  out_shape.insert(out_shape.end(), g.out_spatial.begin(), g.out_spatial.end());
  TensorData y = TensorData::zeros(out_shape);
  TensorData idx = TensorData::zeros(num_outputs > 1 ? out_shape : Shape{0}, DType::I64);
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t in_img = in3[0] * in3[1] * in3[2];
  int64_t o = 0;
  for (int64_t pl = 0; pl < planes; ++pl) {
    const float* xp = x.f.data() + pl * in_img;
    for (int64_t od = 0; od < out3[0]; ++od) {
      for (int64_t oh = 0; oh < out3[1]; ++oh) {
        for (int64_t ow = 0; ow < out3[2]; ++ow, ++o) {
          const int64_t st[3] = {od * s3[0] - pb3[0], oh * s3[1] - pb3[1], ow * s3[2] - pb3[2]};
          float best = -std::numeric_limits<float>::infinity();
          int64_t best_at = -1;
          double sum = 0.0;
          int64_t count = 0;
          for (int64_t a = 0; a < k3[0]; ++a) {
            const int64_t id = st[0] + a * d3[0];
            if (id < 0 || id >= in3[0]) continue;
            for (int64_t b = 0; b < k3[1]; ++b) {
              const int64_t ih = st[1] + b * d3[1];
              if (ih < 0 || ih >= in3[1]) continue;
              for (int64_t c = 0; c < k3[2]; ++c) {
                const int64_t iw = st[2] + c * d3[2];
                if (iw < 0 || iw >= in3[2]) continue;
                const int64_t at = (id * in3[1] + ih) * in3[2] + iw;
                const float v = xp[at];
                if (is_max) {
                  // NaN propagates (a NaN marks an element that depends on a missing value).
                  if (std::isnan(v) || v > best || best_at < 0) {
                    best = v;
                    best_at = at;
                  }
                } else {
                  sum += v;
                  ++count;
                }
              }
            }
          }
          if (is_max) {
            y.f[o] = best;
            if (num_outputs > 1) {
              int64_t flat = best_at;
              if (storage_col && best_at >= 0) {  // column-major index within the image
                const int64_t iw = best_at % in3[2], ih = (best_at / in3[2]) % in3[1],
                              id = best_at / (in3[1] * in3[2]);
                flat = (iw * in3[1] + ih) * in3[0] + id;
              }
              idx.i[o] = pl * in_img + flat;
            }
          } else {
            int64_t divisor = count;
            if (include_pad) {
              divisor = 1;
              for (int i = 0; i < 3; ++i) {
                const int64_t lo = st[i];
                const int64_t hi = std::min(st[i] + (k3[i] - 1) * d3[i] + 1, in3[i] + pe3[i]);
                divisor *= (hi - lo + d3[i] - 1) / d3[i];
              }
            }
            y.f[o] = divisor > 0 ? static_cast<float>(sum / static_cast<double>(divisor)) : 0.0f;
          }
        }
      }
    }
  }
  std::vector<TensorData> outs{std::move(y)};
  if (num_outputs > 1) outs.push_back(std::move(idx));
  return outs;
}

TensorData global_pool(const Op& op, const TensorData& x) {
  if (x.shape.size() < 2) fail(op, "input " + shape_str(x.shape) + "; expected rank >= 2");
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t sp = x.numel() / std::max<int64_t>(planes, 1);
  Shape out = {x.shape[0], x.shape[1]};
  out.resize(x.shape.size(), 1);
  TensorData y = TensorData::zeros(out);
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x.f.data() + p * sp;
    if (op.kind == OpKind::GlobalMaxPool) {
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < sp; ++k) m = std::isnan(xp[k]) || xp[k] > m ? xp[k] : m;
      y.f[p] = m;
    } else {
      double s = 0;
      for (int64_t k = 0; k < sp; ++k) s += xp[k];
      y.f[p] = static_cast<float>(s / static_cast<double>(sp));
    }
  }
  return y;
}

}  // namespace dgs::exec_ops
