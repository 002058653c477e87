// validate(): structural and shape checks of a Graph (declared in graph.h).
#include <string>

#include "common/graph/graph.h"
#include "common/graph/op_signature.h"
#include "common/graph/shape_inference.h"

namespace dgs {

namespace {
std::string where(const Graph& g) {
  return "graph '" + g.name + "': ";
}
std::string op_ref(const Op& op) {
  return "op '" + op.name + "' (" + std::string(op_kind_name(op.kind)) + ")";
}
}  // namespace

void validate(const Graph& g) {
  const int nt = g.num_tensors();
  // 1. Links: indices exist, each tensor has at most one producer and the stored links agree.
  std::vector<int> producer(nt, -1);
  for (int o = 0; o < g.num_ops(); ++o) {
    const Op& op = g.op(o);
    check_arity(op);
    for (int t : op.inputs) {
      if (t >= nt) {
        throw Error(where(g) + op_ref(op) + " reads tensor index " + std::to_string(t) +
                    "; expected an index below " + std::to_string(nt));
      }
    }
    for (int t : op.outputs) {
      if (t >= nt) {
        throw Error(where(g) + op_ref(op) + " writes tensor index " + std::to_string(t) +
                    "; expected an index below " + std::to_string(nt));
      }
      if (producer[t] >= 0) {
        throw Error(where(g) + "tensor '" + g.tensor(t).name + "' is produced by two ops ('" +
                    g.op(producer[t]).name + "' and '" + op.name + "'); expected one producer");
      }
      producer[t] = o;
    }
  }
  for (int t = 0; t < nt; ++t) {
    const Tensor& x = g.tensor(t);
    const bool source = x.role == TensorRole::Input || x.role == TensorRole::Weight ||
                        x.role == TensorRole::Constant;
    if (source && producer[t] >= 0) {
      throw Error(where(g) + "tensor '" + x.name + "' has role " + std::string(role_name(x.role)) +
                  " but is produced by op '" + g.op(producer[t]).name +
                  "'; expected no producer for inputs, weights and constants");
    }
    if (x.producer != producer[t]) {
      throw Error(where(g) + "tensor '" + x.name + "' records producer " +
                  std::to_string(x.producer) + " but op " + std::to_string(producer[t]) +
                  " writes it; expected consistent links (call rebuild_links())");
    }
  }
  for (int o = 0; o < g.num_ops(); ++o) {
    const Op& op = g.op(o);
    for (int t : op.inputs) {
      if (t < 0) continue;
      const Tensor& x = g.tensor(t);
      if (producer[t] < 0 && (x.role == TensorRole::Activation || x.role == TensorRole::Output)) {
        throw Error(where(g) + op_ref(op) + " reads tensor '" + x.name +
                    "' that no op produces; expected an op output or a graph input, weight or "
                    "constant");
      }
      bool listed = false;
      for (int c : x.consumers) listed = listed || c == o;
      if (!listed) {
        throw Error(where(g) + "tensor '" + x.name + "' does not list consumer " + op_ref(op) +
                    "; expected consistent links (call rebuild_links())");
      }
    }
  }
  // 2. Acyclic (throws "graph '<name>' has a cycle through op '<op>'").
  const std::vector<int> order = g.topo_order();
  // 3. Every stored shape and dtype equals a re-inference from the stored inputs.
  Graph copy = g;
  for (int o : order) {
    const Op& op = g.op(o);
    infer_op_shapes(copy, o);
    for (int t : op.outputs) {
      const Tensor& stored = g.tensor(t);
      const Tensor& inferred = copy.tensor(t);
      if (stored.shape != inferred.shape || stored.dtype != inferred.dtype) {
        throw Error(where(g) + "tensor '" + stored.name + "' of " + op_ref(op) + " is stored as " +
                    std::string(dtype_name(stored.dtype)) + shape_str(stored.shape) +
                    "; expected " + std::string(dtype_name(inferred.dtype)) +
                    shape_str(inferred.shape) + " (shape inference)");
      }
    }
  }
}

}  // namespace dgs
