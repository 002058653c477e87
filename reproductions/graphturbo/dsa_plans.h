#pragma once
// GraphTurbo and its baselines as Plan v2 plans for the shared DSA model (common/dsamodel), over
// the whole chip: the batch is split evenly over the clusters (data parallelism, §2.1), every
// cluster runs the same schedule on its share, one stage per layer step with one task per cluster
// on that cluster's cores (plain binding, §3.4), tiled (double-buffered) with a tile that fits
// kTileFractionOfL1 of a core's L1 (§4.1: LB-fitting tiles; fit_tile halves, one axis at a time,
// the one whose half the model estimates cheapest, until the task maps within that share
// without holding a tile once and stalling for its loads).
//
//   TVM-like: one kernel per layer (compound operator: conv/matmul + epilogue), every output to
//     DDR; the per-cluster batch is the largest that the LLB retains (tvm_batches_per_cluster);
//     more images run as sequential iterations (latency x iterations).
//   AStitch-like: the whole per-cluster batch at once, no instances; outputs of memory-bound
//     layers (no conv/matmul) stay on chip (L1 if they fit, else LLB), conv/matmul outputs to DDR.
//   V1/V2: see Approach.
//   GraphTurbo: the instances of schedule_graph in its order, each expanded into its layers
//     (one kernel per instance in the paper; one plan stage per layer here, the instance's
//     slice of each layer); every written tensor stays on chip: L1 while the cluster's L1 holds
//     it beside the others live (at most kResidentFractionOfL1 of each core's L1), else the LLB,
//     else DDR, allocated first-fit over the liveness (§4.3; the paper spills the longest-living
//     tensor first).
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "common/hw/evaluation_result.h"
#include "common/plan/plan.h"
#include "reproductions/graphturbo/grouping.h"
#include "reproductions/graphturbo/movement_ops.h"

