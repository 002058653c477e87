// A task's needed regions and their densities in the DSA model (dsa_task_internal.h: task_regions,
// one_op_regions): what each task reads of every tensor, with shortcuts for one-op tasks (atoms,
// layer parts, the tile search's candidates) that give what the general path gives.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/dsa_task_internal.h"
#include "common/graph/iteration_space.h"

namespace dgs {

namespace {

// A Gather reads only the rows its indices select: a table (a weight or constant, axis 0) is
// needed for as many rows as the task reads indices (at most the table's), not whole.
void narrow_gather_tables(const Graph& g, const Task& t, std::map<int, Region>& needed) {
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

// The box of each access (a task's needed regions) and, for those whose loads move only part of
// their box, that part (dsa_task.h: density).
std::map<int, Region> boxes_and_density(std::map<int, AccessRegion> access,
                                        std::map<int, double>& density) {
  std::map<int, Region> needed;
  for (auto& [tensor, a] : access) {
    const int64_t box = region_numel(a.region);
    const int64_t read = access_numel(a);
    if (box > 0 && read < box)
      density[tensor] = static_cast<double>(read) / static_cast<double>(box);
    needed[tensor] = std::move(a.region);
  }
  return needed;
}

// An input's box into `needed` and, where its loads move only part of it, its density (as
// boxes_and_density).
void add_input_box(int tensor, AccessRegion& a, std::map<int, Region>& needed,
                   std::map<int, double>& density) {
  const int64_t box = region_numel(a.region);
  const int64_t read = access_numel(a);
  if (box > 0 && read < box) density[tensor] = static_cast<double>(read) / static_cast<double>(box);
  needed.emplace(tensor, std::move(a.region));
}

// Whether op `o` reads no tensor twice and not its output `out`: then each input's access goes
// straight to its box, with nothing to merge.
bool reads_each_tensor_once(const Op& o, int out) {
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    if (o.inputs[i] < 0) continue;
    if (o.inputs[i] == out) return false;
    for (size_t j = 0; j < i; ++j)
      if (o.inputs[j] == o.inputs[i]) return false;
  }
  return true;
}

// boxes_and_density(task_needed_access(g, t)) for a task of one op with one output that reads no
// tensor twice (a layer's part, an atom: most tasks), without task_needed_access's map of
// accesses and the sets of task_written_tensors: with nothing to merge, each input's access goes
// straight to its box. The same cases as task_needed_access: without a reduction split, the
// output's region (its Task::regions entry, or whole where it is written) and the inputs the
// non-empty output region needs; with one, the written output's region and the inputs of the
// slice. False, with nothing written, for any other task (several ops or outputs, a tensor read
// twice, a Task::regions entry of another tensor).
bool one_op_boxes(const Graph& g, const Task& t, std::map<int, Region>& needed,
                  std::map<int, double>& density) {
  if (t.ops.size() != 1) return false;
  const int op = t.ops[0];
  const Op& o = g.op(op);
  if (o.outputs.size() != 1) return false;
  const int out = o.outputs[0];
  if (!reads_each_tensor_once(o, out)) return false;
  for (const auto& entry : t.regions)
    if (entry.first != out) return false;
  // Written (task_written_tensors): it has a Task::regions entry, is a graph output or is read
  // by another op.
  const Tensor& y = g.tensor(out);
  bool written = !t.regions.empty() || y.role == TensorRole::Output;
  for (int c : y.consumers) written = written || c != op;
  const Region region = task_written_region(g, t, out);
  if (written) needed.emplace(out, region);
  if (t.reduction.active()) {
    std::vector<AccessRegion> in = input_access_regions_for_slice(g, op, region, t.reduction.range);
    for (size_t i = 0; i < o.inputs.size() && i < in.size(); ++i)
      if (o.inputs[i] >= 0) add_input_box(o.inputs[i], in[i], needed, density);
    return true;
  }
  if (!written || region_empty(region)) return true;
  std::vector<AccessRegion> in = input_access_regions(g, op, region, 0);
  for (size_t i = 0; i < o.inputs.size() && i < in.size(); ++i)
    if (o.inputs[i] >= 0) add_input_box(o.inputs[i], in[i], needed, density);
  return true;
}

}  // namespace

namespace dsa_task_internal {

std::map<int, Region> needed_regions(const Graph& g, const Task& t,
                                     std::map<int, double>& density) {
  std::map<int, Region> needed;
  if (!one_op_boxes(g, t, needed, density))
    needed = boxes_and_density(task_needed_access(g, t), density);
  narrow_gather_tables(g, t, needed);
  return needed;
}

std::map<int, Region> one_op_regions(const Graph& g, int op, const IterationSpace& s, int out,
                                     const Region& r, std::map<int, double>& density) {
  const Op& o = g.op(op);
  std::vector<AccessRegion> in = input_access_regions(g, op, s, r);
  // No tensor twice (the output among the inputs, an input read twice): nothing to merge, each
  // access goes straight to its box (as boxes_and_density; the output's is its whole region,
  // read whole), without the map of accesses (the tile search asks this per candidate tile).
  if (reads_each_tensor_once(o, out)) {
    std::map<int, Region> needed;
    needed.emplace(out, r);
    for (size_t i = 0; i < o.inputs.size() && i < in.size(); ++i)
      if (o.inputs[i] >= 0) add_input_box(o.inputs[i], in[i], needed, density);
    return needed;
  }
  std::map<int, AccessRegion> access;
  access[out] = AccessRegion{r, r, true, {}};
  for (size_t i = 0; i < o.inputs.size() && i < in.size(); ++i) {
    if (o.inputs[i] < 0) continue;
    const auto it = access.find(o.inputs[i]);
    if (it == access.end())
      access[o.inputs[i]] = in[i];
    else
      it->second = access_union(it->second, in[i]);
  }
  return boxes_and_density(std::move(access), density);
}

double density_of(const std::map<int, double>& density, int tensor) {
  const auto it = density.find(tensor);
  return it == density.end() ? 1.0 : it->second;
}

DsaTaskDemand task_regions(const Graph& g, const Task& t, std::set<int>& produced) {
  DsaTaskDemand d;
  std::map<int, double> density;
  d.needed = needed_regions(g, t, density);
  d.written = task_written_tensors(g, t);
  for (int op : t.ops)
    for (int o : g.op(op).outputs) produced.insert(o);
  for (const auto& [tensor, region] : d.needed) {
    (void)region;
    if (!produced.count(tensor)) {
      d.inputs.push_back(tensor);
      d.density.push_back(density_of(density, tensor));
    } else if (!std::binary_search(d.written.begin(), d.written.end(), tensor))
      d.kept.push_back(tensor);
  }
  return d;
}

}  // namespace dsa_task_internal

}  // namespace dgs
