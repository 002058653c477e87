#pragma once
// A simple, generic plan for the DSA model (not any paper's scheduler): plan_eval's default plan
// on a DSA, and the tests' and benchmarks': one stage per operator in topological order; each
// operator's output split into up to `parts_per_op` regions (its channel axis 1 first, then its
// batch axis 0), each region one task on one core or engine (round robin from unit 0), every
// task tiled (double-buffered, in the loop order the model chooses) with the tile
// dsa_fitting_tile gives its first region for the whole local buffer; every tensor goes back to
// DRAM. Operators with several outputs or an output of rank < 2 are one task.
#include <cstdint>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"

namespace dgs {

Plan layer_split_test_plan(const Graph& g, const DsaSpec& spec, int64_t parts_per_op);

// The placement of flat unit `u` (core [u / cores, u % cores], or engine [u % columns,
// u / columns]).
Placement dsa_unit_placement(const DsaSpec& spec, int u);

}  // namespace dgs
