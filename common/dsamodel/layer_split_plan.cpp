// The layer-by-layer test and benchmark plan (see layer_split_plan.h).
#include "common/dsamodel/layer_split_plan.h"

#include <algorithm>

#include "common/dsamodel/dsa_task.h"

namespace dgs {

namespace {

// Part i of `parts` even parts of [0, extent).
Interval part_of(int64_t extent, int64_t parts, int64_t i) {
  return {extent * i / parts, extent * (i + 1) / parts};
}

}  // namespace

Placement dsa_unit_placement(const DsaSpec& spec, int u) {
  Placement p;
  if (spec.topology == DsaTopology::Mesh) {
    p.unit = UnitKind::Engine;
    p.index = {u % spec.mesh_columns, u / spec.mesh_columns};
  } else {
    p.unit = UnitKind::Core;
    p.index = {u / spec.cores_per_cluster, u % spec.cores_per_cluster};
  }
  return p;
}

Plan layer_split_test_plan(const Graph& g, const DsaSpec& spec, int64_t parts_per_op) {
  Plan plan;
  plan.scheduler = "layer-split plan (" + std::to_string(parts_per_op) + " parts per op)";
  plan.graph = g.name;
  for (int op : g.topo_order()) {
    const Op& o = g.op(op);
    const int out = o.outputs.at(0);
    const Shape& shape = g.tensor(out).shape;
    Stage stage;
    if (o.outputs.size() != 1 || shape.size() < 2) {
      Task t;
      t.ops = {op};
      t.placement = dsa_unit_placement(spec, 0);
      stage.tasks.push_back(t);
      plan.stages.push_back(stage);
      continue;
    }
    const int64_t p1 = std::max<int64_t>(1, std::min(parts_per_op, shape[1]));
    const int64_t p0 = std::max<int64_t>(1, std::min(parts_per_op / p1, shape[0]));
    std::vector<int64_t> tile;
    int u = 0;
    for (int64_t i0 = 0; i0 < p0; ++i0) {
      for (int64_t i1 = 0; i1 < p1; ++i1) {
        Task t;
        t.kind = TaskKind::Fused;
        t.ops = {op};
        Region r = full_region(shape);
        r[0] = part_of(shape[0], p0, i0);
        r[1] = part_of(shape[1], p1, i1);
        if (region_empty(r)) continue;
        t.regions[out] = r;
        t.placement = dsa_unit_placement(spec, u);
        u = (u + 1) % spec.units();
        if (tile.empty()) {
          // The model's tile for the task on one unit (dsa_fitting_tile: the least energy x
          // cycles of its loop nest among the axes' halvings that fit the local buffer).
          tile = dsa_fitting_tile(g, t, spec, {0}, spec.local_bytes);
          if (tile.empty()) tile = region_shape(r);
        }
        t.tile = tile;
        stage.tasks.push_back(std::move(t));
      }
    }
    plan.stages.push_back(std::move(stage));
  }
  return plan;
}

}  // namespace dgs
