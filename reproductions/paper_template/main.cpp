// repro_paper_template: the template of a paper folder (README.md here), built and tested like a
// paper but not one of the suite's papers (not in reproductions/papers.inc). The experiments are
// listed in experiments/experiment_list.cpp.
#include "cli/cli.h"
#include "reproductions/paper_template/experiments/experiment_list.h"

int main(int argc, char** argv) {
  return dgs::run_cli(argc, argv, dgs::paper_template::paper_info(),
                      dgs::paper_template::experiments());
}
