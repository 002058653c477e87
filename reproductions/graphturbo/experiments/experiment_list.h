#pragma once
// repro_graphturbo's paper and its experiments, in the paper's order (experiment_list.cpp).
#include <vector>

#include "cli/cli.h"

namespace dgs::graphturbo {

PaperInfo paper_info();
std::vector<Experiment> experiments();

}  // namespace dgs::graphturbo
