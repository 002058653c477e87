#pragma once
// CNN-P and IL-Pipe (partition_baselines.h) of one network on the shared DSA model, cached per
// (network, batch, dataflow, config) so the items of one run share them.
#include <string>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/experiments/ls_ad_runs.h"
#include "reproductions/atomic/partition_baselines.h"

namespace dgs::atomic {

// One baseline: its atoms (cut by `layout`), its pipeline schedule, the plan's evaluation and
// Table II's utilisation.
StrategyRun partition_run(const Graph& g, const RegionLayout& layout, const DsaSpec& spec,
                          const std::string& name);

struct PartitionRuns {
  StrategyRun cnnp, ilpipe;
};
const PartitionRuns& partition_runs(const std::string& net, int batch, const DsaSpec& spec);
// The same, computed and returned, not cached.
PartitionRuns compute_partition_runs(const std::string& net, int batch, const DsaSpec& spec);

// The sum over the Rounds of the busiest engine's summed atom cycles (no communication).
double compute_bound_cycles(const AtomicDag& dag, const AtomSchedule& s);

// What a schedule's compute alone allows (no communication), for Fig. 9's breakdown: every atom's
// cycles spread evenly over `engines` (balanced); the most cycles one engine's atoms sum to (no
// barrier: each engine runs its atoms back to back); compute_bound_cycles (a barrier per Round,
// each as long as its busiest engine). balanced <= busiest_engine <= per_round: the first gap is
// how unevenly the schedule deals its work (CNN-P: CLPs sized by one-engine cycles of a sample,
// while a split layer's pieces do not take 1/n of them), the second what the barriers add (CNN-P:
// each step waits for the CLP whose layer matches it least, the paper's mismatch).
struct ComputeBounds {
  double balanced = 0, busiest_engine = 0, per_round = 0;
};
ComputeBounds compute_bounds(const AtomicDag& dag, const AtomSchedule& s, int engines);

// The constants of both baselines, for the notes of every item that shows them.
std::string partition_baselines_note();

}  // namespace dgs::atomic
