#pragma once
// What dsa_task.cpp's demand and dsa_tile_search.cpp's tile search share (internal to the DSA
// model, as dsa_task.h): the parts of a task's demand that do not depend on its tile, and the
// buffer level's problem for one tile (buffer_nest.h).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/dsamodel/array_nest.h"
#include "common/dsamodel/buffer_nest.h"
#include "common/dsamodel/dsa_task.h"
#include "common/graph/iteration_space.h"

namespace dgs::dsa_task_internal {

// The part of `r` one unit computes under the split `f` (same rank), or its first axis divided by
// `n` (another rank).
Region unit_part(const Region& r, const std::vector<int64_t>& f, int64_t n);

// The regions a task needs and what it reads, writes and keeps (no costs yet;
// dsa_task_regions.cpp).
DsaTaskDemand task_regions(const Graph& g, const Task& t, std::set<int>& produced);

// The regions task `t` needs (task_needed_regions, Gather tables narrowed) and, for those whose
// loads move only part of their box, that part (dsa_task.h: density) into `density`.
std::map<int, Region> needed_regions(const Graph& g, const Task& t, std::map<int, double>& density);

// The same regions for a task of one op (no Gather) that writes only its output `out`, over
// output region `r`, on the op's iteration space `s` (its reduction slice applied): what
// task_needed_access gives such a task, without building it; the densities below 1 into `density`.
std::map<int, Region> one_op_regions(const Graph& g, int op, const IterationSpace& s, int out,
                                     const Region& r, std::map<int, double>& density);

// A tensor's density in `density` (1 where absent).
double density_of(const std::map<int, double>& density, int tensor);

// The parts of a task's demand that do not depend on its tile, and the untiled demand.
struct UntiledDemand {
  DsaTaskDemand d;  // as if untiled
  std::set<int> produced;
  ArrayNest array;
  ArrayShape shape;
  double other_port = 0;  // the other ops' operand bytes per unit
  int matrix = -1;
  int primary = -1;
  Region primary_region;
  std::vector<int64_t> split;
  std::string axis;
  double fraction = 1;  // of the reduction along `axis` the task computes
  double per_unit = 0;
  double pinned_per_unit = 0;  // of per_unit, the inputs the task pins (Task::pinned)
  // The reduction axis the task's one ungrouped matrix op may run in chunks ("" none), and the
  // op's iteration space with half that axis (the operands a chunk shrinks).
  std::string chunk_axis;
  int64_t chunk_extent = 0;
  IterationSpace half_space;
  // A tiled task of one op (not a Gather) that writes only its output: the op's iteration space
  // with its reduction slice, for its tiles' regions (one_op_regions).
  bool one_op = false;
  IterationSpace op_space;
};

// `tiled`: the task runs tile by tile (its loads and stores share the port with the array).
UntiledDemand untiled_demand(const Graph& g, const Task& t, const DsaSpec& spec,
                             const std::vector<int>& units, DsaTaskDemand regions,
                             std::set<int> produced, bool tiled);

// Which inputs (bit i: the demand's inputs[i]) each output axis's tiles select, where the task's
// one op's index maps say it without regions (`known`; dsa_task.cpp, tile_problem). They depend
// on the unit's part only, not on the tile.
struct AxisSelects {
  std::vector<uint32_t> selects;
  std::vector<bool> known;
};
AxisSelects known_axis_selects(const Graph& g, const Task& t, const UntiledDemand& u);

// The buffer level of `t`'s loop nest with its (non-empty) tile: the problem for
// map_buffer_nest (buffer_nest.h) over the unit's part, or, for a task with several written
// tensors (or an empty tile), only its tile count (`nest` false). `known`: known_axis_selects of
// `t` and `u`, if the caller has them. `named`: with the loops' names (loop_names; the tile
// search, which never prints them, goes without).
struct TileProblem {
  bool nest = false;
  int64_t tiles = 1;  // output tiles per unit
  NestProblem prob;
  std::vector<std::string> loop_names;
};
TileProblem tile_problem(const Graph& g, const Task& t, const DsaSpec& spec, const UntiledDemand& u,
                         const AxisSelects* known = nullptr, bool named = true);

// The output loops of a tile (buffer_nest.h): the axes of more than one trip (`trips_of_axis`)
// that select the same inputs (`selects`) form one loop; per loop its trips, the inputs it
// selects and its axes' names ("23"; none unless `named`).
struct TileLoops {
  std::vector<double> trips;
  std::vector<uint32_t> selects;
  std::vector<std::string> names;
};
TileLoops tile_loops(const std::vector<double>& trips_of_axis, const std::vector<uint32_t>& selects,
                     bool named = true);

// The tile search's candidate tiles of a unit's part of extents `whole`, in the order it tries
// them (dsa_tile_search.cpp): the whole part, then every combination of the axes' halvings (the
// extent halved, rounded up, down to 1) by volume, ties in the order the combinations are listed
// (the first axis's halvings outermost, each axis's largest first).
std::vector<std::vector<int64_t>> tile_candidates(const std::vector<int64_t>& whole);

// The working set of a tiled task its buffer nest does not cover (several written tensors):
// everything in tiles, double-buffered, except the weights it pins (whole).
double fallback_working_set(const UntiledDemand& u, int64_t tiles);

}  // namespace dgs::dsa_task_internal
