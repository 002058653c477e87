// RandWire (regular regime, C = 154) as the IOS authors define it in their
// model code (artifact: mit-han-lab/inter-operator-scheduler,
// python/ios/models/randwire.py, "randwire_large"):
//   front: conv 3x3/2 (C/2, no activation)
//   four random stages on Watts-Strogatz graphs WS(n, k=4, p=0.75): n = 16 (C
//   channels), then n = 32 three times (2C, 4C, 8C). Each node is a
//   Relu-SepConv 3x3 unit (the sum of its input nodes' outputs -> Relu ->
//   depthwise 3x3 -> pointwise 1x1); nodes without inputs read the stage input
//   with stride 2; the stage output is the sum of the nodes without outputs.
//   tail: Relu, conv 1x1 (1280, no activation), global average pool.
// 120 schedule units (thesis Table 4.1).
//
// Two graph sources:
//   "randwire"     the authors' four generated graphs (ws-16-4-0.75-2,
//   ws-32-4-0.75-{3,4,5}),
//                  read from data/ios/randwire_graphs.csv (artifact files,
//                  copied edge by edge); Table 3.1's RandWire row is exact only
//                  for these.
//   "randwire_ws"  graphs generated here with the authors' generator algorithm
//   (ws.py: ring
//                  lattice, each of the k/2 forward edges of node i rewired
//                  with probability p to a uniformly chosen node not yet
//                  adjacent to i; edges oriented low -> high) and a seeded
//                  std::mt19937_64 (build_randwire_ws(opts, seed)); the authors
//                  used an unseeded NumPy generator, so their graphs cannot be
//                  regenerated.
// Node order within a stage follows the authors' construction (a LIFO
// topological order), which is the order the Sequential schedule runs them in.
#include "models/randwire.h"

#include <random>
#include <sstream>
#include <stdexcept>

#include "common/util/resources.h"
#include "models/builder.h"

namespace dgs {

namespace {

constexpr int64_t kRandWireChannels = 154;  // authors' randwire_large: ch = 154
constexpr int64_t kTailChannels = 1280;

int relu_sep_conv_node(ModelBuilder& b, const std::vector<int>& inputs, int64_t out, int64_t stride,
                       const std::string& unit) {
  auto s = b.scope(unit);
  int x = inputs.at(0);
  for (size_t i = 1; i < inputs.size(); ++i) x = b.add(x, inputs[i], "add" + std::to_string(i - 1));
  const int64_t in = b.dim(x, 1);
  x = b.relu(x, "relu");
  x = b.conv2d(x, in, 3, stride, 1, in, true, "dwconv");
  return b.conv2d(x, out, 1, 1, 0, 1, true, "pwconv");
}

int random_stage(ModelBuilder& b, int r, int64_t ch, const RandWireGraph& graph,
                 const std::string& name) {
  auto s = b.scope(name);
  const int n = graph.nodes;
  std::vector<int> in_degree(static_cast<size_t>(n), 0), out_degree(static_cast<size_t>(n), 0);
  std::vector<std::vector<int>> outs(static_cast<size_t>(n)), ins(static_cast<size_t>(n));
  for (auto [u, v] : graph.edges) {
    ++in_degree[static_cast<size_t>(v)];
    ++out_degree[static_cast<size_t>(u)];
    outs[static_cast<size_t>(u)].push_back(v);
    ins[static_cast<size_t>(v)].push_back(u);
  }
  std::vector<int> outputs(static_cast<size_t>(n), -1);
  std::vector<int> queue;
  for (int u = 0; u < n; ++u)
    if (in_degree[static_cast<size_t>(u)] == 0) queue.push_back(u);
  int done = 0;
  while (!queue.empty()) {
    const int u = queue.back();
    queue.pop_back();
    ++done;
    const std::string unit = "node" + std::to_string(u);
    if (ins[static_cast<size_t>(u)].empty()) {
      outputs[static_cast<size_t>(u)] = relu_sep_conv_node(b, {r}, ch, 2, unit);
    } else {
      std::vector<int> xs;
      for (int v : ins[static_cast<size_t>(u)]) xs.push_back(outputs[static_cast<size_t>(v)]);
      outputs[static_cast<size_t>(u)] = relu_sep_conv_node(b, xs, ch, 1, unit);
    }
    for (int v : outs[static_cast<size_t>(u)])
      if (--in_degree[static_cast<size_t>(v)] == 0) queue.push_back(v);
  }
  if (done != n) throw Error("RandWire graph '" + graph.name + "' has a cycle; expected a DAG");
  std::vector<int> sinks;
  for (int u = 0; u < n; ++u)
    if (out_degree[static_cast<size_t>(u)] == 0) sinks.push_back(outputs[static_cast<size_t>(u)]);
  auto u = b.scope("exit");
  if (sinks.size() == 1) return b.op(OpKind::Identity, {sinks[0]}, {}, "identity");
  int x = sinks[0];
  for (size_t i = 1; i < sinks.size(); ++i) x = b.add(x, sinks[i], "add" + std::to_string(i - 1));
  return x;
}

Graph build_randwire_from(const ZooOptions& opts, const std::vector<RandWireGraph>& graphs,
                          const std::string& model_name) {
  check_zoo_options(opts, model_name);
  if (graphs.size() != 4)
    throw Error("RandWire needs 4 stage graphs; got " + std::to_string(graphs.size()));
  const int64_t size = zoo_image_size(opts, 224);
  const int64_t ch = kRandWireChannels;
  ModelBuilder b(model_name, opts.dtype);
  int x = b.input("data", {opts.batch, 3, size, size});
  {
    auto s = b.scope("front");
    auto u = b.scope("conv");
    x = b.conv2d(x, ch / 2, 3, 2, 1, 1, true, "conv");
  }
  x = random_stage(b, x, ch, graphs[0], "stage1");
  x = random_stage(b, x, 2 * ch, graphs[1], "stage2");
  x = random_stage(b, x, 4 * ch, graphs[2], "stage3");
  x = random_stage(b, x, 8 * ch, graphs[3], "stage4");
  {
    auto s = b.scope("tail");
    {
      auto u = b.scope("relu");
      x = b.relu(x, "relu");
    }
    {
      auto u = b.scope("conv");
      x = b.conv2d(x, kTailChannels, 1, 1, 0, 1, true, "conv");
    }
    {
      auto u = b.scope("pool");
      x = b.global_avg_pool(x, "gap");
    }
  }
  return b.finish({x});
}

}  // namespace

std::vector<RandWireGraph> randwire_authors_graphs() {
  const std::string path = "data/ios/randwire_graphs.csv";
  auto text = builtin_resource(path);
  if (!text) throw Error("built-in resource " + path + " is missing");
  // header "graph,nodes,u,v,source"; fields hold no commas or quotes
  std::istringstream in{std::string(*text)};
  std::string line;
  std::vector<RandWireGraph> graphs;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::istringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    if (line_no == 1) {
      if (f.size() < 4 || f[0] != "graph")
        throw Error(path + ":1: expected the header graph,nodes,u,v,source");
      continue;
    }
    if (f.size() < 4)
      throw Error(path + ":" + std::to_string(line_no) + ": expected graph,nodes,u,v,source");
    try {
      if (graphs.empty() || graphs.back().name != f[0])
        graphs.push_back(RandWireGraph{f[0], std::stoi(f[1]), {}});
      graphs.back().edges.emplace_back(std::stoi(f[2]), std::stoi(f[3]));
    } catch (const std::logic_error&) {
      throw Error(path + ":" + std::to_string(line_no) + ": expected integer nodes,u,v");
    }
  }
  return graphs;
}

