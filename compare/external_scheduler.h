#pragma once
// Schedulers from outside the suite, compared beside the registered ones (README, "Your own
// scheduler"):
//
//   --scheduler cmd:PATH [--scheduler-arg ARG]...   a program of your own
//   --plan NAME=FILE                                 a plan file you wrote
//
// The program's protocol. For each (model, hardware) pair the suite makes a work folder
// <out>/.compare_work/<graph>@<hw name>@<name>/ (hidden beside the reports) and writes there
//   graph.onnx   the model (weight-free ONNX, opset 17; save_onnx_file, common/onnx/onnx_io.h)
//   hw.json      the hardware config (hw_configs/*.json format, any kind)
// then runs
//   PATH --graph <work>/graph.onnx --hw <work>/hw.json --out <work>/plan.json [ARG...]
// in the work folder, with standard output and error to <work>/log.txt, under a time limit
// (--scheduler-timeout, default 60 s; the program's process group is killed when it passes). The
// program writes its plan as JSON (common/plan/plan.schema.json; ops and tensors by name) to
// --out and exits 0. Exit status 3 means "this graph or machine is not mine to schedule": the
// comparison lists it as not applicable, with the last line of its output as the reason. Any
// other failure (another exit status, a signal, the time limit, no plan file, an invalid plan) is
// one line naming the scheduler, and the rest of the table still comes out.
//
// Both kinds are priced by evaluate(); Fused tasks on a GPU under GENERIC_FUSED_KERNEL_RULE
// (common/evaluate/generic_fused_kernel.h), which the row's note names.
#include <memory>
#include <string>
#include <vector>

#include "common/scheduler/scheduler.h"

namespace dgs {

// The exit status by which an external scheduler declines a graph or machine.
inline constexpr int kExternalNotApplicableStatus = 3;

// `spec` is the text after "cmd:" (the program's path). Its name is "cmd:<file name>".
// `work_root`: the folder the work folders go under.
std::unique_ptr<Scheduler> make_external_scheduler(const std::string& program,
                                                   std::vector<std::string> args, double timeout_s,
                                                   std::string work_root);

// "NAME=FILE" -> a scheduler named NAME that reads FILE (the same plan for every pair; a pair
// whose graph the plan does not fit fails in one line). Throws UsageError for a bad spec.
std::unique_ptr<Scheduler> make_plan_file_scheduler(const std::string& spec);

}  // namespace dgs
