// The Atomic Dataflow schedulers behind the Scheduler interface (see schedulers.h).
#include "reproductions/atomic/schedulers.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "reproductions/atomic/atom_task.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/baselines.h"
#include "reproductions/atomic/iterative_search.h"
#include "reproductions/atomic/paper_networks.h"
#include "reproductions/atomic/partition_baselines.h"
#include "reproductions/atomic/schedule.h"

namespace dgs {

namespace {

using atomic::AtomicDag;
using atomic::Layer;

// Every Atomic scheduler places atoms on the engines of a 2-D mesh: AD maps each Round along the
// mesh's snake order minimising Eq. 2's hops x bytes, CNN-P and IL-Pipe give each layer a band of
// columns of the mesh, and LS is the paper's baseline on the same machine.
class AtomicMeshScheduler : public DescribedScheduler {
 public:
  AtomicMeshScheduler(std::string name, std::string description,
                      std::vector<SchedulerOption> options = {})
      : DescribedScheduler({.name = std::move(name),
                            .paper = "atomic",
                            .hardware_kinds = {"dsa"},
                            .description = std::move(description),
                            .options = std::move(options)}) {}
  std::optional<std::string> cannot_target(const HardwareSpec& hw) const override {
    if (std::optional<std::string> why = Scheduler::cannot_target(hw)) return why;
    if (!hw.dsa) return hw.file + " carries no DSA description";
    if (hw.dsa->topology != DsaTopology::Mesh)
      return "targets a DSA whose engines form a 2-D mesh (topology \"mesh\": atoms placed on "
             "mesh engines, communication in mesh hops); " +
             hw.name + " has topology \"clusters\"";
    return std::nullopt;
  }
};

// The method cuts only layers with [N, C, H, W] or [N, C] outputs (the paper's CNN layers) into
// atoms (atoms.h); any other layer runs whole, as one atom on one engine, untiled. Throws
// SchedulerNotApplicable naming the first such layer whose working set (the DSA model's own
// accounting, atom_task.h) exceeds an engine's buffer: no plan of the method fits it there.
void require_whole_layers_fit(const Graph& g, const DsaSpec& spec, const std::string& scheduler) {
  const std::vector<Layer> layers = atomic::graph_layers(g);
  bool whole = false;
  for (const Layer& l : layers) whole = whole || !l.splittable;
  if (!whole) return;
  const AtomicDag dag =
      atomic::build_atomic_dag(g, std::vector<atomic::AtomShape>(layers.size()), spec);
  atomic::AtomTilings tilings;
  for (size_t l = 0; l < dag.layers.size(); ++l) {
    const Layer& layer = dag.layers[l];
    if (layer.splittable || dag.atoms_of_layer[l].empty()) continue;
    const int64_t bytes = tilings.of(g, dag, dag.atoms_of_layer[l].front(), spec).working_bytes;
    if (bytes <= spec.local_bytes) continue;
    const Op& op = g.op(layer.op);
    throw SchedulerNotApplicable(
        scheduler + ": " + op.name + " (" + std::string(op_kind_name(op.kind)) + ", output " +
        shape_str(layer.shape) +
        ") is not cut into atoms (the method cuts [N,C,H,W] and [N,C] outputs, the paper's CNN "
        "layers), and whole it needs " +
        std::to_string(bytes) + " bytes of an engine's " + std::to_string(spec.local_bytes) +
        "-byte " + spec.local_level);
  }
}

std::vector<SchedulerOption> atomic_dataflow_options() {
  const atomic::IterativeSearchOptions d;
  return {{"seed", SchedulerOption::Type::Int, "1",
           "seed of Algorithm 1's simulated annealing (the reproduction's --seed default)"},
          {"budget_halvings", SchedulerOption::Type::Int, std::to_string(d.budget_halvings),
           "atom admission budgets tried: half the engine buffer and this many halvings of it "
           "(kBudgetHalvings)"},
          {"target_doublings", SchedulerOption::Type::Int, std::to_string(d.target_doublings),
           "candidates at up to this many doublings of the SA's target cycle S "
           "(kTargetDoublings)"},
          {"sa_iterations", SchedulerOption::Type::Int, std::to_string(d.anneal.iterations),
           "iterations of Algorithm 1's simulated annealing per budget (ite_max)"},
          {"even_split", SchedulerOption::Type::Int, d.even_split ? "1" : "0",
           "1: LS's even split is also a candidate (kEvenSplitCandidate); 0: Algorithm 1's atom "
           "sets only"}};
}

class AtomicDataflowScheduler final : public AtomicMeshScheduler {
 public:
  AtomicDataflowScheduler()
      : AtomicMeshScheduler(
            "atomic",
            "Atomic Dataflow (AD): the iterative search of Fig. 4b over Algorithm 1's atom sets "
            "(simulated annealing, seed option) and LS's even split (kEvenSplitCandidate), each "
            "candidate scheduled in Rounds by the four "
            "priority rules (the greedy stand-in for Algorithm 2's DP), mapped along the mesh's "
            "snake order minimising Eq. 2 and buffered by Algorithm 3, priced by the shared DSA "
            "model, the fastest kept (reproductions/atomic/iterative_search.h, as Fig. 8 runs it)",
            atomic_dataflow_options()) {}
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues& o) const override {
    const DsaSpec& spec = hw.dsa.value();
    const int64_t seed = o.get_int_in("seed", 0, std::numeric_limits<int64_t>::max());
    constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
    atomic::IterativeSearchOptions search;
    search.budget_halvings = static_cast<int>(o.get_int_in("budget_halvings", 0, kMaxInt));
    search.target_doublings = static_cast<int>(o.get_int_in("target_doublings", 0, kMaxInt));
    search.anneal.iterations = static_cast<int>(o.get_int_in("sa_iterations", 1, kMaxInt));
    search.even_split = o.get_int_in("even_split", 0, 1) == 1;
    require_whole_layers_fit(g, spec, name());
    const atomic::IterativeSearch s =
        atomic::iterative_atomic_search(g, spec, static_cast<uint64_t>(seed), search);
    ScheduleResult r;
    r.plan = atomic::atom_plan(g, s.dag, s.schedule, spec, name());
    r.search.states = s.sa_evaluations;
    r.search.candidates = static_cast<int64_t>(s.candidates.size());
    r.search.note = atomic::describe_search(s) + "; Rounds: " + atomic::kDpStandIn;
    return r;
  }
};

class LayerSequentialScheduler final : public AtomicMeshScheduler {
 public:
  LayerSequentialScheduler()
      : AtomicMeshScheduler(
            "atomic.ls",
            "layer-sequential baseline LS of the Atomic Dataflow paper (Sec. II-B): one layer per "
            "stage, each sample's output split evenly over all engines (output channels first in "
            "multiples of the PE array's columns, then rows, then columns; the samples side by "
            "side), round robin from engine 0, a conv/FC's batch norm, ReLU, add and pooling "
            "cut as it and run on the engines holding their inputs, the group's "
            "intermediates kept on chip while they fit in half the buffer and the rest through "
            "DRAM (LsLayer::MatrixGroup), each atom tiled for half its engine's buffer "
            "(reproductions/atomic/baselines.h). Differs from "
            "'sequential' (layer_split_test_plan: channels then batch, tiles for the whole "
            "buffer) in how a layer is cut and tiled") {}
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues&) const override {
    const DsaSpec& spec = hw.dsa.value();
    const std::vector<Layer> layers = atomic::graph_layers(g);
    require_whole_layers_fit(g, spec, name());
    const int batch = static_cast<int>(atomic::graph_batch(g));
    const AtomicDag dag =
        atomic::build_atomic_dag(g, atomic::ls_shapes(g, layers, spec, batch), spec);
    ScheduleResult r;
    r.plan = atomic::atom_plan(g, dag, atomic::ls_schedule(g, dag, spec), spec, name());
    return r;
  }
};

