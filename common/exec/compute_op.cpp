// The CPU reference executor's dispatch (compute_op: one op from its input values) and graph
// execution (run_op, run_ops, run_graph); the ops themselves are in ops_*.cpp (ops.h).
#include "common/exec/executor.h"
#include "common/exec/kernels.h"
#include "common/exec/ops.h"

namespace dgs {

std::vector<TensorData> compute_op(const Op& op, const std::vector<const TensorData*>& in,
                                   int num_outputs) {
  using namespace exec_ops;  // NOLINT(build/namespaces): the op implementations (ops.h)
  auto one = [](TensorData t) { return std::vector<TensorData>{std::move(t)}; };
  auto x0 = [&]() -> const TensorData& { return in_req(op, in, 0); };
  // Whole families first (op_table.inc), then the kinds with a routine of their own.
  switch (op_family(op.kind)) {
    case OpFamily::EwUnary:
      return one(unary(op, x0()));
    case OpFamily::EwBinary:
      return one(binary(op, x0(), in_req(op, in, 1)));
    case OpFamily::EwVariadic:
      return one(max_min(op, in));
    case OpFamily::Logic:
      return one(logic(op, in));
    case OpFamily::Reduction:
      return one(reduce(op, in));
    default:
      break;
  }
  switch (op.kind) {
    case OpKind::Conv:
      return one(conv(op, in));
    case OpKind::ConvTranspose:
      return one(conv_transpose(op, in));
    case OpKind::Gemm:
      return one(gemm_forward(in_float(op, in, 0), in_float(op, in, 1), in_opt(in, 2),
                              op.attrs.get_float("alpha", 1.0), op.attrs.get_float("beta", 1.0),
                              op.attrs.get_int("transA", 0) != 0,
                              op.attrs.get_int("transB", 0) != 0));
    case OpKind::MatMul:
      return one(matmul_forward(in_float(op, in, 0), in_float(op, in, 1)));
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      return pool(op, in, num_outputs);
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return one(global_pool(op, in_float(op, in, 0)));
    case OpKind::BatchNormalization:
      return one(batch_norm(op, in, num_outputs));
    case OpKind::LayerNormalization:
      return layer_norm(op, in, num_outputs);
    case OpKind::Softmax:
      return one(softmax(op, x0()));
    case OpKind::Clip:
      return one(clip(op, in));
    case OpKind::Identity:
      return one(x0());
    case OpKind::Dropout:
      return dropout(op, in, num_outputs);
    case OpKind::Cast:
      return one(cast(op, x0()));
    case OpKind::Concat:
      return one(concat(op, in));
    case OpKind::Split:
      return split(op, in, num_outputs);
    case OpKind::Slice:
      return one(slice(op, in));
    case OpKind::Reshape:
      return one(reshape(op, in));
    case OpKind::Transpose:
      return one(transpose_op(op, x0()));
    case OpKind::Flatten:
      return one(flatten(op, x0()));
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return one(squeeze_unsqueeze(op, in));
    case OpKind::Pad:
      return one(pad(op, in));
    case OpKind::Resize:
      return one(resize(op, in));
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      return one(depth_space(op, x0()));
    case OpKind::Gather:
      return one(gather(op, in));
    case OpKind::Expand:
      return one(expand(op, in));
    case OpKind::GatherND:
      return one(gather_nd(op, in));
    default:
      break;
  }
  unsupported(op, "operator kind");
}

std::vector<TensorData> run_op(const Graph& g, int o, const TensorValues& values) {
  using exec_ops::op_prefix;
  const Op& op = g.op(o);
  std::vector<TensorData> constants;  // Constant inputs absent from `values`
  constants.reserve(op.inputs.size());
  std::vector<const TensorData*> in;
  for (int t : op.inputs) {
    if (t < 0) {
      in.push_back(nullptr);
      continue;
    }
    if (auto it = values.find(t); it != values.end()) {
      in.push_back(&it->second);
    } else if (g.tensor(t).role == TensorRole::Constant) {
      constants.push_back(constant_value(g.tensor(t)));
      in.push_back(&constants.back());
    } else {
      throw Error(op_prefix(op) + "input '" + g.tensor(t).name + "' has no value");
    }
  }
  std::vector<TensorData> outs = compute_op(op, in, static_cast<int>(op.outputs.size()));
  if (outs.size() != op.outputs.size()) {
    throw Error(op_prefix(op) + "computed " + std::to_string(outs.size()) +
                " outputs; the graph has " + std::to_string(op.outputs.size()));
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const Tensor& t = g.tensor(op.outputs[k]);
    if (outs[k].shape != t.shape) {
      throw Error(op_prefix(op) + "output '" + t.name + "' computed with shape " +
                  shape_str(outs[k].shape) + "; the graph says " + shape_str(t.shape));
    }
  }
  return outs;
}

void run_ops(const Graph& g, const std::vector<int>& ops, TensorValues& values) {
  for (int o : ops) {
    std::vector<TensorData> outs = run_op(g, o, values);
    const Op& op = g.op(o);
    for (size_t k = 0; k < outs.size(); ++k) values[op.outputs[k]] = std::move(outs[k]);
  }
}

TensorValues run_graph(const Graph& g, const TensorValues& feeds, uint64_t seed) {
  TensorValues values = make_graph_feeds(g, feeds, seed);
  run_ops(g, g.topo_order(), values);
  return values;
}

}  // namespace dgs
