#pragma once
// RandWire builders (see randwire.cpp): the authors' graphs, and seeded
// Watts-Strogatz graphs.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/graph/graph.h"
#include "models/zoo.h"

namespace dgs {

// A random stage's DAG: nodes 0..n-1, edges u -> v with u < v.
struct RandWireGraph {
  std::string name;
  int nodes = 0;
  std::vector<std::pair<int, int>> edges;
};

// The authors' four stage graphs (artifact files, built in as
// data/ios/randwire_graphs.csv).
std::vector<RandWireGraph> randwire_authors_graphs();
// WS(n, k, p) with the authors' generator algorithm and a seeded
// std::mt19937_64.
RandWireGraph generate_ws_graph(int n, int k, double p, uint64_t seed);

Graph build_randwire(const ZooOptions& opts);  // zoo "randwire"
Graph build_randwire_ws(const ZooOptions& opts,
                        uint64_t seed);                   // generated graphs
Graph build_randwire_ws_default(const ZooOptions& opts);  // zoo "randwire_ws" (seed 1)

}  // namespace dgs
