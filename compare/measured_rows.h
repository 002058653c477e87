#pragma once
// repro_compare --mode measured: each priced GPU row's plan run on the live GPU by the stage
// executor (common/cuda/stage_executor.h: cuDNN, cuBLASLt and the suite's kernels, each task of a
// stage on its own stream), its forward pass timed with CUDA events (the executor's timing
// protocol: warm-up, median of repeats), beside the model's latency for the same plan. The stage
// executor runs whole-tensor Sequential and Merged tasks; a plan with Fused tasks (Welder's
// kernels, BrickDL's bricks), regions or partial sums is not run, and its row says so. The
// machine rows of a DSA config are not run (no accelerator to run them on).
#include <map>
#include <memory>
#include <string>

#include "common/graph/graph.h"
#include "common/hw/hardware_spec.h"
#include "common/scheduler/scheduler.h"
#include "compare/comparison.h"

namespace dgs {

class MeasuredRows {
 public:
  // `device`: the live GPU's name, for the rows.
  explicit MeasuredRows(std::string device);
  ~MeasuredRows();
  // Why the plan cannot run on the GPU ("" when it can).
  static std::string why_not_runnable(const HardwareSpec& hw, const Plan& plan);
  // Runs and times the plan of `row` (graph `g`), filling row->measured_ms and row->measured.
  void measure(const Graph& g, const HardwareSpec& hw, const ScheduleResult& r, ComparisonRow* row);

 private:
  struct Executors;
  std::string device_;
  std::unique_ptr<Executors> executors_;  // one stage executor per graph, made on first use
};

}  // namespace dgs
