#pragma once
// What one plan task asks of a DSA, before timing: the cores or engines it runs on, the regions it
// reads and writes, its per-unit compute cycles and its per-unit working set (see dsa_model.h for
// how the plan's fields map onto the machine).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/dsamodel/unit_cost.h"
#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"

namespace dgs {

struct DsaTaskDemand {
  std::vector<int> units;  // flat unit ids (cluster * cores_per_cluster + core; y * columns + x)
  std::map<int, Region> needed;  // task_needed_regions
  std::vector<int> inputs;       // tensors read from memory (produced outside the task)
  std::vector<int> written;      // task_written_tensors
  std::vector<int> kept;         // intermediates (produced and consumed inside)
  int64_t tiles = 1;             // tiles per unit (1 without a `tile`)
  // Activation bytes loaded over all tiles / activation bytes needed (tiles re-read halos);
  // weights and constants are loaded once per task and stay while its tiles run.
  double refetch = 1;
  double matrix_cycles = 0;       // per unit
  double vector_cycles = 0;       // per unit
  double move_cycles = 0;         // per unit
  double macs = 0;                // all units together
  double operand_bytes = 0;       // local-buffer traffic of the ops' operands, all units
  int64_t working_set_bytes = 0;  // per unit (double-buffered tile pairs when tiled)
  double compute_cycles() const { return matrix_cycles + vector_cycles + move_cycles; }
};

// A one-line label of a task for messages: "task s2.t0 (op conv1)".
std::string dsa_task_label(const Graph& g, const Task& t, size_t stage, size_t task);

// The flat unit ids a placement uses on `spec` (unit None: unit 0); refuses a unit kind the
// machine lacks and more cores or engines than exist (dgs::Error saying what; the caller puts
// the task's label in front).
std::vector<int> dsa_placement_units(const Placement& p, const DsaSpec& spec);

// The demand of task `t` (placed on `units`); refuses an op that needs a unit the config lacks
// (a matrix op without a matrix unit, a vector op without vector lanes; dgs::Error saying what,
// the caller puts the task's label in front).
DsaTaskDemand dsa_task_demand(const Graph& g, const Task& t, const DsaSpec& spec,
                              const std::vector<int>& units);

}  // namespace dgs