// CNN-P and IL-Pipe: a layout of the layers on regions of the mesh, the pipeline steps of
// region_pipeline_schedule as stages.
class PartitionScheduler final : public AtomicMeshScheduler {
 public:
  enum class Kind { CnnP, IlPipe };
  explicit PartitionScheduler(Kind kind)
      : AtomicMeshScheduler(kind == Kind::CnnP ? "atomic.cnn_p" : "atomic.il_pipe",
                            description_of(kind)),
        kind_(kind) {}
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues&) const override {
    const DsaSpec& spec = hw.dsa.value();
    const std::vector<Layer> layers = atomic::graph_layers(g);
    bool matrix = false;
    for (const Layer& l : layers) matrix = matrix || l.matrix;
    if (!matrix)
      throw SchedulerNotApplicable(name() + ": " + g.name +
                                   " has no convolution or matrix product (the engines are "
                                   "partitioned among those layers)");
    require_whole_layers_fit(g, spec, name());
    const atomic::RegionLayout layout = kind_ == Kind::CnnP
                                            ? atomic::cnnp_layout(g, layers, spec)
                                            : atomic::ilpipe_layout(g, layers, spec);
    const AtomicDag dag = atomic::build_atomic_dag(g, layout.shapes, spec);
    ScheduleResult r;
    r.plan = atomic::atom_plan(g, dag, atomic::region_pipeline_schedule(g, dag, layout, spec), spec,
                               name());
    return r;
  }

 private:
  static std::string description_of(Kind kind) {
    if (kind == Kind::CnnP)
      return "CNN-Partition (Shen et al. ISCA'17), the Atomic Dataflow paper's resource-"
             "partitioning baseline: " +
             std::to_string(atomic::kCnnpClusters) +
             " convolutional layer processors (column bands of the mesh sized by their layers' "
             "engine cycles), the samples pipelined at layer granularity, every layer's input and "
             "output through DRAM (reproductions/atomic/partition_baselines.h)";
    return "inter-layer pipelining (Tangram, fine-grained), the Atomic Dataflow paper's "
           "resource-partitioning baseline: segments of " +
           std::to_string(atomic::kIlPipeSegmentLayers) +
           " matrix layers, each on a column band of the mesh sized by its engine cycles, "
           "pipelined in blocks of 1/" +
           std::to_string(atomic::kIlPipeRowBlocks) +
           " of a sample's rows, outputs read inside a segment forwarded on chip "
           "(reproductions/atomic/partition_baselines.h)";
  }
  Kind kind_;
};

}  // namespace

SchedulerList atomic_schedulers() {
  SchedulerList list;
  list.push_back(std::make_unique<AtomicDataflowScheduler>());
  list.push_back(std::make_unique<LayerSequentialScheduler>());
  list.push_back(std::make_unique<PartitionScheduler>(PartitionScheduler::Kind::CnnP));
  list.push_back(std::make_unique<PartitionScheduler>(PartitionScheduler::Kind::IlPipe));
  return list;
}

}  // namespace dgs
