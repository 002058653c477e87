// §3.5's concatenation, copy and redistribution operators in the DSA plans (see movement_ops.h).
#include "reproductions/graphturbo/movement_ops.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "common/util/error.h"

namespace dgs::graphturbo {

int cluster_of(const Task& t) {
  return t.placement.index.empty() ? 0 : t.placement.index[0];
}

std::vector<CrossingRead> crossing_reads(const Graph& g, const Plan& plan,
                                         const std::vector<int>& stage_instance,
                                         const Schedule& s) {
  const Grouping& gr = s.grouping;
  // Written regions per tensor: (stage, task, region).
  std::map<int, std::vector<std::tuple<int, int, Region>>> writes;
  std::map<std::tuple<int, int, int>, size_t> index;  // (instance, cluster, x) -> read
  std::map<int, int> first_stage;                     // instance -> its first stage
  std::vector<CrossingRead> reads;
  for (size_t si = 0; si < plan.stages.size(); ++si) {
    const int inst = stage_instance[si];
    if (inst >= 0 && !first_stage.count(inst)) first_stage[inst] = int(si);
    const std::vector<Task>& tasks = plan.stages[si].tasks;
    for (size_t ti = 0; ti < tasks.size(); ++ti) {
      const Task& t = tasks[ti];
      if (inst >= 0) {
        const int sg = s.instances[size_t(inst)].subgraph;
        const std::set<int> own(t.ops.begin(), t.ops.end());
        std::map<int, Region> need;
        for (int op : t.ops)
          for (int x : g.op(op).inputs) {
            if (x < 0 || g.tensor(x).is_param()) continue;
            const int p = g.tensor(x).producer;
            if (p < 0 || own.count(p) || p >= int(gr.subgraph_of_op.size()) ||
                gr.subgraph_of_op[size_t(p)] == sg)
              continue;
            if (need.empty()) need = task_needed_regions(g, t);
            const std::tuple<int, int, int> key{inst, cluster_of(t), x};
            auto it = index.find(key);
            if (it == index.end()) {
              it = index.emplace(key, reads.size()).first;
              CrossingRead r;
              r.tensor = x;
              r.subgraph = sg;
              r.instance = inst;
              r.cluster = cluster_of(t);
              r.first_stage = first_stage[inst];
              r.binding = t.placement.binding;
              reads.push_back(r);
            }
            CrossingRead& r = reads[it->second];
            r.need = r.need.empty() ? need.at(x) : region_union(r.need, need.at(x));
          }
      }
      for (int w : task_written_tensors(g, t))
        writes[w].emplace_back(int(si), int(ti), task_written_region(g, t, w));
    }
  }
  for (CrossingRead& r : reads) {
    for (const auto& [ws, wt, region] : writes[r.tensor]) {
      if (region_empty(region_intersect(region, r.need))) continue;
      if (ws >= r.first_stage)
        throw Error("GraphTurbo §3.5: tensor '" + g.tensor(r.tensor).name +
                    "' is written at stage " + std::to_string(ws) +
                    ", not before its consumer instance's first stage " +
                    std::to_string(r.first_stage));
      r.writers.emplace_back(ws, wt);
    }
  }
  return reads;
}

std::vector<std::pair<int, int>> concat_sites(const std::vector<CrossingRead>& reads) {
  std::set<std::pair<int, int>> sites;
  for (const CrossingRead& r : reads)
    if (r.writers.size() >= 2) sites.insert({r.tensor, r.subgraph});
  return {sites.begin(), sites.end()};
}

Graph with_concat_ops(const Graph& g, const std::vector<std::pair<int, int>>& sites,
                      const Grouping& gr, std::map<std::pair<int, int>, int>* concat_tensor) {
  Graph out = g;
  for (const auto& [x, sg] : sites) {
    std::vector<int> readers;
    for (int op : gr.subgraphs[size_t(sg)].ops)
      if (std::count(g.op(op).inputs.begin(), g.op(op).inputs.end(), x)) readers.push_back(op);
    if (readers.empty()) throw Error("GraphTurbo §3.5: no op of the sub-graph reads the tensor");
    const int first = *std::min_element(readers.begin(), readers.end());
    const int op = out.add_op(OpKind::Concat, g.op(first).name + ".concat." + g.tensor(x).name, {x},
                              {{"axis", int64_t{0}}});
    const int xc = out.op(op).outputs[0];
    for (int r : readers)
      for (int& in : out.op(r).inputs)
        if (in == x) in = xc;
    (*concat_tensor)[{x, sg}] = xc;
  }
  out.rebuild_links();
  return out;
}

std::vector<int64_t> written_binding(const Graph& g, const Task& t, int x, int cores) {
  if (task_primary_tensor(g, t) == x && t.placement.binding.size() == g.tensor(x).shape.size())
    return t.placement.binding;
  return plain_binding(region_shape(task_written_region(g, t, x)), cores);
}

PieceKind piece_kind(const Plan& plan, const MovementPiece& p, const std::string& local_level) {
  auto level = [](const Task& t, int x) {
    const auto it = t.scope.find(x);
    return it == t.scope.end() ? std::string() : it->second;
  };
  const Task& t = plan.stages[size_t(p.stage)].tasks[size_t(p.task)];
  const Task& w = plan.stages[size_t(p.writer.first)].tasks[size_t(p.writer.second)];
  const std::string src = level(w, p.tensor),
                    dst = p.kept ? local_level : level(t, p.concat_tensor);
  if (src != dst) return PieceKind::Copy;
  if (src == local_level && p.source_binding != p.inferred_binding)
    return PieceKind::Redistribution;
  return PieceKind::InPlace;
}

std::vector<int64_t> redistribution_binding(const std::vector<int64_t>& source,
                                            const std::vector<int64_t>& inferred) {
  if (source.size() != inferred.size())
    throw Error("GraphTurbo §3.5: a redistribution between bindings of rank " +
                std::to_string(source.size()) + " and " + std::to_string(inferred.size()));
  std::vector<int64_t> b(source.size());
  for (size_t d = 0; d < b.size(); ++d) b[d] = std::min(source[d], inferred[d]);
  return b;
}

void set_piece_bindings(const Plan& plan, std::vector<MovementPiece>& pieces,
                        const std::string& local_level) {
  for (MovementPiece& p : pieces)
    p.binding = piece_kind(plan, p, local_level) == PieceKind::Redistribution
                    ? redistribution_binding(p.source_binding, p.inferred_binding)
                    : p.source_binding;
}

MovementCounts count_movement(const Plan& plan, const std::vector<MovementPiece>& pieces,
                              const std::string& local_level, int cluster) {
  MovementCounts c;
  std::map<std::pair<int, int>, int> group_size;  // (instance, x) -> pieces
  for (const MovementPiece& p : pieces) {
    if (p.cluster != cluster) continue;
    ++c.pieces;
    ++group_size[{p.instance, p.tensor}];
    switch (piece_kind(plan, p, local_level)) {
      case PieceKind::Copy:
        ++c.copies;
        break;
      case PieceKind::Redistribution:
        ++c.redistributions;
        break;
      case PieceKind::InPlace:
        ++c.in_place;
        break;
    }
  }
  for (const auto& [key, n] : group_size) c.concats += n >= 2;
  return c;
}

}  // namespace dgs::graphturbo
