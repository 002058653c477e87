#pragma once
// repro_atomic's paper and its experiments, in the paper's order (experiment_list.cpp).
#include <vector>

#include "cli/cli.h"

namespace dgs::atomic {

PaperInfo paper_info();
std::vector<Experiment> experiments();

}  // namespace dgs::atomic
