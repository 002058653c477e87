#pragma once
// Evaluating the first stages of a plan (a prefix) on the whole graph: checked by
// check_plan_prefix (common/plan/plan_check.h: Plan::check's rules except that every op is
// computed whole) against the hardware, then priced by the model of its kind, as evaluate() does.
// Prefixes of growing length give the model's running totals at each cut (a per-stage latency or
// utilisation, from differences); a prefix may end inside the instances of an op.
#include <cstddef>

#include "common/evaluate/evaluate.h"

namespace dgs {

// The first `stages` stages of `plan` (a plan of `g`), checked as a prefix against `hw` and
// evaluated with the model of hw.kind. With every stage, it gives what evaluate() gives for a
// valid plan. Throws dgs::Error (one line) when `stages` exceeds the plan's, for an invalid prefix
// (e.g. a task that reads what no earlier stage writes), a kind without a model, or what the model
// throws.
EvaluationResult evaluate_prefix(const Graph& g, const Plan& plan, size_t stages,
                                 const HardwareSpec& hw, const EvaluationOptions& options = {});

}  // namespace dgs
