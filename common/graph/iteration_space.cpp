#include "common/graph/iteration_space.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/graph/iteration_space_internal.h"
#include "common/graph/op_signature.h"
#include "common/graph/window.h"

namespace dgs {

namespace iteration_space_internal {

SpaceBuilder::SpaceBuilder(const Graph& graph, int op_index, int output)
    : g(graph),
      o(op_index),
      op(graph.op(op_index)),
      output_index(output),
      s{graph.tensor(op.outputs[output]).shape, {}, {}},
      y(s.output_axes),
      ry(static_cast<int>(y.size())),
      ni(static_cast<int>(op.inputs.size())) {
  s.inputs.resize(ni);
  // Defaults: omitted inputs, and shape-determining constants read whole.
  for (int i = 0; i < ni; ++i) {
    if (!present(i)) {
      s.inputs[i].kind = InputAccess::Kind::Omitted;
    } else {
      s.inputs[i] = whole_tensor(shape(i));
    }
  }
}

int SpaceBuilder::add_reduction(std::string name, int64_t extent) {
  s.reduction_axes.push_back({std::move(name), extent});
  return static_cast<int>(s.reduction_axes.size()) - 1;
}

void SpaceBuilder::build() {
  switch (op.kind) {
    case OpKind::Conv:
      return conv();
    case OpKind::ConvTranspose:
      return conv_transpose();
    case OpKind::Gemm:
      return gemm();
    case OpKind::MatMul:
      return matmul();
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      return pool();
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return global_pool();
    case OpKind::BatchNormalization:
      return batch_norm();
    case OpKind::LayerNormalization:
      return layer_norm();
    case OpKind::Softmax:
      return softmax();
    case OpKind::Concat:
      return concat();
    case OpKind::Split:
      return split();
    case OpKind::Slice:
      return slice();
    case OpKind::Transpose:
      return transpose();
    case OpKind::Reshape:
    case OpKind::Flatten:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      s.inputs[0] = custom(
          "row-major reshape: exact per group of merged/split dims when the tile "
          "is contiguous within the group, else the covering box");
      return;
    case OpKind::Pad:
      s.inputs[0] = custom(
          "out - pad_begin; constant: clamped, edge: clamped to the border, "
          "reflect/wrap: mirrored or wrapped coordinates");
      return;
    case OpKind::Resize:
      s.inputs[0] = custom(
          "coordinate transform of the tile's ends, rounded (nearest) or with "
          "the interpolation taps (linear 2, cubic 4)");
      return;
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      s.inputs[0] = custom("block rearrangement of channels and space");
      return;
    case OpKind::Gather:
      return gather();
    case OpKind::GatherND:
      return gather_nd();
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
      return reduce_axes();
    case OpKind::Expand:
      s.inputs[0] = broadcast_access(shape(0), y);
      return;
    case OpKind::Clip:
      s.inputs[0] = broadcast_access(shape(0), y);  // min/max scalars: whole
      return;
    default:
      return elementwise();
  }
}

void SpaceBuilder::conv() {
  const Shape& x = shape(0);
  const Shape& w = shape(1);
  const size_t nd = x.size() - 2;
  const Window win = resolve_window(g, o);
  const int64_t cg = w[1];              // input channels per group
  const int64_t mg = w[0] / win.group;  // output channels per group
  const int rc = add_reduction("c_in", cg);
  std::vector<int> rk;
  for (size_t i = 0; i < nd; ++i) rk.push_back(add_reduction(axis_name("k", i), w[2 + i]));
  std::vector<AxisIndex> xd{ident(0)};
  AxisIndex ch;  // channel = cg * floor(m / mg) + r_c
  ch.terms.push_back({1, false, cg, mg});
  ch.terms.push_back({rc, true, 1, 1});
  xd.push_back(ch);
  for (size_t i = 0; i < nd; ++i) {
    xd.push_back(window_axis(static_cast<int>(2 + i), rk[i], win.strides[i], win.dilations[i],
                             win.pads_begin[i]));
  }
  s.inputs[0] = affine(xd);
  std::vector<AxisIndex> wd{ident(1), reduce(rc)};
  for (size_t i = 0; i < nd; ++i) wd.push_back(reduce(rk[i]));
  s.inputs[1] = affine(wd);
  if (present(2)) s.inputs[2] = affine({ident(1)});
}

void SpaceBuilder::conv_transpose() {
  const Shape& w = shape(1);
  const int64_t group = op.attrs.get_int("group", 1);
  add_reduction("c_in", w[0] / group);
  for (size_t i = 2; i < w.size(); ++i) add_reduction(axis_name("k", i - 2), w[i]);
  s.inputs[0] = custom(
      "input positions whose scattered window reaches the tile, channels of "
      "the output channels' groups");
  s.inputs[1] = custom("the groups' input channels x the tile's output channels in the group");
  if (present(2)) s.inputs[2] = affine({ident(1)});
}

void SpaceBuilder::gemm() {
  const Shape& a = shape(0);
  const bool ta = op.attrs.get_int("transA", 0) != 0;
  const bool tb = op.attrs.get_int("transB", 0) != 0;
  const int rk = add_reduction("k", ta ? a[0] : a[1]);
  s.inputs[0] = ta ? affine({reduce(rk), ident(0)}) : affine({ident(0), reduce(rk)});
  s.inputs[1] = tb ? affine({ident(1), reduce(rk)}) : affine({reduce(rk), ident(1)});
  if (present(2)) s.inputs[2] = broadcast_access(shape(2), y);
}

void SpaceBuilder::matmul() {
  const Shape& a = shape(0);
  const Shape& b = shape(1);
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  const int rk = add_reduction("k", a.back());
  // Output axes: batch..., [m unless A is 1-D], [n unless B is 1-D].
  const int nbatch = ry - (a1 ? 0 : 1) - (b1 ? 0 : 1);
  const int m_axis = a1 ? -1 : nbatch;
  const int n_axis = b1 ? -1 : ry - 1;
  Shape batch_out(y.begin(), y.begin() + nbatch);
  auto operand = [&](const Shape& t, bool one_d, bool is_a) {
    if (one_d) return affine({reduce(rk)});
    Shape tb(t.begin(), t.end() - 2);
    InputAccess acc = broadcast_access(tb, batch_out);
    if (is_a) {
      acc.dims.push_back(ident(m_axis));
      acc.dims.push_back(reduce(rk));
    } else {
      acc.dims.push_back(reduce(rk));
      acc.dims.push_back(ident(n_axis));
    }
    return acc;
  };
  s.inputs[0] = operand(a, a1, true);
  s.inputs[1] = operand(b, b1, false);
}

void SpaceBuilder::pool() {
  const Shape& x = shape(0);
  const size_t nd = x.size() - 2;
  const Window win = resolve_window(g, o);
  std::vector<AxisIndex> xd{ident(0), ident(1)};
  for (size_t i = 0; i < nd; ++i) {
    int r = add_reduction(axis_name("k", i), win.kernel[i]);
    xd.push_back(window_axis(static_cast<int>(2 + i), r, win.strides[i], win.dilations[i],
                             win.pads_begin[i]));
  }
  s.inputs[0] = affine(xd);
}

void SpaceBuilder::global_pool() {
  const Shape& x = shape(0);
  std::vector<AxisIndex> xd{ident(0), ident(1)};
  for (size_t i = 2; i < x.size(); ++i) {
    xd.push_back(reduce(add_reduction(axis_name("s", i - 2), x[i])));
  }
  s.inputs[0] = affine(xd);
}

void SpaceBuilder::batch_norm() {
  if (output_index == 0) {
    s.inputs[0] = broadcast_access(shape(0), y);
    for (int i = 1; i < 5; ++i) s.inputs[i] = affine({ident(1)});
  } else {  // running mean / variance [C] (training mode)
    const Shape& x = shape(0);
    std::vector<AxisIndex> xd;
    for (size_t i = 0; i < x.size(); ++i) {
      xd.push_back(i == 1 ? ident(0) : reduce(add_reduction(axis_name("d", i), x[i])));
    }
    s.inputs[0] = affine(xd);
    for (int i = 1; i < 5; ++i) s.inputs[i] = affine({ident(0)});
  }
}

void SpaceBuilder::layer_norm() {
  const Shape& x = shape(0);
  const int r = static_cast<int>(x.size());
  int64_t axis = op.attrs.get_int("axis", -1);
  if (axis < 0) axis += r;
  std::vector<AxisIndex> xd;
  std::vector<int> red(r, -1);
  for (int i = 0; i < r; ++i) {
    if (i < axis) {
      xd.push_back(ident(i));
    } else {
      red[i] = add_reduction(axis_name("norm", i), x[i]);
      xd.push_back(reduce(red[i]));
    }
  }
  s.inputs[0] = affine(xd);
  for (int k = 1; k < 3; ++k) {
    if (!present(k)) continue;
    const Shape& p = shape(k);
    std::vector<AxisIndex> pd;
    for (int i = 0; i < static_cast<int>(p.size()); ++i) {
      const int j = r - static_cast<int>(p.size()) + i;
      // Scale and bias apply per output element: only the statistics read whole rows of X.
      pd.push_back(p[i] == 1 ? fixed(0) : ident(j));
    }
    s.inputs[k] = affine(pd);
  }
}

void SpaceBuilder::softmax() {
  int64_t axis = op.attrs.get_int("axis", -1);
  if (axis < 0) axis += ry;
  std::vector<AxisIndex> xd;
  for (int i = 0; i < ry; ++i) {
    xd.push_back(i == axis ? reduce(add_reduction("axis", y[i])) : ident(i));
  }
  s.inputs[0] = affine(xd);
}

void SpaceBuilder::reduce_axes() {
  const Shape& x = shape(0);
  const int r = static_cast<int>(x.size());
  const bool keepdims = op.attrs.get_int("keepdims", 1) != 0;
  const bool noop_empty = op.attrs.get_int("noop_with_empty_axes", 0) != 0;
  std::vector<int64_t> axes;
  if (present(1)) {
    axes = g.tensor(op.inputs[1]).int_data;
  } else {
    axes = op.attrs.get_ints("axes", {});
  }
  std::vector<bool> reduced(r, axes.empty() && !noop_empty);
  for (int64_t a : axes) reduced[a < 0 ? a + r : a] = true;
  std::vector<AxisIndex> xd;
  int j = 0;
  for (int i = 0; i < r; ++i) {
    if (reduced[i]) {
      xd.push_back(reduce(add_reduction(axis_name("reduce", i), x[i])));
      if (keepdims) ++j;
    } else {
      xd.push_back(ident(j++));
    }
  }
  s.inputs[0] = affine(xd);
}

// Element-wise unary/binary/variadic (incl. Cast, Dropout, Identity): NumPy broadcasting.
void SpaceBuilder::elementwise() {
  for (int i = 0; i < ni; ++i) {
    if (present(i) && !is_shape_input(op.kind, i)) s.inputs[i] = broadcast_access(shape(i), y);
  }
  if (op.kind == OpKind::Dropout) {  // ratio, training_mode: scalars, whole
    for (int i = 1; i < ni; ++i) {
      if (present(i)) s.inputs[i] = whole_tensor(shape(i));
    }
  }
}

}  // namespace iteration_space_internal

namespace {

IterationSpace build_iteration_space(const Graph& g, int o, int output_index);

thread_local IterationSpaceMemo* innermost_memo = nullptr;

}  // namespace

IterationSpaceMemo::IterationSpaceMemo(const Graph& g)
    : g_(g), outer_(innermost_memo), spaces_(static_cast<size_t>(g.num_ops())) {
  innermost_memo = this;
}

IterationSpaceMemo::~IterationSpaceMemo() {
  innermost_memo = outer_;
}

IterationSpaceMemo* IterationSpaceMemo::active(const Graph& g) {
  return innermost_memo && &innermost_memo->g_ == &g ? innermost_memo : nullptr;
}

const IterationSpace& IterationSpaceMemo::space(int op) {
  std::unique_ptr<IterationSpace>& s = spaces_.at(static_cast<size_t>(op));
  if (!s) s = std::make_unique<IterationSpace>(build_iteration_space(g_, op, 0));
  return *s;
}

IterationSpace iteration_space(const Graph& g, int o, int output_index) {
  IterationSpaceMemo* memo = output_index == 0 ? IterationSpaceMemo::active(g) : nullptr;
  return memo ? memo->space(o) : build_iteration_space(g, o, output_index);
}

namespace {

IterationSpace build_iteration_space(const Graph& g, int o, int output_index) {
  using iteration_space_internal::op_ref;
  const Op& op = g.op(o);
  if (output_index < 0 || output_index >= static_cast<int>(op.outputs.size())) {
    throw Error(op_ref(op) + ": output index " + std::to_string(output_index) +
                " does not exist; expected 0.." + std::to_string(op.outputs.size() - 1));
  }
  iteration_space_internal::SpaceBuilder builder(g, o, output_index);
  builder.build();
  return std::move(builder.s);
}

}  // namespace

}  // namespace dgs
