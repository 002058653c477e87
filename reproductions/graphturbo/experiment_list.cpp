// The experiments of repro_graphturbo: "Effectively Scheduling Computational Graphs of Deep Neural
// Networks toward Their Domain-Specific Accelerators" (GraphTurbo, OSDI'23). Every table and figure
// with data, with the paper's caption; none is implemented yet (no .run), so --list shows them and
// --all / --fig N say so (exit code 3). Design-only figures (1, 2, 4-6, 8-13) are not listed.
// The paper's machine is the STCP920 DSA, which has no hardware config yet (its experiments name
// none); Table 5 runs on an A100.
#include "reproductions/graphturbo/experiment_list.h"

namespace dgs::graphturbo {

PaperInfo paper_info() {
  return {.key = "graphturbo",
          .title =
              "GraphTurbo (OSDI'23): Effectively Scheduling Computational Graphs of Deep Neural "
              "Networks toward Their Domain-Specific Accelerators",
          .paper_file = "graphturbo_osdi23.txt"};
}

std::vector<Experiment> experiments() {
  return {
      {.kind = "table",
       .number = "1",
       .caption = "Results of BERT-128 under different batch sizes."},
      {.kind = "table", .number = "2", .caption = "Summary of the models."},
      {.kind = "table", .number = "3", .caption = "Comparison of buffer scopes."},
      {.kind = "table", .number = "4", .caption = "Comparison of compilation overhead in seconds."},
      {.kind = "table",
       .number = "5",
       .caption = "Execution time in milliseconds on A100 GPU.",
       .default_hardware = "a100"},
      {.kind = "fig",
       .number = "3",
       .caption = "Utilization of LB under different scheduling methods."},
      {.kind = "fig",
       .number = "7",
       .caption = "Different schedule orders of Fig.6 (first four steps of Algo.3)."},
      {.kind = "fig", .number = "14", .caption = "Speedups of throughput over TVM."},
      {.kind = "fig", .number = "15", .caption = "Individual contributions of each optimization."},
      {.kind = "fig", .number = "16", .caption = "Usage of VME/MME. x axis denotes batch sizes."},
      {.kind = "fig",
       .number = "17",
       .caption = "Utilization VME (left) and MME (right) when executing the stages in Fig.3a."},
      {.kind = "fig", .number = "18", .caption = "Different schedule orders of ResNet18-Tailor."},
  };
}

}  // namespace dgs::graphturbo
