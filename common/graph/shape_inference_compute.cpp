#include <algorithm>
#include <string>
#include <vector>

#include "common/graph/shape_inference_internal.h"
#include "common/graph/window.h"

// Shape inference of contractions, windows, normalizations and reductions.
namespace dgs::shape_inference_internal {

// ------------------------------------------------------------------ convolution and pooling
namespace {

// Kernel, strides, dilations, pads and output sizes come from resolve_window (window.h).
Shape window_spatial(const Ctx& c) {
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  return resolve_window(c.op(), Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()))
      .out_spatial;
}

}  // namespace

void infer_conv(Ctx& c) {
  c.require_rank_at_least(0, 3, "input X");
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  if (w.size() != x.size()) {
    c.fail("weight W has shape " + shape_str(w) + " for input X " + shape_str(x),
           "W of rank " + std::to_string(x.size()) + " ([M, C/group, k...])");
  }
  const int64_t group = c.attrs().get_int("group", 1);
  if (group < 1) c.fail("attribute 'group' is " + std::to_string(group), "group >= 1");
  const int64_t cin = x[1];
  const int64_t m = w[0];
  if (cin != w[1] * group) {
    c.fail("input channels " + std::to_string(cin) + " (X " + shape_str(x) +
               ") do not match weight channels " + std::to_string(w[1]) + " x group " +
               std::to_string(group) + " (W " + shape_str(w) + ")",
           "X.shape[1] == W.shape[1] * group");
  }
  if (m % group != 0) {
    c.fail("output channels " + std::to_string(m) + " are not divisible by group " +
               std::to_string(group),
           "W.shape[0] divisible by group");
  }
  if (c.has_input(2) && c.shape(2) != Shape{m}) {
    c.fail("bias B has shape " + shape_str(c.shape(2)), "[" + std::to_string(m) + "]");
  }
  Shape out{x[0], m};
  for (int64_t s : window_spatial(c)) out.push_back(s);
  c.set_output(0, out, c.dtype(0));
}

void infer_conv_transpose(Ctx& c) {
  c.require_rank_at_least(0, 3, "input X");
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  if (w.size() != x.size()) {
    c.fail("weight W has shape " + shape_str(w) + " for input X " + shape_str(x),
           "W of rank " + std::to_string(x.size()) + " ([C, M/group, k...])");
  }
  const int64_t group = c.attrs().get_int("group", 1);
  if (group < 1) c.fail("attribute 'group' is " + std::to_string(group), "group >= 1");
  if (x[1] != w[0]) {
    c.fail("input channels " + std::to_string(x[1]) + " (X " + shape_str(x) +
               ") do not match W.shape[0] = " + std::to_string(w[0]) + " (W " + shape_str(w) + ")",
           "X.shape[1] == W.shape[0]");
  }
  if (x[1] % group != 0) {
    c.fail("input channels " + std::to_string(x[1]) + " are not divisible by group " +
               std::to_string(group),
           "X.shape[1] divisible by group");
  }
  const int64_t m = w[1] * group;
  if (c.has_input(2) && c.shape(2) != Shape{m}) {
    c.fail("bias B has shape " + shape_str(c.shape(2)), "[" + std::to_string(m) + "]");
  }
  Shape out{x[0], m};
  for (int64_t s : window_spatial(c)) out.push_back(s);
  c.set_output(0, out, c.dtype(0));
}

void infer_pool(Ctx& c) {
  c.require_rank_at_least(0, 3, "input X");
  const Shape& x = c.shape(0);
  const Shape out_spatial = resolve_window(c.op(), Shape(x.begin() + 2, x.end())).out_spatial;
  Shape out{x[0], x[1]};
  out.insert(out.end(), out_spatial.begin(), out_spatial.end());
  c.set_output(0, out, c.dtype(0));
  if (c.op().kind == OpKind::MaxPool) c.set_output(1, out, DType::I64);
}

void infer_global_pool(Ctx& c) {
  c.require_rank_at_least(0, 3, "input X");
  Shape s = c.shape(0);
  std::fill(s.begin() + 2, s.end(), 1);
  c.set_output(0, s, c.dtype(0));
}

