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

// The constants of both baselines, for the notes of every item that shows them.
std::string partition_baselines_note();

}  // namespace dgs::atomic
