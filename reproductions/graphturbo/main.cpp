// repro_graphturbo: GraphTurbo (OSDI'23), sub-graph scheduling on a DSA. The experiments are listed
// in experiment_list.cpp.
#include "cli/cli.h"
#include "reproductions/graphturbo/experiments/experiment_list.h"

int main(int argc, char** argv) {
  return dgs::run_cli(argc, argv, dgs::graphturbo::paper_info(), dgs::graphturbo::experiments());
}
