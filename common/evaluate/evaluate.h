#pragma once
// Evaluating a plan on a machine of any kind: evaluate() dispatches on the hardware's kind to the
// model of that kind and returns the result every model reports (EvaluationResult,
// common/hw/evaluation_result.h). Kinds with a model: "gpu" (the GPU performance model,
// common/gpumodel) and "dsa" (the accelerator model, common/dsamodel). A kind whose model does not
// exist yet is refused in one line.
#include <string>
#include <string_view>
#include <vector>

#include "common/gpumodel/gpu_model.h"
#include "common/graph/graph.h"
#include "common/hw/evaluation_result.h"
#include "common/hw/hardware_spec.h"
#include "common/plan/plan.h"

namespace dgs {

// What the models take besides the graph, the plan and the hardware; each model reads its own.
// (The plan's own ExecutionOptions select the GPU model's operator -> kernel options.)
struct EvaluationOptions {
  // GPU model: the kernels of a Fused task (required when the plan has one; see FusedKernelFn).
  FusedKernelFn gpu_fused_kernels;
};

// The hardware kinds that have a model ("gpu", "dsa").
std::vector<std::string> evaluated_hardware_kinds();

// Whether a model evaluates hardware of this kind.
bool has_evaluator(std::string_view kind);

// Throws dgs::Error "<file>: no model evaluates hardware of kind '<kind>' yet (kinds with a
// model: gpu)" unless has_evaluator(hw.kind).
void require_evaluator(const HardwareSpec& hw);

// Checks `plan` against `hw` (Plan::check with plan_target(hw): its levels and units exist) and
// evaluates it with the model of hw.kind. Throws dgs::Error (one line) for an invalid plan, a kind
// without a model, or what the model throws.
EvaluationResult evaluate(const Graph& g, const Plan& plan, const HardwareSpec& hw,
                          const EvaluationOptions& options = {});

}  // namespace dgs
