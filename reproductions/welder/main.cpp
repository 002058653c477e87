// repro_welder: Welder (OSDI'23), tile-graph scheduling. The experiments are listed in
// experiments_list.cpp; each is a small function in experiments_*.cpp.
#include "common/cli/cli.h"
#include "reproductions/welder/experiments.h"

int main(int argc, char** argv) {
  const dgs::PaperInfo paper{
      "welder", "Welder (OSDI'23): scheduling deep learning memory access via tile-graph",
      "welder_osdi23.txt"};
  return dgs::run_cli(argc, argv, paper, dgs::welder::welder_experiments());
}
