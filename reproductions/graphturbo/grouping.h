#pragma once
// GraphTurbo's sub-graph grouping (OSDI'23 §3.1-§3.2): Algorithm 1 (SplitInfo of a sub-graph),
// Eq. 1 (its best split) and Algorithm 2 (straight, diamond and branch merges under Rules i and
// ii, repeated to a fixed point). The graph is one cluster's share of the batch: axis 0 of every
// activation is the per-cluster batch.
//
// Open choices (named constants, reported by every experiment through gt_constants_note()):
//  - kSplitCapacityFractionOfLlb: the capacity "sizeof(LB)" of Algorithm 1. The paper leaves open
//    whether it is one core's LB or more; with the largest tensor written inside a sub-graph as
//    its peak (the next choice) the Fig. 6 split (ResNet-50, 8 images per cluster: 8/4/2/1
//    instances) holds for any capacity in [1.53, 3.06) MiB at FP16, which excludes one core's
//    64 KiB and the cluster's 512 KiB of L1. We take a quarter of the cluster's LLB (2 MiB):
//    a calibration point on Fig. 6, not a derivation.
//  - peak of a sub-graph: the bytes of the largest activation one of its ops writes (at the
//    config's datatype). The paper says only "the size of memory footprints required by SG".
//  - splittable dimensions: the batch axis (axis 0) first, for every sub-graph (§2.1 splits the
//    batch in all experiments). Only a sub-graph that no batch split fits (e.g. one image or
//    sentence per cluster, or attention scores larger than the capacity) tries the other axes,
//    outermost first: an axis of every op of the sub-graph with no recomputation (every tensor
//    the sub-graph writes, sliced along it, needs exactly that slice of every other: element-
//    wise ops, the heads of attention), or, where a conv chain's halos make it recompute (the
//    spatial axes), only while the recomputed FLOPs stay within kRecomputeThreshold of the
//    sub-graph's (§3.1's "simple cost model to prevent excessive recomputations"; the halos come
//    from the shared iteration spaces). All axes at once were tried and rejected: Eq. 1 then
//    prefers e.g. 14 instances of 4 rows of a [16,256,56,56] residual Add over 16 images, and
//    Rule i refuses to merge it with its 16-instance producer.
//  - a recomputing split only where its merged halo kernels fit the local buffer
//    (GtParams::recompute_fits): ResNet-18's maxpool + layer1 at one 128 px image per cluster
//    split along the rows is one kernel holding four 3x3 convs' weights (288 KiB at FP16).
//  - the output dimension must divide evenly (homogeneous instances, Fig. 6).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace dgs::graphturbo {

inline constexpr double kSplitCapacityFractionOfLlb = 0.25;
inline constexpr double kRecomputeThreshold = 0.10;  // recomputed / sub-graph FLOPs

struct GtParams {
  int cores = 8;                 // cores per cluster (c)
  int64_t element_bytes = 2;     // bytes per element (the config's datatype)
  int64_t split_capacity = 0;    // Algorithm 1's sizeof(LB), bytes
  int64_t l1_bytes = 64 * 1024;  // one core's local buffer
  int64_t llb_bytes = 8 << 20;   // the cluster's global buffer
  // Whether a split of the sub-graph `ops` along axis d into f instances that recomputes halos
  // can run: its layers that need halos run as one kernel (every core holds, for its tile, the
  // whole weights of all but the last conv of such a chain), which must fit the local buffer.
  // Empty: every such split can (the DSA plans check their LB-fitting tiles, dsa_plans.h).
  std::function<bool(const Graph& g, const std::vector<int>& ops, int d, int64_t f)> recompute_fits;
};

// One tuple of Algorithm 1: (split_d, n_d, f_d, d) with split_d = 1 (only feasible tuples).
struct SplitTuple {
  int ops_split = 0;   // n_d
  int64_t factor = 1;  // f_d
  int dim = 0;         // d, 0 = outermost
  bool operator==(const SplitTuple&) const = default;
};

struct SubGraph {
  std::vector<int> ops;  // in topological order
  int64_t peak_bytes = 0;
  std::vector<SplitTuple> split_info;  // Algorithm 1
  SplitTuple best;                     // Eq. 1; factor = the dim's extent when nothing fits
  bool fits = true;                    // some tuple fits the capacity
  int output = -1;                     // the tensor Algorithm 1 splits (its last op's output 0)
  // The best split recomputes (a conv chain's halos along a spatial axis): its FLOPs computed
  // again, as a fraction of the sub-graph's (at most kRecomputeThreshold).
  bool recomputes = false;
  double recomputed_fraction = 0;
};

// Algorithm 1 + Eq. 1 for the ops `ops` (topological order) of `g`.
SubGraph make_subgraph(const Graph& g, std::vector<int> ops, const GtParams& p);
// Eq. 1: lexmax (n_d, -f_d, -d). Requires a non-empty list.
SplitTuple best_split(const std::vector<SplitTuple>& info);

struct MergeCounts {
  int straight = 0, diamond = 0, branch = 0, refused = 0, rounds = 0;
};
struct Grouping {
  std::vector<SubGraph> subgraphs;  // in topological order
  std::vector<int> subgraph_of_op;
  MergeCounts merges;
  // Sub-graph indices producing / consuming each sub-graph's tensors (activations only).
  std::vector<std::vector<int>> producers, consumers;
};

// Algorithm 2 from single-op sub-graphs to a fixed point.
Grouping group_subgraphs(const Graph& g, const GtParams& p);

// The ops of `ops` as the paper counts them (Fig. 10): a residual Add whose only consumer is a
// Relu and that Relu count as one op (the "ReLU layer" of a block).
int paper_op_count(const Graph& g, const std::vector<int>& ops);

// One line with every open choice and its value.
std::string gt_constants_note(const GtParams& p);

}  // namespace dgs::graphturbo
