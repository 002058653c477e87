// The experiments of repro_brickdl: "BrickDL: Graph-Level Optimizations for DNNs with Fine-Grained
// Data Blocking on GPUs" (ICPP'24). Every figure with data (the paper has no tables), with the
// paper's caption; all run in model mode (the GPU model, on the paper's A100), Figs. 10 and 11
// also measured (CUDA brick kernels vs cuDNN). Design-only figures (1-6) are not listed.
#include "reproductions/brickdl/experiments/experiment_list.h"

#include "reproductions/brickdl/experiments/experiments.h"

namespace dgs::brickdl {

PaperInfo paper_info() {
  return {.key = "brickdl",
          .title =
              "BrickDL (ICPP'24): Graph-Level Optimizations for DNNs with Fine-Grained Data "
              "Blocking on GPUs",
          .paper_file = "brickdl_icpp24.txt"};
}

std::vector<Experiment> experiments() {
  return {
      {.kind = "fig",
       .number = "7",
       .caption = "Performance of BrickDL relative to cuDNN, TorchScript, and TensorFlow XLA for "
                  "the seven models.",
       .run = run_fig7,
       .default_hardware = "a100"},
      {.kind = "fig",
       .number = "8",
       .caption = "Comparing the speedup of padded bricks and recursive memoized bricks over the "
                  "cuDNN baseline for the 7 subgraphs from ResNet-50.",
       .run = run_fig8,
       .accepts_model = false,
       .default_hardware = "a100"},
      {.kind = "fig",
       .number = "9",
       .caption = "Comparing the data movement metrics of different subgraphs for ResNet-50.",
       .run = run_fig9,
       .accepts_model = false,
       .default_hardware = "a100"},
      {.kind = "fig",
       .number = "10",
       .caption = "Breaking down the execution time of the different merged execution "
                  "configurations for the six-layer proxy benchmark.",
       .run = run_fig10,
       .has_measured_mode = true,
       .accepts_model = false,
       .default_hardware = "a100"},
      {.kind = "fig",
       .number = "11",
       .caption = "Breaking down the execution time of the different merged executions for the "
                  "three-layer proxy benchmark as a function of brick size.",
       .run = run_fig11,
       .has_measured_mode = true,
       .accepts_model = false,
       .default_hardware = "a100"},
  };
}

}  // namespace dgs::brickdl
