// The demand of one plan task on a DSA (see dsa_task.h).
#include "common/dsamodel/dsa_task.h"

#include <algorithm>
#include <cmath>
#include <set>

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

// The part of `r` one unit computes under the split `f` (same rank), or its first axis divided by
// `n` (another rank).
Region unit_part(const Region& r, const std::vector<int64_t>& f, int64_t n) {
  Region u = r;
  if (u.empty()) return u;
  if (f.size() == r.size()) {
    for (size_t d = 0; d < r.size(); ++d) u[d].hi = u[d].lo + (r[d].size() + f[d] - 1) / f[d];
  } else {
    u[0].hi = u[0].lo + (r[0].size() + n - 1) / n;
  }
  return u;
}

double bytes_of(const Region& r, const DsaSpec& spec) {
  return static_cast<double>(region_numel(r)) * spec.element_bytes;
}

}  // namespace

std::string dsa_task_label(const Graph& g, const Task& t, size_t stage, size_t task) {
  std::string s = "task s" + std::to_string(stage) + ".t" + std::to_string(task);
  if (!t.ops.empty()) s += " (op " + g.op(t.ops.front()).name + ")";
  return s;
}

std::vector<int> dsa_placement_units(const Placement& p, const DsaSpec& spec) {
  const bool mesh = spec.topology == DsaTopology::Mesh;
  auto refuse = [&](const std::string& what) { throw Error(what); };
  auto need = [&](size_t coords) {
    if (p.index.size() != coords)
      refuse("placement index has " + std::to_string(p.index.size()) + " coordinates; expected " +
             std::to_string(coords));
  };
  std::vector<int> units;
  switch (p.unit) {
    case UnitKind::None:
      return {0};
    case UnitKind::Cluster: {
      if (mesh) refuse(spec.name + " has no unit of kind 'cluster' (a mesh of engines)");
      need(1);
      if (p.index[0] + p.count > spec.clusters)
        refuse("binds clusters " + std::to_string(p.index[0]) + ".." +
               std::to_string(p.index[0] + p.count - 1) + " but " + spec.name + " has " +
               std::to_string(spec.clusters));
      for (int c = p.index[0]; c < p.index[0] + p.count; ++c)
        for (int i = 0; i < spec.cores_per_cluster; ++i)
          units.push_back(c * spec.cores_per_cluster + i);
      return units;
    }
    case UnitKind::Core: {
      if (mesh) refuse(spec.name + " has no unit of kind 'core' (a mesh of engines)");
      need(2);
      if (p.index[0] >= spec.clusters)
        refuse("binds cluster " + std::to_string(p.index[0]) + " but " + spec.name + " has " +
               std::to_string(spec.clusters));
      if (p.index[1] + p.count > spec.cores_per_cluster)
        refuse("binds " + std::to_string(p.count) + " cores from core " +
               std::to_string(p.index[1]) + " of cluster " + std::to_string(p.index[0]) +
               " but a cluster of " + spec.name + " has " + std::to_string(spec.cores_per_cluster) +
               " cores");
      for (int i = p.index[1]; i < p.index[1] + p.count; ++i)
        units.push_back(p.index[0] * spec.cores_per_cluster + i);
      return units;
    }
    case UnitKind::Engine: {
      if (!mesh) refuse(spec.name + " has no unit of kind 'engine' (clusters of cores)");
      need(2);
      if (p.index[0] >= spec.mesh_columns || p.index[1] + p.count > spec.mesh_rows)
        refuse("binds engines [" + std::to_string(p.index[0]) + "," + std::to_string(p.index[1]) +
               "] x " + std::to_string(p.count) + " but " + spec.name + " has " +
               std::to_string(spec.mesh_columns) + "x" + std::to_string(spec.mesh_rows));
      for (int y = p.index[1]; y < p.index[1] + p.count; ++y)
        units.push_back(y * spec.mesh_columns + p.index[0]);
      return units;
    }
    default:
      refuse("placed on a unit of kind '" + std::string(unit_kind_name(p.unit)) + "', which " +
             spec.name + " does not have");
  }
  return units;
}

// A Gather reads only the rows its indices select: a table (a weight or constant, axis 0) is
// needed for as many rows as the task reads indices (at most the table's), not whole.
static void narrow_gather_tables(const Graph& g, const Task& t, std::map<int, Region>& needed) {
  for (int op : t.ops) {
    const Op& o = g.op(op);
    if (o.kind != OpKind::Gather || o.inputs.size() < 2 || o.attrs.get_int("axis", 0) != 0)
      continue;
    const int table = o.inputs[0], indices = o.inputs[1];
    if (!g.tensor(table).is_param() || !needed.count(table) || !needed.count(indices)) continue;
    Region& r = needed.at(table);
    if (r.empty()) continue;
    const int64_t rows = std::min(r[0].size(), region_numel(needed.at(indices)));
    r[0].hi = r[0].lo + rows;
  }
}

