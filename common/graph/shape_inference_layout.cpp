#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/graph/shape_inference_internal.h"

// Shape inference of the operators that reshape, split, join or permute tensors.
namespace dgs::shape_inference_internal {

// ------------------------------------------------------------------ data movement
void infer_concat(Ctx& c) {
  if (!c.attrs().has("axis")) c.fail("attribute 'axis' is missing", "the concatenation axis");
  const Shape& s0 = c.shape(0);
  const int r = c.rank(0);
  const int axis = c.axis(c.attrs().get_int("axis", 0), r, "attribute 'axis'");
  Shape out = s0;
  out[axis] = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const Shape& s = c.shape(i);
    bool ok = static_cast<int>(s.size()) == r;
    for (int d = 0; ok && d < r; ++d) ok = d == axis || s[d] == s0[d];
    if (!ok) {
      c.fail("input " + std::to_string(i) + " has shape " + shape_str(s) + " while input 0 has " +
                 shape_str(s0),
             "equal shapes except on axis " + std::to_string(axis));
    }
    if (c.dtype(i) != c.dtype(0)) {
      c.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(c.dtype(i))),
             std::string(dtype_name(c.dtype(0))) + " like input 0");
    }
    out[axis] += s[axis];
  }
  c.set_output(0, out, c.dtype(0));
}

namespace {

// Split sizes: from the `split` input (opset 13), the `split` attribute (opset < 13), or equal
// parts (`num_outputs` attribute of opset 18: ceil-sized parts with a smaller last one;
// otherwise the dim must divide evenly by the number of outputs).
std::vector<int64_t> split_sizes(const Ctx& c, int64_t dim) {
  const int n = c.num_outputs();
  std::vector<int64_t> sizes;
  if (c.has_input(1)) {
    sizes = c.const_ints(1, "split sizes");
  } else if (c.attrs().has("split")) {
    sizes = c.attrs().get_ints("split", {});
  } else if (c.attrs().has("num_outputs")) {
    const int64_t k = c.attrs().get_int("num_outputs", n);
    if (k != n) {
      c.fail("attribute 'num_outputs' is " + std::to_string(k) + " but the op has " +
                 std::to_string(n) + " outputs",
             "num_outputs equal to the number of outputs");
    }
    const int64_t part = ceil_div(dim, n);
    for (int i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(part, dim - i * part)));
  } else {
    if (dim % n != 0) {
      c.fail("axis size " + std::to_string(dim) + " does not divide into " + std::to_string(n) +
                 " equal parts",
             "a size divisible by the number of outputs, or split sizes");
    }
    sizes.assign(n, dim / n);
  }
  if (static_cast<int>(sizes.size()) != n) {
    c.fail(std::to_string(sizes.size()) + " split sizes for " + std::to_string(n) + " outputs",
           "one size per output");
  }
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) c.fail("a negative split size", "sizes >= 0");
    sum += s;
  }
  if (sum != dim) {
    c.fail("split sizes sum to " + std::to_string(sum) + " but the axis has size " +
               std::to_string(dim),
           "sizes summing to " + std::to_string(dim));
  }
  return sizes;
}

}  // namespace

void infer_split(Ctx& c) {
  const Shape& x = c.shape(0);
  const int axis = c.axis(c.attrs().get_int("axis", 0), c.rank(0), "attribute 'axis'");
  std::vector<int64_t> sizes = split_sizes(c, x[axis]);
  for (int i = 0; i < c.num_outputs(); ++i) {
    Shape s = x;
    s[axis] = sizes[i];
    c.set_output(i, s, c.dtype(0));
  }
}

