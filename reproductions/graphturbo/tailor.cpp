#include "reproductions/graphturbo/tailor.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "common/tileprog/tile_program_builder.h"
#include "common/util/error.h"
#include "models/builder.h"
#include "reproductions/graphturbo/instances.h"

namespace dgs::graphturbo {

namespace {

std::string stage_name(int s) {
  return "stage" + std::to_string(s + 1);
}

// One stage's ops: conv3x3, relu1, conv1x1, relu2 (op indices).
struct StageOps {
  std::vector<int> ops;
  int out = -1;  // relu2's output tensor
};

// conv3x3+ReLU -> conv1x1+ReLU of stage s on x, reading the stage's weights `w3`, `w1`; op names
// get `suffix` (instances: ".instance2").
StageOps add_stage(ModelBuilder& b, int x, int s, int w3, int w1, const std::string& suffix) {
  Graph& g = b.graph();
  const std::string p = stage_name(s);
  auto conv = [&](int in, int w, int64_t k, int64_t stride, int64_t pad, const std::string& n) {
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{k, k});
    a.set("strides", std::vector<int64_t>{stride, stride});
    a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    a.set("dilations", std::vector<int64_t>{1, 1});
    a.set("group", int64_t{1});
    return b.op(OpKind::Conv, {in, w}, std::move(a), n + suffix);
  };
  StageOps st;
  const int c3 = conv(x, w3, 3, s == 0 ? 1 : 2, 1, p + ".conv3x3");
  const int r1 = b.relu(c3, p + ".relu1" + suffix);
  const int c1 = conv(r1, w1, 1, 1, 0, p + ".conv1x1");
  st.out = b.relu(c1, p + ".relu2" + suffix);
  for (int t : {c3, r1, c1, st.out}) st.ops.push_back(g.tensor(t).producer);
  return st;
}

struct Weights {
  int w3 = -1, w1 = -1;
};

std::vector<Weights> add_weights(ModelBuilder& b, int64_t in_channels, const TailorShape& shape) {
  std::vector<Weights> w;
  int64_t in = in_channels;
  for (int s = 0; s < shape.stages; ++s) {
    const int64_t c = shape.channels << s;
    const std::string p = stage_name(s);
    w.push_back({b.weight(p + ".conv3x3.weight", {c, in, 3, 3}),
                 b.weight(p + ".conv1x1.weight", {c, c, 1, 1})});
    in = c;
  }
  return w;
}

struct Built {
  Graph graph;
  std::vector<StageOps> stages;
};

Built build_plain(int64_t batch, DType dtype, const TailorShape& shape) {
  if (batch < 1 || shape.stages < 1 || shape.image < 1 || shape.channels < 1)
    throw Error("resnet18_tailor: batch, stages, image and channels must be positive");
  ModelBuilder b("resnet18_tailor", dtype);
  int x = b.input("data", {batch, shape.channels, shape.image, shape.image});
  const std::vector<Weights> w = add_weights(b, shape.channels, shape);
  std::vector<StageOps> stages;
  for (int s = 0; s < shape.stages; ++s) {
    stages.push_back(add_stage(b, x, s, w[size_t(s)].w3, w[size_t(s)].w1, ""));
    x = stages.back().out;
  }
  return {b.finish({x}), std::move(stages)};
}

// The plain network with each stage run as one kernel, or (`split_convs`) as a conv3x3 kernel and
// a conv1x1 kernel (each conv with its activation).
TailorNetwork plain_network(int64_t batch, DType dtype, const TailorShape& shape,
                            const char* schedule, bool split_convs) {
  Built b = build_plain(batch, dtype, shape);
  TailorNetwork n;
  n.graph = std::move(b.graph);
  n.schedule = schedule;
  for (size_t s = 0; s < b.stages.size(); ++s) {
    const std::vector<int>& o = b.stages[s].ops;
    if (!split_convs) {
      n.kernels.push_back(o);
      n.kernel_names.push_back(stage_name(int(s)));
      continue;
    }
    n.kernels.push_back({o[0], o[1]});
    n.kernel_names.push_back(stage_name(int(s)) + ".conv3x3");
    n.kernels.push_back({o[2], o[3]});
    n.kernel_names.push_back(stage_name(int(s)) + ".conv1x1");
  }
  return n;
}

}  // namespace