DsaTaskDemand dsa_task_demand(const Graph& g, const Task& t, const DsaSpec& spec,
                              const std::vector<int>& units) {
  DsaTaskDemand d;
  d.units = units;
  d.needed = task_needed_regions(g, t);
  narrow_gather_tables(g, t, d.needed);
  d.written = task_written_tensors(g, t);
  std::set<int> produced;
  for (int op : t.ops)
    for (int o : g.op(op).outputs) produced.insert(o);
  for (const auto& [tensor, region] : d.needed) {
    if (!produced.count(tensor))
      d.inputs.push_back(tensor);
    else if (!std::binary_search(d.written.begin(), d.written.end(), tensor))
      d.kept.push_back(tensor);
  }
  const int64_t n = static_cast<int64_t>(units.size());
  const int primary = task_primary_tensor(g, t);
  const Region primary_region =
      d.needed.count(primary) ? d.needed.at(primary) : task_written_region(g, t, primary);
  const std::vector<int64_t> split = unit_split(region_shape(primary_region), t.placement, n);

  // Reduction split: the fraction of the op's reduction this task computes.
  std::string axis;
  double fraction = 1;
  if (t.reduction.active()) {
    axis = t.reduction.range.axis;
    for (const ReductionAxis& a : iteration_space(g, t.ops.at(0)).reduction_axes)
      if (a.name == axis && a.extent > 0)
        fraction = static_cast<double>(t.reduction.range.range.size()) / a.extent;
  }
  for (int op : t.ops) {
    const Op& o = g.op(op);
    const auto it = d.needed.find(o.outputs.at(0));
    if (it == d.needed.end()) continue;
    const Region part = unit_part(it->second, split, n);
    const OpCycles c = op_cycles(g, op, part, spec, axis, t.reduction.active() ? fraction : 1.0);
    if (c.unit == ComputeUnit::Matrix && spec.matrix_macs_per_cycle <= 0)
      throw Error("op " + o.name + " (" + std::string(op_kind_name(o.kind)) +
                  ") needs a matrix unit; " + spec.name + " has none");
    if (c.unit == ComputeUnit::Vector && spec.vector_lanes <= 0)
      throw Error("op " + o.name + " (" + std::string(op_kind_name(o.kind)) +
                  ") needs a vector unit; " + spec.name + " has none");
    if (c.unit == ComputeUnit::Matrix) d.matrix_cycles += c.cycles;
    if (c.unit == ComputeUnit::Vector) d.vector_cycles += c.cycles;
    if (c.unit == ComputeUnit::Move) d.move_cycles += c.cycles;
    d.macs += c.macs * static_cast<double>(n);
    for (int in : o.inputs)
      if (in >= 0 && d.needed.count(in)) d.operand_bytes += bytes_of(d.needed.at(in), spec);
    d.operand_bytes += bytes_of(it->second, spec);
  }

  double in_bytes = 0, kept_bytes = 0, out_bytes = 0;
  for (int x : d.inputs) in_bytes += bytes_of(d.needed.at(x), spec);
  for (int x : d.kept) kept_bytes += bytes_of(d.needed.at(x), spec);
  for (int x : d.written) out_bytes += bytes_of(task_written_region(g, t, x), spec);
  const double per_unit = (in_bytes + kept_bytes + out_bytes) / static_cast<double>(n);
  if (t.tile.empty()) {
    d.working_set_bytes = static_cast<int64_t>(std::ceil(per_unit));
    return d;
  }
  // Tiled: tiles run double-buffered, so a unit holds two tiles' working sets at a time.
  const Region unit_primary = unit_part(primary_region, split, n);
  Region tile = unit_primary;
  for (size_t a = 0; a < tile.size() && a < t.tile.size(); ++a) {
    d.tiles *= (unit_primary[a].size() + t.tile[a] - 1) / t.tile[a];
    tile[a].hi = std::min(tile[a].hi, tile[a].lo + t.tile[a]);
  }
  if (d.written.size() == 1 && d.written[0] == primary && !region_empty(tile)) {
    Task one = t;
    one.regions[primary] = tile;
    std::map<int, Region> need = task_needed_regions(g, one);
    narrow_gather_tables(g, one, need);
    double tin = 0, tkept = 0, tin_activations = 0, in_activations = 0;
    for (int x : d.inputs) {
      if (!need.count(x)) continue;
      tin += bytes_of(need.at(x), spec);
      if (!g.tensor(x).is_param()) {
        tin_activations += bytes_of(need.at(x), spec);
        in_activations += bytes_of(d.needed.at(x), spec);
      }
    }
    for (int x : d.kept)
      if (need.count(x)) tkept += bytes_of(need.at(x), spec);
    const double tout = bytes_of(tile, spec);
    d.working_set_bytes = static_cast<int64_t>(std::ceil(2 * (tin + tkept + tout)));
    const double unit_in = in_activations / static_cast<double>(n);
    if (unit_in > 0)
      d.refetch = std::max(1.0, static_cast<double>(d.tiles) * tin_activations / unit_in);
  } else {
    d.working_set_bytes =
        static_cast<int64_t>(std::ceil(2 * per_unit / static_cast<double>(d.tiles)));
  }
  return d;
}

}  // namespace dgs
