#pragma once
// The comparison across papers (repro_compare): every scheduler on every (model, hardware) pair,
// each plan checked and priced by evaluate(), one row per (model, hardware, scheduler).
//
// A work item is one (model, hardware, scheduler) triple, keyed "<model>@<hw>@<scheduler>"; its
// outcome is a ComparisonRow of raw values (what the scheduler and the model reported). The table,
// the figures and the summary are computed from all rows at once (speedups over the hardware's
// baseline and ranks need the other rows of the same model and machine), by the same code in a
// single run and in the merge of a sharded one, so both write the same files.
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/hardware_spec.h"
#include "common/report/report.h"
#include "common/scheduler/scheduler.h"

namespace dgs {

// The baseline every speedup is over: the suite's reference schedule of every hardware kind.
inline constexpr const char* kComparisonBaseline = "sequential";

struct ComparisonRow {
  std::string model;      // the --model argument (zoo name or file)
  int64_t batch = 1;      // --batch
  std::string hw;         // the --hw argument
  std::string hw_kind;    // "gpu", "dsa"
  std::string scheduler;  // its registered name
  std::string paper;      // Scheduler::paper()
  // "ok", "not applicable: <why>" (the scheduler cannot target this graph or machine), or
  // "failed: <why>" (it threw, or its plan is invalid, or the model refused it).
  std::string status;
  // Priced by evaluate() (NaN when status is not "ok"; energy NaN when the model has none).
  double latency_us = 0;
  double energy_pj = 0;
  double main_memory_bytes = 0;  // the machine's main memory level (GPU: dram; DSA: its last)
  double on_chip_bytes = 0;      // every other level the model counts (host excepted)
  double peak_buffer_bytes = 0;  // the model's peak on-chip buffer use (NaN if not reported)
  int64_t stages = 0, tasks = 0, kernels = 0;
  SearchReport search;    // seconds (run-varying), states, candidates, note
  double evaluate_s = 0;  // wall time of evaluate() (run-varying)
  std::string run_plan;   // the CPU reference check: "passed (N outputs)", "not run: <why>", ...
  // --mode measured: the plan's forward pass on the live GPU (median, CUDA events; NaN if not
  // run) and what happened ("on NVIDIA H200", "not run on the GPU: <why>"); "" in model mode.
  double measured_ms = 0;
  std::string measured;
  std::string plan_file;  // the plan written, relative to the comparison folder ("" if none)
};

nlohmann::json row_to_json(const ComparisonRow& r);
// Throws dgs::Error naming `origin` when `j` is not a row.
ComparisonRow row_from_json(const nlohmann::json& j, const std::string& origin);

// `text` as a file or folder name (a work item's key, for plans/<key>.json and work folders):
// characters outside [A-Za-z0-9._@-] become '_'.
std::string safe_file_stem(const std::string& text);

// What one item needs besides its triple.
struct ComparisonSettings {
  std::map<std::string, std::string> options;  // this scheduler's options (name -> text)
  // run_plan against the CPU reference when the graph has at most this many GFLOP (multiply-add =
  // 2); larger models are not run on the reference (the row says so).
  double reference_limit_gflop = 1.0;
  uint64_t seed = 1;  // the reference check's random inputs
  // A model over the limit is checked on this stated subset instead, when given: the same model
  // at a smaller input (reduced_reference_model), scheduled again by the same scheduler, its
  // plan run on the reference. `subset_label` names it in the row ("resnet50 at 64x64").
  const Graph* subset = nullptr;
  std::string subset_label;
};

// The same zoo model at the largest input of a fixed ladder (images 112, 64, 32, 16; sequences
// 64, 32, 16, 8; batch 1) with at most `limit_gflop` GFLOP (repro_compare's
// --reference-subset-gflop), for the reference check of a model
// over the limit; nullopt for an ONNX file or when no rung of the ladder builds under the limit.
// `label` receives "<model> at <image>x<image>, batch 1" or "<model> at sequence <n>, batch 1".
std::optional<Graph> reduced_reference_model(const std::string& model, double limit_gflop,
                                             std::string* label);

// The files of one row: its plan (JSON), and the graph it schedules (ONNX bytes) when the
// scheduler rewrote the input graph (added ops; ScheduleResult::graph); empty when none.
struct ComparisonFiles {
  std::string plan_json;
  std::string graph_onnx;
};

// Called with the scheduled graph and the plan of a row that was priced (measured mode runs it on
// the GPU and fills the row's measured fields).
using AfterPricing = std::function<void(const Graph&, const ScheduleResult&, ComparisonRow*)>;

// Runs `s` on (g, hw) through run_scheduler, prices the plan with evaluate(), checks it on the CPU
// reference when small enough, and returns the row (never throws for the scheduler's or the
// model's errors: they become the row's status). `files` receives the plan and, for a rewritten
// graph, that graph.
ComparisonRow compare_one(const Scheduler& s, const std::string& model, int64_t batch,
                          const Graph& g, const std::string& hw_arg, const HardwareSpec& hw,
                          const ComparisonSettings& settings, ComparisonFiles* files,
                          const AfterPricing& after_pricing = {});

// The table of all rows, in the order given: the raw values plus the speedup over the baseline
// (kComparisonBaseline) of the same model and machine, and the rank by latency among that pair's
// priced rows (1 = fastest; ties share the lower rank).
Table comparison_table(const std::vector<ComparisonRow>& rows);

// One figure per machine: grouped bars (models along x, one bar per scheduler), the speedup over
// the baseline, on a log axis when the speedups span more than a factor of 10. Keyed by hw.
std::vector<std::pair<std::string, std::string>> comparison_figures(
    const std::vector<ComparisonRow>& rows);

// Which scheduler wins where: one line per (model, machine) with the fastest and its speedup, then
// per scheduler how many pairs it won, was applicable to, and failed on.
std::string comparison_summary(const std::vector<ComparisonRow>& rows);

}  // namespace dgs
