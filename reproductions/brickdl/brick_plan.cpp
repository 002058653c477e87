#include "reproductions/brickdl/brick_plan.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "common/util/error.h"
#include "reproductions/brickdl/perf_model.h"

namespace dgs::brickdl {

Task brick_task(const Graph& g, const std::vector<int>& ops, MergeVariant v, int64_t edge) {
  Task t;
  t.kind = TaskKind::Fused;
  t.ops = ops;
  t.tile = brick_extent(g.tensor(g.op(ops.back()).outputs.at(0)).shape, edge);
  t.halo = v == MergeVariant::Padded ? HaloPolicy{HaloMode::Recompute, ""}
                                     : HaloPolicy{HaloMode::Share, "l2"};
  return t;
}

Plan brick_plan(const Graph& g, const std::vector<PlannedSubgraph>& parts) {
  Plan p;
  p.scheduler = "BrickDL merged execution";
  p.graph = g.name;
  for (const PlannedSubgraph& s : parts) {
    Task t;
    t.ops = s.ops;
    if (s.merged) t = brick_task(g, s.ops, s.variant, s.edge);
    p.stages.push_back({.tasks = {t}});
  }
  return p;
}

std::vector<Task> cudnn_unit_tasks(const Graph& g, const std::vector<int>& ops) {
  std::map<int, size_t> position;
  for (size_t i = 0; i < ops.size(); ++i) position[ops[i]] = i;
  std::vector<BrickUnit> units = brick_units(g, ops);
  // A unit's consumers read only its last op's output (brick_units joins an op to a unit only
  // through a tensor nothing else reads), so ordering by the last op is topological.
  std::stable_sort(units.begin(), units.end(), [&](const BrickUnit& a, const BrickUnit& b) {
    return position.at(a.ops.back()) < position.at(b.ops.back());
  });
  std::vector<Task> tasks;
  for (const BrickUnit& u : units) {
    Task t;
    t.kind = u.ops.size() == 1 ? TaskKind::Sequential : TaskKind::Fused;
    t.ops = u.ops;
    tasks.push_back(std::move(t));
  }
  return tasks;
}

Plan network_plan(const Graph& g, const NetworkSchedule& s) {
  Plan p;
  p.scheduler = "BrickDL (static model: partition, brick sizes, padded/memoized)";
  p.graph = g.name;
  for (const NetworkPart& part : s.parts) {
    if (part.subgraph.merged) {
      p.stages.push_back(
          {.tasks = {brick_task(g, part.subgraph.ops, part.variant, part.subgraph.brick.edge)}});
      continue;
    }
    for (Task& t : cudnn_unit_tasks(g, part.subgraph.ops)) p.stages.push_back({.tasks = {t}});
  }
  return p;
}

Plan cudnn_baseline_plan(const Graph& g) {
  Plan p;
  p.scheduler = "cuDNN per brick unit (BrickDL's baseline)";
  p.graph = g.name;
  for (Task& t : cudnn_unit_tasks(g, g.topo_order())) p.stages.push_back({.tasks = {t}});
  return p;
}

KernelLaunch brick_atomics_kernel(const BrickAtomics& atomics, const GpuSpec& spec) {
  KernelLaunch k;
  k.name = "bricks_atomics";
  k.grid_blocks = 1;
  k.threads_per_block = 32;
  k.registers_per_thread = 32;
  k.klass = KernelClass::Memory;
  k.block_floor_us = static_cast<double>(atomics.total()) * atomic_ns(spec) * 1e-3;
  return k;
}

namespace {

// The conversions of a network schedule, by the first op of the merged part's task.
struct Conversions {
  std::map<int, std::vector<int>> before, after;
};

Conversions assign_conversions(const Graph& g, const NetworkSchedule& s) {
  std::vector<int> part_of(static_cast<size_t>(g.num_ops()), -1);
  for (size_t p = 0; p < s.parts.size(); ++p)
    for (int op : s.parts[p].subgraph.ops) part_of[static_cast<size_t>(op)] = static_cast<int>(p);
  auto merged_part = [&](int op) {
    const int p = part_of[static_cast<size_t>(op)];
    return p >= 0 && s.parts[static_cast<size_t>(p)].subgraph.merged ? p : -1;
  };
  Conversions c;
  for (int t : s.converted) {
    const int prod = g.tensor(t).producer;
    if (prod >= 0 && merged_part(prod) >= 0) {
      c.after[s.parts[static_cast<size_t>(merged_part(prod))].subgraph.ops.front()].push_back(t);
      continue;
    }
    int first = -1;  // the first merged part (in plan order) that reads t
    for (int op : g.tensor(t).consumers) {
      const int p = merged_part(op);
      if (p >= 0 && (first < 0 || p < first)) first = p;
    }
    if (first < 0)
      throw Error("brickdl: converted tensor '" + g.tensor(t).name + "' has no merged end");
    c.before[s.parts[static_cast<size_t>(first)].subgraph.ops.front()].push_back(t);
  }
  return c;
}

std::string task_name(const Graph& g, const Task& t) {
  return "fused task of op '" + (t.ops.empty() ? std::string("?") : g.op(t.ops[0]).name) + "'";
}

std::vector<KernelLaunch> brick_kernels(const Graph& g, const Task& t, const GpuSpec& spec,
                                        const Conversions& conv) {
  const Shape& root = g.tensor(g.op(t.ops.back()).outputs.at(0)).shape;
  const std::vector<int> dims = blocked_dims(root);
  if (dims.empty() || t.tile.size() != root.size())
    throw Error("brickdl fused kernels: the " + task_name(g, t) + " has no brick tile");
  const int64_t edge = t.tile[static_cast<size_t>(dims.front())];
  if (t.tile != brick_extent(root, edge))
    throw Error("brickdl fused kernels: the tile of the " + task_name(g, t) +
                " is not a brick (edge on the batch and spatial dims, channels whole)");
  const MergeVariant v =
      t.halo.mode == HaloMode::Recompute ? MergeVariant::Padded : MergeVariant::Memoized;
  const SubgraphAnalysis a = analyze_subgraph(g, t.ops, edge);
  std::vector<KernelLaunch> ks;
  const int first = t.ops.front();
  if (auto it = conv.before.find(first); it != conv.before.end())
    for (int tensor : it->second) ks.push_back(brick_conversion_kernel(g, tensor));
  ks.push_back(merged_kernel(g, a, v, spec));
  if (v == MergeVariant::Memoized)
    ks.push_back(brick_atomics_kernel(merged_atomics(g, a, v, spec), spec));
  if (auto it = conv.after.find(first); it != conv.after.end())
    for (int tensor : it->second) ks.push_back(brick_conversion_kernel(g, tensor));
  return ks;
}

}  // namespace

namespace {

FusedKernelFn fused_kernels_with(std::shared_ptr<const Conversions> conv) {
  return [conv](const Graph& g, const Task& t, const GpuSpec& spec) {
    if (t.ops.empty()) throw Error("brickdl fused kernels: a fused task has no ops");
    if (!t.tile.empty()) return brick_kernels(g, t, spec, *conv);
    const std::vector<BrickUnit> units = brick_units(g, t.ops);
    if (units.size() != 1)
      throw Error("brickdl fused kernels: the untiled " + task_name(g, t) +
                  " is not one brick unit (an op with the element-wise ops of its epilogue)");
    return cudnn_unit_kernels(g, units.front(), spec);
  };
}

}  // namespace

FusedKernelFn brickdl_fused_kernels() {
  return fused_kernels_with(std::make_shared<const Conversions>());
}

FusedKernelFn brickdl_fused_kernels(const Graph& g, const NetworkSchedule& s) {
  return fused_kernels_with(std::make_shared<const Conversions>(assign_conversions(g, s)));
}

}  // namespace dgs::brickdl