// ------------------------------------------------------------------ linear algebra
void infer_gemm(Ctx& c) {
  const Shape& a = c.shape(0);
  const Shape& b = c.shape(1);
  if (a.size() != 2 || b.size() != 2) {
    c.fail("A " + shape_str(a) + " and B " + shape_str(b), "2-D A and B");
  }
  const bool ta = c.attrs().get_int("transA", 0) != 0;
  const bool tb = c.attrs().get_int("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (ka != kb) {
    c.fail("inner dimensions differ: A " + shape_str(a) + (ta ? " (transposed)" : "") + ", B " +
               shape_str(b) + (tb ? " (transposed)" : ""),
           "K of A equal to K of B");
  }
  Shape out{m, n};
  if (c.has_input(2)) {
    // C broadcasts unidirectionally to [M, N].
    const Shape& cs = c.shape(2);
    Shape bc = broadcast(c, out, cs);
    if (bc != out)
      c.fail("C " + shape_str(cs) + " does not broadcast to " + shape_str(out),
             "C unidirectionally broadcastable to [M, N]");
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_matmul(Ctx& c) {
  Shape a = c.shape(0), b = c.shape(1);
  if (a.empty() || b.empty()) {
    c.fail("a scalar operand (A " + shape_str(a) + ", B " + shape_str(b) + ")",
           "operands of rank >= 1");
  }
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  if (a[a.size() - 1] != b[b.size() - 2]) {
    c.fail("inner dimensions differ: A " + shape_str(c.shape(0)) + ", B " + shape_str(c.shape(1)),
           "A.shape[-1] == B.shape[-2]");
  }
  Shape batch = broadcast(c, Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  Shape out = batch;
  if (!a1) out.push_back(a[a.size() - 2]);
  if (!b1) out.push_back(b.back());
  c.set_output(0, out, c.dtype(0));
}

// ------------------------------------------------------------------ normalisation
void infer_batchnorm(Ctx& c) {
  c.require_rank_at_least(0, 2, "input X");
  const int64_t ch = c.shape(0)[1];
  static const char* kNames[] = {"", "scale", "B", "input_mean", "input_var"};
  for (int i = 1; i < 5; ++i) {
    if (c.shape(i) != Shape{ch}) {
      c.fail(std::string(kNames[i]) + " has shape " + shape_str(c.shape(i)),
             "[" + std::to_string(ch) + "] (the channels of X " + shape_str(c.shape(0)) + ")");
    }
  }
  c.set_output(0, c.shape(0), c.dtype(0));
  c.set_output(1, {ch}, c.dtype(0));
  c.set_output(2, {ch}, c.dtype(0));
}

void infer_layernorm(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  const int axis = c.axis(c.attrs().get_int("axis", -1), r, "attribute 'axis'");
  Shape norm(x.begin() + axis, x.end());
  for (int i = 1; i < 3; ++i) {
    if (!c.has_input(i)) continue;
    Shape bc = broadcast(c, norm, c.shape(i));
    if (bc != norm) {
      c.fail(std::string(i == 1 ? "Scale " : "B ") + shape_str(c.shape(i)) +
                 " does not broadcast to the normalised dims " + shape_str(norm),
             "a shape broadcastable to " + shape_str(norm));
    }
  }
  c.set_output(0, x, c.dtype(0));
  Shape stat = x;
  for (int i = axis; i < r; ++i) stat[i] = 1;
  // Mean and InvStdDev have the type of stash_type (default 1: float), not of X.
  const DType sd = dtype_attr(c, "stash_type", c.attrs().get_int("stash_type", 1));
  c.set_output(1, stat, sd);
  c.set_output(2, stat, sd);
}

// ------------------------------------------------------------------ reduction
void infer_reduce(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  const bool keepdims = c.attrs().get_int("keepdims", 1) != 0;
  const bool noop_empty = c.attrs().get_int("noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(r, false);
  std::vector<int64_t> axes = axes_of(c).value_or(std::vector<int64_t>{});
  if (axes.empty()) {
    if (!noop_empty) reduced.assign(r, true);
  } else {
    for (int64_t a : axes) reduced[c.axis(a, r, "reduce axis")] = true;
  }
  Shape out;
  for (int i = 0; i < r; ++i) {
    if (!reduced[i]) {
      out.push_back(x[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  c.set_output(0, out, c.dtype(0));
}

}  // namespace dgs::shape_inference_internal
