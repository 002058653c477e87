#include "reproductions/brickdl/experiments/evaluated.h"

#include "common/evaluate/evaluate.h"
#include "common/graph/subgraph.h"
#include "reproductions/brickdl/brick_plan.h"

namespace dgs::brickdl {

namespace {

EvaluationResult priced(const Graph& g, const Plan& p, const HardwareSpec& hw) {
  return evaluate(g, p, hw, {.gpu_fused_kernels = brickdl_fused_kernels()});
}

}  // namespace

EvaluationResult evaluate_cudnn(const Graph& g, const std::vector<int>& ops,
                                const HardwareSpec& hw) {
  const InducedSubgraph s = induced_subgraph(g, ops);
  return priced(s.graph, cudnn_baseline_plan(s.graph), hw);
}

EvaluationResult evaluate_merged(const Graph& g, const std::vector<std::vector<int>>& parts,
                                 MergeVariant v, int64_t edge, const HardwareSpec& hw) {
  std::vector<int> all;
  for (const std::vector<int>& p : parts) all.insert(all.end(), p.begin(), p.end());
  const InducedSubgraph s = induced_subgraph(g, all);
  std::vector<PlannedSubgraph> planned;
  for (const std::vector<int>& p : parts) {
    PlannedSubgraph ps{.ops = {}, .merged = true, .variant = v, .edge = edge};
    for (int o : p) ps.ops.push_back(s.op_index[size_t(o)]);
    planned.push_back(std::move(ps));
  }
  return priced(s.graph, brick_plan(s.graph, planned), hw);
}

}  // namespace dgs::brickdl
