#include "reproductions/brickdl/network_model.h"

#include <set>

namespace dgs::brickdl {

NetworkSchedule schedule_network(const Graph& g, const GpuSpec& spec,
                                 std::optional<MergeVariant> force) {
  NetworkSchedule s;
  const std::vector<Subgraph> parts =
      partition_graph(g, static_cast<double>(spec.l2_bytes), spec.sm_count);
  std::vector<int> part_of(static_cast<size_t>(g.num_ops()), -1);
  for (size_t p = 0; p < parts.size(); ++p)
    for (int op : parts[p].ops) part_of[static_cast<size_t>(op)] = static_cast<int>(p);
  for (const Subgraph& sub : parts) {
    NetworkPart part{.subgraph = sub, .analysis = {}, .variant = MergeVariant::Memoized};
    if (sub.merged) {
      part.analysis = analyze_subgraph(g, sub.ops, sub.brick.edge);
      part.variant = force ? *force : part.analysis.choice;
    }
    s.parts.push_back(std::move(part));
  }
  auto merged = [&](int op) {
    return parts[static_cast<size_t>(part_of[static_cast<size_t>(op)])].merged;
  };
  // Layout conversions: every activation that crosses between a merged subgraph and a cuDNN one
  // (or enters a merged subgraph from the network's input) is converted once.
  std::set<int> converted;
  for (int op = 0; op < g.num_ops(); ++op) {
    const bool merged_here = merged(op);
    for (int t : g.op(op).inputs) {
      if (t < 0 || g.tensor(t).is_param()) continue;
      const int prod = g.tensor(t).producer;
      const bool merged_there = prod >= 0 && merged(prod);
      if (merged_here != merged_there && (merged_here || prod >= 0)) converted.insert(t);
    }
  }
  for (int t : g.output_tensors()) {  // merged results back to the framework's layout
    const int prod = g.tensor(t).producer;
    if (prod >= 0 && merged(prod)) converted.insert(t);
  }
  s.converted.assign(converted.begin(), converted.end());
  return s;
}

NetworkPricing price_network(const Graph& g, const NetworkSchedule& s, const GpuSpec& spec) {
  NetworkPricing r;
  r.cudnn = price_cudnn(g, g.topo_order(), spec);
  for (const NetworkPart& p : s.parts) {
    if (!p.subgraph.merged) {
      r.brickdl += price_cudnn(g, p.subgraph.ops, spec);
      r.cudnn_subgraphs += 1;
      continue;
    }
    r.brickdl += price_merged(g, p.analysis, p.variant, spec);
    r.merged_subgraphs += 1;
    r.padded += p.variant == MergeVariant::Padded;
  }
  for (int t : s.converted) r.brickdl += price_brick_conversion(g, t, spec);
  r.conversions = static_cast<int>(s.converted.size());
  r.cudnn.finish(spec);
  r.brickdl.finish(spec);
  return r;
}

}  // namespace dgs::brickdl
