// plan_eval: evaluates a schedule written by any scheduler (a dgs::Plan as JSON, see
// common/plan/plan.h) on a zoo network or an ONNX file, with the suite's model of the hardware
// config's kind (common/evaluate; the GPU performance model for kind "gpu", the accelerator model
// common/dsamodel for kind "dsa", e.g. --hw stcp920 or --hw atomic_mesh), so that your own
// scheduler can be compared with the published ones on the same workloads and hardware models.
// It prints the result every model reports: latency, bytes per memory level, busy time per unit,
// energy per component where the model has it, and the model's own figures.
//
//   plan_eval --model NAME|FILE.onnx [--plan PLAN.json] [--hw NAME|FILE.json] [--batch N]
//             [--dim NAME=N]...
//             [--csv] [--check [--seed N]] [--write-sequential FILE.json]
//
// Plans are read in format version 2 (common/plan/plan.schema.json) or version 1, and checked
// against the graph and the hardware (Plan::check: every op placed, written regions tiling their
// tensors, reads from earlier stages, levels and units the machine has). --check runs the plan on
// the CPU reference executor (run_plan, region by region) and compares the graph's outputs with
// the unscheduled graph on random inputs (seed --seed): the correctness check of a scheduler, for
// any plan, including those the hardware model cannot price (regions, partial sums on a GPU).
//
// On a GPU config, Sequential and Merged tasks use the GPU model's per-operator kernel rules
// (common/gpumodel). A Fused task runs as one kernel under GENERIC_FUSED_KERNEL_RULE
// (common/evaluate/generic_fused_kernel.h): the
// paper reproductions model their own fused kernels (e.g. from their tile traffic); a plan from
// outside gets this stated, scheduler-independent rule. `--write-sequential` writes the
// one-op-per-stage plan of the model, a starting point for writing plans by hand (on a DSA: every
// op split over all cores or engines, tiled to fit, dgs::layer_split_test_plan); the results are
// printed beside those of that plan.
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>

#include "cli/cli.h"
#include "common/evaluate/evaluate.h"
#include "common/evaluate/generic_fused_kernel.h"
#include "common/evaluate/plan_target.h"
#include "common/exec/plan_exec.h"
#include "common/gpumodel/gpu_model.h"
#include "common/hw/hardware_spec.h"
#include "common/plan/plan.h"
#include "common/report/report.h"
#include "common/scheduler/scheduler.h"
#include "common/util/resources.h"
#include "models/zoo.h"

namespace po = boost::program_options;

