#include "compare/measured_rows.h"

#include <limits>

#include "common/cuda/stage_executor.h"

namespace dgs {

struct MeasuredRows::Executors {
  std::map<std::string, std::unique_ptr<gpu::StageExecutor>> by_graph;  // keyed by graph name
};

MeasuredRows::MeasuredRows(std::string device)
    : device_(std::move(device)), executors_(std::make_unique<Executors>()) {}

MeasuredRows::~MeasuredRows() = default;

std::string MeasuredRows::why_not_runnable(const HardwareSpec& hw, const Plan& plan) {
  if (hw.kind != "gpu") return "a " + hw.kind + " config (no such device here)";
  for (const Stage& st : plan.stages)
    for (const Task& t : st.tasks) {
      if (t.kind == TaskKind::Fused)
        return "it has fused tasks (the stage executor runs sequential and merged tasks)";
      if (!t.regions.empty() || t.reduction.active())
        return "it has tasks computing regions or partial sums (the stage executor runs whole "
               "operators)";
    }
  return "";
}

void MeasuredRows::measure(const Graph& g, const HardwareSpec& hw, const ScheduleResult& r,
                           ComparisonRow* row) {
  row->measured_ms = std::numeric_limits<double>::quiet_NaN();
  if (const std::string why = why_not_runnable(hw, r.plan); !why.empty()) {
    row->measured = "not run on the GPU: " + why;
    return;
  }
  try {
    std::unique_ptr<gpu::StageExecutor>& exec = executors_->by_graph[g.name];
    if (!exec || exec->graph().num_ops() != g.num_ops())
      exec = std::make_unique<gpu::StageExecutor>(g);
    row->measured_ms = exec->measure(r.plan, /*per_stage=*/false).network_ms;
    row->measured =
        "on " + device_ + (hw.name == device_ ? "" : " (the model priced " + hw.name + ")");
  } catch (const std::exception& e) {
    row->measured = std::string("failed on the GPU: ") + e.what();
  }
}

}  // namespace dgs
