// The DSA model's public estimate of a task, from its demand.
#include "common/dsamodel/task_estimate.h"

#include <optional>

#include "common/dsamodel/dsa_task.h"
#include "common/graph/iteration_space.h"

namespace dgs {

DsaTaskEstimate dsa_task_estimate(const Graph& g, const Task& t, const DsaSpec& spec) {
  // A tiled task asks for the regions of each tile candidate: its ops' spaces built once (or the
  // caller's memo).
  std::optional<IterationSpaceMemo> spaces;
  if (!IterationSpaceMemo::active(g)) spaces.emplace(g);
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, dsa_placement_units(t.placement, spec));
  DsaTaskEstimate e;
  e.working_set_bytes = d.working_set_bytes;
  e.compute_cycles = d.compute_cycles();
  e.stall_cycles = d.stall_cycles;
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    const double numel = static_cast<double>(region_numel(d.needed.at(d.inputs[i])));
    e.loaded_elements += numel * d.density[i] * d.reload[i];
    e.loaded_bytes += numel * spec.element_bytes * d.density[i] * d.reload[i];
  }
  return e;
}

std::vector<int64_t> dsa_task_tile(const Graph& g, const Task& t, const DsaSpec& spec,
                                   int64_t budget) {
  return dsa_fitting_tile(g, t, spec, dsa_placement_units(t.placement, spec), budget);
}

}  // namespace dgs
