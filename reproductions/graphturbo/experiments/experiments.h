#pragma once
// The implemented experiments of repro_graphturbo, one file each (table1.cpp ... fig18.cpp): Tables
// 1-4, Figs. 3 and 14-17 on the DSA model; Fig. 7 (fig7_orders.cpp); Table 5 and Fig. 18 on the
// GPU model (over gpu_schedules.h).
#include "cli/cli.h"

namespace dgs::graphturbo {

void run_table1(ExperimentContext& ctx);
void run_table2(ExperimentContext& ctx);
void run_table3(ExperimentContext& ctx);
void run_table4(ExperimentContext& ctx);
void run_fig3(ExperimentContext& ctx);
void run_fig7(ExperimentContext& ctx);
void run_fig14(ExperimentContext& ctx);
void run_fig15(ExperimentContext& ctx);
void run_fig16(ExperimentContext& ctx);
void run_fig17(ExperimentContext& ctx);
void run_table5(ExperimentContext& ctx);
void run_fig18(ExperimentContext& ctx);

}  // namespace dgs::graphturbo