namespace dgs::graphturbo {

// Assumptions, not calibrated (set when the plans were written, never fitted to a paper value):
// a core's L1 is shared between the tile working set of the running layer (kTileFractionOfL1)
// and the tensors kept in L1 between layers (kResidentFractionOfL1); the two shares partition it.
// The paper gives neither (§4.1 fits tiles to "LB", §4.3 keeps tensors in LB while they fit).
inline constexpr double kTileFractionOfL1 = 0.6;
inline constexpr double kResidentFractionOfL1 = 0.4;
static_assert(kTileFractionOfL1 + kResidentFractionOfL1 <= 1.0, "the shares partition L1");

// V1-V3 are Fig. 15's ablations: TVM's layers at GraphTurbo's per-cluster batch, every
// output kept in the LLB (V1) or in L1 first, then the LLB (V2) while they fit, else DDR; V3
// the GraphTurbo plan (instances and ordering) without across-layer instruction scheduling; V4
// is GraphTurbo. Across-layer instruction scheduling (§4.4) is the plan option
// prefetch_across_stages: with it (GraphTurbo only) the DSA model loads a layer's weights and
// inputs while earlier layers compute; without it (TVM, AStitch, V1-V3: "TVM ... misses the
// instruction scheduling opportunities across layers", §5.2) a layer's loads wait for its stage.
enum class Approach { Tvm, AStitch, V1Llb, V2L1, V3Instances, GraphTurbo };
std::string_view approach_name(Approach a);
// Whether approach `a` runs instances (GraphTurbo and V3).
bool uses_instances(Approach a);

// GraphTurbo's parameters for the DSA `spec`; its recompute_fits is halo_steps_fit.
GtParams stcp920_gt_params(const DsaSpec& spec);

// Whether every step of the split of `ops` (one cluster's graph) along axis d into f instances
// with recomputed halos (the layers that need another instance's rows merged into one step, as
// the GraphTurbo plans run them) is the same for every instance, writes outputs that divide
// along d (else the plans run it whole,
// once, writing again what other instances write) and has an LB-fitting tile within
// kTileFractionOfL1 of a core's L1.
bool halo_steps_fit(const Graph& g, const std::vector<int>& ops, int d, int64_t f,
                    const DsaSpec& spec);

// TVM's batches per cluster: the largest power of two b for which every layer's activation
// inputs and written outputs for b batches fit kTvmLlbFraction of the LLB (the rest holds the
// weights being promoted). `batch1`: the model at batch 1. The fraction is a calibration point
// on Table 2's ResNet-50 (2) and BERT-128 (4, §5.1 "a cluster's LLB is sufficient to retain four
// data batches"): any value in [0.86, 0.94) gives both (ResNet-50's conv3+residual layer holds
// 3.6 MB per image at FP16, BERT-128's FFN-out+residual layer 1.18 MB per sentence).
inline constexpr double kTvmLlbFraction = 0.875;
int64_t tvm_batches_per_cluster(const Graph& batch1, const DsaSpec& spec);

// GraphTurbo's batches per cluster, by the paper's mechanism (§5.1: "both optimal batch allocation
// strategies are obtained after a round of beforehand autotuning executions"; §2.1 splits the
// batch evenly over the clusters): the candidates are the even share (batch / clusters) and its
// halvings while they divide it, at most kAutotuneHalvings of them (loops of up to 4 iterations
// per cluster, Table 1's longest); the candidate with the highest throughput is kept (ties: the
// larger). A share with one candidate (e.g. 3) is the even split, with nothing tuned.
inline constexpr int kAutotuneHalvings = 2;
std::vector<int64_t> autotune_candidates(int64_t share);
int64_t autotune_batches_per_cluster(int64_t share,
                                     const std::function<double(int64_t)>& throughput_of);

struct DsaRun {
  Approach approach = Approach::Tvm;
  int64_t batch = 0;  // the whole chip's
  int64_t batches_per_cluster = 0;
  int64_t iterations = 1;
  double latency_ms = 0;  // all iterations
  double throughput = 0;  // batch / latency (items per second)
  int64_t kernels = 0;    // TVM/AStitch: layers; GraphTurbo: instances
  int64_t ddr_tensors = 0, llb_tensors = 0, l1_tensors = 0;  // per cluster (Table 3)
  MovementCounts movement;    // §3.5's ops of cluster 0 (GraphTurbo, V3; movement_ops.h)
  int64_t subgraphs = 0;      // GraphTurbo, V3: Algorithm 2's sub-graphs
  int64_t model_concats = 0;  // the model's own Concat ops (before §3.5's)
  int64_t peak_bytes = 0;     // GraphTurbo, V3: the largest sub-graph peak (Algorithm 1)
  EvaluationResult result;    // one iteration
  // GraphTurbo with its own choice of batches per cluster: every candidate of the autotuning
  // with its throughput (one entry: nothing was tuned).
  std::vector<std::pair<int64_t, double>> autotuned;
};

// Builds `model` for the batch and approach (zoo options give image size / seq len) and
// evaluates it. `batches_per_cluster` 0 = the approach's own choice: TVM's LLB rule
// (tvm_batches_per_cluster, at most the even share), GraphTurbo's autotuning (the run of the
// best candidate, DsaRun::autotuned), the even share for the others.
DsaRun run_on_dsa(const std::string& model, int64_t batch, Approach a, const DsaSpec& spec,
                  int64_t batches_per_cluster = 0, int64_t seq_len = 0);

// `seeds` and every tensor written by an op that reads one of them, transitively (a flag per
// tensor of `g`). From the graph inputs: the batch-major tensors, which the plans split over the
// clusters along axis 0 (the others run whole, once).
std::vector<bool> tensors_reached_from(const Graph& g, const std::vector<int>& seeds);

// The plan of approach `a` for `g` (batch = clusters x per-cluster batch) and its scope counts;
// GraphTurbo and V3 schedule `per_cluster` (the same model at the per-cluster batch) with
// `params` (default: stcp920_gt_params(spec)), and their plans carry §3.5's operators: `graph`
// is `g` with the Concat ops, `movement` the plan's movement tasks (movement_ops.h). For the
// other approaches `graph` is `g`.
struct DsaPlan {
  Graph graph;
  Plan plan;
  std::vector<MovementPiece> movement;
};
DsaPlan dsa_plan(const Graph& g, const Graph* per_cluster, Approach a, const DsaSpec& spec,
                 DsaRun* counts = nullptr, const GtParams* params = nullptr);

}  // namespace dgs::graphturbo
