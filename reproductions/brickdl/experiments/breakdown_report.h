#pragma once
// The breakdown table and stacked-bar chart shared by Figs. 7, 8, 10 and 11: one row per case and
// variant, every time relative to the cuDNN total of its case (the paper's normalisation), with
// the paper's stated value beside ours where it states one.
#include <limits>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/report/report.h"
#include "reproductions/brickdl/perf_model.h"

namespace dgs::brickdl {

struct BreakdownRow {
  std::string group;    // "3+3", "SG4", "16^3", "darknet53"
  std::string variant;  // "cuDNN", "padded", "memoized", "BrickDL"
  TimeBreakdown t = {};
  TimeBreakdown base = {};                                      // the cuDNN baseline of the group
  double paper_rel = std::numeric_limits<double>::quiet_NaN();  // paper's total / cuDNN
  std::string paper_source = {};
  // The same schedule as a plan, checked and priced by evaluate() (evaluated.h), in us; NaN when
  // the row has none.
  double evaluated_us = std::numeric_limits<double>::quiet_NaN();

  double rel() const { return t.total_us / base.total_us; }
  double speedup_pct() const { return (base.total_us / t.total_us - 1) * 100; }  // reading (A)
  double dram_change_pct() const { return (t.dram_us / base.dram_us - 1) * 100; }
};

// Columns: group, variant, total_ms, rel_time, paper_rel_time, speedup_pct, dram, idle,
// compute, atomic_compulsory, atomic_conflict, other (relative to the group's cuDNN total),
// dram_change_pct, bricks, atomics_compulsory, atomics_conflict, evaluate_ms (evaluated_us).
Table breakdown_table(const std::vector<BreakdownRow>& rows);
// Memory bar (DRAM, idle) and compute bar (compute, atomics, other) per row; dashed line at 1.
std::string breakdown_svg(const std::string& title, const std::vector<BreakdownRow>& rows);

// A value of data/brickdl/claims.csv and its source.
double paper_value(const ExperimentContext& ctx, const std::string& figure, const std::string& key);
std::string paper_source(const ExperimentContext& ctx, const std::string& figure,
                         const std::string& key);

// A claim on the paper value `key` of `figure` (data/brickdl/claims.csv), with its source;
// `informational` non-empty: why it cannot deviate or is not compared.
Claim paper_claim(const ExperimentContext& ctx, const std::string& figure, const std::string& key,
                  const std::string& text, double ours, ClaimKind kind, const std::string& unit,
                  const std::string& informational = "");

// The notes every model-mode figure carries (the model's constants and open choices).
void note_model(ExperimentContext& ctx);
// The note of Figs. 8, 10 and 11: which columns are BrickDL's own model and which evaluate()'s.
void note_evaluated(ExperimentContext& ctx);

}  // namespace dgs::brickdl
