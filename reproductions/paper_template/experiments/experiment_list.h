#pragma once
// repro_paper_template's paper and its experiments, in the paper's order (experiment_list.cpp).
#include <vector>

#include "cli/cli.h"

namespace dgs::paper_template {

PaperInfo paper_info();
std::vector<Experiment> experiments();

}  // namespace dgs::paper_template