Graph resnet18_tailor(int64_t batch, DType dtype, const TailorShape& shape) {
  return build_plain(batch, dtype, shape).graph;
}

TailorNetwork tailor_per_layer(int64_t batch, DType dtype, const TailorShape& shape) {
  return plain_network(batch, dtype, shape, "per-layer", /*split_convs=*/true);
}

TailorNetwork tailor_two_conv(int64_t batch, DType dtype, const TailorShape& shape) {
  return plain_network(batch, dtype, shape, "two-conv fusion", /*split_convs=*/false);
}

TailorNetwork tailor_instance_split(int64_t batch, DType dtype, int split_stages, int instances,
                                    const TailorShape& shape) {
  if (split_stages < 1 || split_stages > shape.stages)
    throw Error("resnet18_tailor instance split: " + std::to_string(split_stages) +
                " split stages of " + std::to_string(shape.stages));
  std::vector<int64_t> factors(size_t(shape.stages), 1);
  for (int s = 0; s < split_stages; ++s) factors[size_t(s)] = instances;
  return tailor_instances(batch, dtype, factors, shape);
}

TailorNetwork tailor_instances(int64_t batch, DType dtype, const std::vector<int64_t>& factors,
                               const TailorShape& shape) {
  if (factors.size() != size_t(shape.stages))
    throw Error("resnet18_tailor instances: " + std::to_string(factors.size()) + " factors for " +
                std::to_string(shape.stages) + " stages");
  for (size_t s = 0; s < factors.size(); ++s) {
    if (factors[s] < 1 || batch % factors[s] != 0)
      throw Error("resnet18_tailor instances: " + std::to_string(factors[s]) +
                  " instances do not divide batch " + std::to_string(batch));
    if (s > 0 && factors[s - 1] % factors[s] != 0)
      throw Error("resnet18_tailor instances: stage " + std::to_string(s + 1) + "'s " +
                  std::to_string(factors[s]) + " instances do not divide stage " +
                  std::to_string(s) + "'s " + std::to_string(factors[s - 1]));
  }
  ModelBuilder b("resnet18_tailor", dtype);
  const int data = b.input("data", {batch, shape.channels, shape.image, shape.image});
  const std::vector<Weights> w = add_weights(b, shape.channels, shape);
  TailorNetwork n;
  n.schedule = "instance split";
  // Instances in BFS order (stage, then index); their kernels, outputs and the DAG of Algorithm 3.
  InstanceDag dag;
  std::vector<std::vector<int>> kernels;
  std::vector<std::string> names;
  std::vector<int> outs;
  std::vector<int> first_of_stage;
  for (int s = 0; s < shape.stages; ++s) {
    const int64_t f = factors[size_t(s)];
    const int64_t per = batch / f;
    first_of_stage.push_back(int(outs.size()));
    for (int64_t j = 0; j < f; ++j) {
      const std::string suffix = f > 1 ? ".instance" + std::to_string(j + 1) : "";
      std::vector<int> inserted, producers;
      int x = data;
      if (s == 0 && f > 1) {
        x = b.slice(data, {j * per}, {(j + 1) * per}, {0}, {}, "split" + suffix);
        inserted.push_back(b.graph().tensor(x).producer);
      } else if (s > 0) {
        // The producer instances covering this instance's images; several: a Concat (§3.5).
        const int64_t r = factors[size_t(s) - 1] / f;
        for (int64_t k = j * r; k < (j + 1) * r; ++k)
          producers.push_back(first_of_stage[size_t(s) - 1] + int(k));
        if (r == 1) {
          x = outs[size_t(producers[0])];
        } else {
          std::vector<int> parts;
          for (int p : producers) parts.push_back(outs[size_t(p)]);
          x = b.concat(parts, 0, stage_name(s) + ".concat" + suffix);
          inserted.push_back(b.graph().tensor(x).producer);
        }
      }
      n.inserted_ops += int(inserted.size());
      StageOps st = add_stage(b, x, s, w[size_t(s)].w3, w[size_t(s)].w1, suffix);
      st.ops.insert(st.ops.begin(), inserted.begin(), inserted.end());
      kernels.push_back(st.ops);
      names.push_back(stage_name(s) + suffix);
      outs.push_back(st.out);
      dag.labels.push_back(names.back());
      dag.producers.push_back(producers);
      dag.output_bytes.push_back(b.graph().tensor(st.out).numel() * dtype_size(dtype));
    }
  }
  // The scheduler's choice of order (instances.h): Algorithm 3 unless BFS has a lower peak.
  std::vector<int> bfs(outs.size());
  for (size_t i = 0; i < bfs.size(); ++i) bfs[i] = int(i);
  const std::vector<int> dfs = algorithm3_order(dag, bfs);
  n.algorithm3_order = peak_live_bytes(dag, dfs) <= peak_live_bytes(dag, bfs);
  for (int i : n.algorithm3_order ? dfs : bfs) {
    n.kernels.push_back(kernels[size_t(i)]);
    n.kernel_names.push_back(names[size_t(i)]);
  }
  int out = outs.back();
  if (factors.back() > 1) {  // the last stage split: a Concat of its instances, a copy kernel
    out =
        b.concat(std::vector<int>(outs.end() - factors.back(), outs.end()), 0, "concat.instances");
    n.kernels.push_back({b.graph().tensor(out).producer});
    n.kernel_names.push_back("concat.instances");
    ++n.inserted_ops;
  }
  n.graph = b.finish({out});
  return n;
}

