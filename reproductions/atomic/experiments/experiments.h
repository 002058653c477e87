#pragma once
// The implemented experiments of repro_atomic (experiments_*.cpp).
#include "cli/cli.h"

namespace dgs::atomic {

void run_table1(ExperimentContext& ctx);
void run_fig2(ExperimentContext& ctx);
void run_fig5(ExperimentContext& ctx);
void run_fig6(ExperimentContext& ctx);  // fig6.cpp
void run_fig7(ExperimentContext& ctx);
void run_fig8(ExperimentContext& ctx);
void run_fig9(ExperimentContext& ctx);
void run_fig10(ExperimentContext& ctx);
void run_fig11(ExperimentContext& ctx);
void run_table2(ExperimentContext& ctx);
void run_fig12(ExperimentContext& ctx);        // sweeps.cpp
void run_fig13(ExperimentContext& ctx);        // sweeps.cpp
void run_prototype(ExperimentContext& ctx);    // prototype.cpp
void run_search_time(ExperimentContext& ctx);  // prototype.cpp

}  // namespace dgs::atomic
