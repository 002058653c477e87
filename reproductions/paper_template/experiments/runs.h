#pragma once
// The runs the template's items share, computed once per process (RunCache, cli/run_cache.h):
// a run that two items need is computed by the first and read by the second.
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/hw/evaluation_result.h"

namespace dgs::paper_template {

// The zoo models of the experiments, or the one given with --model.
std::vector<std::string> evaluation_models(const ExperimentContext& ctx);

// The template scheduler's plan of `model` (batch 1) on the experiment's machine, checked and
// priced by evaluate(); cached per (model, machine config).
const EvaluationResult& template_run(const ExperimentContext& ctx, const std::string& model);

}  // namespace dgs::paper_template
