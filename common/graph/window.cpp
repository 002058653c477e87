#include "common/graph/window.h"

#include <algorithm>
#include <string>

namespace dgs {

namespace {

[[noreturn]] void fail(const Op& op, const std::string& what, const std::string& expected) {
  throw Error("op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) + "): " + what +
              "; expected " + expected);
}

// Attribute `name` with `n` values (default: n copies of `def`).
std::vector<int64_t> ints_of_size(const Op& op, const std::string& name, size_t n, int64_t def) {
  std::vector<int64_t> v = op.attrs.get_ints(name, std::vector<int64_t>(n, def));
  if (v.size() != n) {
    fail(op, "attribute '" + name + "' has " + std::to_string(v.size()) + " values",
         std::to_string(n) + " values");
  }
  return v;
}

AutoPad parse_auto_pad(const Op& op) {
  const std::string s = op.attrs.get_string("auto_pad", "NOTSET");
  if (s == "NOTSET") return AutoPad::NotSet;
  if (s == "VALID") return AutoPad::Valid;
  if (s == "SAME_UPPER") return AutoPad::SameUpper;
  if (s == "SAME_LOWER") return AutoPad::SameLower;
  fail(op, "attribute 'auto_pad' is '" + s + "'", "NOTSET, VALID, SAME_UPPER or SAME_LOWER");
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t ceil_div(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

std::vector<int64_t> resolve_kernel(const Op& op, size_t nd, const Shape& weight_kernel) {
  if (!is_conv_like(op.kind)) {
    if (!op.attrs.has("kernel_shape")) fail(op, "attribute 'kernel_shape' is missing", "it set");
    return ints_of_size(op, "kernel_shape", nd, 1);
  }
  if (weight_kernel.empty()) {
    if (!op.attrs.has("kernel_shape")) {
      fail(op, "attribute 'kernel_shape' is missing and no weight shape is given",
           "kernel_shape or the weight's spatial dims");
    }
    return ints_of_size(op, "kernel_shape", nd, 1);
  }
  if (weight_kernel.size() != nd) {
    fail(op,
         "the weight has " + std::to_string(weight_kernel.size()) +
             " spatial dims for an input with " + std::to_string(nd),
         "W of rank " + std::to_string(nd + 2));
  }
  if (op.attrs.has("kernel_shape") && op.attrs.get_ints("kernel_shape", {}) != weight_kernel) {
    fail(op,
         "attribute 'kernel_shape' " + shape_str(op.attrs.get_ints("kernel_shape", {})) +
             " differs from the weight's spatial dims " + shape_str(weight_kernel),
         "kernel_shape equal to W.shape[2:]");
  }
  return weight_kernel;
}

// Pads and output size of Conv and the pools along dim i.
void resolve_forward_dim(const Op& op, Window& w, size_t i, size_t nd,
                         const std::vector<int64_t>& pads, int64_t in) {
  const int64_t ek = w.effective_kernel(i);
  const int64_t s = w.strides[i];
  int64_t pb = 0, pe = 0, out = 0;
  if (w.auto_pad == AutoPad::SameUpper || w.auto_pad == AutoPad::SameLower) {
    out = ceil_div(in, s);
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + ek - in);
    pb = w.auto_pad == AutoPad::SameUpper ? total / 2 : total - total / 2;
    pe = total - pb;
  } else {
    if (w.auto_pad == AutoPad::NotSet) {
      pb = pads[i];
      pe = pads[i + nd];
    }
    const int64_t padded = in + pb + pe;
    if (padded < ek) {
      fail(op,
           "spatial dim " + std::to_string(i) + " of size " + std::to_string(padded) +
               " (with padding) is smaller than the effective kernel " + std::to_string(ek),
           "an input at least as large as the kernel");
    }
    out = (w.ceil_mode ? ceil_div(padded - ek, s) : floor_div(padded - ek, s)) + 1;
  }
  w.pads_begin[i] = pb;
  w.pads_end[i] = pe;
  w.out_spatial[i] = out;
}

// Pads and output size of ConvTranspose along dim i (`target`: output_shape's size, or -1).
void resolve_transpose_dim(Window& w, size_t i, size_t nd, const std::vector<int64_t>& pads,
                           int64_t in, int64_t target) {
  const int64_t full = w.strides[i] * (in - 1) + w.output_padding[i] + w.effective_kernel(i);
  const bool same = w.auto_pad == AutoPad::SameUpper || w.auto_pad == AutoPad::SameLower;
  int64_t pb = 0, pe = 0;
  if (target >= 0 || same) {
    if (target < 0) target = in * w.strides[i];
    const int64_t total = full - target;
    if (w.auto_pad == AutoPad::SameUpper) {
      pb = floor_div(total, 2);
      pe = total - pb;
    } else {
      pe = floor_div(total, 2);
      pb = total - pe;
    }
  } else if (w.auto_pad == AutoPad::NotSet) {
    pb = pads[i];
    pe = pads[i + nd];
  }
  w.pads_begin[i] = pb;
  w.pads_end[i] = pe;
  w.out_spatial[i] = full - pb - pe;
}

}  // namespace

bool has_window(OpKind k) {
  return k == OpKind::Conv || k == OpKind::ConvTranspose || k == OpKind::MaxPool ||
         k == OpKind::AveragePool;
}

std::string_view auto_pad_name(AutoPad p) {
  switch (p) {
    case AutoPad::NotSet:
      return "NOTSET";
    case AutoPad::Valid:
      return "VALID";
    case AutoPad::SameUpper:
      return "SAME_UPPER";
    case AutoPad::SameLower:
      return "SAME_LOWER";
  }
  return "?";
}

Window resolve_window(const Op& op, const Shape& input_spatial, const Shape& weight_kernel) {
  if (!has_window(op.kind)) {
    fail(op, "the op has no sliding window", "Conv, ConvTranspose, MaxPool or AveragePool");
  }
  const size_t nd = input_spatial.size();
  if (nd == 0) fail(op, "the input has no spatial dims", "an input of rank at least 3");
  const bool conv = is_conv_like(op.kind);
  Window w;
  w.kernel = resolve_kernel(op, nd, weight_kernel);
  w.group = conv ? op.attrs.get_int("group", 1) : 1;
  if (w.group < 1) fail(op, "attribute 'group' is " + std::to_string(w.group), "group >= 1");
  w.strides = ints_of_size(op, "strides", nd, 1);
  w.dilations = ints_of_size(op, "dilations", nd, 1);
  const std::vector<int64_t> pads = ints_of_size(op, "pads", 2 * nd, 0);
  w.auto_pad = parse_auto_pad(op);
  w.ceil_mode = !conv && op.attrs.get_int("ceil_mode", 0) != 0;
  for (size_t i = 0; i < nd; ++i) {
    if (w.strides[i] < 1) fail(op, "attribute 'strides' has a value below 1", "strides >= 1");
    if (w.dilations[i] < 1) fail(op, "attribute 'dilations' has a value below 1", "dilations >= 1");
    if (w.kernel[i] < 1) {
      fail(op,
           "kernel size " + std::to_string(w.kernel[i]) + " in spatial dim " + std::to_string(i),
           "kernel sizes >= 1");
    }
  }
  for (int64_t p : pads) {
    if (p < 0) fail(op, "attribute 'pads' has a negative value", "pads >= 0");
  }
  w.output_padding = op.kind == OpKind::ConvTranspose ? ints_of_size(op, "output_padding", nd, 0)
                                                      : std::vector<int64_t>(nd, 0);
  w.pads_begin.assign(nd, 0);
  w.pads_end.assign(nd, 0);
  w.out_spatial.assign(nd, 0);
  if (op.kind != OpKind::ConvTranspose) {
    for (size_t i = 0; i < nd; ++i) resolve_forward_dim(op, w, i, nd, pads, input_spatial[i]);
    return w;
  }
  std::vector<int64_t> target(nd, -1);
  if (op.attrs.has("output_shape")) {
    std::vector<int64_t> os = op.attrs.get_ints("output_shape", {});
    if (os.size() == nd + 2) os.erase(os.begin(), os.begin() + 2);  // N and C included
    if (os.size() != nd) {
      fail(op, "attribute 'output_shape' has " + std::to_string(os.size()) + " values",
           std::to_string(nd) + " spatial sizes");
    }
    target = os;
  }
  for (size_t i = 0; i < nd; ++i)
    resolve_transpose_dim(w, i, nd, pads, input_spatial[i], target[i]);
  return w;
}

Window resolve_window(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.inputs.empty() || o.inputs[0] < 0) fail(o, "input X is missing", "a tensor");
  const Shape& x = g.tensor(o.inputs[0]).shape;
  if (x.size() < 3) fail(o, "input X has shape " + shape_str(x), "rank at least 3");
  const Shape spatial(x.begin() + 2, x.end());
  if (!is_conv_like(o.kind)) return resolve_window(o, spatial);
  if (o.inputs.size() < 2 || o.inputs[1] < 0) fail(o, "weight W is missing", "a tensor");
  const Shape& w = g.tensor(o.inputs[1]).shape;
  if (w.size() != x.size()) {
    fail(o, "weight W has shape " + shape_str(w) + " for input X " + shape_str(x),
         "W of rank " + std::to_string(x.size()));
  }
  return resolve_window(o, spatial, Shape(w.begin() + 2, w.end()));
}

}  // namespace dgs
