#pragma once
// BrickDL's workloads as subgraphs of zoo networks: the seven ResNet-50 subgraphs of Figs. 8-9 and
// the merge configurations of the six-layer proxy (Fig. 10).
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace dgs::brickdl {

// The batch of the 2-D networks (Figs. 7-9). The paper states none; at batch 1 every ResNet-50
// activation fits the 40 MB L2 and no DRAM traffic would be saved, so the notes' default, 32.
inline constexpr int64_t kDefaultBatch2d = 32;

// The paper gives no layer boundaries for ResNet-50's seven subgraphs (§4.4); the research notes'
// mapping (assumption): SG1 stem (conv1, BN, ReLU, max-pool), SG2 layer1.0, SG3 layer1.1-2,
// SG4 layer2.0-1, SG5 layer2.2-3, SG6 layer3.0-2, SG7 layer3.3-5; layer4 (7x7) runs on cuDNN.
struct NamedSubgraph {
  std::string name;
  std::vector<int> ops;  // topological order
};
std::vector<NamedSubgraph> resnet50_subgraphs(const Graph& resnet50);

// The ops of `chain` (a proxy: conv/relu pairs) split into consecutive subgraphs of the given
// numbers of conv layers, e.g. {3, 3}; the sizes must add up to the chain's conv count.
std::vector<NamedSubgraph> split_conv_chain(const Graph& chain, const std::vector<int>& layers);

}  // namespace dgs::brickdl
