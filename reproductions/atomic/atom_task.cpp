// Atom tasks and their tilings (see atom_task.h).
#include "reproductions/atomic/atom_task.h"

#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/layer_split_plan.h"

namespace dgs::atomic {

namespace {

// The model's working set and the bytes a task loads from memory.
std::pair<int64_t, double> demand_of(const Graph& g, const Task& t, const DsaSpec& spec) {
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, {0});
  double loaded = 0;
  for (int x : d.inputs) {
    const double b = static_cast<double>(region_numel(d.needed.at(x))) * spec.element_bytes;
    loaded += g.tensor(x).is_param() ? b : b * d.refetch;
  }
  return {d.working_set_bytes, loaded};
}

}  // namespace

Task atom_base_task(const AtomicDag& dag, int atom, const DsaSpec& spec, int engine) {
  const Atom& a = dag.atoms[static_cast<size_t>(atom)];
  const Layer& l = dag.layers[static_cast<size_t>(a.layer)];
  Task t;
  t.ops = {l.op};
  if (a.region != full_region(l.shape)) t.regions[l.output] = a.region;
  if (a.c_in.hi > a.c_in.lo) {
    t.reduction.range = {l.reduction_axis, a.c_in};
    if (t.regions.empty()) t.regions[l.output] = a.region;
  }
  t.placement = dsa_unit_placement(spec, engine);
  return t;
}

const AtomTiling& AtomTilings::of(const Graph& g, const AtomicDag& dag, int atom,
                                  const DsaSpec& spec) {
  const Atom& a = dag.atoms[static_cast<size_t>(atom)];
  const Layer& l = dag.layers[static_cast<size_t>(a.layer)];
  // Atoms of one shape need the same input halos unless they touch an edge of the output
  // (padding): the key holds which edges each touches.
  std::vector<int64_t> shape_and_edges = region_shape(a.region);
  for (size_t ax = 0; ax < a.region.size(); ++ax)
    shape_and_edges.push_back((a.region[ax].lo == 0 ? 1 : 0) +
                              (a.region[ax].hi == l.shape[ax] ? 2 : 0));
  const auto key = std::make_tuple(a.layer, shape_and_edges, a.c_in.hi - a.c_in.lo);
  const auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  Task t = atom_base_task(dag, atom, spec, 0);
  AtomTiling r;
  std::tie(r.working_bytes, r.loaded_bytes) = demand_of(g, t, spec);
  if (l.splittable && r.working_bytes > spec.local_bytes / 2) {
    const std::vector<int64_t> whole = region_shape(a.region);
    std::vector<int64_t> tile = whole;
    t.kind = TaskKind::Fused;
    for (;;) {
      // Halve the axis whose halving loads the fewest bytes (ties: the smaller working set).
      bool found = false;
      std::vector<int64_t> best_tile;
      int64_t best_ws = 0;
      double best_loaded = 0;
      for (size_t ax = 0; ax < tile.size(); ++ax) {
        if (tile[ax] <= 1) continue;
        std::vector<int64_t> cand = tile;
        cand[ax] = (cand[ax] + 1) / 2;
        t.tile = cand;
        const auto [ws, loaded] = demand_of(g, t, spec);
        if (!found || loaded < best_loaded || (loaded == best_loaded && ws < best_ws)) {
          found = true;
          best_tile = cand;
          best_ws = ws;
          best_loaded = loaded;
        }
      }
      if (!found) break;
      tile = best_tile;
      r.tile = tile;
      r.working_bytes = best_ws;
      r.loaded_bytes = best_loaded;
      if (best_ws <= spec.local_bytes / 2) break;
    }
  }
  return cache_.emplace(key, std::move(r)).first->second;
}

}  // namespace dgs::atomic
