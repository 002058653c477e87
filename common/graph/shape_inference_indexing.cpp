#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "common/graph/shape_inference_internal.h"

// Shape inference of padding, resizing, block rearrangement, gathers and Expand.
namespace dgs::shape_inference_internal {

void infer_pad(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  const std::string mode = c.attrs().get_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") {
    c.fail("attribute 'mode' is '" + mode + "'", "constant, reflect, edge or wrap");
  }
  std::vector<int64_t> pads;
  if (c.has_input(1)) {
    pads = c.const_ints(1, "pads");
  } else if (c.attrs().has("pads")) {
    pads = c.attrs().get_ints("pads", {});
  } else {
    c.fail("no pads (input 1 or attribute 'pads')", "the pads");
  }
  std::vector<int64_t> axes(r);
  std::iota(axes.begin(), axes.end(), 0);
  if (c.has_input(3)) axes = c.const_ints(3, "axes");
  const size_t n = axes.size();
  if (pads.size() != 2 * n) {
    c.fail(std::to_string(pads.size()) + " pads for " + std::to_string(n) + " axes",
           std::to_string(2 * n) + " pads ([begin..., end...])");
  }
  Shape out = x;
  for (size_t i = 0; i < n; ++i) {
    int a = c.axis(axes[i], r, "pad axis");
    out[a] += pads[i] + pads[i + n];
    if (out[a] < 0) {
      c.fail("pads " + shape_str(pads) + " shrink axis " + std::to_string(a) + " below 0",
             "a non-negative padded size");
    }
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_resize(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  const std::string mode = c.attrs().get_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic") {
    c.fail("attribute 'mode' is '" + mode + "'", "nearest, linear or cubic");
  }
  std::vector<int64_t> axes(r);
  std::iota(axes.begin(), axes.end(), 0);
  if (c.attrs().has("axes")) axes = c.attrs().get_ints("axes", {});
  for (int64_t& a : axes) a = c.axis(a, r, "resize axis");
  const bool has_scales = c.has_input(2) && numel(c.shape(2)) > 0;
  const bool has_sizes = c.has_input(3) && numel(c.shape(3)) > 0;
  if (has_scales == has_sizes) {
    c.fail(has_scales ? "both scales and sizes are given" : "neither scales nor sizes is given",
           "exactly one of scales (input 2) and sizes (input 3)");
  }
  Shape out = x;
  if (has_scales) {
    std::vector<double> scales = c.const_floats(2, "scales");
    if (scales.size() != axes.size()) {
      c.fail(std::to_string(scales.size()) + " scales for " + std::to_string(axes.size()) + " axes",
             "one scale per axis");
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      if (!(scales[i] > 0)) c.fail("a scale <= 0", "positive scales");
      // ONNX: output_dim = floor(input_dim * scale) (roi ignored: only tf_crop_and_resize uses it).
      out[axes[i]] = static_cast<int64_t>(std::floor(static_cast<double>(x[axes[i]]) * scales[i]));
    }
  } else {
    std::vector<int64_t> sizes = c.const_ints(3, "sizes");
    if (sizes.size() != axes.size()) {
      c.fail(std::to_string(sizes.size()) + " sizes for " + std::to_string(axes.size()) + " axes",
             "one size per axis");
    }
    const std::string policy = c.attrs().get_string("keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch") {
      for (size_t i = 0; i < axes.size(); ++i) out[axes[i]] = sizes[i];
    } else if (policy == "not_larger" || policy == "not_smaller") {
      // opset 18: one scale for all axes, the smallest (not_larger) or largest (not_smaller)
      // of sizes/input; each output size is round(scale * input) (half to even, as NumPy).
      double scale = policy == "not_larger" ? 1e300 : 0.0;
      for (size_t i = 0; i < axes.size(); ++i) {
        const double r = static_cast<double>(sizes[i]) / static_cast<double>(x[axes[i]]);
        scale = policy == "not_larger" ? std::min(scale, r) : std::max(scale, r);
      }
      for (size_t i = 0; i < axes.size(); ++i) {
        out[axes[i]] =
            static_cast<int64_t>(std::nearbyint(scale * static_cast<double>(x[axes[i]])));
      }
    } else {
      c.fail("attribute 'keep_aspect_ratio_policy' is '" + policy + "'",
             "stretch, not_larger or not_smaller");
    }
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_depth_space(Ctx& c) {
  const Shape& x = c.shape(0);
  if (x.size() != 4) c.fail("input has shape " + shape_str(x), "a 4-D NCHW input");
  const int64_t b = c.attrs().get_int("blocksize", 0);
  if (b < 1) c.fail("attribute 'blocksize' is " + std::to_string(b), "blocksize >= 1");
  if (c.op().kind == OpKind::DepthToSpace) {
    const std::string mode = c.attrs().get_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") c.fail("attribute 'mode' is '" + mode + "'", "DCR or CRD");
    if (x[1] % (b * b) != 0) {
      c.fail("channels " + std::to_string(x[1]) +
                 " are not divisible by blocksize^2 = " + std::to_string(b * b),
             "C divisible by blocksize^2");
    }
    c.set_output(0, {x[0], x[1] / (b * b), x[2] * b, x[3] * b}, c.dtype(0));
  } else {
    if (x[2] % b != 0 || x[3] % b != 0) {
      c.fail("spatial dims of " + shape_str(x) + " are not divisible by blocksize " +
                 std::to_string(b),
             "H and W divisible by blocksize");
    }
    c.set_output(0, {x[0], x[1] * b * b, x[2] / b, x[3] / b}, c.dtype(0));
  }
}

void infer_gather(Ctx& c) {
  const Shape& x = c.shape(0);
  const int axis = c.axis(c.attrs().get_int("axis", 0), c.rank(0), "attribute 'axis'");
  if (!is_int(c.dtype(1))) {
    c.fail("indices are " + std::string(dtype_name(c.dtype(1))), "int32 or int64 indices");
  }
  const Tensor& idx = c.in(1);
  if (idx.role == TensorRole::Constant) {
    for (int64_t v : idx.int_data) {
      if (v < -x[axis] || v >= x[axis]) {
        c.fail(
            "index " + std::to_string(v) + " is out of range for axis size " +
                std::to_string(x[axis]),
            "indices in [-" + std::to_string(x[axis]) + ", " + std::to_string(x[axis] - 1) + "]");
      }
    }
  }
  Shape out(x.begin(), x.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.begin() + axis + 1, x.end());
  c.set_output(0, out, c.dtype(0));
}

// GatherND (opset 12+): indices' last dimension k indexes data's dimensions b..b+k-1 (b =
// batch_dims); out = indices.shape[:-1] + data.shape[b+k:].
void infer_gather_nd(Ctx& c) {
  const Shape& x = c.shape(0);
  const Shape& idx = c.shape(1);
  if (!is_int(c.dtype(1))) {
    c.fail("indices are " + std::string(dtype_name(c.dtype(1))), "int32 or int64 indices");
  }
  const int64_t b = c.attrs().get_int("batch_dims", 0);
  if (idx.empty()) c.fail("indices are a scalar", "indices of rank at least 1");
  const int64_t k = idx.back();
  const auto r = static_cast<int64_t>(x.size());
  const auto q = static_cast<int64_t>(idx.size());
  if (b < 0 || b >= std::min(r, q)) {
    c.fail("batch_dims is " + std::to_string(b), "batch_dims below both inputs' ranks");
  }
  if (k < 1 || b + k > r) {
    c.fail(
        "indices' last dimension is " + std::to_string(k),
        "1.." + std::to_string(r - b) + " (data rank " + std::to_string(r) + " minus batch_dims)");
  }
  for (int64_t d = 0; d < b; ++d) {
    if (x[static_cast<size_t>(d)] != idx[static_cast<size_t>(d)]) {
      c.fail("batch dimension " + std::to_string(d) + " differs between data and indices",
             "equal batch dimensions");
    }
  }
  Shape out(idx.begin(), idx.end() - 1);
  out.insert(out.end(), x.begin() + b + k, x.end());
  c.set_output(0, out, c.dtype(0));
}

void infer_expand(Ctx& c) {
  std::vector<int64_t> shape = c.const_ints(1, "target shape");
  c.set_output(0, broadcast(c, c.shape(0), shape), c.dtype(0));
}

}  // namespace dgs::shape_inference_internal
