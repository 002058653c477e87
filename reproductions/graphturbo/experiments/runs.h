#pragma once
// The ten configurations of Table 2 and their runs on the STCP920 DSA model (TVM-like,
// AStitch-like and GraphTurbo plans), computed once per process and shared by the experiments.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "common/hw/dsa_spec.h"
#include "reproductions/graphturbo/dsa_plans.h"

namespace dgs::graphturbo {

// One configuration of Table 2; `zoo` empty = the model is not in the zoo.
struct ModelRow {
  std::string label, name, zoo;
  int64_t seq_len = 0;
  int64_t batch = 0;
  std::string note;
};
const std::vector<ModelRow>& model_rows();

struct RowRuns {
  DsaRun tvm, astitch, gt;
  double schedule_s[3] = {0, 0, 0};  // TVM, AStitch, GraphTurbo plan construction (wall)
};
// The three approaches on `m` (a zoo model), computed on first use.
const RowRuns& runs_of(const ModelRow& m);
// Computes the runs of every zoo configuration not computed yet, one configuration per CPU at a
// time (each into its own slot, kept in order): the same runs as runs_of computes one by one;
// each approach's schedule_s is then its wall time beside another configuration's runs. `done`
// (if any) is called as each configuration's runs end ("<label> (<model>)").
void prefetch_runs(const ProgressFn& done = {});

// The built-in config of the STCP920 DSA model: what stcp920() loads, and the default machine
// (Experiment::default_hardware) of every experiment that runs on it, so that each such item
// names it in items.csv whichever item of the process loaded it first.
inline constexpr const char* kStcp920Config = "stcp920";
const DsaSpec& stcp920();
// The same machine storing and computing in INT8 (the config's datatype switched, its INT8 MME
// rate used): the quantized ResNet-50 of Fig. 16.
const DsaSpec& stcp920_int8();

// The stand-ins of claims against systems the suite cannot run (they are counted apart).
inline constexpr const char* kTvmStandIn =
    "the suite's TVM-like plan (one kernel per TVM-fused layer, outputs to DDR, batches per "
    "cluster by its LLB rule) for TVM v0.8";
// `c` as a claim against the suite's TVM stand-in (Claim::stand_in = kTvmStandIn).
inline Claim against_tvm_stand_in(Claim c) {
  c.stand_in = kTvmStandIn;
  return c;
}
inline constexpr const char* kAStitchStandIn = "the suite's AStitch-like plan for AStitch";
inline constexpr const char* kAStitchAndTvmStandIn =
    "the suite's AStitch-like and TVM-like plans for AStitch and TVM v0.8";

// The vendor's hand-written C++ for STCP920 ("crafted code", §5.1-5.2, Tables 1 and 3): not
// public, so the suite cannot run it. Its paper values are shown as "not reproduced" (a paper_*
// cell, ours empty) and its claims are informational rows with ours empty.
inline constexpr const char* kCraftedNotReproduced =
    "not reproduced: the vendor's code is not public";
// An informational claim about the crafted code: the paper's value, ours NaN (printed empty).
inline Claim crafted_claim(std::string text, std::string source, double paper, ClaimKind kind,
                           std::string unit) {
  Claim c{std::move(text), std::move(source), paper, std::numeric_limits<double>::quiet_NaN(), kind,
          std::move(unit)};
  c.informational = std::string(kCraftedNotReproduced) +
                    " (STCP920's vendor's hand-written C++): the paper's value only";
  c.not_run = "STCP920's vendor's hand-written code (not public)";
  return c;
}

// Notes every open constant of the scheduler and the plans, and the machine.
void note_constants(ExperimentContext& ctx);

// A number as text for a claim or a note (shortest of 6 significant digits).
std::string num(double v);

}  // namespace dgs::graphturbo
