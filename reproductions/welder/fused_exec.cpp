#include "reproductions/welder/fused_exec.h"

#include <algorithm>

namespace dgs::welder {

namespace {
Region relative(const Region& inner, const Region& outer) {
  Region r = inner;
  for (size_t d = 0; d < r.size(); ++d) {
    r[d].lo -= outer[d].lo;
    r[d].hi -= outer[d].lo;
  }
  return r;
}
}  // namespace

std::map<int, TensorData> run_group_tiled(const TileGraph& tg, const KernelGroup& grp,
                                          const std::vector<int64_t>& tile,
                                          const TensorValues& values) {
  if (!tg.source) throw Error("welder: run_group_tiled needs a tile-graph built from a graph");
  const Graph& g = *tg.source;
  std::vector<int> ops = grp.ops;
  std::sort(ops.begin(), ops.end());
  std::vector<int> gops;  // graph ops, in tile-graph (topological) order
  for (int o : ops)
    if (std::find(gops.begin(), gops.end(), tg.ops[o].graph_op) == gops.end())
      gops.push_back(tg.ops[o].graph_op);
  const int root = group_root(tg, grp);
  const TileOp& rop = tg.ops[root];
  // Tensors written to global memory, and the sinks (seeded with the root's tile).
  std::vector<int> written;
  std::map<int, Region> seeds_shape;
  for (int o : ops) {
    const TileTensor& t = tg.tensors[tg.ops[o].output];
    bool outside = t.graph_output || t.consumers.empty();
    bool inner = false;
    for (int c : t.consumers) {
      const bool in = std::binary_search(ops.begin(), ops.end(), c);
      outside = outside || !in;
      inner = inner || in;
    }
    if (outside) written.push_back(t.graph_tensor);
    if (!inner && tg.ops[o].space != rop.space)
      throw Error("welder: kernel outputs with different shapes cannot share one tile");
    if (!inner) seeds_shape[t.graph_tensor] = {};
  }
  std::map<int, TensorData> result;
  for (int t : written) {
    TensorData z;
    z.shape = g.tensor(t).shape;
    z.dtype = DType::F32;
    z.f.assign(static_cast<size_t>(numel(z.shape)), 0.0f);
    result[t] = std::move(z);
  }
  // Iterate over the tiles of the root output.
  const size_t rank = rop.space.size();
  std::vector<int64_t> origin(rank, 0);
  while (true) {
    Region tr(rank);
    for (size_t d = 0; d < rank; ++d)
      tr[d] = {origin[d], std::min(origin[d] + std::max<int64_t>(1, tile[d]), rop.space[d])};
    std::map<int, Region> seeds;
    for (const auto& [t, unused] : seeds_shape) seeds[t] = tr;
    const auto regs = propagate_regions(g, gops, seeds);
    std::map<int, std::pair<Region, TensorData>> local;
    for (int op : gops) {
      const Op& o = g.op(op);
      const int out_t = o.outputs.at(0);
      auto it = regs.find(out_t);
      if (it == regs.end() || region_empty(it->second.region)) continue;
      const Region out_r = it->second.region;
      const auto need = input_regions(g, op, out_r);
      std::vector<Region> in_regs(o.inputs.size());
      std::vector<TensorData> in_tiles(o.inputs.size());
      for (size_t k = 0; k < o.inputs.size(); ++k) {
        const int t = o.inputs[k];
        if (t < 0) continue;
        const Tensor& tt = g.tensor(t);
        if (tt.role == TensorRole::Constant) {
          // Left out (empty region, no values): run_op_region uses the graph data.
          in_regs[k] = {};
          in_tiles[k] = TensorData{};
          continue;
        }
        auto li = local.find(t);
        if (li != local.end()) {
          in_regs[k] = need[k];
          in_tiles[k] = extract_region(li->second.second, relative(need[k], li->second.first));
        } else {
          auto vi = values.find(t);
          if (vi == values.end())
            throw Error("welder: no value for tensor '" + tt.name + "' read by the kernel");
          if (!vi->second.is_float()) {  // integer inputs are given whole
            in_regs[k] = full_region(tt.shape);
            in_tiles[k] = vi->second;
          } else {
            in_regs[k] = need[k];
            in_tiles[k] = extract_region(vi->second, need[k]);
          }
        }
      }
      for (size_t k = 0; k < in_regs.size(); ++k) {
        Shape want;
        for (const auto& iv : in_regs[k]) want.push_back(iv.size());
        if (want != in_tiles[k].shape)
          throw Error("welder: tile of input " + std::to_string(k) + " of op '" + o.name +
                      "' has shape " + shape_str(in_tiles[k].shape) + ", region " +
                      region_str(in_regs[k]));
      }
      TensorData out = run_op_region(g, op, in_regs, in_tiles, out_r, 0);
      local[out_t] = {out_r, std::move(out)};
    }
    for (int t : written) {
      auto li = local.find(t);
      if (li == local.end()) continue;
      insert_region(result[t], li->second.first, li->second.second);
    }
    size_t d = rank;
    while (d > 0) {
      --d;
      origin[d] += std::max<int64_t>(1, tile[d]);
      if (origin[d] < rop.space[d]) break;
      origin[d] = 0;
      if (d == 0) return result;
    }
    if (rank == 0) return result;
  }
}

}  // namespace dgs::welder
