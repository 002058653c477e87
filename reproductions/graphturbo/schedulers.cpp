// GraphTurbo's schedulers for the comparison across papers (see schedulers.h).
#include "reproductions/graphturbo/schedulers.h"

#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "common/graph/shape_inference.h"
#include "common/util/error.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/grouping.h"

namespace dgs {
namespace graphturbo {

namespace {

// Whether the integer Constant `t` of `g` is a target shape naming the batch on axis 0: read only
// as the shape (input 1) of Reshape ops of batch-major tensors or of Expand ops (a class token
// broadcast over the batch).
bool names_the_batch(const Graph& g, int t, int64_t batch, const std::vector<bool>& major) {
  const Tensor& c = g.tensor(t);
  if (c.role != TensorRole::Constant || c.int_data.empty() || c.int_data[0] != batch ||
      c.consumers.empty())
    return false;
  for (int op : c.consumers) {
    const Op& o = g.op(op);
    const bool shape_input = o.inputs.size() == 2 && o.inputs[1] == t && o.inputs[0] >= 0;
    const bool reshape = o.kind == OpKind::Reshape && shape_input && major[size_t(o.inputs[0])];
    if (!reshape && !(o.kind == OpKind::Expand && shape_input)) return false;
  }
  return true;
}

}  // namespace

std::optional<int64_t> graph_batch(const Graph& g) {
  std::optional<int64_t> batch;
  for (int x : g.input_tensors()) {
    const Shape& s = g.tensor(x).shape;
    if (s.empty() || (batch && *batch != s[0])) return std::nullopt;
    batch = s[0];
  }
  return batch;
}

std::optional<Graph> per_cluster_graph(const Graph& g, int64_t k, std::string* why) {
  const auto refuse = [&](const std::string& reason) -> std::optional<Graph> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const std::optional<int64_t> batch = graph_batch(g);
  if (!batch || k < 1 || *batch % k != 0)
    return refuse("the graph inputs have no common batch axis divisible by " + std::to_string(k));
  const std::vector<bool> major = tensors_reached_from(g, g.input_tensors());
  Graph h = g;
  for (int x : h.input_tensors()) h.tensor(x).shape[0] /= k;
  std::vector<int> rewritten;
  for (int t = 0; t < h.num_tensors(); ++t)
    if (names_the_batch(g, t, *batch, major)) {
      h.tensor(t).int_data[0] /= k;
      rewritten.push_back(t);
    }
  // Tensors computed from a rewritten target may change their axis 0 as well (not only those).
  const std::vector<bool> retargeted = tensors_reached_from(g, rewritten);
  try {
    infer_shapes(h);
  } catch (const Error& e) {
    return refuse(std::string("the graph at batch ") + std::to_string(*batch / k) +
                  " does not infer: " + e.what());
  }
  for (int t = 0; t < g.num_tensors(); ++t) {
    const Shape& before = g.tensor(t).shape;
    if (major[size_t(t)] && (before.empty() || before[0] % k != 0))
      return refuse("tensor '" + g.tensor(t).name + "' " + shape_str(before) +
                    " reads the batch but has no batch axis 0 divisible by " + std::to_string(k));
    const bool divided =
        major[size_t(t)] || (retargeted[size_t(t)] && h.tensor(t).shape != before &&
                             !before.empty() && before[0] % k == 0);
    Shape expected = before;
    if (divided) expected[0] /= k;
    if (h.tensor(t).shape != expected)
      return refuse("tensor '" + g.tensor(t).name + "' " + shape_str(before) + " becomes " +
                    shape_str(h.tensor(t).shape) + " at batch " + std::to_string(*batch / k) +
                    ", not " + shape_str(expected));
  }
  return h;
}

namespace {

struct Variant {
  Approach approach;
  const char* name;
  const char* description;
};

constexpr Variant kVariants[] = {
    {Approach::GraphTurbo, "graphturbo",
     "GraphTurbo (OSDI'23) on a clustered DSA: the batch split over the clusters, Algorithm 1-2's "
     "sub-graphs of one cluster's share split into instances, ordered (BFS or Algorithm 3), kept "
     "in L1/LLB by liveness (§4.3), §3.5's Concat ops, across-layer instruction scheduling (§4.4); "
     "one plan stage per layer of an instance (reproductions/graphturbo/dsa_plans.h)"},
    {Approach::Tvm, "graphturbo.tvm",
     "GraphTurbo's TVM v0.8 stand-in: one kernel per TVM-fused layer (conv/matmul + epilogue) on "
     "every cluster's share of the batch, every output to DDR, no prefetch across layers; the "
     "experiments' batches per cluster by TVM's LLB rule (with iterations) are not a plan of one "
     "graph: the even share of the given batch here"},
    {Approach::AStitch, "graphturbo.astitch",
     "GraphTurbo's AStitch stand-in: TVM's layers, the whole per-cluster batch at once, outputs "
     "of memory-bound layers kept on chip (L1, else LLB), conv/matmul outputs to DDR"},
    {Approach::V1Llb, "graphturbo.v1_llb",
     "GraphTurbo's ablation V1 (Fig. 15): TVM's layers at GraphTurbo's per-cluster batch, every "
     "output kept in the LLB while it fits, else DDR"},
    {Approach::V2L1, "graphturbo.v2_l1",
     "GraphTurbo's ablation V2 (Fig. 15): TVM's layers at GraphTurbo's per-cluster batch, outputs "
     "kept in L1 first, then the LLB, else DDR"},
    {Approach::V3Instances, "graphturbo.v3_instances",
     "GraphTurbo's ablation V3 (Fig. 15): GraphTurbo's instances, order and allocation without "
     "across-layer instruction scheduling"},
};

std::vector<SchedulerOption> options_of(Approach a) {
  if (!uses_instances(a)) return {};
  return {{"split_capacity_fraction", SchedulerOption::Type::Double,
           std::to_string(kSplitCapacityFractionOfLlb),
           "Algorithm 1's capacity sizeof(LB) as a fraction of the cluster's LLB (a calibration "
           "point on Fig. 6, grouping.h)"},
          {"halo_fit_rule", SchedulerOption::Type::Bool, "true",
           "refuse a split that recomputes halos when its merged kernel does not fit L1 "
           "(GtParams::recompute_fits)"}};
}

class DsaPlanScheduler final : public DescribedScheduler {
 public:
  explicit DsaPlanScheduler(const Variant& v)
      : DescribedScheduler({.name = v.name,
                            .paper = "graphturbo",
                            .hardware_kinds = {"dsa"},
                            .description = v.description,
                            .options = options_of(v.approach)}),
        v_(v) {}

