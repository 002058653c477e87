#pragma once
// The IOS thesis' tables and figures, one function each (listed in experiment_list.cpp).
#include "cli/cli.h"

namespace dgs::ios {

void run_table3_1(ExperimentContext& ctx);  // transitions and schedules of the largest blocks
void run_table4_1(ExperimentContext& ctx);  // the benchmarks: blocks, operators, unit type
void run_table4_2(ExperimentContext& ctx);  // specialised schedules (batch, device)
void run_fig1_2(ExperimentContext& ctx);    // Sequential / Greedy / IOS on the 4-conv graph
void run_fig4_1(ExperimentContext& ctx);    // five schedules, V100
void run_fig4_2(ExperimentContext& ctx);    // frameworks, V100
void run_fig4_3(ExperimentContext& ctx);    // active warps, Sequential vs IOS
void run_fig4_4(ExperimentContext& ctx);    // five schedules, RTX 2080 Ti
void run_fig4_5(ExperimentContext& ctx);    // frameworks, RTX 2080 Ti
void run_fig4_6(ExperimentContext& ctx);    // pruning trade-off
void run_fig4_7(ExperimentContext& ctx);    // schedules of the last Inception V3 block
void run_fig4_8(ExperimentContext& ctx);    // blockwise speedups, Inception V3
void run_fig4_9(ExperimentContext& ctx);    // batch sizes 1..128, Inception V3
void run_fig4_10(ExperimentContext& ctx);   // TVM-AutoTune vs IOS

}  // namespace dgs::ios
