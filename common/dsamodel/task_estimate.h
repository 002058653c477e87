#pragma once
// The DSA model's public estimate of one plan task before timing it, for schedulers that size
// tasks by the model (a tile search that fits a local buffer): what the task holds in a unit's
// local buffer, computes and loads, as the model's demand of the task (its internal dsa_task.h)
// says. A scheduler sees the model through this and dsa_model.h, not through the demand itself.
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"

namespace dgs {

struct DsaTaskEstimate {
  // Per unit: what its local buffer holds at once (the loop nest's working set, tiles' second
  // buffers included; the whole of its part untiled).
  int64_t working_set_bytes = 0;
  // Per unit: matrix, vector and data-movement cycles (the array's fill and drain included).
  double compute_cycles = 0;
  // Per unit: cycles the array waits for the loads and stores of single-buffered tiles
  // (buffer_nest.h), on top of compute_cycles (0 when every tile is double-buffered).
  double stall_cycles = 0;
  // All units: the elements the task's loads move from memory, summed over its inputs (each
  // input's needed region x the share of it the loads touch x how often the loop nest loads it).
  double loaded_elements = 0;
  // The same in bytes (each input's needed bytes x share touched x reloads, summed).
  double loaded_bytes = 0;
};

// The estimate of task `t` on the units its placement names, its loop nest mapped within its
// Task::buffer_bytes (0: the whole local buffer). Throws dgs::Error (one line) for a
// placement the machine lacks or an op that needs a unit the config lacks.
DsaTaskEstimate dsa_task_estimate(const Graph& g, const Task& t, const DsaSpec& spec);

// The model's own tile for task `t` (its `tile` ignored) on the units its placement names, among
// those whose working set fits `budget` bytes per unit: the least loop-nest energy x cycles (the
// search of the model's mapper, dsa_task.h's dsa_fitting_tile, each candidate mapped within
// `budget`: give the task Task::buffer_bytes = budget to run it as priced); empty for a task
// with several written tensors (not tiled). Throws dgs::Error as dsa_task_estimate does.
std::vector<int64_t> dsa_task_tile(const Graph& g, const Task& t, const DsaSpec& spec,
                                   int64_t budget);

}  // namespace dgs
