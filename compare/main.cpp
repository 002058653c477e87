// repro_compare: the schedulers of the five papers, the baselines and your own, side by side on
// the same models and machines (compare/compare_cli.h).
#include <iostream>

#include "compare/compare_cli.h"

int main(int argc, char** argv) {
  return dgs::run_compare(argc, argv, std::cout, std::cerr);
}