void infer_slice(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  std::vector<int64_t> starts = c.const_ints(1, "starts");
  std::vector<int64_t> ends = c.const_ints(2, "ends");
  const size_t n = starts.size();
  if (ends.size() != n) {
    c.fail(std::to_string(n) + " starts and " + std::to_string(ends.size()) + " ends",
           "as many ends as starts");
  }
  std::vector<int64_t> axes(n), steps(n, 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (c.has_input(3)) axes = c.const_ints(3, "axes");
  if (c.has_input(4)) steps = c.const_ints(4, "steps");
  if (axes.size() != n || steps.size() != n) {
    c.fail(std::to_string(axes.size()) + " axes and " + std::to_string(steps.size()) +
               " steps for " + std::to_string(n) + " starts",
           "one axis and step per start");
  }
  Shape out = x;
  std::set<int> seen;
  for (size_t i = 0; i < n; ++i) {
    const int a = c.axis(axes[i], r, "slice axis");
    if (!seen.insert(a).second)
      c.fail("axis " + std::to_string(a) + " is repeated", "distinct axes");
    const int64_t step = steps[i];
    if (step == 0) c.fail("a step of 0", "non-zero steps");
    const int64_t dim = x[a];
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      out[a] = e > s ? ceil_div(e - s, step) : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      out[a] = s > e ? ceil_div(s - e, -step) : 0;
    }
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_reshape(Ctx& c) {
  const Shape& x = c.shape(0);
  std::vector<int64_t> shape = c.const_ints(1, "target shape");
  const bool allowzero = c.attrs().get_int("allowzero", 0) != 0;
  Shape out(shape.size());
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t v = shape[i];
    if (v == 0 && !allowzero) {
      if (i >= x.size()) {
        c.fail("target shape " + shape_str(shape) + " copies dim " + std::to_string(i) +
                   " (0) that input " + shape_str(x) + " lacks",
               "0 only at positions the input has");
      }
      v = x[i];
    }
    if (v == -1) {
      if (infer_at >= 0)
        c.fail("target shape " + shape_str(shape) + " has two -1", "at most one -1");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (v < 0)
      c.fail("target shape " + shape_str(shape) + " has " + std::to_string(v), "dims >= -1");
    out[i] = v;
    if (__builtin_mul_overflow(known, v, &known)) {
      c.fail("target shape " + shape_str(shape) + " has more elements than 64 bits count",
             "a shape of the input's element count");
    }
  }
  const int64_t total = numel(x);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      c.fail("cannot infer the -1 of target shape " + shape_str(shape) + " for " +
                 std::to_string(total) + " elements (input " + shape_str(x) + ")",
             "a shape whose known dims divide the element count");
    }
    out[infer_at] = total / known;
  } else if (known != total) {
    c.fail("target shape " + shape_str(shape) + " has " + std::to_string(known) +
               " elements but input " + shape_str(x) + " has " + std::to_string(total),
           "the same number of elements");
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_transpose(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  std::vector<int64_t> perm(r);
  for (int i = 0; i < r; ++i) perm[i] = r - 1 - i;
  perm = c.attrs().get_ints("perm", perm);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = static_cast<int>(perm.size()) == r;
  for (int i = 0; ok && i < r; ++i) ok = sorted[i] == i;
  if (!ok) {
    c.fail("attribute 'perm' " + shape_str(perm) + " for input " + shape_str(x),
           "a permutation of 0.." + std::to_string(r - 1));
  }
  Shape out(r);
  for (int i = 0; i < r; ++i) out[i] = x[perm[i]];
  c.set_output(0, out, c.dtype(0));
}

void infer_flatten(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  int64_t a = c.attrs().get_int("axis", 1);
  if (a < -r || a > r) {
    c.fail(
        "attribute 'axis' " + std::to_string(a) + " is out of range for rank " + std::to_string(r),
        "a value in [" + std::to_string(-r) + ", " + std::to_string(r) + "]");
  }
  if (a < 0) a += r;
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < r; ++i) (i < a ? outer : inner) *= x[i];
  c.set_output(0, {outer, inner}, c.dtype(0));
}

void infer_squeeze(Ctx& c) {
  const Shape& x = c.shape(0);
  const int r = c.rank(0);
  std::vector<bool> drop(r, false);
  if (auto axes = axes_of(c)) {
    for (int64_t a : *axes) {
      int ax = c.axis(a, r, "squeeze axis");
      if (x[ax] != 1) {
        c.fail("axis " + std::to_string(ax) + " of input " + shape_str(x) + " has size " +
                   std::to_string(x[ax]),
               "squeezed axes of size 1");
      }
      drop[ax] = true;
    }
  } else {
    for (int i = 0; i < r; ++i) drop[i] = x[i] == 1;
  }
  Shape out;
  for (int i = 0; i < r; ++i) {
    if (!drop[i]) out.push_back(x[i]);
  }
  c.set_output(0, out, c.dtype(0));
}

void infer_unsqueeze(Ctx& c) {
  const Shape& x = c.shape(0);
  auto axes = axes_of(c);
  if (!axes) c.fail("no axes (input 1 or attribute 'axes')", "the axes to insert");
  const int r = c.rank(0) + static_cast<int>(axes->size());
  std::vector<bool> inserted(r, false);
  for (int64_t a : *axes) {
    int ax = c.axis(a, r, "unsqueeze axis");
    if (inserted[ax]) c.fail("axis " + std::to_string(ax) + " is repeated", "distinct axes");
    inserted[ax] = true;
  }
  Shape out;
  size_t j = 0;
  for (int i = 0; i < r; ++i) out.push_back(inserted[i] ? 1 : x[j++]);
  c.set_output(0, out, c.dtype(0));
}

}  // namespace dgs::shape_inference_internal