  std::optional<std::string> cannot_target(const HardwareSpec& hw) const override {
    if (std::optional<std::string> why = Scheduler::cannot_target(hw)) return why;
    if (!hw.dsa) return hw.file + " carries no DSA description";
    if (hw.dsa->topology != DsaTopology::Clusters)
      return "targets a DSA of clusters of cores (§2.1: the batch split over clusters, each "
             "cluster's instances on its cores); " +
             hw.dsa->name + " is a mesh of engines";
    if (hw.dsa->global_level.empty())
      return "needs a cluster buffer (LLB: Algorithm 1's capacity, §4.3's allocation); " +
             hw.dsa->name + " has none";
    return std::nullopt;
  }

  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues& options) const override {
    if (std::optional<std::string> why = cannot_target(hw))
      throw SchedulerNotApplicable(name() + ": " + *why);
    const DsaSpec& spec = *hw.dsa;
    // The clusters that share the batch evenly, and one cluster's share of the graph.
    const std::optional<int64_t> batch = graph_batch(g);
    int64_t used = batch ? std::gcd(*batch, int64_t{spec.clusters}) : 1;
    std::string split = batch ? "" : "; no common batch axis: one cluster";
    std::optional<Graph> share;
    if (used > 1) {
      std::string why;
      share = per_cluster_graph(g, used, &why);
      if (!share) {
        split = "; the batch is not split (" + why + "): one cluster";
        used = 1;
      }
    }
    DsaSpec view = spec;
    view.clusters = static_cast<int>(used);
    GtParams params = stcp920_gt_params(view);
    if (uses_instances(v_.approach)) {
      params.split_capacity = static_cast<int64_t>(options.get_double("split_capacity_fraction") *
                                                   double(view.global_bytes));
      if (!options.get_bool("halo_fit_rule")) params.recompute_fits = nullptr;
    }
    DsaRun counts;
    DsaPlan p = dsa_plan(g, share ? &*share : &g, v_.approach, view, &counts, &params);

    ScheduleResult r;
    r.plan = std::move(p.plan);
    if (p.graph.num_ops() != g.num_ops()) r.graph = std::move(p.graph);
    std::string note = "batch " + (batch ? std::to_string(*batch) : std::string("?")) + " over " +
                       std::to_string(used) + " of " + std::to_string(spec.clusters) + " clusters" +
                       split;
    if (v_.approach == Approach::Tvm && batch && used > 1 && *batch / used > 1) {
      // TVM's LLB rule (tvm_batches_per_cluster) on the model at batch 1: the experiments would
      // run fewer per cluster, in iterations.
      if (const std::optional<Graph> one = per_cluster_graph(g, *batch)) {
        const int64_t rule = tvm_batches_per_cluster(*one, spec);
        if (rule < *batch / used)
          note += "; TVM's LLB rule would run " + std::to_string(rule) +
                  " per cluster in iterations (run_on_dsa)";
      }
    }
    note += "; " + std::to_string(counts.kernels) +
            (uses_instances(v_.approach)
                 ? " instances of " + std::to_string(counts.subgraphs) + " sub-graphs"
                 : std::string(" layers"));
    if (uses_instances(v_.approach))
      note += ", " + std::to_string(counts.movement.concats) + " concatenations (" +
              std::to_string(counts.movement.copies) + " copies, " +
              std::to_string(counts.movement.redistributions) + " redistributions, §3.5)";
    note += "; written tensors per cluster: " + std::to_string(counts.l1_tensors) + " " +
            spec.local_level + ", " + std::to_string(counts.llb_tensors) + " " + spec.global_level +
            ", " + std::to_string(counts.ddr_tensors) + " " + spec.dram_level;
    r.search.note = note;
    // GraphTurbo compares two complete orders of the instances (BFS and Algorithm 3) by their
    // peak of live instance outputs (instances.h); the other plans are rules.
    if (uses_instances(v_.approach)) r.search.candidates = 2;
    return r;
  }

 private:
  Variant v_;
};

}  // namespace
}  // namespace graphturbo

SchedulerList graphturbo_schedulers() {
  SchedulerList list;
  for (const graphturbo::Variant& v : graphturbo::kVariants)
    list.push_back(std::make_unique<graphturbo::DsaPlanScheduler>(v));
  return list;
}

}  // namespace dgs
