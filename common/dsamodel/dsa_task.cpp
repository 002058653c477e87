// The demand of one plan task on a DSA (see dsa_task.h).
#include "common/dsamodel/dsa_task.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <utility>

#include "common/dsamodel/array_nest.h"
#include "common/dsamodel/buffer_nest.h"
#include "common/dsamodel/dsa_task_internal.h"
#include "common/graph/iteration_space.h"
#include "common/graph/reduction_slice.h"
#include "common/util/error.h"

namespace dgs {

namespace {

// How many units share each axis of `shape`: the binding, or by default the units spread over
// the axes in order (batch first, then channels, ...), each taking as many as its extent allows.
std::vector<int64_t> unit_split(const Shape& shape, const Placement& p, int64_t n) {
  if (!p.binding.empty() && p.binding.size() == shape.size()) return p.binding;
  std::vector<int64_t> f(shape.size(), 1);
  int64_t left = n;
  for (size_t d = 0; d < shape.size() && left > 1; ++d) {
    const int64_t take = std::min(left, std::max<int64_t>(1, shape[d]));
    f[d] = take;
    left = (left + take - 1) / take;
  }
  return f;
}

double bytes_of(const Region& r, const DsaSpec& spec) {
  return static_cast<double>(region_numel(r)) * spec.element_bytes;
}

}  // namespace

Region dsa_task_internal::unit_part(const Region& r, const std::vector<int64_t>& f, int64_t n) {
  Region u = r;
  if (u.empty()) return u;
  if (f.size() == r.size()) {
    for (size_t d = 0; d < r.size(); ++d) u[d].hi = u[d].lo + (r[d].size() + f[d] - 1) / f[d];
  } else {
    u[0].hi = u[0].lo + (r[0].size() + n - 1) / n;
  }
  return u;
}

namespace {

// The key of a task's shape for DsaDemandCache: its ops, units, binding, tile, reduction slice,
// and per needed tensor its id, region shape and which edges of the tensor the region touches;
// each list after its length (numbers, not text: a lookup builds no strings). Into `k`.
void demand_key(const Graph& g, const Task& t, const std::map<int, Region>& needed, size_t units,
                std::vector<int64_t>& k) {
  k.clear();
  auto list = [&](const auto& v) {
    k.push_back(static_cast<int64_t>(v.size()));
    k.insert(k.end(), v.begin(), v.end());
  };
  list(t.ops);
  k.push_back(static_cast<int64_t>(units));
  list(t.placement.binding);
  list(t.tile);
  list(t.reduction.range.axis);
  k.push_back(t.reduction.range.range.size());
  list(t.pinned);
  k.push_back(t.buffer_bytes);
  k.push_back(static_cast<int64_t>(needed.size()));
  for (const auto& [tensor, r] : needed) {
    k.push_back(tensor);
    k.push_back(static_cast<int64_t>(r.size()));
    const Shape& shape = g.tensor(tensor).shape;
    for (size_t d = 0; d < r.size(); ++d) {
      k.push_back(r[d].size());
      k.push_back((r[d].lo == 0 ? 1 : 0) + (d < shape.size() && r[d].hi == shape[d] ? 2 : 0));
    }
  }
}

// The single matrix op of a task, or -1 (none, or several).
int single_matrix_op(const Graph& g, const Task& t) {
  int found = -1;
  for (int op : t.ops) {
    if (compute_unit_of(g, op) != ComputeUnit::Matrix) continue;
    if (found >= 0) return -1;
    found = op;
  }
  return found;
}

}  // namespace

namespace dsa_task_internal {

// "P1 K16 TCPK": the array level's inner pixel and output-channel trips and the loops above them
// (array_nest.h); "P4 K1 FX3 TCPK" with the kernel columns inner (the sliding input window).
std::string array_mapping_name(const ArrayNest& a) {
  const std::string fx = a.kernel_columns_inner > 1
                             ? " FX" + std::to_string(static_cast<int64_t>(a.kernel_columns_inner))
                             : "";
  return "P" + std::to_string(static_cast<int64_t>(a.pixels_inner)) + " K" +
         std::to_string(static_cast<int64_t>(a.channels_inner)) + fx + " " +
         std::string(a.order.begin(), a.order.end());
}

// The iteration space of `op` (output 0): the active memo's (no copy) or `copy`.
const IterationSpace& space_of(const Graph& g, int op, IterationSpace& copy) {
  if (IterationSpaceMemo* memo = IterationSpaceMemo::active(g)) return memo->space(op);
  copy = iteration_space(g, op);
  return copy;
}

UntiledDemand untiled_demand(const Graph& g, const Task& t, const DsaSpec& spec,
                             const std::vector<int>& units, DsaTaskDemand regions,
                             std::set<int> produced, bool tiled) {
  UntiledDemand u;
  u.d = std::move(regions);
  u.produced = std::move(produced);
  DsaTaskDemand& d = u.d;
  d.units = units;
  d.reload.assign(d.inputs.size(), 1.0);
  d.stays.assign(d.inputs.size(), true);
  d.held.assign(d.inputs.size(), 0.0);
  const int64_t n = static_cast<int64_t>(units.size());
  const double nd = static_cast<double>(n);
  u.primary = task_primary_tensor(g, t);
  u.primary_region =
      d.needed.count(u.primary) ? d.needed.at(u.primary) : task_written_region(g, t, u.primary);
  u.split = unit_split(region_shape(u.primary_region), t.placement, n);

  // Reduction split: the fraction of the op's reduction this task computes.
  double fraction = 1;
  if (t.reduction.active()) {
    u.axis = t.reduction.range.axis;
    IterationSpace copy;
    for (const ReductionAxis& a : space_of(g, t.ops.at(0), copy).reduction_axes)
      if (a.name == u.axis && a.extent > 0)
        fraction = static_cast<double>(t.reduction.range.range.size()) / a.extent;
  }
  u.fraction = t.reduction.active() ? fraction : 1.0;
  // Per op: the array's loop nest for the task's one matrix op (array_nest.h; a tiled task's
  // loads and stores share its port), the shared unit cost for the others; the operands' port
  // bytes per unit.
  u.matrix = single_matrix_op(g, t);
  auto input_bytes = [&](size_t i) {
    return bytes_of(d.needed.at(d.inputs[i]), spec) * d.density[i];
  };
  double io_bytes = 0;
  for (size_t i = 0; i < d.inputs.size(); ++i) io_bytes += input_bytes(i);
  for (int x : d.written) io_bytes += bytes_of(task_written_region(g, t, x), spec);
  for (int op : t.ops) {
    const Op& o = g.op(op);
    const auto it = d.needed.find(o.outputs.at(0));
    if (it == d.needed.end()) continue;
    const Region part = unit_part(it->second, u.split, n);
    const OpCycles c = op_cycles(g, op, part, spec, u.axis, t.reduction.active() ? fraction : 1.0);
    if (c.unit == ComputeUnit::Matrix && spec.matrix_macs_per_cycle <= 0)
      throw Error("op " + o.name + " (" + std::string(op_kind_name(o.kind)) +
                  ") needs a matrix unit; " + spec.name + " has none");
    if (c.unit == ComputeUnit::Vector && spec.vector_lanes <= 0)
      throw Error("op " + o.name + " (" + std::string(op_kind_name(o.kind)) +
                  ") needs a vector unit; " + spec.name + " has none");
    double operands = bytes_of(it->second, spec);
    for (int in : o.inputs) {
      if (in < 0 || !d.needed.count(in)) continue;
      const auto k = std::find(d.inputs.begin(), d.inputs.end(), in);
      operands += k == d.inputs.end() ? bytes_of(d.needed.at(in), spec)
                                      : input_bytes(static_cast<size_t>(k - d.inputs.begin()));
    }
    if (op == u.matrix) {
      u.shape = matrix_shape(g, op, part, spec, u.axis, u.fraction);
      if (tiled) u.shape.port_sharing_bytes = io_bytes / nd;
      u.array = array_nest(u.shape, spec);
      d.array_mapping = array_mapping_name(u.array);
      d.matrix_cycles += u.array.array_cycles();
      d.fill_cycles += u.array.fill_cycles;
      d.refill_stall += u.array.refill_stall;
      d.operand_bytes += u.array.port_bytes() * nd;
      d.register_bits += u.array.register_bits * nd;
      d.macs += u.array.macs * nd;
      continue;
    }
    if (c.unit == ComputeUnit::Matrix) d.matrix_cycles += c.cycles;  // one of several: its fit
    if (c.unit == ComputeUnit::Vector) d.vector_cycles += c.cycles;
    if (c.unit == ComputeUnit::Move) d.move_cycles += c.cycles;
    d.macs += c.macs * nd;
    d.operand_bytes += operands;
    u.other_port += operands / nd;
  }

  if (tiled && u.matrix >= 0 && u.shape.groups <= 1 && !t.reduction.active()) {
    IterationSpace copy;
    for (const ReductionAxis& ax : space_of(g, u.matrix, copy).reduction_axes)
      if ((ax.name == "c_in" || ax.name == "k") &&
          reduction_slice_error(g, u.matrix, {ax.name, {0, ax.extent}}).empty()) {
        u.chunk_axis = ax.name;
        u.chunk_extent = ax.extent;
      }
    if (!u.chunk_axis.empty() && u.chunk_extent >= 2)
      u.half_space =
          iteration_space_for_slice(g, u.matrix, {u.chunk_axis, {0, u.chunk_extent / 2}});
  }
  if (tiled && t.ops.size() == 1 && g.op(t.ops[0]).kind != OpKind::Gather &&
      d.written.size() == 1 && d.written[0] == u.primary &&
      g.op(t.ops[0]).outputs.at(0) == u.primary) {
    u.one_op = true;
    u.op_space = t.reduction.active() ? iteration_space_for_slice(g, t.ops[0], t.reduction.range)
                                      : iteration_space(g, t.ops[0]);
  }

  double in_bytes = 0, kept_bytes = 0, out_bytes = 0;
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    in_bytes += input_bytes(i);
    d.held[i] = input_bytes(i) / nd;
    if (std::find(t.pinned.begin(), t.pinned.end(), d.inputs[i]) != t.pinned.end())
      u.pinned_per_unit += d.held[i];
  }
  for (int x : d.kept) kept_bytes += bytes_of(d.needed.at(x), spec);
  for (int x : d.written) out_bytes += bytes_of(task_written_region(g, t, x), spec);
  u.per_unit = (in_bytes + kept_bytes + out_bytes) / nd;
  d.working_set_bytes = static_cast<int64_t>(std::ceil(u.per_unit));
  d.last_tile_bytes = d.working_set_bytes;
  const double narrowest =
      std::min(spec.local_bandwidth(), spec.dram_bytes_per_cycle() / std::max(1, spec.units()));
  const double port = std::ceil((d.operand_bytes / nd) / spec.local_bandwidth());
  d.nest_cycles =
      std::max(d.compute_cycles(), port + d.fill_cycles) + (in_bytes + out_bytes) / nd / narrowest;
  d.nest_energy_pj =
      u.array.energy_pj + u.other_port * 8 * spec.local_pj_per_bit +
      (in_bytes + out_bytes) / nd * 8 * (spec.local_pj_per_bit + spec.dram_pj_per_bit);
  return u;
}

// Whether an index term takes more than one value over `range` of its axis (a term of a
// convolution's input channel, (k / (K / G)) x (C / G), is constant over k when G = 1: the output
// channels' tiles then read the same input).
bool term_varies(const IndexTerm& term, const Interval& range) {
  if (term.coef == 0 || range.size() <= 1) return false;
  auto floor_div = [](int64_t a, int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  };
  const int64_t d = std::max<int64_t>(1, term.divisor);
  return floor_div(range.lo, d) != floor_div(range.hi - 1, d);
}

// The array level of a tiled task's matrix op (tiled_array_nest, array_nest.h): per distinct
// buffer tile of the unit's part `part` (`tile` at its origin, `trips` per axis; along an axis
// whose extent the tile does not divide, the last tile is cut short: those at the far edge are
// their own shape) the region of the op's output that tile computes (`need_of`; the interior
// one's is `origin`'s, the largest tile's regions, largest_tile_regions; for a task of one op,
// u.one_op, the tile itself: one_op_regions gives its output region as the tile, no need to ask)
// and how many tiles have it. The task's loads and stores share the port with each tile in
// proportion to its output. Without that region (the op's output not among the tile's regions): the
// unit's part as one nest.
template <class NeedOf>
ArrayNest tiles_array_nest(const Graph& g, const DsaSpec& spec, const UntiledDemand& u,
                           const Region& part, const Region& tile, const std::vector<double>& trips,
                           const std::map<int, Region>& origin, NeedOf need_of) {
  const int out = g.op(u.matrix).outputs.at(0);
  if (!origin.count(out)) return u.array;
  // Per axis: the interior tiles' interval and count, and the edge tile's (if any).
  std::vector<std::vector<std::pair<Interval, double>>> along(tile.size());
  size_t combos = 1;
  for (size_t a = 0; a < tile.size(); ++a) {
    const double n = a < trips.size() ? trips[a] : 1;
    const Interval edge{tile[a].lo + static_cast<int64_t>(n - 1) * tile[a].size(), part[a].hi};
    if (n <= 1 || edge.size() == tile[a].size()) {
      along[a] = {{tile[a], n}};
    } else {
      along[a] = {{tile[a], n - 1}, {edge, 1}};
    }
    combos *= along[a].size();
  }
  const double part_volume = static_cast<double>(std::max<int64_t>(1, region_numel(part)));
  std::vector<ArrayTile> tiles;
  std::map<int, double> scratch;
  for (size_t c = 0; c < combos; ++c) {
    Region r = tile;
    double count = 1;
    bool interior = true;
    for (size_t a = 0, rest = c; a < tile.size(); rest /= along[a].size(), ++a) {
      const auto& [interval, n] = along[a][rest % along[a].size()];
      r[a] = interval;
      count *= n;
      interior = interior && rest % along[a].size() == 0;
    }
    Region computed;
    if (interior) {
      computed = origin.at(out);
    } else if (u.one_op) {
      computed = r;  // one_op_regions' region of the op's output is the tile's own
    } else {
      const std::map<int, Region> need = need_of(r, scratch);
      const auto it = need.find(out);
      if (it == need.end()) return u.array;
      computed = it->second;
    }
    ArrayTile at;
    at.shape = matrix_shape(g, u.matrix, computed, spec, u.axis, u.fraction);
    at.shape.port_sharing_bytes =
        u.shape.port_sharing_bytes * static_cast<double>(region_numel(r)) / part_volume;
    at.count = count;
    tiles.push_back(at);
  }
  return tiled_array_nest(tiles, spec);
}

// The operands of the task's matrix op that a tile's array registers hold whole and that the
// task loads (NestProblem::array_held, buffer_nest.h), with the loops that select them
// (`prob.inputs`, aligned with the demand's inputs, already made).
void add_held_operands(const Graph& g, const UntiledDemand& u, NestProblem& prob) {
  if (u.matrix < 0) return;
  const Op& o = g.op(u.matrix);
  const double held[2] = {prob.array.inputs_held, prob.array.weights_held};
  for (size_t k = 0; k < 2 && k < o.inputs.size(); ++k) {
    const auto it = std::find(u.d.inputs.begin(), u.d.inputs.end(), o.inputs[k]);
    const size_t i = static_cast<size_t>(it - u.d.inputs.begin());
    if (it == u.d.inputs.end() || i >= prob.inputs.size()) continue;
    HeldOperand h{held[k], prob.inputs[i].relevant, prob.inputs[i].reduced, {}};
    for (size_t c = 0; c < h.chunked.size(); ++c)  // as held under 2^c reduction chunks
      h.chunked[c] = k ? prob.array.chunked[c].weights_held : prob.array.chunked[c].inputs_held;
    prob.array_held.push_back(h);
  }
}

AxisSelects known_axis_selects(const Graph& g, const Task& t, const UntiledDemand& u) {
  const DsaTaskDemand& d = u.d;
  const Region part = unit_part(u.primary_region, u.split, static_cast<int64_t>(d.units.size()));
  AxisSelects s;
  s.selects.assign(part.size(), 0);
  s.known.assign(part.size(), false);
  if (t.ops.size() != 1 || u.primary != g.op(t.ops[0]).outputs.at(0)) return s;
  IterationSpace copy;
  const IterationSpace& space = space_of(g, t.ops[0], copy);
  const Op& o = g.op(t.ops[0]);
  for (size_t k = 0; k < o.inputs.size() && k < space.inputs.size(); ++k)
    if (o.inputs[k] >= 0 && space.inputs[k].kind == InputAccess::Kind::Custom) return s;
  for (size_t a = 0; a < part.size(); ++a) {
    s.known[a] = true;
    for (size_t i = 0; i < d.inputs.size(); ++i)
      for (size_t k = 0; k < o.inputs.size() && k < space.inputs.size(); ++k) {
        if (o.inputs[k] != d.inputs[i]) continue;
        for (const AxisIndex& dim : space.inputs[k].dims)
          for (const IndexTerm& term : dim.terms)
            if (!term.reduction && term.axis == static_cast<int>(a) && term_varies(term, part[a]))
              s.selects[a] |= 1u << i;
      }
  }
  return s;
}

TileLoops tile_loops(const std::vector<double>& trips_of_axis, const std::vector<uint32_t>& selects,
                     bool named) {
  TileLoops loops;
  for (size_t a = 0; a < trips_of_axis.size(); ++a) {
    if (trips_of_axis[a] <= 1) continue;
    size_t l = 0;
    while (l < loops.selects.size() && loops.selects[l] != selects[a]) ++l;
    if (l == loops.selects.size()) {
      loops.selects.push_back(selects[a]);
      loops.trips.push_back(1);
      if (named) loops.names.emplace_back();
    }
    loops.trips[l] *= trips_of_axis[a];
    if (named) loops.names[l] += std::to_string(a);
  }
  return loops;
}

// The regions the buffers are sized by: those of the largest tile the nest runs. Per tensor, the
// larger (in bytes read) of the origin tile's region (`origin`, its densities in `density`) and
// that of the tile one step along every axis with more than one trip (an interior tile where the
// axis has three trips or more; the last one where it has two). A padded op's origin tile reads
// less than its interior ones (its halo is clipped: a 3x3 conv with padding 1 reads rows + 1
// there, rows + 2 inside). Every tile is then counted at that size, both in the working set (the
// buffers hold the largest tile: exact) and in the loads (largest x count: an upper bound, over
// by the edge tiles' clipped halo, as ZigZag counts them). The origin's regions stay for what
// depends on the position: which inputs an axis selects and which operands a reduction chunk
// shrinks (tile_problem). `density` gets the chosen regions' densities.
template <class NeedOf>
std::map<int, Region> largest_tile_regions(const DsaSpec& spec, const Region& part,
                                           const Region& tile, const std::vector<double>& trips,
                                           const std::map<int, Region>& origin, NeedOf need_of,
                                           std::map<int, double>& density) {
  std::map<int, Region> largest = origin;
  Region inner = tile;
  bool moved = false;
  for (size_t a = 0; a < tile.size() && a < trips.size(); ++a) {
    if (trips[a] <= 1) continue;
    inner[a].lo = tile[a].hi;
    inner[a].hi = std::min(part[a].hi, inner[a].lo + tile[a].size());
    moved = true;
  }
  if (!moved) return largest;
  std::map<int, double> inner_density;
  const std::map<int, Region> at_inner = need_of(inner, inner_density);
  for (const auto& entry : at_inner) {
    const auto it = largest.find(entry.first);
    if (it == largest.end()) continue;
    const double was = bytes_of(it->second, spec) * density_of(density, entry.first);
    const double is = bytes_of(entry.second, spec) * density_of(inner_density, entry.first);
    if (is <= was) continue;
    it->second = entry.second;
    density[entry.first] = density_of(inner_density, entry.first);
  }
  return largest;
}

TileProblem tile_problem(const Graph& g, const Task& t, const DsaSpec& spec, const UntiledDemand& u,
                         const AxisSelects* known, bool named) {
  const DsaTaskDemand& d = u.d;
  TileProblem tp;
  const int64_t n = static_cast<int64_t>(d.units.size());
  const double nd = static_cast<double>(n);
  const int primary = u.primary;
  const Region unit_primary = unit_part(u.primary_region, u.split, n);
  Region tile = unit_primary;
  std::vector<double> trips_of_axis(tile.size(), 1);
  for (size_t a = 0; a < tile.size() && a < t.tile.size(); ++a) {
    trips_of_axis[a] = std::ceil(static_cast<double>(unit_primary[a].size()) /
                                 static_cast<double>(std::max<int64_t>(1, t.tile[a])));
    tp.tiles *= static_cast<int64_t>(trips_of_axis[a]);
    tile[a].hi = std::min(tile[a].hi, tile[a].lo + t.tile[a]);
  }
  if (d.written.size() != 1 || d.written[0] != primary || region_empty(tile)) return tp;
  tp.nest = true;
  NestProblem& prob = tp.prob;
  std::map<int, double> scratch, origin_density;
  auto need_of = [&](const Region& r, std::map<int, double>& density) {
    if (u.one_op) return one_op_regions(g, t.ops[0], u.op_space, primary, r, density);
    Task one = t;
    one.regions[primary] = r;
    return needed_regions(g, one, density);
  };
  const std::map<int, Region> origin = need_of(tile, origin_density);
  std::map<int, double> largest_density = origin_density;
  const std::map<int, Region> largest = largest_tile_regions(
      spec, unit_primary, tile, trips_of_axis, origin, need_of, largest_density);
  // Which inputs each axis's tiles select: for one op, those whose index maps in its iteration
  // space read the axis (known_axis_selects); otherwise, the ones the tile one step along the
  // axis needs another region of. Axes that select the same inputs form one loop (tile_loops).
  AxisSelects own;
  if (!known) {
    own = known_axis_selects(g, t, u);
    known = &own;
  }
  std::vector<uint32_t> selects = known->selects;
  for (size_t a = 0; a < tile.size(); ++a) {
    if (trips_of_axis[a] <= 1 || known->known[a]) continue;
    Region next = tile;
    next[a].lo = tile[a].hi;
    next[a].hi = std::min(unit_primary[a].hi, next[a].lo + tile[a].size());
    const std::map<int, Region> moved = need_of(next, scratch);
    for (size_t i = 0; i < d.inputs.size(); ++i) {
      const int x = d.inputs[i];
      const auto p = origin.find(x), q = moved.find(x);
      const bool same = (p == origin.end() && q == moved.end()) ||
                        (p != origin.end() && q != moved.end() && p->second == q->second);
      if (!same) selects[a] |= 1u << i;
    }
  }
  TileLoops loops = tile_loops(trips_of_axis, selects, named);
  const std::vector<uint32_t>& loop_selects = loops.selects;
  prob.trips = std::move(loops.trips);
  tp.loop_names = std::move(loops.names);
  // The task's one ungrouped matrix op may run its reduction in chunks (no reduction slice of
  // its own): what shrinks with a chunk are the operands half the reduction needs less of, and
  // what the ops before it in the task compute them from (e.g. §3.5's Concat pieces), by the
  // shared iteration spaces.
  std::set<int> reduced;
  if (!u.chunk_axis.empty()) {
    const Op& mo = g.op(u.matrix);
    const std::string& axis_name = u.chunk_axis;
    const int64_t extent = u.chunk_extent;
    const auto mout = origin.find(mo.outputs.at(0));
    if (!axis_name.empty() && extent >= 2 && mout != origin.end()) {
      std::vector<Region> half;
      for (AccessRegion& a : input_access_regions(g, u.matrix, u.half_space, mout->second))
        half.push_back(std::move(a.region));
      std::map<int, Region> seeds;  // operands computed inside the task
      for (size_t k = 0; k < mo.inputs.size() && k < half.size(); ++k) {
        const int x = mo.inputs[k];
        const auto full = x < 0 ? origin.end() : origin.find(x);
        if (full == origin.end() || region_numel(half[k]) >= region_numel(full->second)) continue;
        reduced.insert(x);
        if (u.produced.count(x)) seeds[x] = half[k];
      }
      if (!seeds.empty()) {
        std::vector<int> before;
        for (int op : t.ops) {
          if (op == u.matrix) break;
          before.push_back(op);
        }
        for (const auto& [tensor, access] : propagate_regions(g, before, seeds)) {
          const auto full = origin.find(tensor);
          if (full != origin.end() && region_numel(access.region) < region_numel(full->second))
            reduced.insert(tensor);
        }
      }
      if (!reduced.empty()) prob.reduction = u.shape.c;
    }
  }
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    const int x = d.inputs[i];
    NestInput in;
    in.needed = bytes_of(d.needed.at(x), spec) * d.density[i] / nd;
    in.tile = largest.count(x) ? bytes_of(largest.at(x), spec) * density_of(largest_density, x) : 0;
    for (size_t l = 0; l < loop_selects.size(); ++l)
      if (loop_selects[l] & (1u << i)) in.relevant |= 1u << l;
    in.reduced = reduced.count(x) > 0;
    in.resident = std::find(t.pinned.begin(), t.pinned.end(), x) != t.pinned.end();
    prob.inputs.push_back(in);
  }
  prob.out_tile = bytes_of(tile, spec);
  prob.out_bytes = bytes_of(unit_primary, spec);
  for (int x : d.kept)
    if (largest.count(x))
      (reduced.count(x) ? prob.kept_reduced_tile : prob.kept_tile) += bytes_of(largest.at(x), spec);
  prob.array = u.matrix >= 0 ? tiles_array_nest(g, spec, u, unit_primary, tile, trips_of_axis,
                                                largest, need_of)
                             : u.array;
  add_held_operands(g, u, prob);
  prob.other_cycles = d.vector_cycles + d.move_cycles;
  prob.other_port_bytes = u.other_port;
  prob.units = nd;
  return tp;
}

