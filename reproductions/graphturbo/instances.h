#pragma once
// GraphTurbo's sub-graph instances (OSDI'23 §3.3-§3.4, §4.3): each sub-graph of the grouping is
// split into f_d homogeneous instances along its best split's axis; an instance edge is kept only
// when the consumer instance reads part of the producer instance's output (redundant-edge
// elimination by index-range intersection); the instances are ordered by BFS and by Algorithm 3,
// and the order with the lower peak of live instance outputs is kept (ties: Algorithm 3);
// Algorithm 4 binds each instance's output to cores (plain_binding, infer_binding) and declares it
// in L1 or, on a binding mismatch, in the LLB; then liveness-based allocation spills the tensor
// with the longest liveness from L1 to the LLB, and from the LLB to DDR, while a level overflows.
// The result is emitted as a Plan v2: one stage per instance, one fused task on the cluster's
// cores with the instance's binding, written regions = the instance's slice, scopes as decided.
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/plan/plan.h"
#include "reproductions/graphturbo/grouping.h"

namespace dgs::graphturbo {

// An abstract instance DAG (Fig. 6): producers per instance, output bytes per instance.
struct InstanceDag {
  std::vector<std::string> labels;
  std::vector<std::vector<int>> producers;  // non-redundant edges only
  std::vector<int64_t> output_bytes;
};

// Algorithm 3 over `visit` (every instance once, e.g. BFS order).
std::vector<int> algorithm3_order(const InstanceDag& dag, const std::vector<int>& visit);
// The peak over the steps of `order` of the bytes of outputs produced and not yet consumed by
// every consumer (including the step's own output).
int64_t peak_live_bytes(const InstanceDag& dag, const std::vector<int>& order);
// Fig. 6: ResNet-50 stages split 8/4/2/1 with binary-tree edges, output bytes halving per
// level... (labels a1..a8, b1..b4, c1, c2, d1; BFS index order).
InstanceDag fig6_instance_dag();

// plain_binding: cores from the outermost axis in, factors 8, 4, 2, 1 (the first that divides
// the extent and fits the cores left).
std::vector<int64_t> plain_binding(const Shape& s, int cores);

struct Instance {
  int subgraph = 0;
  int index = 0;  // of the sub-graph's factor instances
};

struct Schedule {
  Grouping grouping;
  std::vector<Instance> instances;  // BFS order (sub-graph, then index)
  InstanceDag dag;
  std::vector<int> bfs, dfs, order;  // order = the chosen one
  bool dfs_chosen = false;
  int64_t bfs_peak = 0, dfs_peak = 0;
  std::vector<std::vector<int64_t>> binding;   // per instance (output of its sub-graph)
  std::vector<std::string> scope;              // per instance: "l1", "llb" or "ddr"
  int scope_mismatches = 0;                    // Algorithm 4 GB declarations
  int spilled_to_llb = 0, spilled_to_ddr = 0;  // §4.3
};

Schedule schedule_graph(const Graph& g, const GtParams& p);
// The plan of `s` for one cluster (placement on cluster `cluster`'s cores).
Plan schedule_plan(const Graph& g, const Schedule& s, int cluster = 0);

}  // namespace dgs::graphturbo
