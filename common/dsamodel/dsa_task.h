#pragma once
// What one plan task asks of a DSA, before timing: the cores or engines it runs on, the regions it
// reads and writes, its per-unit compute cycles and its per-unit working set (see dsa_model.h for
// how the plan's fields map onto the machine).
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
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
  // Per input (aligned with `inputs`): bytes the task loads / bytes it needs (>= 1; the buffer
  // level of its loop nest, buffer_nest.h: halos and what its loop order loads again), and
  // whether it is loaded once and stays for the whole task.
  std::vector<double> reload;
  std::vector<bool> stays;
  // Per input: the bytes per unit its working set counts for it (its tile, twice when
  // double-buffered; whole when it stays, and always for a weight the task pins, Task::pinned,
  // which is resident for the whole task).
  std::vector<double> held;
  // Per input (aligned with `inputs`): the part of its needed region (a box) that its loads
  // move, access_numel / region elements (iteration_space.h): below 1 where a window smaller
  // than its stride reads only some rows of the box (a 1x1 conv of stride 2: about a quarter).
  std::vector<double> density;
  int64_t tiles = 1;  // tiles per unit (output tiles x reduction chunks)
  // Per unit: the array's steps, fill and drain (array_nest.h; a tiled task's: over its buffer
  // tiles, each its own array nest, tiled_array_nest).
  double matrix_cycles = 0;
  double fill_cycles = 0;    // per unit: the fill and drain part of matrix_cycles
  double refill_stall = 0;   // per unit: the array's register-refill stall part (array_nest.h)
  double vector_cycles = 0;  // per unit
  double move_cycles = 0;    // per unit
  double macs = 0;           // all units together
  // Bytes the ops' operands move through the local buffer's port (the array's operand delivery
  // and results, the vector unit's operands), all units; the task's loads and stores come on top.
  double operand_bytes = 0;
  double register_bits = 0;       // register-file reads and writes, all units
  int64_t working_set_bytes = 0;  // per unit (buffer_nest.h)
  // Per unit: what the buffer holds while the last tile runs (the working set without the
  // second buffers of what streams; the whole working set untiled).
  int64_t last_tile_bytes = 0;
  // Per unit: of a tiled task's loads and stores, the bytes of the tiles its buffer holds once
  // (single-buffered, buffer_nest.h), serial to its compute, and the cycles they stall it.
  double serial_bytes = 0;
  double stall_cycles = 0;
  std::string loop_order;  // the buffer level's loops, inner to outer ("" untiled)
  // The array level's mapping (of a tiled task's first tile): "P1 K16 TCPK", its inner pixel and
  // output-channel trips and the loops above them, inner to outer (array_nest.h; "" none).
  std::string array_mapping;
  // The loop nest's own estimate of the task's cycles on one unit alone, with its equal share of
  // DRAM (buffer_nest.h; untiled: loads, then the array and port, then the store).
  double nest_cycles = 0;
  double nest_energy_pj = 0;  // and of its energy (MACs, registers, port, DRAM; buffer_nest.h)
  double compute_cycles() const { return matrix_cycles + vector_cycles + move_cycles; }
};

// The position-independent parts of task demands (everything but units and regions), reused
// for tasks of the same shape: the same ops, placement count and binding, tile, reduction slice,
// and the same shape and edges of every region they need. One cache per graph and config (an
// evaluation's); not shared between threads.
// Keyed by those numbers (dsa_task.cpp, demand_key), each list after its length.
struct DsaDemandKeyHash {
  // FNV-1a over the numbers in four interleaved lanes (every fourth number each: four
  // independent multiply chains instead of one), the lanes then folded in by FNV-1a.
  size_t operator()(const std::vector<int64_t>& k) const {
    constexpr uint64_t kPrime = 1099511628211ull;
    uint64_t lane[4] = {14695981039346656037ull, 1, 2, 3};
    const size_t n = k.size();
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (size_t j = 0; j < 4; ++j) lane[j] = (lane[j] ^ static_cast<uint64_t>(k[i + j])) * kPrime;
    for (; i < n; ++i) lane[0] = (lane[0] ^ static_cast<uint64_t>(k[i])) * kPrime;
    uint64_t h = lane[0];
    for (size_t j = 1; j < 4; ++j) h = (h ^ lane[j]) * kPrime;
    return static_cast<size_t>(h ^ n);
  }
};
struct DsaDemandCache {
  std::unordered_map<std::vector<int64_t>, DsaTaskDemand, DsaDemandKeyHash> entries;
  // Scratch of dsa_task_demand: the key of the task being looked up, built in place (a hit
  // allocates no key; a miss copies it into `entries`).
  std::vector<int64_t> key;
};

