#pragma once
// The first stages of a plan as a plan of their own: the sub-graph of the ops they schedule
// (common/graph/subgraph.h) and those stages, renumbered onto it. Pricing prefixes of growing
// length with evaluate() gives the model's running totals at each cut (e.g. a per-stage
// utilisation, from differences of busy time) through the same check and model as a whole plan.
#include <cstddef>

#include "common/graph/subgraph.h"
#include "common/plan/plan.h"

namespace dgs {

struct PlanPrefix {
  InducedSubgraph sub;  // the ops of the prefix's stages; boundary tensors as inputs/outputs
  Plan plan;            // the first stages of the plan, on sub.graph
  // Whether no op of the prefix has a task in a later stage. Only then is `plan` a plan of
  // sub.graph (Plan::check): an op that later stages compute part of (split instances, atoms)
  // has outputs that the prefix writes only in part.
  bool whole_ops = true;
};

// The first `stages` stages of `plan` (a plan of `g`) on the sub-graph of their ops. A tensor
// that a later stage reads becomes a graph output of the sub-graph, so the prefix's tasks write
// what they wrote in the whole plan. Throws dgs::Error when `stages` exceeds the plan's.
PlanPrefix plan_prefix(const Graph& g, const Plan& plan, size_t stages);

}  // namespace dgs
