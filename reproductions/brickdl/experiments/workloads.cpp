#include "reproductions/brickdl/experiments/workloads.h"

#include <algorithm>

#include "common/util/error.h"

namespace dgs::brickdl {

namespace {

bool starts_with_any(const std::string& name, const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

}  // namespace

std::vector<NamedSubgraph> resnet50_subgraphs(const Graph& g) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> spec = {
      {"SG1", {"conv1", "bn1", "relu", "maxpool"}},
      {"SG2", {"layer1.0."}},
      {"SG3", {"layer1.1.", "layer1.2."}},
      {"SG4", {"layer2.0.", "layer2.1."}},
      {"SG5", {"layer2.2.", "layer2.3."}},
      {"SG6", {"layer3.0.", "layer3.1.", "layer3.2."}},
      {"SG7", {"layer3.3.", "layer3.4.", "layer3.5."}},
  };
  std::vector<NamedSubgraph> out;
  for (const auto& [name, prefixes] : spec) {
    NamedSubgraph s{name, {}};
    for (int op : g.topo_order()) {
      const std::string& n = g.op(op).name;
      const bool exact_stem = name == "SG1";
      if (exact_stem ? std::find(prefixes.begin(), prefixes.end(), n) != prefixes.end()
                     : starts_with_any(n, prefixes))
        s.ops.push_back(op);
    }
    if (s.ops.empty()) throw Error("ResNet-50 subgraph " + name + ": no ops (is it resnet50?)");
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<NamedSubgraph> split_conv_chain(const Graph& g, const std::vector<int>& layers) {
  std::vector<std::vector<int>> per_conv;  // each conv with the ops after it
  for (int op : g.topo_order()) {
    if (g.op(op).kind == OpKind::Conv) per_conv.push_back({});
    if (per_conv.empty()) throw Error("split_conv_chain: op '" + g.op(op).name + "' before a conv");
    per_conv.back().push_back(op);
  }
  std::vector<NamedSubgraph> out;
  size_t next = 0;
  for (int n : layers) {
    NamedSubgraph s{"layers " + std::to_string(next + 1) + "-" + std::to_string(next + n), {}};
    for (int i = 0; i < n; ++i) {
      if (next >= per_conv.size())
        throw Error("split_conv_chain: more layers asked than the chain's " +
                    std::to_string(per_conv.size()));
      s.ops.insert(s.ops.end(), per_conv[next].begin(), per_conv[next].end());
      ++next;
    }
    out.push_back(std::move(s));
  }
  if (next != per_conv.size())
    throw Error("split_conv_chain: " + std::to_string(next) + " layers of " +
                std::to_string(per_conv.size()) + " assigned");
  return out;
}

}  // namespace dgs::brickdl