// A one-line label of a task for messages: "task s2.t0 (op conv1)".
std::string dsa_task_label(const Graph& g, const Task& t, size_t stage, size_t task);

// The flat unit ids a placement uses on `spec` (unit None: unit 0); refuses a unit kind the
// machine lacks and more cores or engines than exist (dgs::Error saying what; the caller puts
// the task's label in front).
std::vector<int> dsa_placement_units(const Placement& p, const DsaSpec& spec);

// The bytes of a unit's local buffer task `t`'s loop nest is mapped within (map_buffer_nest's
// capacity): its Task::buffer_bytes, the budget its plan sized its tile against, or the whole
// local buffer when 0 or larger. (Weights the task pins count in its working set, and so
// against this; the timeline checks the working set beside what the unit keeps resident.)
double dsa_task_capacity(const Task& t, const DsaSpec& spec);

// The demand of task `t` (placed on `units`); refuses an op that needs a unit the config lacks
// (a matrix op without a matrix unit, a vector op without vector lanes; dgs::Error saying what,
// the caller puts the task's label in front).
DsaTaskDemand dsa_task_demand(const Graph& g, const Task& t, const DsaSpec& spec,
                              const std::vector<int>& units, DsaDemandCache* cache = nullptr);

// A task's demand as the DSA model's timeline keeps it, one per task of a plan: the task's own
// part (its units and regions) and a pointer to the position-independent rest, the entry of
// `cache` shared by every task of its shape (valid while the cache lives). dsa_task_demand with
// a cache is this, joined into one struct; the timeline keeps the two parts apart, copying no
// shared part per task (a batch-20 plan has hundreds of thousands of tasks, each of which
// copied its reload, stays and held vectors and its loop-order strings).
struct DsaTaskDemandRef {
  std::vector<int> units;
  std::map<int, Region> needed;
  std::vector<int> inputs;
  std::vector<int> written;
  std::vector<int> kept;
  std::vector<double> density;
  const DsaTaskDemand* shape = nullptr;  // its other fields (its own part's are empty there)
};
DsaTaskDemandRef dsa_task_demand_ref(const Graph& g, const Task& t, const DsaSpec& spec,
                                     const std::vector<int>& units, DsaDemandCache& cache);

// The tile for task `t` on `units` (its `tile` is ignored) with the least loop-nest energy x
// cycles (nest_energy_pj x nest_cycles, the mappers' objective: each candidate with its buffer
// nest's best loop order and reduction chunking within `budget`, buffer_nest.h, as the task
// runs with Task::buffer_bytes set to it) among those whose working set fits `budget` (ties:
// the fewer tiles, then the smaller working set; none fits: the smallest working set). The
// candidates: every combination of the axes' extents and their halvings (rounded up) over one
// unit's part, so a tile that keeps a whole operand resident (a whole axis) is among them. Bounded:
// a candidate at least as large on every axis as one over the budget is skipped, and the search
// ends, in order of output-tile volume, at the first whose floor (nest_edp_floor: every operand
// loaded once) is above the best found; a candidate whose own floor (nest_edp_floor_tiled: what its
// loops load at the least) is above it is not priced either, unless it may be over the budget and a
// larger one comes (dsa_tile_search.cpp): the choice is the same as pricing it. Tasks with several
// written tensors are not tiled (empty).
std::vector<int64_t> dsa_fitting_tile(const Graph& g, Task t, const DsaSpec& spec,
                                      const std::vector<int>& units, int64_t budget);

}  // namespace dgs
