// repro_ios: the IOS thesis (Ding, U. Toronto 2022; MLSys'21), every table and
// figure.
#include "common/cli/cli.h"
#include "reproductions/ios/experiments.h"

int main(int argc, char** argv) {
  using namespace dgs::ios;
  const dgs::PaperInfo paper{"ios", "IOS: Inter-Operator Scheduler for CNN Acceleration (thesis)",
                             "ios_thesis.txt"};
  const std::vector<dgs::Experiment> experiments = {
      {"table", "3.1", "Transitions and schedules of the largest block of each network",
       run_table3_1},
      {"table", "4.1", "The CNN benchmarks: blocks, operators, operator type", run_table4_1},
      {"fig", "1.2", "Sequential, Greedy and IOS schedules of a four-convolution graph", run_fig1_2,
       /*supports_measured=*/true, /*accepts_model=*/false},
      {"fig", "4.1", "Schedules compared on V100, batch 1", run_fig4_1,
       /*supports_measured=*/true},
      {"fig", "4.2", "Frameworks compared on V100, batch 1", run_fig4_2},
      {"fig", "4.3", "Active warps of Sequential and IOS", run_fig4_3, false,
       /*accepts_model=*/false},
      {"fig", "4.4", "Schedules compared on RTX 2080Ti, batch 1", run_fig4_4},
      {"fig", "4.5", "Frameworks compared on RTX 2080Ti, batch 1", run_fig4_5},
      {"fig", "4.6", "Pruning trade-off: latency and optimisation cost for r and s", run_fig4_6},
      {"table", "4.2", "Schedules specialised for batch size and device", run_table4_2},
      {"fig", "4.7", "Schedules of the last Inception V3 block for batch 1 and 32", run_fig4_7,
       false, /*accepts_model=*/false},
      {"fig", "4.8", "Blockwise speedup of IOS over Sequential in Inception V3", run_fig4_8},
      {"fig", "4.9", "Throughput of Inception V3 for batch sizes 1 to 128", run_fig4_9},
      {"fig", "4.10", "TVM-AutoTune vs IOS", run_fig4_10},
  };
  return dgs::run_cli(argc, argv, paper, experiments);
}