TailorSplit tailor_algorithm1_split(int64_t batch, const GpuSpec& gpu, const TailorShape& shape) {
  TailorSplit out;
  out.params.cores = gpu.sm_count;
  out.params.element_bytes = dtype_size(DType::F16);
  out.params.llb_bytes = gpu.l2_bytes;
  out.params.split_capacity =
      static_cast<int64_t>(kSplitCapacityFractionOfLlb * static_cast<double>(gpu.l2_bytes));
  const Built b = build_plain(batch, DType::F16, shape);
  for (const StageOps& st : b.stages)
    out.factors.push_back(make_subgraph(b.graph, st.ops, out.params).best.factor);
  return out;
}

namespace {

// The kernel's last op (the last one added: the group's end) and its output tile.
std::pair<int, std::vector<int64_t>> kernel_root_tile(const Graph& g, const std::vector<int>& ops) {
  const int root = *std::max_element(ops.begin(), ops.end());
  const Shape& out = g.tensor(g.op(root).outputs.at(0)).shape;
  std::vector<int64_t> tile = out;
  tile[0] = 1;
  if (out.size() == 4) {
    tile[2] = std::min(out[2], kTailorTileEdge);
    tile[3] = std::min(out[3], kTailorTileEdge);
  }
  return {root, tile};
}

}  // namespace

Plan tailor_plan(const TailorNetwork& net) {
  Plan p;
  p.scheduler = "ResNet18-Tailor " + net.schedule;
  p.graph = net.graph.name;
  for (const std::vector<int>& ops : net.kernels) {
    Task t;
    t.kind = TaskKind::Fused;
    t.ops = ops;
    std::sort(t.ops.begin(), t.ops.end());  // built in topological order
    t.tile = kernel_root_tile(net.graph, ops).second;
    p.stages.push_back(Stage{{t}});
  }
  return p;
}

NetworkProgram tailor_program(const TailorNetwork& net) {
  const Graph& g = net.graph;
  NetworkProgram np;
  for (size_t k = 0; k < net.kernels.size(); ++k) {
    const std::vector<int>& ops = net.kernels[k];
    TileProgramGroup grp;
    grp.ops = ops;
    std::tie(grp.root, grp.root_tile) = kernel_root_tile(g, ops);
    grp.written = tensors_leaving_group(g, ops);
    np.kernels.push_back(build_tile_program(g, grp));
    np.kernel_group.push_back(static_cast<int>(k));
  }
  return np;
}

}  // namespace dgs::graphturbo
