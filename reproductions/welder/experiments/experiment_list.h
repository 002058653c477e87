#pragma once
// repro_welder's paper and its experiments, in the paper's order (experiment_list.cpp).
#include <vector>

#include "cli/cli.h"

namespace dgs::welder {

PaperInfo paper_info();
std::vector<Experiment> experiments();

}  // namespace dgs::welder