RandWireGraph generate_ws_graph(int n, int k, double p, uint64_t seed) {
  if (k % 2 != 0 || k <= 0 || k >= n)
    throw UsageError("WS(n=" + std::to_string(n) + ", k=" + std::to_string(k) +
                     "): expected an even k with 0 < k < n");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::vector<char>> adj(static_cast<size_t>(n),
                                     std::vector<char>(static_cast<size_t>(n), 0));
  for (int i = 0; i < n; ++i) adj[static_cast<size_t>(i)][static_cast<size_t>(i)] = 1;
  for (int i = 0; i < n; ++i)
    for (int j = i - k / 2; j <= i + k / 2; ++j) {
      const int rj = ((j % n) + n) % n;
      if (rj == i) continue;
      adj[static_cast<size_t>(rj)][static_cast<size_t>(i)] =
          adj[static_cast<size_t>(i)][static_cast<size_t>(rj)] = 1;
    }
  // the authors draw all n x k/2 rewiring coins first, then walk them
  std::vector<double> coins(static_cast<size_t>(n * (k / 2)));
  for (double& c : coins) c = uniform(rng);
  for (int i = 0; i < n; ++i)
    for (int j = 1; j <= k / 2; ++j) {
      const int current = (i + j) % n;
      if (coins[static_cast<size_t>(i * (k / 2) + j - 1)] < p) {
        std::vector<int> unoccupied;
        for (int x = 0; x < n; ++x)
          if (!adj[static_cast<size_t>(i)][static_cast<size_t>(x)]) unoccupied.push_back(x);
        if (unoccupied.empty()) continue;
        std::uniform_int_distribution<size_t> pick(0, unoccupied.size() - 1);
        const int rewired = unoccupied[pick(rng)];
        adj[static_cast<size_t>(i)][static_cast<size_t>(current)] =
            adj[static_cast<size_t>(current)][static_cast<size_t>(i)] = 0;
        adj[static_cast<size_t>(i)][static_cast<size_t>(rewired)] =
            adj[static_cast<size_t>(rewired)][static_cast<size_t>(i)] = 1;
      }
    }
  RandWireGraph g{
      "ws-" + std::to_string(n) + "-" + std::to_string(k) + "-seed" + std::to_string(seed), n, {}};
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (adj[static_cast<size_t>(i)][static_cast<size_t>(j)]) g.edges.emplace_back(i, j);
  return g;
}

Graph build_randwire(const ZooOptions& opts) {
  return build_randwire_from(opts, randwire_authors_graphs(), "randwire");
}

Graph build_randwire_ws(const ZooOptions& opts, uint64_t seed) {
  std::vector<RandWireGraph> graphs;
  const int sizes[4] = {16, 32, 32, 32};
  for (int i = 0; i < 4; ++i)
    graphs.push_back(generate_ws_graph(sizes[i], 4, 0.75, seed * 4 + static_cast<uint64_t>(i)));
  return build_randwire_from(opts, graphs, "randwire_ws");
}

Graph build_randwire_ws_default(const ZooOptions& opts) {
  return build_randwire_ws(opts, 1);
}

}  // namespace dgs
