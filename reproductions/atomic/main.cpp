// repro_atomic: Atomic Dataflow, atom-level scheduling on a multi-engine accelerator. The
// experiments are listed in experiment_list.cpp.
#include "cli/cli.h"
#include "reproductions/atomic/experiments/experiment_list.h"

int main(int argc, char** argv) {
  return dgs::run_cli(argc, argv, dgs::atomic::paper_info(), dgs::atomic::experiments());
}
