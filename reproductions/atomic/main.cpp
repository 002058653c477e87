// repro_atomic: "Atomic Dataflow based Graph-Level Workload Orchestration for Scalable DNN
// Accelerators" (Zheng et al.). Every table and figure with data, with the paper's caption; none is
// implemented yet (run is empty), so --list shows them and --all / --fig N say so (exit code 3).
// The paper's Tables I and II are "--table 1" and "--table 2". Design-only figures (1, 3, 4) and
// the prototype's photo (14) are not listed.
#include "common/cli/cli.h"

int main(int argc, char** argv) {
  const dgs::PaperInfo paper{
      "atomic",
      "Atomic Dataflow based Graph-Level Workload Orchestration for Scalable DNN Accelerators",
      "atomic_dataflow.txt"};
  const std::vector<dgs::Experiment> experiments = {
      {"table", "1", "Table I: DNN workload characterization.", {}},
      {"table",
       "2",
       "Table II: (1) PE utilization averaged among DNN layers w/o memory access delay "
       "(batchsize=20). (2) NoC overhead and on-chip reuse.",
       {}},
      {"fig",
       "2",
       "Running DNN layers one-at-a-time (evenly partitioned to all on-chip engines) results in "
       "low average PE utilization.",
       {}},
      {"fig",
       "5",
       "(a) Histograms that show the distribution of atom execution cycles. (b) Convergence "
       "trends of SA and GA.",
       {}},
      {"fig", "6", "Analyzing parallelism opportunities in Atomic DAG scheduling.", {}},
      {"fig",
       "7",
       "Optimized mapping reduces inter-engine data transfer cost (2D-mesh topology, zig-zag "
       "task allocation).",
       {}},
      {"fig", "8", "Evaluation of DNN inference latency.", {}},
      {"fig", "9", "Evaluation of DNN inference throughput with batch size being 20.", {}},
      {"fig", "10", "Per-stage performance improvements.", {}},
      {"fig", "11", "Evaluation of DNN inference energy consumption with batch size being 20.", {}},
      {"fig",
       "12",
       "Scaling the number of engines while maintaining the total number of PEs and buffer "
       "capacity.",
       {}},
      {"fig", "13", "Scaling buffer size on each engine.", {}},
  };
  return dgs::run_cli(argc, argv, paper, experiments);
}
