#pragma once
// Checking the first stages of a plan (a prefix) on the whole graph: Plan::check's rules (plan.h)
// except that every op is computed whole. Pricing prefixes of growing length gives a model's
// running totals at each cut (e.g. a per-stage utilisation, from differences of busy time); a
// prefix may end inside the instances of an op (split instances, atoms), writing part of its
// outputs, so it is checked on the whole graph, not as a plan of a sub-graph.
#include "common/graph/graph.h"
#include "common/plan/plan.h"

namespace dgs {

// Plan::check for a prefix: every rule holds (op indices, placements, levels, regions, no two
// tasks writing one element, reads after writes, and with `target` its levels and units) except
// that an op may be computed in part or not at all (a tensor's written regions may leave gaps, a
// graph output may be unwritten). Every region a task reads from memory must be written, whole, by
// earlier stages. A partial-sum group that the prefix ends inside of is refused. Throws dgs::Error
// with one line naming the violation.
void check_plan_prefix(const Graph& g, const Plan& plan, const PlanTarget* target = nullptr);

}  // namespace dgs
