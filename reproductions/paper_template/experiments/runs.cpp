#include "reproductions/paper_template/experiments/runs.h"

#include <utility>

#include "cli/run_cache.h"
#include "common/evaluate/evaluate.h"
#include "common/scheduler/scheduler.h"
#include "models/zoo.h"
#include "reproductions/paper_template/schedulers.h"

namespace dgs::paper_template {

std::vector<std::string> evaluation_models(const ExperimentContext& ctx) {
  if (!ctx.options().model.empty()) return {ctx.options().model};
  return {"squeezenet", "resnet18"};
}

const EvaluationResult& template_run(const ExperimentContext& ctx, const std::string& model) {
  static RunCache<std::pair<std::string, std::string>, EvaluationResult> cache;
  const HardwareSpec& hw = ctx.hardware();
  return cache.get({model, hw.file}, [&] {
    ZooOptions opts;
    opts.dim_values = ctx.options().dims;
    const Graph g = load_model_at_batch(model, opts);
    const SchedulerList schedulers = paper_template_schedulers();
    const ScheduleResult r = run_scheduler(*schedulers.front(), g, hw);
    return evaluate(scheduled_graph(r, g), r.plan, hw, r.evaluation);
  });
}

}  // namespace dgs::paper_template
