// plan_eval: evaluates a schedule written by any scheduler (a dgs::Plan as JSON, see
// common/plan/plan.h) on a zoo network or an ONNX file, with the suite's GPU performance model,
// so that your own scheduler can be compared with the published ones on the same workloads and
// hardware models.
//
//   plan_eval --model NAME|FILE.onnx --plan PLAN.json [--hw NAME|FILE.json] [--batch N]
//             [--csv] [--write-sequential FILE.json]
//
// Sequential and Merged tasks use the GPU model's per-operator kernel rules (common/gpumodel).
// A Fused task runs as one kernel under GENERIC_FUSED_KERNEL_RULE below: the paper reproductions
// model their own fused kernels (Welder from its tile traffic); a plan from outside gets this
// stated, scheduler-independent rule. `--write-sequential` writes the one-op-per-stage plan of the
// model, a starting point for writing plans by hand.
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>

#include "common/gpumodel/gpu_model.h"
#include "common/graph/op_cost.h"
#include "common/hw/hardware.h"
#include "common/plan/plan.h"
#include "common/report/report.h"
#include "common/util/resources.h"
#include "models/zoo.h"

namespace po = boost::program_options;

namespace {

// GENERIC_FUSED_KERNEL_RULE: a fused task is one kernel with the launch shape (grid, threads,
// registers, shared memory, math unit, class) of its most expensive op's kernel, the FLOPs of all
// its ops, and DRAM traffic equal to the group's external traffic (dgs::group_cost: tensors read
// from or written to outside the group once each; intermediates stay on chip). It ignores tile
// re-reads and on-chip capacity: an optimistic bound for any fusion.
std::vector<dgs::KernelLaunch> generic_fused_kernel(const dgs::Graph& g, const dgs::Task& task,
                                                    const dgs::GpuSpec& spec) {
  dgs::KernelLaunch best;
  double best_flops = -1;
  double flops = 0;
  for (int op : task.ops) {
    for (const dgs::KernelLaunch& k : dgs::kernels_for_op(g, op, spec)) {
      flops += k.flops;
      if (k.flops > best_flops) {
        best_flops = k.flops;
        best = k;
      }
    }
  }
  if (best_flops < 0) return {};  // only layout ops: no kernel
  const dgs::OpCost c = dgs::group_cost(g, task.ops);
  best.name = "fused(" + std::to_string(task.ops.size()) + " ops)";
  best.flops = flops;
  best.dram_bytes = static_cast<double>(c.bytes_read + c.bytes_written);
  best.l2_bytes = best.dram_bytes;
  best.ops = task.ops;
  return {best};
}

dgs::Plan sequential_plan(const dgs::Graph& g) {
  dgs::Plan p;
  p.scheduler = "Sequential (one op per stage)";
  p.graph = g.name;
  for (int op : g.topo_order()) {
    dgs::Task t;
    t.kind = dgs::TaskKind::Sequential;
    t.ops = {op};
    t.placement = 0;
    p.stages.push_back(dgs::Stage{{t}});
  }
  return p;
}

int run(int argc, char** argv) {
  std::string model, plan_file, hw = "v100", write_seq;
  int64_t batch = 1;
  bool csv = false;
  po::options_description desc("plan_eval options");
  desc.add_options()("help", "show this help")("model", po::value(&model), "zoo name or ONNX file")(
      "plan", po::value(&plan_file), "plan JSON (common/plan/plan.h)")(
      "hw", po::value(&hw), "GPU config: built-in name or JSON file (default v100)")(
      "batch", po::value(&batch), "batch size of a zoo model (default 1)")(
      "csv", po::bool_switch(&csv), "print CSV instead of a table")(
      "write-sequential", po::value(&write_seq),
      "write the model's one-op-per-stage plan to this file and exit");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "error: " << e.what() << " (see --help)\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (model.empty()) {
    std::cerr << "error: --model is required (a zoo name or an ONNX file; see --help)\n";
    return 2;
  }
  if (plan_file.empty() && write_seq.empty()) {
    std::cerr << "error: --plan is required (or --write-sequential FILE; see --help)\n";
    return 2;
  }
  dgs::Graph g;
  dgs::GpuSpec spec;
  try {
    dgs::ZooOptions zo;
    zo.batch = batch;
    g = dgs::load_model(model, zo);
    spec = dgs::load_gpu_spec(hw);
  } catch (const dgs::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  if (!write_seq.empty()) {
    dgs::write_file_atomic(write_seq, dgs::plan_to_json(sequential_plan(g), g));
    std::cout << "wrote " << write_seq << "\n";
    return 0;
  }
  dgs::Plan plan;
  try {
    plan = dgs::plan_from_json(dgs::read_file(plan_file), g, plan_file);
    plan.check(g);
  } catch (const dgs::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  const dgs::PlanEvaluation ev = dgs::evaluate_plan(g, plan, spec, generic_fused_kernel);
  const dgs::PlanEvaluation seq = dgs::evaluate_plan(g, sequential_plan(g), spec);
  dgs::Table t({"plan", "scheduler", "stages", "tasks", "kernels", "latency_ms", "sync_ms",
                "dram_mib", "avg_active_warps_per_sm", "speedup_vs_sequential"});
  auto row = [&](const std::string& name, const dgs::Plan& p, const dgs::PlanEvaluation& e) {
    t.add_row({name, p.scheduler, static_cast<int64_t>(p.stages.size()),
               static_cast<int64_t>(p.num_tasks()), e.kernels, e.latency_us / 1000,
               e.sync_us / 1000, e.dram_bytes / (1024.0 * 1024.0), e.avg_active_warps_per_sm,
               seq.latency_us / e.latency_us});
  };
  row("yours", plan, ev);
  row("sequential", sequential_plan(g), seq);
  if (csv) {
    std::cout << dgs::to_csv(t);
  } else {
    dgs::print_table(std::cout, g.name + " on " + spec.name + " (GPU model)", t);
    std::cout << "fused tasks: GENERIC_FUSED_KERNEL_RULE (one kernel, external traffic only; "
                 "see common/tools/plan_eval.cpp)\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const dgs::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