double fallback_working_set(const UntiledDemand& u, int64_t tiles) {
  return 2 * (u.per_unit - u.pinned_per_unit) / static_cast<double>(tiles) + u.pinned_per_unit;
}

// The demand of `t` with its tile (the buffer level of its loop nest, buffer_nest.h, over the
// unit's part), from its untiled parts.
DsaTaskDemand tiled_demand(const Graph& g, const Task& t, const DsaSpec& spec,
                           const UntiledDemand& u) {
  DsaTaskDemand d = u.d;
  if (t.tile.empty()) return d;
  const TileProblem tp = tile_problem(g, t, spec, u);
  if (!tp.nest) {
    d.tiles = tp.tiles;
    d.working_set_bytes = static_cast<int64_t>(std::ceil(fallback_working_set(u, d.tiles)));
    d.last_tile_bytes = static_cast<int64_t>(std::ceil(
        (u.per_unit - u.pinned_per_unit) / static_cast<double>(d.tiles) + u.pinned_per_unit));
    for (size_t i = 0; i < d.inputs.size(); ++i)
      if (std::find(t.pinned.begin(), t.pinned.end(), d.inputs[i]) == t.pinned.end())
        d.held[i] *= 2 / static_cast<double>(d.tiles);
    return d;
  }
  const NestMapping m = map_buffer_nest(tp.prob, spec, dsa_task_capacity(t, spec));
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    const double need = tp.prob.inputs[i].needed;
    d.reload[i] = need > 0 ? std::max(1.0, m.loaded[i] / need) : 1.0;
    d.stays[i] = m.once[i];
    d.held[i] = m.held[i];
  }
  if (u.matrix >= 0) {  // the array level over the tiles (tiles_array_nest)
    const ArrayNest& a = tp.prob.array;
    const double nd = static_cast<double>(d.units.size());
    const ChunkedArray& c = a.chunked[m.array_chunks];
    d.matrix_cycles = a.steps + c.refill_stall + a.fill_cycles;  // the chosen chunks' stall
    d.fill_cycles = a.fill_cycles;
    d.refill_stall = c.refill_stall;
    d.operand_bytes = (c.port_bytes - m.array_saved + m.array_sums) * nd + u.other_port * nd;
    d.register_bits = (c.register_bits - 8 * m.array_saved + 8 * m.array_sums) * nd;
    ArrayNest named = a;  // the mapping under the chosen reduction chunks
    named.pixels_inner = c.pixels_inner;
    named.channels_inner = c.channels_inner;
    named.kernel_columns_inner = c.kernel_columns_inner;
    named.order = c.order;
    d.array_mapping = array_mapping_name(named);
  }
  d.tiles = static_cast<int64_t>(m.tiles);
  d.working_set_bytes = static_cast<int64_t>(std::ceil(m.working_set));
  d.last_tile_bytes = static_cast<int64_t>(std::ceil(m.working_set - m.second_buffers));
  d.serial_bytes = m.serial_bytes;
  d.stall_cycles = m.stall_cycles;
  d.loop_order = nest_order_name(m, tp.loop_names);
  d.nest_cycles = m.cycles;
  d.nest_energy_pj = m.energy_pj;
  return d;
}

}  // namespace dsa_task_internal

