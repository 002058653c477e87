#include "common/graph/subgraph.h"

#include <string>

namespace dgs {

InducedSubgraph induced_subgraph(const Graph& g, const std::vector<int>& ops) {
  std::vector<char> in(size_t(g.num_ops()), 0);
  for (int o : ops) {
    if (o < 0 || o >= g.num_ops())
      throw Error("graph '" + g.name + "': sub-graph op index " + std::to_string(o) +
                  " does not exist");
    if (in[size_t(o)])
      throw Error("graph '" + g.name + "': sub-graph lists op '" + g.op(o).name + "' twice");
    in[size_t(o)] = 1;
  }
  std::vector<char> used(size_t(g.num_tensors()), 0);
  for (int o = 0; o < g.num_ops(); ++o) {
    if (!in[size_t(o)]) continue;
    for (int t : g.op(o).inputs)
      if (t >= 0) used[size_t(t)] = 1;
    for (int t : g.op(o).outputs) used[size_t(t)] = 1;
  }
  InducedSubgraph s;
  s.graph.name = g.name;
  s.tensor_index.assign(size_t(g.num_tensors()), -1);
  s.op_index.assign(size_t(g.num_ops()), -1);
  for (int t = 0; t < g.num_tensors(); ++t) {
    if (!used[size_t(t)]) continue;
    Tensor x = g.tensor(t);
    const bool produced_inside = x.producer >= 0 && in[size_t(x.producer)];
    if (!produced_inside && !x.is_param()) {
      x.role = TensorRole::Input;
    } else if (produced_inside) {
      bool read_outside = false;
      for (int c : x.consumers) read_outside = read_outside || !in[size_t(c)];
      x.role = x.role == TensorRole::Output || read_outside ? TensorRole::Output
                                                            : TensorRole::Activation;
    }
    x.producer = -1;
    x.consumers.clear();
    s.tensor_index[size_t(t)] = s.graph.add_tensor(std::move(x));
  }
  for (int o = 0; o < g.num_ops(); ++o) {
    if (!in[size_t(o)]) continue;
    Op op = g.op(o);
    for (int& t : op.inputs)
      if (t >= 0) t = s.tensor_index[size_t(t)];
    for (int& t : op.outputs) t = s.tensor_index[size_t(t)];
    s.op_index[size_t(o)] = s.graph.add_op_unchecked(std::move(op));
  }
  return s;
}

}  // namespace dgs
