// The experiment table of repro_welder: data, one line per figure/table of the paper.
#include "reproductions/welder/experiments.h"

namespace dgs::welder {

std::vector<Experiment> welder_experiments() {
  return {
      {"fig", "1", "Computation FLOPS and memory bandwidth utilization for different models",
       run_fig1, false, /*accepts_model=*/false},
      {"fig", "2",
       "Section 2 traffic example; latency of unfused, fused and individual "
       "Matmul/Softmax kernels",
       run_fig2, true, /*accepts_model=*/false},
      {"fig", "9", "End-to-end performance on V100 (SIMT, FP32, batch 1 and 64)",
       [](ExperimentContext& c) { run_end_to_end(c, "9"); }, false},
      {"fig", "10", "End-to-end performance on V100 (TensorCore, FP16, batch 1 and 64)",
       [](ExperimentContext& c) { run_end_to_end(c, "10"); }, false},
      {"fig", "11", "Comparing with Ansor under FP16 w/o TensorCore",
       [](ExperimentContext& c) { run_end_to_end(c, "11"); }, false},
      {"fig", "12", "Comparing with TensorRT on RTX 3090",
       [](ExperimentContext& c) { run_end_to_end(c, "12"); }, false},
      {"fig", "13", "Latency, kernel count, global memory transactions and IRS (FP32, batch 64)",
       run_fig13, true},
      {"fig", "14", "Varying input size, comparing with Welder-base", run_fig14, false,
       /*accepts_model=*/false},
      {"fig", "15", "End-to-end performance on AMD MI50 (batch 1 and 64)",
       [](ExperimentContext& c) { run_end_to_end(c, "15"); }, false},
      {"table", "3", "Performance for WELDER and FasterTransformer", run_table3, false,
       /*accepts_model=*/false},
      {"table", "4", "Examples of fusion patterns discovered by WELDER", run_table4, false,
       /*accepts_model=*/false},
      {"table", "5", "Compilation time of Ansor and WELDER", run_table5, false,
       /*accepts_model=*/false},
      {"table", "6", "Performance on compute intensive models", run_table6, false,
       /*accepts_model=*/false},
      {"table", "7", "Scale-up large DNN models to host memory", run_table7, false,
       /*accepts_model=*/false},
  };
}

}  // namespace dgs::welder
