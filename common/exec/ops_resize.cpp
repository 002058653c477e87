// Resize (ONNX reference semantics: nearest, linear, cubic; separable, one axis at a time)
// on the CPU reference executor (ops.h).
#include <algorithm>
#include <cmath>

#include "common/exec/ops.h"

namespace dgs::exec_ops {

namespace {

struct Tap {
  int64_t index;
  double weight;
};

// Source taps of each output index along one axis (ONNX Resize reference semantics).
std::vector<std::vector<Tap>> resize_taps(const Op& op, int64_t in, int64_t out, double scale) {
  // The reference uses the unrounded resized length in * scale in its coordinate transforms.
  const double resized = static_cast<double>(in) * scale;
  const std::string ctm = op.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  const std::string mode = op.attrs.get_string("mode", "nearest");
  const std::string nearest = op.attrs.get_string("nearest_mode", "round_prefer_floor");
  const double a = op.attrs.get_float("cubic_coeff_a", -0.75);
  const bool exclude_outside = op.attrs.get_int("exclude_outside", 0) != 0;
  std::vector<std::vector<Tap>> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    double x;
    const double od = static_cast<double>(o);
    if (ctm == "half_pixel") {
      x = (od + 0.5) / scale - 0.5;
    } else if (ctm == "pytorch_half_pixel") {
      x = resized > 1.0 ? (od + 0.5) / scale - 0.5 : 0.0;
    } else if (ctm == "align_corners") {
      x = out == 1 ? 0.0 : od * static_cast<double>(in - 1) / (resized - 1.0);
    } else if (ctm == "asymmetric") {
      x = od / scale;
    } else if (ctm == "tf_half_pixel_for_nn") {
      x = (od + 0.5) / scale;
    } else {
      unsupported(op, "coordinate_transformation_mode '" + ctm + "'");
    }
    auto clamp_i = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
    std::vector<Tap>& t = taps[static_cast<size_t>(o)];
    const double fl = std::floor(x);
    const bool integral = x == fl;
    // ratio in (0, 1]: the reference prefers the pixel left of x.
    const int64_t left = integral ? static_cast<int64_t>(fl) - 1 : static_cast<int64_t>(fl);
    const double r = integral ? 1.0 : x - fl;
    if (mode == "nearest") {
      int64_t i;
      if (integral) {
        i = static_cast<int64_t>(fl);
      } else if (nearest == "round_prefer_floor") {
        i = r <= 0.5 ? left : left + 1;
      } else if (nearest == "round_prefer_ceil") {
        i = r < 0.5 ? left : left + 1;
      } else if (nearest == "floor") {
        i = left;
      } else if (nearest == "ceil") {
        i = left + 1;
      } else {
        unsupported(op, "nearest_mode '" + nearest + "'");
      }
      t.push_back({clamp_i(i), 1.0});
    } else if (mode == "linear") {
      t.push_back({clamp_i(left), 1.0 - r});
      t.push_back({clamp_i(left + 1), r});
    } else if (mode == "cubic") {
      const double c[4] = {
          ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
          ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
          ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) * ((1 - r) + 1) - 4 * a};
      double sum = 0.0;
      for (int j = 0; j < 4; ++j) {
        const int64_t i = left - 1 + j;
        const bool outside = i < 0 || i >= in;
        const double w = exclude_outside && outside ? 0.0 : c[j];
        sum += w;
        t.push_back({clamp_i(i), w});
      }
      if (exclude_outside && sum != 0.0) {
        for (Tap& tp : t) tp.weight /= sum;
      }
    } else {
      unsupported(op, "Resize mode '" + mode + "'");
    }
  }
  return taps;
}

}  // namespace

TensorData resize(const Op& op, const std::vector<const TensorData*>& in) {
  const TensorData& x = in_float(op, in, 0);
  const size_t rank = x.shape.size();
  const std::string ctm = op.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  if (ctm == "tf_crop_and_resize") unsupported(op, "coordinate_transformation_mode '" + ctm + "'");
  if (op.attrs.has("antialias") && op.attrs.get_int("antialias", 0) != 0) {
    unsupported(op, "antialias");
  }
  if (op.attrs.has("axes")) unsupported(op, "attribute 'axes'");
  std::vector<double> scales = float_list(in_opt(in, 2));
  const std::vector<int64_t> sizes = int_list(in_opt(in, 3));
  Shape out(rank);
  if (!sizes.empty()) {
    if (sizes.size() != rank) fail(op, "sizes of length " + std::to_string(sizes.size()));
    scales.assign(rank, 1.0);
    for (size_t d = 0; d < rank; ++d) {
      out[d] = sizes[d];
      scales[d] = static_cast<double>(sizes[d]) / static_cast<double>(x.shape[d]);
    }
  } else {
    if (scales.size() != rank)
      fail(op, "neither scales nor sizes of length " + std::to_string(rank));
    for (size_t d = 0; d < rank; ++d) {
      out[d] = static_cast<int64_t>(std::floor(static_cast<double>(x.shape[d]) * scales[d]));
    }
  }
  // Separable: resample one axis at a time.
  TensorData cur = x;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == cur.shape[d] && scales[d] == 1.0) continue;
    const auto taps = resize_taps(op, cur.shape[d], out[d], scales[d]);
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < d; ++k) outer *= cur.shape[k];
    for (size_t k = d + 1; k < rank; ++k) inner *= cur.shape[k];
    Shape ns = cur.shape;
    ns[d] = out[d];
    TensorData nxt = TensorData::zeros(ns);
    const int64_t in_d = cur.shape[d];
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < out[d]; ++j) {
        float* dst = nxt.f.data() + (o * out[d] + j) * inner;
        for (const Tap& t : taps[static_cast<size_t>(j)]) {
          if (t.weight == 0.0) continue;
          const float* src = cur.f.data() + (o * in_d + t.index) * inner;
          const float w = static_cast<float>(t.weight);
          for (int64_t k = 0; k < inner; ++k) dst[k] += w * src[k];
        }
      }
    }
    cur = std::move(nxt);
  }
  return cur;
}

}  // namespace dgs::exec_ops
