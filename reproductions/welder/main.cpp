// repro_welder: Welder (OSDI'23), tile-graph scheduling. The experiments are listed in
// experiment_list.cpp; each is a small function in experiments_*.cpp.
#include "cli/cli.h"
#include "reproductions/welder/experiments/experiment_list.h"

int main(int argc, char** argv) {
  return dgs::run_cli(argc, argv, dgs::welder::paper_info(), dgs::welder::experiments());
}
