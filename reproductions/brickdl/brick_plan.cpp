#include "reproductions/brickdl/brick_plan.h"

namespace dgs::brickdl {

Plan brick_plan(const Graph& g, const std::vector<PlannedSubgraph>& parts) {
  Plan p;
  p.scheduler = "BrickDL merged execution";
  p.graph = g.name;
  for (const PlannedSubgraph& s : parts) {
    Task t;
    t.ops = s.ops;
    if (s.merged) {
      t.kind = TaskKind::Fused;
      t.tile = brick_extent(g.tensor(g.op(s.ops.back()).outputs.at(0)).shape, s.edge);
      t.halo = s.variant == MergeVariant::Padded ? HaloPolicy{HaloMode::Recompute, ""}
                                                 : HaloPolicy{HaloMode::Share, "l2"};
    }
    p.stages.push_back({.tasks = {t}});
  }
  return p;
}

}  // namespace dgs::brickdl
