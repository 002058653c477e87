#pragma once
// The experiments of repro_brickdl (one function per figure, listed in experiment_list.cpp).
#include "common/cli/cli.h"

namespace dgs::brickdl {

// Tolerances of the claims (one per kind of quantity; never tuned per figure).
inline constexpr double kSpeedupTolPct = 5;    // speedups, in percentage points
inline constexpr double kReductionTolPct = 5;  // DRAM/transaction reductions, percentage points
// Orderings (1 = the paper's ordering holds) and exact counts: tolerance 0.

void run_fig7(ExperimentContext& ctx);   // end-to-end vs cuDNN
void run_fig8(ExperimentContext& ctx);   // ResNet-50 subgraphs, padded vs memoized
void run_fig9(ExperimentContext& ctx);   // ResNet-50 data movement
void run_fig10(ExperimentContext& ctx);  // six-layer proxy, merge configurations
void run_fig11(ExperimentContext& ctx);  // three-layer proxy, brick sizes

}  // namespace dgs::brickdl
