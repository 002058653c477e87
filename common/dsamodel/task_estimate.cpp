// The DSA model's public estimate of a task, from its demand.
#include "common/dsamodel/task_estimate.h"

#include "common/dsamodel/dsa_task.h"
#include "common/graph/iteration_space.h"

namespace dgs {

DsaTaskEstimate dsa_task_estimate(const Graph& g, const Task& t, const DsaSpec& spec) {
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, dsa_placement_units(t.placement, spec));
  DsaTaskEstimate e;
  e.working_set_bytes = d.working_set_bytes;
  e.compute_cycles = d.compute_cycles();
  for (size_t i = 0; i < d.inputs.size(); ++i)
    e.loaded_elements +=
        double(region_numel(d.needed.at(d.inputs[i]))) * d.density[i] * d.reload[i];
  return e;
}

}  // namespace dgs
