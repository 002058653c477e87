#pragma once
// GraphTurbo and the plans its reproduction compares it with, behind the suite's Scheduler
// interface (common/scheduler/scheduler.h), for the comparison across papers (repro_compare):
//
//   graphturbo               GraphTurbo (dsa_plan, Approach::GraphTurbo): sub-graph grouping,
//                            instances, their order, on-chip allocation, §3.5's Concat ops and
//                            across-layer instruction scheduling
//   graphturbo.tvm           the TVM-like plan (one kernel per TVM-fused layer, outputs to DDR)
//   graphturbo.astitch       the AStitch-like plan (memory-bound layers' outputs kept on chip)
//   graphturbo.v1_llb, .v2_l1, .v3_instances   Fig. 15's ablations V1-V3 (dsa_plans.h)
//
// All run on a DSA of clusters of cores (topology "clusters" with a cluster buffer): any other
// machine is refused by cannot_target with the reason. They build the plans the paper's
// experiments build (dsa_plans.h), for the graph they are given, as follows:
//
//  - The batch (axis 0 of the graph inputs) is split evenly over the clusters (§2.1), over as
//    many of them as divide it: c = gcd(batch, clusters). GraphTurbo and V3 schedule one
//    cluster's share, which is the same graph at batch / c (per_cluster_graph below); the plan is
//    built for a view of the machine with c clusters (clusters c.. idle), so a batch-1 graph runs
//    on cluster 0 with GraphTurbo's instances split along other axes, as the experiments' runs
//    with one item per cluster do. With c = clusters (the experiments' configurations) the plan is
//    exactly the one run_on_dsa builds for batches_per_cluster = batch / clusters.
//  - The experiments choose the batches per cluster (GraphTurbo's autotuning, TVM's LLB rule) and
//    run a larger batch as sequential iterations of a smaller graph (run_on_dsa): that is a plan
//    of another graph, so the schedulers take the even share of the graph they are given (the
//    first candidate of the autotuning; TVM's rule is noted when it would run fewer).
//  - GraphTurbo's and V3's plans schedule the graph with §3.5's Concat ops added
//    (ScheduleResult::graph; same outputs, checked by run_plan in the tests).
//
// Not registered: the GPU schedules of Table 5 / Fig. 18 (experiments/gpu_schedules.cpp). They are
// built for ResNet18-Tailor only (conv3x3+ReLU -> conv1x1+ReLU pairs, CUTLASS's two-conv kernels),
// their split comes from the network's shape parameters (tailor_algorithm1_split), and their fused
// kernels are priced by a Tailor-specific kernel model; none of it is a plan of an arbitrary graph.
#include <cstdint>
#include <optional>
#include <string>

#include "common/graph/graph.h"
#include "common/scheduler/scheduler.h"

namespace dgs {

SchedulerList graphturbo_schedulers();

namespace graphturbo {

// The batch of `g`: axis 0 of its graph inputs when every input has it with the same extent;
// nullopt otherwise (no input, a scalar input, inputs that disagree).
std::optional<int64_t> graph_batch(const Graph& g);

// `g` (batch B = graph_batch(g)) at batch B / k, k dividing B: the same ops and tensors (same
// indices and names) with the graph inputs' axis 0 divided by k, and every integer Constant that
// names the batch (first entry B; read only as the target shape of Reshape ops of batch-major
// tensors or of Expand ops, e.g. BERT's head reshapes, ViT's class token) divided likewise; shapes
// inferred again. The result must have axis 0 of every batch-major tensor (dsa_plans.h,
// tensors_reached_from the graph inputs) divided by k, and every other tensor unchanged (or, if
// computed from a rewritten target, its axis 0 divided by k); else nullopt and `why` (when given)
// says which tensor differs. On the zoo's models it equals the model built at batch B / k.
std::optional<Graph> per_cluster_graph(const Graph& g, int64_t k, std::string* why = nullptr);

}  // namespace graphturbo
}  // namespace dgs
