// The experiments of repro_ios: one entry per table and figure of the IOS thesis (Ding, U. Toronto
// 2022; MLSys'21), each a function of the file named after it (fig4_7.cpp; fig4_1_4_4.cpp holds the
// two figures the thesis makes of one experiment on two GPUs, likewise fig4_2_4_5.cpp).
#include "reproductions/ios/experiments/experiment_list.h"

#include "reproductions/ios/experiments/experiments.h"

namespace dgs::ios {

PaperInfo paper_info() {
  return {.key = "ios",
          .title = "IOS: Inter-Operator Scheduler for CNN Acceleration (thesis)",
          .paper_file = "ios_thesis.txt",
          // the authors' RandWire graph files, read by the zoo (models/randwire.cpp)
          .input_data_files = {"randwire_graphs.csv"}};
}

std::vector<Experiment> experiments() {
  return {
      {.kind = "table",
       .number = "3.1",
       .caption = "Transitions and schedules of the largest block of each network",
       .run = run_table3_1},
      {.kind = "table",
       .number = "4.1",
       .caption = "The CNN benchmarks: blocks, operators, operator type",
       .run = run_table4_1},
      {.kind = "fig",
       .number = "1.2",
       .caption = "Sequential, Greedy and IOS schedules of a four-convolution graph",
       .run = run_fig1_2,
       .has_measured_mode = true,
       .accepts_model = false,
       .default_hardware = "v100"},
      {.kind = "fig",
       .number = "4.1",
       .caption = "Schedules compared on V100, batch 1",
       .run = run_fig4_1,
       .has_measured_mode = true,
       .default_hardware = "v100"},
      {.kind = "fig",
       .number = "4.2",
       .caption = "Frameworks compared on V100, batch 1",
       .run = run_fig4_2,
       .default_hardware = "v100"},
      {.kind = "fig",
       .number = "4.3",
       .caption = "Active warps of Sequential and IOS",
       .run = run_fig4_3,
       .accepts_model = false,
       .default_hardware = "v100"},
      {.kind = "fig",
       .number = "4.4",
       .caption = "Schedules compared on RTX 2080Ti, batch 1",
       .run = run_fig4_4,
       .default_hardware = "rtx2080ti"},
      {.kind = "fig",
       .number = "4.5",
       .caption = "Frameworks compared on RTX 2080Ti, batch 1",
       .run = run_fig4_5,
       .default_hardware = "rtx2080ti"},
      {.kind = "fig",
       .number = "4.6",
       .caption = "Pruning trade-off: latency and optimisation cost for r and s",
       .run = run_fig4_6,
       .default_hardware = "v100"},
      // Compares the V100 (replaced by --hw) with the K80, which it loads itself.
      {.kind = "table",
       .number = "4.2",
       .caption = "Schedules specialised for batch size and device",
       .run = run_table4_2,
       .default_hardware = "v100"},
      {.kind = "fig",
       .number = "4.7",
       .caption = "Schedules of the last Inception V3 block for batch 1 and 32",
       .run = run_fig4_7,
       .accepts_model = false,
       .default_hardware = "v100"},
      {.kind = "fig",
       .number = "4.8",
       .caption = "Blockwise speedup of IOS over Sequential in Inception V3",
       .run = run_fig4_8,
       .default_hardware = "v100"},
      {.kind = "fig",
       .number = "4.9",
       .caption = "Throughput of Inception V3 for batch sizes 1 to 128",
       .run = run_fig4_9,
       .default_hardware = "v100"},
      {.kind = "fig",
       .number = "4.10",
       .caption = "TVM-AutoTune vs IOS",
       .run = run_fig4_10,
       .default_hardware = "v100"},
  };
}

}  // namespace dgs::ios