namespace {

// Moves a demand's own part (its units and regions: what DsaDemandCache does not share) from one
// holder to another (a DsaTaskDemand or a DsaTaskDemandRef), leaving `from`'s empty.
template <typename From, typename To>
void move_own_part(From& from, To& to) {
  to.units = std::exchange(from.units, {});
  to.needed = std::exchange(from.needed, {});
  to.inputs = std::exchange(from.inputs, {});
  to.density = std::exchange(from.density, {});
  to.written = std::exchange(from.written, {});
  to.kept = std::exchange(from.kept, {});
}

}  // namespace

DsaTaskDemand dsa_task_demand(const Graph& g, const Task& t, const DsaSpec& spec,
                              const std::vector<int>& units, DsaDemandCache* cache) {
  using namespace dsa_task_internal;
  if (cache) {  // the shape's part from the cache (one copy of it), the task's own part beside it
    DsaTaskDemandRef r = dsa_task_demand_ref(g, t, spec, units, *cache);
    DsaTaskDemand d = *r.shape;
    move_own_part(r, d);
    return d;
  }
  std::set<int> produced;
  DsaTaskDemand regions = task_regions(g, t, produced);
  const UntiledDemand u =
      untiled_demand(g, t, spec, units, std::move(regions), std::move(produced), !t.tile.empty());
  return tiled_demand(g, t, spec, u);
}

DsaTaskDemandRef dsa_task_demand_ref(const Graph& g, const Task& t, const DsaSpec& spec,
                                     const std::vector<int>& units, DsaDemandCache& cache) {
  using namespace dsa_task_internal;
  std::set<int> produced;
  DsaTaskDemand regions = task_regions(g, t, produced);
  demand_key(g, t, regions.needed, units.size(), cache.key);
  DsaTaskDemandRef r;
  auto it = cache.entries.find(cache.key);
  if (it == cache.entries.end()) {
    // A miss: the task's own part from the demand computed, the rest kept for its shape.
    const UntiledDemand u =
        untiled_demand(g, t, spec, units, std::move(regions), std::move(produced), !t.tile.empty());
    DsaTaskDemand d = tiled_demand(g, t, spec, u);
    move_own_part(d, r);
    it = cache.entries.emplace(cache.key, std::move(d)).first;
  } else {  // a hit: the task's own part from its regions
    move_own_part(regions, r);
    r.units = units;
  }
  r.shape = &it->second;
  return r;
}

}  // namespace dgs
