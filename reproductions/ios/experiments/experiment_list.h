#pragma once
// repro_ios's paper and its experiments, in the thesis' order (experiment_list.cpp).
#include <vector>

#include "cli/cli.h"

namespace dgs::ios {

PaperInfo paper_info();
std::vector<Experiment> experiments();

}  // namespace dgs::ios
