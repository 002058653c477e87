#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "common/graph/iteration_space_internal.h"

// Iteration spaces of the data-movement operators (the maps of Reshape-like ops, Pad, Resize and
// DepthToSpace/SpaceToDepth are Custom and set in SpaceBuilder::build).
namespace dgs::iteration_space_internal {

void SpaceBuilder::concat() {
  for (int i = 0; i < ni; ++i)
    s.inputs[i] =
        custom("the tile's part that falls in input " + std::to_string(i) + " along the axis");
}

void SpaceBuilder::split() {
  const int64_t r = static_cast<int64_t>(shape(0).size());
  int64_t axis = op.attrs.get_int("axis", 0);
  if (axis < 0) axis += r;
  int64_t offset = 0;
  for (int k = 0; k < output_index; ++k) offset += g.tensor(op.outputs[k]).shape[axis];
  std::vector<AxisIndex> xd;
  for (int i = 0; i < ry; ++i) xd.push_back(i == axis ? ident(i, 1, offset) : ident(i));
  s.inputs[0] = affine(xd);
}

void SpaceBuilder::slice() {
  const Shape& x = shape(0);
  const int r = static_cast<int>(x.size());
  const std::vector<int64_t>& starts = g.tensor(op.inputs[1]).int_data;
  std::vector<int64_t> axes(starts.size()), steps(starts.size(), 1);
  std::iota(axes.begin(), axes.end(), 0);
  if (present(3)) axes = g.tensor(op.inputs[3]).int_data;
  if (present(4)) steps = g.tensor(op.inputs[4]).int_data;
  std::vector<AxisIndex> xd;
  for (int i = 0; i < r; ++i) xd.push_back(ident(i));
  for (size_t k = 0; k < starts.size(); ++k) {
    const int a = static_cast<int>(axes[k] < 0 ? axes[k] + r : axes[k]);
    const int64_t dim = x[a];
    int64_t st = starts[k] < 0 ? starts[k] + dim : starts[k];
    st = steps[k] > 0 ? std::clamp<int64_t>(st, 0, dim) : std::clamp<int64_t>(st, 0, dim - 1);
    xd[a] = ident(a, steps[k], st);
  }
  s.inputs[0] = affine(xd);
}

void SpaceBuilder::transpose() {
  const int r = static_cast<int>(shape(0).size());
  std::vector<int64_t> perm(r);
  for (int i = 0; i < r; ++i) perm[i] = r - 1 - i;
  perm = op.attrs.get_ints("perm", perm);
  std::vector<AxisIndex> xd(r);
  for (int i = 0; i < r; ++i) xd[perm[i]] = ident(i);
  s.inputs[0] = affine(xd);
}

void SpaceBuilder::gather() {
  const Shape& x = shape(0);
  const Shape& idx = shape(1);
  int64_t axis = op.attrs.get_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(x.size());
  s.inputs[0] = custom(
      "the rows named by the tile's indices (constant indices: their range; "
      "otherwise the whole axis)");
  std::vector<AxisIndex> id;
  for (size_t i = 0; i < idx.size(); ++i) id.push_back(ident(static_cast<int>(axis + i)));
  s.inputs[1] = affine(id);
}

void SpaceBuilder::gather_nd() {
  // Batch dims map to the output's leading axes, the k indexed dims are read whole
  // (run-time indices), the trailing dims follow the output's trailing axes; the indices
  // are read along the output's index axes, their last (tuple) axis whole.
  const int r = static_cast<int>(shape(0).size());
  const int q = static_cast<int>(shape(1).size());
  const int b = static_cast<int>(op.attrs.get_int("batch_dims", 0));
  const int k = static_cast<int>(shape(1).back());
  std::vector<AxisIndex> xd, id;
  for (int d = 0; d < r; ++d) {
    xd.push_back(d < b ? ident(d) : d < b + k ? whole() : ident(q - 1 + d - (b + k)));
  }
  for (int d = 0; d < q; ++d) id.push_back(d < q - 1 ? ident(d) : whole());
  s.inputs[0] = affine(xd);
  s.inputs[1] = affine(id);
}

}  // namespace dgs::iteration_space_internal
