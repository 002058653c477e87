// The experiments of repro_atomic: "Atomic Dataflow based Graph-Level Workload Orchestration for
// Scalable DNN Accelerators" (Zheng et al.). Every table and figure with data, with the paper's
// caption; those without a .run are not implemented yet: --list shows them and --fig N says so
// (exit code 3). The paper's Tables I and II are "--table 1" and "--table 2". Design-only figures
// (1, 3) are not listed; Fig. 4 (the iterative search, a diagram) carries the search times of
// Sec. V-A and Fig. 14 (the prototype's engine) the prototype's frame rates of Sec. V-D. The
// paper's machine, a multi-engine accelerator, is hw_configs/atomic_mesh.json.
#include "reproductions/atomic/experiments/experiment_list.h"

#include "reproductions/atomic/experiments/experiments.h"

namespace dgs::atomic {

PaperInfo paper_info() {
  return {
      .key = "atomic",
      .title =
          "Atomic Dataflow based Graph-Level Workload Orchestration for Scalable DNN Accelerators",
      .paper_file = "atomic_dataflow.txt"};
}

std::vector<Experiment> experiments() {
  return {
      {.kind = "table",
       .number = "1",
       .caption = "Table I: DNN workload characterization.",
       .run = run_table1,
       .accepts_model = false},
      {.kind = "table",
       .number = "2",
       .caption = "Table II: (1) PE utilization averaged among DNN layers w/o memory access delay "
                  "(batchsize=20). (2) NoC overhead and on-chip reuse.",
       .run = run_table2,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "2",
       .caption = "Running DNN layers one-at-a-time (evenly partitioned to all on-chip engines) "
                  "results in low average PE utilization.",
       .run = run_fig2,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "4",
       .caption = "(b) Iterative search. [Sec. V-A: AD's search time per network; the figure "
                  "itself is a diagram]",
       .run = run_search_time,
       .accepts_model = false,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "5",
       .caption = "(a) Histograms that show the distribution of atom execution cycles. (b) "
                  "Convergence trends of SA and GA.",
       .run = run_fig5,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "6",
       .caption = "Analyzing parallelism opportunities in Atomic DAG scheduling.",
       .run = run_fig6,
       .accepts_model = false,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "7",
       .caption = "Optimized mapping reduces inter-engine data transfer cost (2D-mesh topology, "
                  "zig-zag task allocation).",
       .run = run_fig7,
       .accepts_model = false,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "8",
       .caption = "Evaluation of DNN inference latency.",
       .run = run_fig8,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "9",
       .caption = "Evaluation of DNN inference throughput with batch size being 20.",
       .run = run_fig9,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "10",
       .caption = "Per-stage performance improvements.",
       .run = run_fig10,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "11",
       .caption = "Evaluation of DNN inference energy consumption with batch size being 20.",
       .run = run_fig11,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "12",
       .caption = "Scaling the number of engines while maintaining the total number of PEs and "
                  "buffer capacity.",
       .run = run_fig12,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "13",
       .caption = "Scaling buffer size on each engine.",
       .run = run_fig13,
       .default_hardware = "atomic_mesh"},
      {.kind = "fig",
       .number = "14",
       .caption = "Information of single engine in the prototype system. [Sec. V-D: LS and AD "
                  "frame rates of the 2 x 2-engine prototype]",
       .run = run_prototype,
       .accepts_model = false,
       .default_hardware = "atomic_prototype"},
  };
}

}  // namespace dgs::atomic
