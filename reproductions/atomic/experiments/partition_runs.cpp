// CNN-P and IL-Pipe runs (see partition_runs.h).
#include "reproductions/atomic/experiments/partition_runs.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "cli/run_cache.h"
#include "common/evaluate/evaluate.h"
#include "common/graph/iteration_space.h"
#include "models/zoo.h"

namespace dgs::atomic {

StrategyRun partition_run(const Graph& g, const RegionLayout& layout, const DsaSpec& spec,
                          const std::string& name) {
  // The DAG, the schedule's pins, the plan's tilings and the model ask for the same ops' regions:
  // their iteration spaces built once for the run.
  const IterationSpaceMemo spaces(g);
  StrategyRun run;
  run.dag = build_atomic_dag(g, layout.shapes, spec);
  run.schedule = region_pipeline_schedule(g, run.dag, layout, spec);
  run.result =
      evaluate(g, atom_plan(g, run.dag, run.schedule, spec, name), dsa_hardware_spec(spec));
  run.layer_utilisation_pct = layer_utilisation_pct(run.dag, run.schedule, spec);
  return run;
}

const PartitionRuns& partition_runs(const std::string& net, int batch, const DsaSpec& spec) {
  static RunCache<std::tuple<std::string, int, int, std::string>, PartitionRuns> cache;
  return cache.get(std::make_tuple(net, batch, static_cast<int>(spec.dataflow), spec.name),
                   [&] { return compute_partition_runs(net, batch, spec); });
}

PartitionRuns compute_partition_runs(const std::string& net, int batch, const DsaSpec& spec) {
  PartitionRuns runs;
  const Graph g = build_zoo_model(net, {.batch = batch});
  const std::vector<Layer> layers = graph_layers(g);
  runs.cnnp = partition_run(g, cnnp_layout(g, layers, spec), spec, "CNN-P");
  runs.ilpipe = partition_run(g, ilpipe_layout(g, layers, spec), spec, "IL-Pipe");
  return runs;
}

double compute_bound_cycles(const AtomicDag& dag, const AtomSchedule& s) {
  double total = 0;
  for (const Round& r : s.rounds) {
    std::map<int, double> per_engine;
    for (size_t i = 0; i < r.atoms.size(); ++i)
      per_engine[r.engines[i]] += dag.atoms[static_cast<size_t>(r.atoms[i])].cycles;
    double busiest = 0;
    for (const auto& [e, c] : per_engine) busiest = std::max(busiest, c);
    total += busiest;
  }
  return total;
}

ComputeBounds compute_bounds(const AtomicDag& dag, const AtomSchedule& s, int engines) {
  ComputeBounds b;
  std::map<int, double> per_engine;
  for (size_t a = 0; a < dag.atoms.size(); ++a) {
    b.balanced += dag.atoms[a].cycles;
    per_engine[s.engine_of[a]] += dag.atoms[a].cycles;
  }
  b.balanced /= std::max(1, engines);
  for (const auto& [e, c] : per_engine) b.busiest_engine = std::max(b.busiest_engine, c);
  b.per_round = compute_bound_cycles(dag, s);
  return b;
}

std::string partition_baselines_note() {
  return "CNN-P: " + std::to_string(kCnnpClusters) +
         " CLPs (kCnnpClusters; the paper leaves it open), bands of consecutive engines in the "
         "column-major snake order (every band spans all rows, so it reaches DRAM, which enters "
         "the mesh at both edges of every row, through every row; bands of rows would get only "
         "their rows' edge links), sized in proportion to the engine cycles of their layers (one "
         "sample of each on one engine, with the ops it feeds: a depthwise convolution, one PE "
         "of 256 under KC-P, costs far more per MAC than a dense one); matrix layers in segments "
         "of " +
         std::to_string(kCnnpClusters) +
         " consecutive layers, the i-th largest (by those cycles) of a segment on CLP i; the other "
         "ops on the CLP of the layer whose output they read (a layer = a convolution/FC with its "
         "batch norm, ReLU, residual add, pooling); one sample's layer per CLP per step, samples "
         "pipelined; "
         "every layer's input and output through DRAM, its intermediates on chip while they fit. "
         "IL-Pipe: segments of " +
         std::to_string(kIlPipeSegmentLayers) +
         " consecutive matrix layers (kIlPipeSegmentLayers), each a region of consecutive "
         "engines (column bands as the CLPs) proportional to its engine cycles (at least 1), the "
         "other ops on the region of the layer they read; fine-grained pipelining in blocks of 1/" +
         std::to_string(kIlPipeRowBlocks) +
         " of a sample's output rows (kIlPipeRowBlocks), one block per region per step, a block "
         "starting when the producer blocks it reads are done; outputs read only inside their "
         "segment forwarded on chip (over the mesh) while they fit, the others through DRAM. "
         "Both: each layer's block (CNN-P: sample) split over its region's engines into at most "
         "one piece per engine (even cuts of the output channels in multiples of the PE columns, "
         "the rows and the columns; of those the cut whose largest piece takes the fewest engine "
         "cycles, ties: the fewer loaded bytes); an output kept on chip while its engine's kept "
         "outputs fit in half its buffer (the other half holds the working sets); the pipeline "
         "steps are the plan's stages (a barrier between steps), "
         "priced by the shared DSA model, which keeps weights in an engine's buffer while the "
         "room its kept outputs and working sets leave holds them, so a region reloads its "
         "layer's weights for every sample (CNN-P) or block (IL-Pipe) when they and a block's "
         "tiles do not fit together";
}

}  // namespace dgs::atomic
