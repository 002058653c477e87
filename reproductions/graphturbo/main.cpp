// repro_graphturbo: "Effectively Scheduling Computational Graphs of Deep Neural Networks toward
// Their Domain-Specific Accelerators" (GraphTurbo, OSDI'23). Every table and figure with data,
// with the paper's caption; none is implemented yet (run is empty), so --list shows them and
// --all / --fig N say so (exit code 3). Design-only figures (1, 2, 4-6, 8-13) are not listed.
#include "common/cli/cli.h"

int main(int argc, char** argv) {
  const dgs::PaperInfo paper{
      "graphturbo",
      "GraphTurbo (OSDI'23): Effectively Scheduling Computational Graphs of Deep Neural Networks "
      "toward Their Domain-Specific Accelerators",
      "graphturbo_osdi23.txt"};
  const std::vector<dgs::Experiment> experiments = {
      {"table", "1", "Results of BERT-128 under different batch sizes.", {}},
      {"table", "2", "Summary of the models.", {}},
      {"table", "3", "Comparison of buffer scopes.", {}},
      {"table", "4", "Comparison of compilation overhead in seconds.", {}},
      {"table", "5", "Execution time in milliseconds on A100 GPU.", {}},
      {"fig", "3", "Utilization of LB under different scheduling methods.", {}},
      {"fig", "7", "Different schedule orders of Fig.6 (first four steps of Algo.3).", {}},
      {"fig", "14", "Speedups of throughput over TVM.", {}},
      {"fig", "15", "Individual contributions of each optimization.", {}},
      {"fig", "16", "Usage of VME/MME. x axis denotes batch sizes.", {}},
      {"fig",
       "17",
       "Utilization VME (left) and MME (right) when executing the stages in Fig.3a.",
       {}},
      {"fig", "18", "Different schedule orders of ResNet18-Tailor.", {}},
  };
  return dgs::run_cli(argc, argv, paper, experiments);
}
