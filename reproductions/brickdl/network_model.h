#pragma once
// BrickDL on a whole network (Fig. 7): the static model's partition (partition_graph: merged
// subgraphs with their brick size, cuDNN for the rest), the padded/memoized choice of each merged
// subgraph (the delta rule, or one variant forced), the layout conversions between bricks and the
// framework's layout, and their price on BrickDL's own analytic model (perf_model.h) against the
// cuDNN layer-by-layer baseline. The same schedule becomes a Plan in network_plan.h.
#include <optional>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/hardware.h"
#include "reproductions/brickdl/perf_model.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {

struct NetworkPart {
  Subgraph subgraph;                              // ops (topological order), merged, brick size
  SubgraphAnalysis analysis;                      // merged parts only (empty ops otherwise)
  MergeVariant variant = MergeVariant::Memoized;  // merged parts: the variant that runs
};

struct NetworkSchedule {
  std::vector<NetworkPart> parts;  // topological order
  // Activations converted once between the brick layout and the framework's: every tensor that
  // crosses between a merged subgraph and a cuDNN one or enters a merged subgraph from the
  // network's input, and every network output a merged subgraph writes. Ascending.
  std::vector<int> converted;
};

// The partition of `g` on `spec` (L2 bound = the config's L2 size, one resident brick per SM),
// each merged part analysed with its brick size; variant = the analysis' choice (delta rule,
// §3.3.2) unless `force` names one.
NetworkSchedule schedule_network(const Graph& g, const GpuSpec& spec,
                                 std::optional<MergeVariant> force = std::nullopt);

struct NetworkPricing {
  TimeBreakdown cudnn, brickdl;  // the cuDNN baseline of the whole graph; BrickDL's schedule
  int merged_subgraphs = 0, cudnn_subgraphs = 0, padded = 0, conversions = 0;
};
// Fig. 7's pricing: cuDNN = price_cudnn of every op; BrickDL = price_cudnn of each cuDNN part,
// price_merged of each merged part with its variant, price_brick_conversion of each converted
// tensor, summed in that order.
NetworkPricing price_network(const Graph& g, const NetworkSchedule& s, const GpuSpec& spec);

}  // namespace dgs::brickdl
