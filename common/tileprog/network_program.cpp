// A network as tile programs, run on the host interpreter (see network_program.h).
#include "common/tileprog/network_program.h"

#include <limits>
#include <string>
#include <utility>

#include "common/tileprog/tile_program_interpreter.h"
#include "common/tileprog/tile_program_lowering.h"
#include "common/util/error.h"

namespace dgs {

void add_layout_view(NetworkProgram& np, const Graph& g, int op) {
  const Op& o = g.op(op);
  if (!is_layout_only(o.kind) || o.inputs.empty() || o.inputs[0] < 0)
    fail_tile_program_op(g, op, "a group that launches no kernel holds a non-view operator");
  np.views[o.outputs.at(0)] = np.buffer_of(o.inputs[0]);
}

TensorValues run_network_host(const Graph& g, const NetworkProgram& np, const TensorValues& feeds,
                              uint64_t seed, HostTileOrder order) {
  TensorValues v = make_graph_feeds(g, feeds, seed);
  // Buffers: every tensor a kernel reads or writes (views resolved).
  for (const auto& k : np.kernels) {
    for (size_t i = 0; i < k.global_ids.size(); ++i) {
      const int b = np.buffer_of(k.global_ids[i]);
      if (v.count(b)) continue;
      if (!k.global_written[i] && g.tensor(b).producer < 0)
        throw Error("tile program: no value for input tensor '" + g.tensor(b).name + "'");
      TensorData z;
      z.shape = g.tensor(b).shape;
      z.dtype = DType::F32;
      z.f.assign(static_cast<size_t>(numel(z.shape)), std::numeric_limits<float>::quiet_NaN());
      v[b] = std::move(z);
    }
  }
  for (const auto& k : np.kernels) {
    std::vector<float*> ptrs;
    for (int t : k.global_ids) {
      auto it = v.find(np.buffer_of(t));
      if (it == v.end() || !it->second.is_float())
        throw Error("tile program: no float buffer for tensor '" + g.tensor(t).name + "'");
      ptrs.push_back(it->second.f.data());
    }
    run_tile_program_host(k, ptrs, order);
  }
  for (const auto& [t, b] : np.views) {
    auto it = v.find(b);
    if (it == v.end()) continue;
    TensorData d = it->second;
    d.shape = g.tensor(t).shape;
    v[t] = std::move(d);
  }
  return v;
}

}  // namespace dgs
