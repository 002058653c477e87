// Evaluation dispatched on the hardware's kind.
#include "common/evaluate/evaluate.h"

#include <optional>
#include <string>

#include "common/dsamodel/dsa_model.h"
#include "common/evaluate/evaluate_prefix.h"
#include "common/evaluate/gpu_evaluation.h"
#include "common/evaluate/plan_target.h"
#include "common/graph/iteration_space.h"
#include "common/plan/plan_check.h"
#include "common/util/error.h"

namespace dgs {

namespace {

using Evaluator = EvaluationResult (*)(const Graph&, const Plan&, const HardwareSpec&,
                                       const EvaluationOptions&);

EvaluationResult evaluate_on_gpu(const Graph& g, const Plan& plan, const HardwareSpec& hw,
                                 const EvaluationOptions& options) {
  if (!hw.gpu) throw Error(hw.file + ": hardware of kind 'gpu' carries no GPU description");
  const PlanEvaluation e = evaluate_plan(g, plan, *hw.gpu, options.gpu_fused_kernels);
  return gpu_evaluation_result(e, plan, *hw.gpu);
}

EvaluationResult evaluate_on_dsa(const Graph& g, const Plan& plan, const HardwareSpec& hw,
                                 const EvaluationOptions&) {
  if (!hw.dsa) throw Error(hw.file + ": hardware of kind 'dsa' carries no DSA description");
  return evaluate_dsa_plan(g, plan, *hw.dsa);
}

struct KindEvaluator {
  std::string_view kind;
  Evaluator evaluate;
};

// One line per hardware kind that has a model.
constexpr KindEvaluator kEvaluators[] = {
    {"gpu", &evaluate_on_gpu},
    {"dsa", &evaluate_on_dsa},
};

// The model of hw.kind on a checked plan (or prefix).
EvaluationResult evaluate_checked(const Graph& g, const Plan& plan, const HardwareSpec& hw,
                                  const EvaluationOptions& options) {
  for (const KindEvaluator& e : kEvaluators)
    if (e.kind == hw.kind) return e.evaluate(g, plan, hw, options);
  return {};
}

}  // namespace

std::vector<std::string> evaluated_hardware_kinds() {
  std::vector<std::string> kinds;
  for (const KindEvaluator& e : kEvaluators) kinds.emplace_back(e.kind);
  return kinds;
}

bool has_evaluator(std::string_view kind) {
  for (const KindEvaluator& e : kEvaluators)
    if (e.kind == kind) return true;
  return false;
}

void require_evaluator(const HardwareSpec& hw) {
  if (has_evaluator(hw.kind)) return;
  std::string kinds;
  for (const std::string& k : evaluated_hardware_kinds()) kinds += (kinds.empty() ? "" : ", ") + k;
  throw Error(hw.file + ": no model evaluates hardware of kind '" + hw.kind +
              "' yet (kinds with a model: " + kinds + ")");
}

EvaluationResult evaluate(const Graph& g, const Plan& plan, const HardwareSpec& hw,
                          const EvaluationOptions& options) {
  require_evaluator(hw);
  const PlanTarget target = plan_target(hw);
  // The check and the model ask for the same tasks' regions: one memo of iteration spaces.
  std::optional<IterationSpaceMemo> spaces;
  if (!IterationSpaceMemo::active(g)) spaces.emplace(g);
  plan.check(g, &target);
  return evaluate_checked(g, plan, hw, options);
}

EvaluationResult evaluate_prefix(const Graph& g, const Plan& plan, size_t stages,
                                 const HardwareSpec& hw, const EvaluationOptions& options) {
  if (stages > plan.stages.size())
    throw Error("plan '" + plan.scheduler + "' of graph '" + g.name + "': a prefix of " +
                std::to_string(stages) + " stages, but the plan has " +
                std::to_string(plan.stages.size()));
  require_evaluator(hw);
  Plan prefix = plan;
  prefix.stages.resize(stages);
  const PlanTarget target = plan_target(hw);
  check_plan_prefix(g, prefix, &target);
  return evaluate_checked(g, prefix, hw, options);
}

}  // namespace dgs
