// repro_brickdl: BrickDL (ICPP'24), merged conv chains with brick layouts. The experiments are
// listed in experiment_list.cpp.
#include "cli/cli.h"
#include "reproductions/brickdl/experiments/experiment_list.h"

int main(int argc, char** argv) {
  return dgs::run_cli(argc, argv, dgs::brickdl::paper_info(), dgs::brickdl::experiments());
}
