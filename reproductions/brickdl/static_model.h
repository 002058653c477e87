#pragma once
// BrickDL's static analysis (§3.3): brick units, the brick-size rule (§3.3.3), the data growth of
// padded bricks (§3.3.2) and the choice between padded and memoized bricks, and the partition of a
// graph into subgraphs under the L2 bound (§3.3.1).
//
// Halos come from the shared iteration spaces (propagate_regions), never from receptive-field
// code of our own. Every op the analysis handles is separable per dim (conv, pool, element-wise,
// channel concat), so the padded region of a brick is a box whose extent along each dim depends
// only on the brick's coordinate along that dim: the analysis walks each dim's bricks once and
// multiplies (sum over bricks of a product = product of per-dim sums), which keeps a 175,616-brick
// grid as cheap as a 56-brick one.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/hardware.h"

namespace dgs::brickdl {

// ---- constants stated by the paper -------------------------------------------------------------
inline constexpr double kDeltaThreshold = 0.15;           // §3.3.2: memoized when delta > 15%
inline constexpr double kTau = 4096;                      // §3.3.3: tau = 2^12
inline constexpr int64_t kBrickEdges[] = {4, 8, 16, 32};  // §3.3.3
// Assumption (the paper states none): a subgraph spans at most one change of resolution (its ops'
// outputs have at most two spatial extents), since one brick size serves the whole subgraph
// (§3.3.4) and the ratio of brick volumes across a stride-2 op is already 2^n.
inline constexpr size_t kMaxResolutionsPerSubgraph = 2;

// ---- brick units
// --------------------------------------------------------------------------------- A unit is what
// one brick of work computes and what one state tag guards: an anchor op (conv, pool, concat, or an
// element-wise op whose input comes from outside the unit) followed by the element-wise ops that
// consume its output alone (bias, BN, ReLU, the residual add), all on the same region. `output` is
// the last op's output tensor.
struct BrickUnit {
  std::vector<int> ops;
  int output = -1;
};
std::vector<BrickUnit> brick_units(const Graph& g, const std::vector<int>& ops);

// Whether op `op` can run brick by brick (an alpha * X + beta region map: conv, pool, element-wise,
// BN, channel concat); other ops (global pooling, GEMM, reshape, resize, deconvolution) run as
// cuDNN layers.
bool brick_mergeable(const Graph& g, int op);

// ---- brick size (§3.3.3)
// -------------------------------------------------------------------------
struct BrickSizeChoice {
  int64_t edge = 0;       // B
  double rho = 0;         // prod(D_i) / B^n at that B
  int n = 0;              // blocked dims
  bool fallback = false;  // rho < B^n: cuDNN instead of bricks (the paper's literal rule)
};
// The B in {4, 8, 16, 32} of the largest rho with rho <= tau (the largest B if none qualifies).
BrickSizeChoice choose_brick_size(const std::vector<int64_t>& blocked_extents);

// The extents that choose a subgraph's brick size: the blocked dims of its largest input
// activation ("the amount of parallelism obtained for a given activation layer", §3.3.3; read as
// the subgraph's input, as §4.5 states the proxies by their first layer: 112^3 -> 8^3, 224^3 ->
// 16^3).
std::vector<int64_t> subgraph_blocked_extents(const Graph& g, const std::vector<int>& ops);

// The dims of an activation that bricks block: the spatial dims, and the batch when it is > 1
// (§3.3.4: "all spatial and sample dimensions").
std::vector<int> blocked_dims(const Shape& activation);
std::vector<int64_t> blocked_extents(const Shape& activation);
// The brick extent per dim of `activation` for edge B (channels whole).
std::vector<int64_t> brick_extent(const Shape& activation, int64_t edge);

// ---- one subgraph
// --------------------------------------------------------------------------------
enum class MergeVariant { Padded, Memoized };
const char* variant_name(MergeVariant v);

struct SubgraphAnalysis {
  std::vector<int> ops;
  int root_op = -1;  // the op whose output bricks the padded variant computes
  int64_t edge = 0;
  int64_t root_bricks = 0;
  std::vector<BrickUnit> units;
  std::vector<int64_t> unit_bricks;  // bricks of each unit's output (memoized tags)
  int64_t memo_bricks = 0;           // sum of unit_bricks
  // Activation tensors touched (subgraph inputs, intermediates, outputs; no weights): their
  // element counts, and, for padded bricks, the elements of all bricks' regions summed.
  std::map<int, double> elements, padded_elements;
  std::vector<int> input_tensors;  // activations read from outside
  // Data growth of padded bricks: over all tensors (delta_all, the one the choice uses), over
  // the inputs only (delta_in), over the computed outputs only (delta_out = redundant compute).
  double delta_all = 0, delta_in = 0, delta_out = 0;
  MergeVariant choice = MergeVariant::Memoized;
  double weight_bytes = 0;
};
// Analyses `ops` (topological order; the last is the root) with brick edge `edge`.
SubgraphAnalysis analyze_subgraph(const Graph& g, const std::vector<int>& ops, int64_t edge);

// ---- partition (§3.3.1)
// --------------------------------------------------------------------------
struct Subgraph {
  std::vector<int> ops;
  bool merged = false;  // false: cuDNN layer(s)
  BrickSizeChoice brick;
};
// The on-chip working set of merged execution of `a` with `resident_bricks` bricks in flight
// (the paper gives no formula; assumption): the weights, and per resident brick the intermediates
// that never leave the subgraph (units consumed only inside it: their padded regions for padded
// bricks, one brick each for memoized) plus, for padded bricks, the halo copies of the inputs;
// memoized adds one 4-byte tag per brick. Subgraph inputs and outputs stream through.
double footprint_bytes(const Graph& g, const SubgraphAnalysis& a, MergeVariant v,
                       int64_t resident_bricks);
// Reverse traversal: a pooling op closes the subgraph it ends; an op that would give the
// subgraph a third resolution starts a new one; an op that bricks cannot run is a
// cuDNN layer of its own; a subgraph grows while the smaller of its padded and memoized footprints
// fits in `l2_bytes`; a subgraph whose brick-size choice falls back (rho < B^n) runs on cuDNN.
std::vector<Subgraph> partition_graph(const Graph& g, double l2_bytes, int64_t resident_bricks);

}  // namespace dgs::brickdl
