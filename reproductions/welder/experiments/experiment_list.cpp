// The experiments of repro_welder: one entry per figure and table of Welder (OSDI'23), each a
// function of experiments_*.cpp. The paper's machine is a V100 (PCIe) unless the figure says
// otherwise.
#include "reproductions/welder/experiments/experiment_list.h"

#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

PaperInfo paper_info() {
  return {.key = "welder",
          .title = "Welder (OSDI'23): scheduling deep learning memory access via tile-graph",
          .paper_file = "welder_osdi23.txt"};
}

std::vector<Experiment> experiments() {
  return {
      {.kind = "fig",
       .number = "1",
       .caption = "Computation FLOPS and memory bandwidth utilization for different models",
       .run = run_fig1,
       .accepts_model = false,
       .default_hardware = "v100_pcie"},
      {.kind = "fig",
       .number = "2",
       .caption = "Section 2 traffic example; latency of unfused, fused and individual "
                  "Matmul/Softmax kernels",
       .run = run_fig2,
       .has_measured_mode = true,
       .accepts_model = false,
       .default_hardware = "v100_pcie"},
      {.kind = "fig",
       .number = "9",
       .caption = "End-to-end performance on V100 (SIMT, FP32, batch 1 and 64)",
       .run = [](ExperimentContext& c) { run_end_to_end(c, "9"); },
       .default_hardware = "v100_pcie"},
      {.kind = "fig",
       .number = "10",
       .caption = "End-to-end performance on V100 (TensorCore, FP16, batch 1 and 64)",
       .run = [](ExperimentContext& c) { run_end_to_end(c, "10"); },
       .default_hardware = "v100_pcie"},
      {.kind = "fig",
       .number = "11",
       .caption = "Comparing with Ansor under FP16 w/o TensorCore",
       .run = [](ExperimentContext& c) { run_end_to_end(c, "11"); },
       .default_hardware = "v100_pcie"},
      // Its claim compares with the V100, which it loads itself.
      {.kind = "fig",
       .number = "12",
       .caption = "Comparing with TensorRT on RTX 3090",
       .run = [](ExperimentContext& c) { run_end_to_end(c, "12"); },
       .default_hardware = "rtx3090"},
      {.kind = "fig",
       .number = "13",
       .caption = "Latency, kernel count, global memory transactions and IRS (FP32, batch 64)",
       .run = run_fig13,
       .has_measured_mode = true,
       .default_hardware = "v100_pcie"},
      {.kind = "fig",
       .number = "14",
       .caption = "Varying input size, comparing with Welder-base",
       .run = run_fig14,
       .accepts_model = false,
       .default_hardware = "v100_pcie"},
      {.kind = "fig",
       .number = "15",
       .caption = "End-to-end performance on AMD MI50 (batch 1 and 64)",
       .run = [](ExperimentContext& c) { run_end_to_end(c, "15"); },
       .default_hardware = "mi50"},
      {.kind = "table",
       .number = "3",
       .caption = "Performance for WELDER and FasterTransformer",
       .run = run_table3,
       .accepts_model = false,
       .default_hardware = "v100_pcie"},
      {.kind = "table",
       .number = "4",
       .caption = "Examples of fusion patterns discovered by WELDER",
       .run = run_table4,
       .accepts_model = false,
       .default_hardware = "v100_pcie"},
      {.kind = "table",
       .number = "5",
       .caption = "Compilation time of Ansor and WELDER",
       .run = run_table5,
       .accepts_model = false,
       .default_hardware = "v100_pcie"},
      {.kind = "table",
       .number = "6",
       .caption = "Performance on compute intensive models",
       .run = run_table6,
       .accepts_model = false,
       .default_hardware = "v100_pcie"},
      {.kind = "table",
       .number = "7",
       .caption = "Scale-up large DNN models to host memory",
       .run = run_table7,
       .accepts_model = false,
       .default_hardware = "v100_pcie"},
  };
}

}  // namespace dgs::welder
