#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/graph/iteration_space.h"

// Regions needed across a fused group of ops, walked backwards from seed tiles.
namespace dgs {

std::map<int, AccessRegion> propagate_regions(const Graph& g, const std::vector<int>& group,
                                              const std::map<int, Region>& seeds) {
  std::vector<bool> in_group(g.num_ops(), false);
  for (int o : group) {
    if (o < 0 || o >= g.num_ops()) {
      throw Error("propagate_regions: op index " + std::to_string(o) + " is not in graph '" +
                  g.name + "'; expected 0.." + std::to_string(g.num_ops() - 1));
    }
    in_group[o] = true;
  }
  std::map<int, AccessRegion> need;
  auto merge = [&](int t, const AccessRegion& r) {
    auto it = need.find(t);
    if (it == need.end()) {
      need[t] = r;
      return;
    }
    it->second = access_union(it->second, r);
  };
  for (const auto& [t, region] : seeds) {
    const int p = g.tensor(t).producer;
    if (p < 0 || !in_group[p]) {
      throw Error("propagate_regions: seed tensor '" + g.tensor(t).name +
                  "' is not produced by an op of the group; expected a group output");
    }
    merge(t, AccessRegion{region, region, true, {}});
  }
  // Reverse topological order of the group's induced subgraph (Kahn on the group only, so the
  // cost does not grow with the whole graph).
  std::vector<int> ops = group;
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  // Per op of `ops`, the number of its unprocessed in-group successors.
  std::vector<int> pending(ops.size(), 0);
  auto pending_of = [&](int o) -> int& {
    return pending[static_cast<size_t>(std::lower_bound(ops.begin(), ops.end(), o) - ops.begin())];
  };
  // Graph::successors and Graph::predecessors (distinct ops, in their order) without their
  // vectors: this runs once per tile of a plan on the CPU reference executor.
  InlineVector<int, 16> seen;
  for (size_t i = 0; i < ops.size(); ++i) {
    seen.clear();
    for (int t : g.op(ops[i]).outputs)
      for (int c : g.tensor(t).consumers)
        if (std::find(seen.begin(), seen.end(), c) == seen.end()) {
          seen.push_back(c);
          pending[i] += in_group[c] ? 1 : 0;
        }
  }
  std::vector<int> ready, order;
  order.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (pending[i] == 0) ready.push_back(ops[i]);
  }
  while (!ready.empty()) {
    const int o = ready.back();
    ready.pop_back();
    order.push_back(o);
    seen.clear();
    for (int t : g.op(o).inputs) {
      const int p = t < 0 ? -1 : g.tensor(t).producer;
      if (p < 0 || std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
      seen.push_back(p);
      if (in_group[p] && --pending_of(p) == 0) ready.push_back(p);
    }
  }
  if (order.size() != ops.size()) {
    throw Error("propagate_regions: the group has a cycle; expected ops of an acyclic graph");
  }
  for (const int o : order) {
    const Op& op = g.op(o);
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      auto found = need.find(op.outputs[k]);
      if (found == need.end() || region_empty(found->second.region)) continue;
      const std::vector<AccessRegion> regions =
          input_access_regions(g, o, found->second.region, static_cast<int>(k));
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        if (op.inputs[i] >= 0) merge(op.inputs[i], regions[i]);
      }
    }
  }
  return need;
}

std::map<int, AccessRegion> propagate_tile(const Graph& g, const std::vector<int>& group,
                                           int output_op, const Region& tile) {
  if (std::find(group.begin(), group.end(), output_op) == group.end()) {
    throw Error("propagate_tile: output op '" + g.op(output_op).name +
                "' is not in the group; expected one of the group's ops");
  }
  return propagate_regions(g, group, {{g.op(output_op).outputs[0], tile}});
}

}  // namespace dgs
