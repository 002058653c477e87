// repro_brickdl: "BrickDL: Graph-Level Optimizations for DNNs with Fine-Grained Data Blocking on
// GPUs" (ICPP'24). Every figure with data (the paper has no tables), with the paper's caption;
// none is implemented yet (run is empty), so --list shows them and --all / --fig N say so (exit
// code 3). Design-only figures (1-6) are not listed.
#include "common/cli/cli.h"

int main(int argc, char** argv) {
  const dgs::PaperInfo paper{
      "brickdl",
      "BrickDL (ICPP'24): Graph-Level Optimizations for DNNs with Fine-Grained Data Blocking on "
      "GPUs",
      "brickdl_icpp24.txt"};
  const std::vector<dgs::Experiment> experiments = {
      {"fig",
       "7",
       "Performance of BrickDL relative to cuDNN, TorchScript, and TensorFlow XLA for the seven "
       "models.",
       {}},
      {"fig",
       "8",
       "Comparing the speedup of padded bricks and recursive memoized bricks over the cuDNN "
       "baseline for the 7 subgraphs from ResNet-50.",
       {}},
      {"fig", "9", "Comparing the data movement metrics of different subgraphs for ResNet-50.", {}},
      {"fig",
       "10",
       "Breaking down the execution time of the different merged execution configurations for the "
       "six-layer proxy benchmark.",
       {}},
      {"fig",
       "11",
       "Breaking down the execution time of the different merged executions for the three-layer "
       "proxy benchmark as a function of brick size.",
       {}},
  };
  return dgs::run_cli(argc, argv, paper, experiments);
}
