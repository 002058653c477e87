// repro_ios: the IOS thesis (Ding, U. Toronto 2022; MLSys'21), every table and figure. The
// experiments are listed in experiment_list.cpp.
#include "cli/cli.h"
#include "reproductions/ios/experiments/experiment_list.h"

int main(int argc, char** argv) {
  return dgs::run_cli(argc, argv, dgs::ios::paper_info(), dgs::ios::experiments());
}
