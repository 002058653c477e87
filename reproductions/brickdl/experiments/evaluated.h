#pragma once
// The figures' schedules as plans, checked and priced by evaluate() (the suite's GPU model with
// BrickDL's kernels, brick_plan.h's brickdl_fused_kernels), beside BrickDL's own analytic model
// (perf_model.h). A case that covers only some ops of a graph (a ResNet-50 subgraph of Figs. 8-9)
// is a plan of the sub-graph of those ops (common/graph/subgraph.h: the tensors it reads from
// outside are its inputs, those read after it its outputs).
#include <cstdint>
#include <vector>

#include "common/hw/evaluation_result.h"
#include "common/hw/hardware_spec.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {

// cuDNN per brick unit (cudnn_baseline_plan) over `ops` of `g`.
EvaluationResult evaluate_cudnn(const Graph& g, const std::vector<int>& ops,
                                const HardwareSpec& hw);
// Each of `parts` (op lists of `g`, in order) merged as one subgraph of `edge`^n bricks of
// variant `v` (brick_plan: one fused task per part).
EvaluationResult evaluate_merged(const Graph& g, const std::vector<std::vector<int>>& parts,
                                 MergeVariant v, int64_t edge, const HardwareSpec& hw);

}  // namespace dgs::brickdl
