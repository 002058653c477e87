// Where a plan task runs on a DSA (see dsa_task.h): its label for messages and the flat unit ids
// of its placement, and the buffer capacity its loop nest is mapped within.
#include <algorithm>
#include <string>
#include <vector>

#include "common/dsamodel/dsa_task.h"
#include "common/util/error.h"

namespace dgs {

std::string dsa_task_label(const Graph& g, const Task& t, size_t stage, size_t task) {
  std::string s = "task s" + std::to_string(stage) + ".t" + std::to_string(task);
  if (!t.ops.empty()) s += " (op " + g.op(t.ops.front()).name + ")";
  return s;
}

double dsa_task_capacity(const Task& t, const DsaSpec& spec) {
  const int64_t whole = spec.local_bytes;
  return static_cast<double>(t.buffer_bytes > 0 ? std::min(t.buffer_bytes, whole) : whole);
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

}  // namespace dgs
