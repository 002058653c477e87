// Table 1 of the template: each model's latency under the template scheduler's plan, priced by
// the shared model of the machine's kind through evaluate().
#include <cstdint>

#include "reproductions/paper_template/experiments/experiments.h"
#include "reproductions/paper_template/experiments/runs.h"

namespace dgs::paper_template {

void run_table1(ExperimentContext& ctx) {
  const HardwareSpec& hw = ctx.hardware();
  Table t({"model", "latency_ms", "stages", "kernels"});
  for (const std::string& model : evaluation_models(ctx)) {
    const EvaluationResult& r = template_run(ctx, model);
    t.add_row({model, r.latency_us / 1e3, r.stages, r.kernels});
  }
  ctx.emit_table(
      "Table 1 - template scheduler, one operator per stage (model mode, " + hw.name + ")", t);
  ctx.note("model mode: every plan checked and priced by evaluate() with the " + hw.kind +
           " model of " + hw.file + "; the template has no paper values, so no claims");
}

}  // namespace dgs::paper_template
