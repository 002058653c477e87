// Plans: names and what a task computes (see plan.h).
#include "common/plan/plan.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/util/enum_names.h"
#include "common/util/error.h"
#include "common/util/inline_vector.h"

namespace dgs {

namespace {

constexpr EnumNames<TaskKind> kTaskKinds[] = {
    {TaskKind::Sequential, "sequential"}, {TaskKind::Merged, "merged"}, {TaskKind::Fused, "fused"}};
constexpr EnumNames<UnitKind> kUnitKinds[] = {
    {UnitKind::None, "none"},       {UnitKind::Stream, "stream"}, {UnitKind::SmSet, "sm_set"},
    {UnitKind::Cluster, "cluster"}, {UnitKind::Core, "core"},     {UnitKind::Engine, "engine"}};
constexpr EnumNames<HaloMode> kHaloModes[] = {{HaloMode::Recompute, "recompute"},
                                              {HaloMode::Share, "share"}};
constexpr EnumNames<Accumulation> kAccumulations[] = {{Accumulation::Sum, "sum"}};

}  // namespace

std::string_view task_kind_name(TaskKind k) {
  return enum_name(kTaskKinds, k);
}
TaskKind task_kind_from_name(std::string_view s) {
  return enum_from_name(kTaskKinds, s, "task kind");
}
std::string_view unit_kind_name(UnitKind k) {
  return enum_name(kUnitKinds, k);
}
UnitKind unit_kind_from_name(std::string_view s) {
  return enum_from_name(kUnitKinds, s, "unit kind");
}
std::string_view halo_mode_name(HaloMode m) {
  return enum_name(kHaloModes, m);
}
HaloMode halo_mode_from_name(std::string_view s) {
  return enum_from_name(kHaloModes, s, "halo mode");
}
std::string_view accumulation_name(Accumulation a) {
  return enum_name(kAccumulations, a);
}
Accumulation accumulation_from_name(std::string_view s) {
  return enum_from_name(kAccumulations, s, "accumulation rule");
}

Placement stream_placement(int s) {
  Placement p;
  p.unit = UnitKind::Stream;
  p.index = {s};
  return p;
}

int Plan::num_tasks() const {
  int n = 0;
  for (const Stage& s : stages) n += static_cast<int>(s.tasks.size());
  return n;
}

std::vector<int> task_written_tensors(const Graph& g, const Task& t) {
  // Sorted vectors rather than sets: this runs for every task the DSA model prices.
  InlineVector<int, 16> ops(t.ops.begin(), t.ops.end());
  std::sort(ops.begin(), ops.end());
  std::vector<int> written;
  for (int op : t.ops) {
    for (int out : g.op(op).outputs) {
      const Tensor& ten = g.tensor(out);
      bool w = ten.role == TensorRole::Output;
      for (int c : ten.consumers) w = w || !std::binary_search(ops.begin(), ops.end(), c);
      if (w) written.push_back(out);
    }
  }
  for (const auto& [tensor, region] : t.regions) written.push_back(tensor);
  std::sort(written.begin(), written.end());
  written.erase(std::unique(written.begin(), written.end()), written.end());
  return written;
}

Region task_written_region(const Graph& g, const Task& t, int tensor) {
  auto it = t.regions.find(tensor);
  return it != t.regions.end() ? it->second : full_region(g.tensor(tensor).shape);
}

int task_primary_tensor(const Graph& g, const Task& t) {
  if (t.ops.empty()) throw Error("task_primary_tensor: the task has no ops");
  return g.op(t.ops.back()).outputs.at(0);
}

bool task_is_whole(const Graph& g, const Task& t) {
  if (t.reduction.active()) return false;
  for (const auto& [tensor, region] : t.regions)
    if (region != full_region(g.tensor(tensor).shape)) return false;
  return true;
}

namespace {

// task_needed_access of a task of one op without a reduction split (most tasks of layer-split
// plans): what propagate_regions gives for the group {op} and the written regions, without the
// sets of task_written_tensors, the seed map and the group's topological order. Null when a
// `regions` entry names a tensor the op does not produce (propagate_regions' error).
std::optional<std::map<int, AccessRegion>> one_op_needed_access(const Graph& g, const Task& t) {
  const int op = t.ops[0];
  const Op& o = g.op(op);
  std::map<int, AccessRegion> need;
  for (const auto& [tensor, region] : t.regions) {
    if (g.tensor(tensor).producer != op) return std::nullopt;
    need.emplace(tensor, AccessRegion{region, region, true, {}});
  }
  // The outputs written whole (task_written_tensors: read by another op, or a graph output).
  for (int out : o.outputs) {
    const Tensor& ten = g.tensor(out);
    bool w = ten.role == TensorRole::Output;
    for (int c : ten.consumers) w = w || c != op;
    if (w && !need.count(out)) {
      const Region r = full_region(ten.shape);
      need.emplace(out, AccessRegion{r, r, true, {}});
    }
  }
  for (size_t k = 0; k < o.outputs.size(); ++k) {
    const auto found = need.find(o.outputs[k]);
    if (found == need.end() || region_empty(found->second.region)) continue;
    std::vector<AccessRegion> in =
        input_access_regions(g, op, found->second.region, static_cast<int>(k));
    for (size_t i = 0; i < o.inputs.size(); ++i) {
      if (o.inputs[i] < 0) continue;
      const auto it = need.find(o.inputs[i]);
      if (it == need.end())
        need.emplace(o.inputs[i], std::move(in[i]));
      else
        it->second = access_union(it->second, in[i]);
    }
  }
  return need;
}

}  // namespace

std::map<int, AccessRegion> task_needed_access(const Graph& g, const Task& t) {
  if (t.ops.size() == 1 && !t.reduction.active()) {
    if (auto need = one_op_needed_access(g, t)) return std::move(*need);
  }
  if (t.reduction.active()) {
    // One op (Plan::check): its outputs' regions, and its inputs restricted to the slice.
    std::map<int, AccessRegion> needed;
    const int op = t.ops.at(0);
    const Op& o = g.op(op);
    const Region out = task_written_region(g, t, o.outputs.at(0));
    for (int w : task_written_tensors(g, t)) {
      const Region r = task_written_region(g, t, w);
      needed[w] = AccessRegion{r, r, true, {}};
    }
    const std::vector<AccessRegion> in =
        input_access_regions_for_slice(g, op, out, t.reduction.range);
    for (size_t i = 0; i < o.inputs.size(); ++i) {
      if (o.inputs[i] < 0) continue;
      auto it = needed.find(o.inputs[i]);
      if (it == needed.end())
        needed[o.inputs[i]] = in[i];
      else
        it->second = access_union(it->second, in[i]);
    }
    return needed;
  }
  std::map<int, Region> seeds;
  for (int w : task_written_tensors(g, t)) seeds[w] = task_written_region(g, t, w);
  return propagate_regions(g, t.ops, seeds);
}

std::map<int, Region> task_needed_regions(const Graph& g, const Task& t) {
  std::map<int, Region> needed;
  for (auto& [tensor, access] : task_needed_access(g, t)) needed[tensor] = std::move(access.region);
  return needed;
}

}  // namespace dgs
