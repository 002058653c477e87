// Lowering of one graph operator to the interpreter's op block (see tile_program_lowering.h).
#include "common/tileprog/tile_program_lowering.h"

#include <algorithm>
#include <string>

#include "common/graph/window.h"
#include "common/util/error.h"

namespace dgs {

[[noreturn]] void fail_tile_program_op(const Graph& g, int op, const std::string& what) {
  const Op& o = g.op(op);
  throw Error("tile program: op '" + o.name + "' (" + std::string(op_kind_name(o.kind)) +
              "): " + what);
}

void check_tile_program_rank(const Graph& g, int op, const Shape& s) {
  if (static_cast<int>(s.size()) > kTpMaxRank)
    fail_tile_program_op(g, op,
                         "rank " + std::to_string(s.size()) + " exceeds the interpreter's " +
                             std::to_string(kTpMaxRank));
}

namespace {

int64_t norm_axis(const Graph& g, int op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    fail_tile_program_op(
        g, op, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

// The values of an integer Constant input (shape, axes, starts, ...); empty when absent.
std::vector<int64_t> const_ints(const Graph& g, int op, size_t k) {
  const Op& o = g.op(op);
  if (k >= o.inputs.size() || o.inputs[k] < 0) return {};
  const Tensor& t = g.tensor(o.inputs[k]);
  if (t.role != TensorRole::Constant)
    fail_tile_program_op(g, op,
                         "input " + std::to_string(k) + " ('" + t.name +
                             "') must be a constant for the interpreter");
  if (!t.int_data.empty()) return t.int_data;
  std::vector<int64_t> r;
  for (float f : t.float_data) r.push_back(static_cast<int64_t>(f));
  return r;
}

}  // namespace

TpKind tile_program_kind(const Graph& g, int op) {
  switch (g.op(op).kind) {
    case OpKind::Add:
      return TpKind::Add;
    case OpKind::Sub:
      return TpKind::Sub;
    case OpKind::Mul:
      return TpKind::Mul;
    case OpKind::Div:
      return TpKind::Div;
    case OpKind::Pow:
      return TpKind::Pow;
    case OpKind::Sqrt:
      return TpKind::Sqrt;
    case OpKind::Erf:
      return TpKind::Erf;
    case OpKind::Relu:
      return TpKind::Relu;
    case OpKind::Sigmoid:
      return TpKind::Sigmoid;
    case OpKind::Expand:
      return TpKind::Expand;
    case OpKind::ReduceMean:
      return TpKind::ReduceMean;
    case OpKind::GlobalAveragePool:
      return TpKind::GlobalAveragePool;
    case OpKind::Softmax:
      return TpKind::Softmax;
    case OpKind::MatMul:
      return TpKind::MatMul;
    case OpKind::Gemm:
      return TpKind::Gemm;
    case OpKind::Conv:
      return TpKind::Conv;
    case OpKind::Reshape:
    case OpKind::Flatten:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::Identity:
      return TpKind::Reshape;
    case OpKind::Transpose:
      return TpKind::Transpose;
    case OpKind::Slice:
      return TpKind::Slice;
    case OpKind::Concat:
      return TpKind::Concat;
    case OpKind::Gather:
      return TpKind::Gather;
    case OpKind::DepthToSpace:
      return TpKind::DepthToSpace;
    default:
      fail_tile_program_op(g, op,
                           "operator kind not supported by the tile-program interpreter "
                           "(common/tileprog/tile_program.h lists the supported kinds)");
  }
}

// The inputs of `op` that the interpreter reads as data (the others are constants folded into
// the attribute block).
std::vector<size_t> tile_program_data_inputs(const Graph& g, int op, TpKind k) {
  const Op& o = g.op(op);
  std::vector<size_t> r;
  auto present = [&](size_t i) { return i < o.inputs.size() && o.inputs[i] >= 0; };
  switch (k) {
    case TpKind::Add:
    case TpKind::Sub:
    case TpKind::Mul:
    case TpKind::Div:
    case TpKind::Pow:
    case TpKind::MatMul:
      return {0, 1};
    case TpKind::Gemm:
    case TpKind::Conv:
      r = {0, 1};
      if (present(2)) r.push_back(2);
      return r;
    case TpKind::Concat:
      for (size_t i = 0; i < o.inputs.size(); ++i)
        if (present(i)) r.push_back(i);
      return r;
    default:
      return {0};
  }
}

// The attribute block of op `op` (graph op), given its input and output shapes.
void fill_tile_program_attrs(const Graph& g, int op, TpOp& t, std::vector<int64_t>& int_pool) {
  const Op& o = g.op(op);
  const Shape& in0 = g.tensor(o.inputs.at(0)).shape;
  const Shape& out = g.tensor(o.outputs.at(0)).shape;
  const int64_t rank_in = static_cast<int64_t>(in0.size());
  switch (t.kind) {
    case TpKind::ReduceMean: {
      std::vector<int64_t> axes = const_ints(g, op, 1);
      if (o.inputs.size() < 2 || o.inputs[1] < 0) axes = o.attrs.get_ints("axes", {});
      if (axes.empty() && o.attrs.get_int("noop_with_empty_axes", 0) != 0)
        fail_tile_program_op(g, op, "noop_with_empty_axes is not supported");
      for (int64_t d = 0; d < rank_in; ++d) t.ia[d] = axes.empty() ? 1 : 0;
      for (int64_t a : axes) t.ia[norm_axis(g, op, a, rank_in)] = 1;
      t.ia[kTpMaxRank] = o.attrs.get_int("keepdims", 1) != 0 ? 1 : 0;
      break;
    }
    case TpKind::GlobalAveragePool:
      if (rank_in < 3) fail_tile_program_op(g, op, "input of rank < 3");
      break;
    case TpKind::Softmax:
      t.ia[0] = norm_axis(g, op, o.attrs.get_int("axis", -1), rank_in);
      break;
    case TpKind::MatMul: {
      const Shape& in1 = g.tensor(o.inputs.at(1)).shape;
      if (in0.size() < 2 || in1.size() < 2)
        fail_tile_program_op(g, op, "operands of rank < 2 are not supported");
      break;
    }
    case TpKind::Gemm:
      if (in0.size() != 2 || g.tensor(o.inputs.at(1)).shape.size() != 2)
        fail_tile_program_op(g, op, "operands must be matrices");
      t.ia[0] = o.attrs.get_int("transA", 0) != 0;
      t.ia[1] = o.attrs.get_int("transB", 0) != 0;
      t.fa[0] = static_cast<float>(o.attrs.get_float("alpha", 1.0));
      t.fa[1] = static_cast<float>(o.attrs.get_float("beta", 1.0));
      break;
    case TpKind::Conv: {
      if (in0.size() != 4)
        fail_tile_program_op(g, op, "only 2-D (NCHW) convolutions are supported");
      const Window w = resolve_window(g, op);  // the output size comes from the graph
      t.ia[0] = w.strides[0];
      t.ia[1] = w.strides[1];
      t.ia[2] = w.pads_begin[0];
      t.ia[3] = w.pads_begin[1];
      t.ia[4] = w.dilations[0];
      t.ia[5] = w.dilations[1];
      t.ia[6] = w.group;
      break;
    }
    case TpKind::Transpose: {
      std::vector<int64_t> perm(in0.size());
      for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(perm.size() - 1 - d);
      perm = o.attrs.get_ints("perm", perm);
      if (perm.size() != in0.size()) fail_tile_program_op(g, op, "perm of the wrong length");
      for (size_t d = 0; d < perm.size(); ++d) t.ia[d] = perm[d];
      break;
    }
    case TpKind::Slice: {
      std::vector<int64_t> starts, axes, steps;
      if (o.inputs.size() > 1 && o.inputs[1] >= 0) {
        starts = const_ints(g, op, 1);
        axes = const_ints(g, op, 3);
        steps = const_ints(g, op, 4);
      } else {
        starts = o.attrs.get_ints("starts", {});
        axes = o.attrs.get_ints("axes", {});
      }
      if (axes.empty())
        for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
      if (steps.empty()) steps.assign(starts.size(), 1);
      if (axes.size() != starts.size() || steps.size() != starts.size())
        fail_tile_program_op(g, op, "starts/axes/steps of different lengths");
      for (int64_t d = 0; d < rank_in; ++d) {
        t.ia[d] = 0;
        t.ia[kTpMaxRank + d] = 1;
      }
      for (size_t k = 0; k < starts.size(); ++k) {
        const int64_t a = norm_axis(g, op, axes[k], rank_in);
        const int64_t dim = in0[a];
        const int64_t step = steps[k];
        if (step == 0) fail_tile_program_op(g, op, "a step of 0");
        int64_t s = starts[k];
        if (s < 0) s += dim;
        s = step > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
        t.ia[a] = s;
        t.ia[kTpMaxRank + a] = step;
      }
      break;
    }
    case TpKind::Concat:
      t.ia[0] = norm_axis(g, op, o.attrs.get_int("axis", 0), rank_in);
      break;
    case TpKind::Gather: {
      const int64_t axis = norm_axis(g, op, o.attrs.get_int("axis", 0), rank_in);
      const Tensor& ind = g.tensor(o.inputs.at(1));
      std::vector<int64_t> idx = const_ints(g, op, 1);
      if (static_cast<int64_t>(idx.size()) != ind.numel())
        fail_tile_program_op(g, op, "indices without their values");
      for (int64_t& v : idx) {
        if (v < 0) v += in0[axis];
        if (v < 0 || v >= in0[axis]) fail_tile_program_op(g, op, "index out of range");
      }
      t.ia[0] = axis;
      t.ia[1] = static_cast<int64_t>(int_pool.size());
      t.ia[2] = static_cast<int64_t>(idx.size());
      t.ia[3] = static_cast<int64_t>(ind.shape.size());
      int_pool.insert(int_pool.end(), idx.begin(), idx.end());
      break;
    }
    case TpKind::DepthToSpace: {
      if (in0.size() != 4) fail_tile_program_op(g, op, "input of rank != 4");
      const std::string mode = o.attrs.get_string("mode", "DCR");
      if (mode != "DCR" && mode != "CRD") fail_tile_program_op(g, op, "mode '" + mode + "'");
      t.ia[0] = o.attrs.get_int("blocksize", 0);
      t.ia[1] = mode == "CRD" ? 1 : 0;
      if (t.ia[0] < 1) fail_tile_program_op(g, op, "blocksize < 1");
      break;
    }
    case TpKind::Reshape:
      if (numel(in0) != numel(out)) fail_tile_program_op(g, op, "element counts differ");
      break;
    default:
      break;
  }
  static_assert(2 * kTpMaxRank <= kTpMaxAttrs, "Slice needs 2 x rank attributes");
}

}  // namespace dgs
