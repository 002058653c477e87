// The experiments of repro_graphturbo: "Effectively Scheduling Computational Graphs of Deep Neural
// Networks toward Their Domain-Specific Accelerators" (GraphTurbo, OSDI'23). Every table and figure
// with data, with the paper's caption; those without .run are not implemented yet (--list shows
// them, --all / --fig N say so, exit code 3). Design-only figures (1, 2, 4-6, 8-13) are not
// listed. The DSA experiments run on hw_configs/stcp920.json (loaded once per process by
// stcp920(), runs.h, and named here as their machine so that items.csv's hardware
// column does not depend on which item loaded it first); Table 5 and Fig. 18 run on an A100.
#include "reproductions/graphturbo/experiments/experiment_list.h"

#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/runs.h"

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
       .caption = "Results of BERT-128 under different batch sizes.",
       .run = run_table1,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "table",
       .number = "2",
       .caption = "Summary of the models.",
       .run = run_table2,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "table",
       .number = "3",
       .caption = "Comparison of buffer scopes.",
       .run = run_table3,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "table",
       .number = "4",
       .caption = "Comparison of compilation overhead in seconds.",
       .run = run_table4,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "table",
       .number = "5",
       .caption = "Execution time in milliseconds on A100 GPU.",
       .run = run_table5,
       .has_measured_mode = true,
       .accepts_model = false,
       .default_hardware = "a100"},
      {.kind = "fig",
       .number = "3",
       .caption = "Utilization of LB under different scheduling methods.",
       .run = run_fig3,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "fig",
       .number = "7",
       .caption = "Different schedule orders of Fig.6 (first four steps of Algo.3).",
       .run = run_fig7,
       .accepts_model = false},
      {.kind = "fig",
       .number = "14",
       .caption = "Speedups of throughput over TVM.",
       .run = run_fig14,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "fig",
       .number = "15",
       .caption = "Individual contributions of each optimization.",
       .run = run_fig15,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "fig",
       .number = "16",
       .caption = "Usage of VME/MME. x axis denotes batch sizes.",
       .run = run_fig16,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "fig",
       .number = "17",
       .caption = "Utilization VME (left) and MME (right) when executing the stages in Fig.3a.",
       .run = run_fig17,
       .accepts_model = false,
       .default_hardware = kStcp920Config},
      {.kind = "fig",
       .number = "18",
       .caption = "Different schedule orders of ResNet18-Tailor.",
       .run = run_fig18,
       .accepts_model = false,
       .default_hardware = "a100"},
  };
}

}  // namespace dgs::graphturbo
