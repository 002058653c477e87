#pragma once
// The experiments of repro_brickdl (one function per figure, listed in experiment_list.cpp).
#include "cli/cli.h"

namespace dgs::brickdl {

// The paper states speedups in percent ("a speedup of 13.5%", reading (A): cuDNN time / BrickDL
// time - 1); claims compare them as ratios (ClaimKind::Ratio), 13.5% -> 1.135x.
inline double speedup_x(double speedup_pct) {
  return 1 + speedup_pct / 100;
}

void run_fig7(ExperimentContext& ctx);   // end-to-end vs cuDNN
void run_fig8(ExperimentContext& ctx);   // ResNet-50 subgraphs, padded vs memoized
void run_fig9(ExperimentContext& ctx);   // ResNet-50 data movement
void run_fig10(ExperimentContext& ctx);  // six-layer proxy, merge configurations
void run_fig11(ExperimentContext& ctx);  // three-layer proxy, brick sizes

}  // namespace dgs::brickdl
