#pragma once
// The experiments of repro_paper_template (one file per figure or table, listed in
// experiment_list.cpp).
#include "cli/cli.h"

namespace dgs::paper_template {

void run_table1(ExperimentContext& ctx);  // table1.cpp

}  // namespace dgs::paper_template