namespace {

struct EvaluatedPlan {
  std::string label;  // "yours", "sequential"
  const dgs::Plan* plan;
  const dgs::EvaluationResult* result;
};

// Names in the order the first result lists them, then any the others add.
std::vector<std::string> names_of(const std::vector<EvaluatedPlan>& plans,
                                  dgs::NamedValues dgs::EvaluationResult::*values) {
  std::vector<std::string> names;
  for (const EvaluatedPlan& p : plans)
    for (const dgs::NamedValue& v : p.result->*values)
      if (std::find(names.begin(), names.end(), v.name) == names.end()) names.push_back(v.name);
  return names;
}

// One row per plan: the counts, the latency, bytes per memory level (MiB), how many units of each
// kind are busy on average (busy time / latency), energy per component (uJ), the model's own
// figures, and the speedup over the last plan (the sequential one).
dgs::Table result_table(const std::vector<EvaluatedPlan>& plans) {
  using R = dgs::EvaluationResult;
  const std::vector<std::string> levels = names_of(plans, &R::bytes_by_level);
  const std::vector<std::string> units = names_of(plans, &R::busy_us_by_unit);
  const std::vector<std::string> components = names_of(plans, &R::energy_pj_by_component);
  const std::vector<std::string> details = names_of(plans, &R::details);
  std::vector<std::string> columns = {"plan",  "scheduler", "stages",
                                      "tasks", "kernels",   "latency_ms"};
  for (const std::string& l : levels) columns.push_back(l + "_mib");
  for (const std::string& u : units) columns.push_back("avg_busy_" + u);
  for (const std::string& c : components) columns.push_back(c + "_uj");
  for (const std::string& d : details) columns.push_back(d);
  columns.push_back("speedup_vs_sequential");
  dgs::Table t(columns);
  const double base_us = plans.back().result->latency_us;
  for (const EvaluatedPlan& p : plans) {
    const R& r = *p.result;
    std::vector<dgs::Cell> row = {p.label, p.plan->scheduler, r.stages,
                                  r.tasks, r.kernels,         r.latency_us / 1000};
    // A value the model did not report for this plan is an empty cell, not 0.
    auto add = [&](const dgs::NamedValues& values, const std::string& name, double divisor) {
      if (dgs::has_value(values, name))
        row.emplace_back(dgs::value_of(values, name) / divisor);
      else
        row.emplace_back(dgs::Missing{});
    };
    for (const std::string& l : levels) add(r.bytes_by_level, l, 1024.0 * 1024.0);
    for (const std::string& u : units) add(r.busy_us_by_unit, u, r.latency_us);
    for (const std::string& c : components) add(r.energy_pj_by_component, c, 1e6);
    for (const std::string& d : details) add(r.details, d, 1.0);
    row.emplace_back(base_us / r.latency_us);
    t.add_row(std::move(row));
  }
  return t;
}

// The links of an interconnect that carried the most bytes (EvaluationResult::bytes_by_link),
// at most five, busiest first: "links (yours): 12 used; busiest link (0,0)->(1,0) 64 KiB, ...".
void print_busiest_links(std::ostream& os, const std::string& label,
                         const dgs::EvaluationResult& r) {
  if (r.bytes_by_link.empty()) return;
  std::vector<dgs::NamedValue> links = r.bytes_by_link;
  std::stable_sort(
      links.begin(), links.end(),
      [](const dgs::NamedValue& a, const dgs::NamedValue& b) { return a.value > b.value; });
  os << "links (" << label << "): " << links.size() << " used; busiest";
  for (size_t i = 0; i < links.size() && i < 5; ++i)
    os << (i ? ", " : " ") << links[i].name << " " << links[i].value / 1024 << " KiB";
  os << "\n";
}

int run(int argc, char** argv) {
  std::string model, plan_file, hw = "v100", write_seq;
  int64_t batch = 1;
  std::string seed_text = "1";
  bool csv = false, check = false;
  po::options_description desc("plan_eval options");
  desc.add_options()("help", "show this help")("model", po::value(&model), "zoo name or ONNX file")(
      "plan", po::value(&plan_file),
      "plan JSON (common/plan/plan.h); without it, the default plan of the hardware's kind")(
      "hw", po::value(&hw),
      "hardware config of a kind with a model: built-in name or JSON file (default v100)")(
      "batch", po::value(&batch),
      "batch size of a zoo model or of an ONNX file's symbolic batch dimension (default 1)")(
      "dim", po::value<std::vector<std::string>>(),
      "NAME=N: value of a symbolic dimension of an ONNX file (repeatable)")(
      "csv", po::bool_switch(&csv), "print CSV instead of a table")(
      "check", po::bool_switch(&check),
      "run the plan on the CPU reference executor and compare with the unscheduled graph")(
      "seed", po::value(&seed_text), "seed of --check's random inputs (default 1)")(
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

  dgs::Graph g;
  dgs::HardwareSpec hardware;
  uint64_t seed = 1;
  std::string flag = "--seed";  // the flag an error is about
  try {
    seed = dgs::parse_seed(seed_text);
    flag = "--dim";
    dgs::ZooOptions zo;
    zo.batch = batch;
    if (vm.count("dim")) {
      for (const std::string& d : vm["dim"].as<std::vector<std::string>>()) {
        dgs::add_dim_flag(d, &zo.dim_values);
      }
    }
    flag = "--model";
    g = dgs::load_model(model, zo);
    flag = "--hw";
    hardware = dgs::load_hardware(hw);
    dgs::require_evaluator(hardware);
  } catch (const dgs::Error& e) {
    const std::string what = e.what();
    // A message that already starts with its flag ("--dim sequence=0: ...") is not prefixed again.
    std::cerr << "error: " << (what.rfind(flag, 0) == 0 ? "" : flag + ": ") << what << "\n";
    return 2;
  }
  if (!write_seq.empty()) {
    dgs::write_file_atomic(write_seq, dgs::plan_to_json(dgs::sequential_plan(g, hardware), g));
    std::cout << "wrote " << write_seq << "\n";
    return 0;
  }
  dgs::Plan plan;
  const dgs::PlanTarget target = dgs::plan_target(hardware);
  try {
    if (plan_file.empty()) {
      // No plan: the model's own plan for this kind of hardware (the sequential one).
      plan = dgs::sequential_plan(g, hardware);
      if (!csv)  // the CSV's row "default" and its scheduler column say it
        std::cout << "no --plan: evaluating the default plan for " << hardware.name << " ("
                  << plan.scheduler << ")\n";
    } else {
      plan = dgs::plan_from_json(dgs::read_file(plan_file), g, plan_file);
    }
    plan.check(g, check ? nullptr : &target);  // --check: the hardware is checked below
  } catch (const dgs::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  if (check) {
    const dgs::PlanComparison c = dgs::compare_plan_with_reference(g, plan, seed);
    std::cout << "run_plan (CPU reference, seed " << seed << "): " << c.str() << "\n";
    if (!c.passed) return 1;
    try {
      plan.check(g, &target);
    } catch (const dgs::Error& e) {  // a plan for other hardware: checked, not priced here
      std::cout << "not priced: " << e.what() << "\n";
      return 0;
    }
  }
  if (hardware.kind == "gpu") {
    // A plan with regions or partial sums is only checked on a GPU (the model's own rule).
    if (const std::string why = dgs::gpu_model_refusal(g, plan); !why.empty()) {
      if (check) {
        std::cout << "not priced: " << why << "\n";
        return 0;
      }
      std::cerr << "error: " << why << "; --check runs it on the CPU reference\n";
      return 2;
    }
  }
  dgs::EvaluationOptions options;
  options.gpu_fused_kernels = dgs::generic_fused_kernel;
  dgs::Plan sequential = dgs::sequential_plan(g, hardware);
  sequential.options = plan.options;  // the same kernel options as the plan evaluated
  const dgs::EvaluationResult ev = dgs::evaluate(g, plan, hardware, options);
  const dgs::EvaluationResult seq = dgs::evaluate(g, sequential, hardware);
  const dgs::Table t =
      plan_file.empty() ? result_table({{"default", &plan, &ev}})
                        : result_table({{"yours", &plan, &ev}, {"sequential", &sequential, &seq}});
  if (csv) {
    std::cout << dgs::to_csv(t);
  } else {
    dgs::print_table(std::cout, g.name + " on " + hardware.name + " (" + ev.evaluator + ")", t);
    if (hardware.kind == "gpu")
      std::cout << "fused tasks: GENERIC_FUSED_KERNEL_RULE (one kernel, external traffic only; "
                   "see common/evaluate/generic_fused_kernel.h)\n";
    print_busiest_links(std::cout, plan_file.empty() ? "default" : "yours", ev);
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
