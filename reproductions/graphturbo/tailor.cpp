#include "reproductions/graphturbo/tailor.h"

#include <algorithm>

#include "common/tileprog/tile_program_builder.h"
#include "common/util/error.h"
#include "models/builder.h"

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

}  // namespace

Graph resnet18_tailor(int64_t batch, DType dtype, const TailorShape& shape) {
  return build_plain(batch, dtype, shape).graph;
}

TailorNetwork tailor_per_layer(int64_t batch, DType dtype, const TailorShape& shape) {
  Built b = build_plain(batch, dtype, shape);
  TailorNetwork n;
  n.graph = std::move(b.graph);
  n.schedule = "per-layer";
  for (size_t s = 0; s < b.stages.size(); ++s) {
    const std::vector<int>& o = b.stages[s].ops;
    n.kernels.push_back({o[0], o[1]});
    n.kernel_names.push_back(stage_name(int(s)) + ".conv3x3");
    n.kernels.push_back({o[2], o[3]});
    n.kernel_names.push_back(stage_name(int(s)) + ".conv1x1");
  }
  return n;
}

TailorNetwork tailor_two_conv(int64_t batch, DType dtype, const TailorShape& shape) {
  Built b = build_plain(batch, dtype, shape);
  TailorNetwork n;
  n.graph = std::move(b.graph);
  n.schedule = "two-conv fusion";
  for (size_t s = 0; s < b.stages.size(); ++s) {
    n.kernels.push_back(b.stages[s].ops);
    n.kernel_names.push_back(stage_name(int(s)));
  }
  return n;
}

TailorNetwork tailor_instance_split(int64_t batch, DType dtype, int split_stages, int instances,
                                    const TailorShape& shape) {
  if (split_stages < 1 || split_stages > shape.stages)
    throw Error("resnet18_tailor instance split: " + std::to_string(split_stages) +
                " split stages of " + std::to_string(shape.stages));
  if (instances < 1 || batch % instances != 0)
    throw Error("resnet18_tailor instance split: " + std::to_string(instances) +
                " instances do not divide batch " + std::to_string(batch));
  ModelBuilder b("resnet18_tailor", dtype);
  const int data = b.input("data", {batch, shape.channels, shape.image, shape.image});
  const std::vector<Weights> w = add_weights(b, shape.channels, shape);
  TailorNetwork n;
  n.schedule = "instance split";
  const int64_t per = batch / instances;
  std::vector<int> outs;
  for (int i = 0; i < instances; ++i) {
    const std::string suffix = ".instance" + std::to_string(i + 1);
    int x = data;
    std::vector<int> slice_ops;
    if (instances > 1) {
      x = b.slice(data, {i * per}, {(i + 1) * per}, {0}, {}, "split" + suffix);
      slice_ops.push_back(b.graph().tensor(x).producer);
      ++n.inserted_ops;
    }
    for (int s = 0; s < split_stages; ++s) {
      StageOps st = add_stage(b, x, s, w[size_t(s)].w3, w[size_t(s)].w1, suffix);
      if (s == 0) st.ops.insert(st.ops.begin(), slice_ops.begin(), slice_ops.end());
      n.kernels.push_back(st.ops);
      n.kernel_names.push_back(stage_name(s) + suffix);
      x = st.out;
    }
    outs.push_back(x);
  }
  int x = outs.front();
  std::vector<int> concat_ops;
  if (instances > 1) {
    x = b.concat(outs, 0, "concat.instances");
    concat_ops.push_back(b.graph().tensor(x).producer);
    ++n.inserted_ops;
  }
  for (int s = split_stages; s < shape.stages; ++s) {
    StageOps st = add_stage(b, x, s, w[size_t(s)].w3, w[size_t(s)].w1, "");
    // The Concat is read by the first unsplit stage's kernel (it gathers both instances).
    if (s == split_stages) st.ops.insert(st.ops.begin(), concat_ops.begin(), concat_ops.end());
    n.kernels.push_back(st.ops);
    n.kernel_names.push_back(stage_name(s));
    x = st.out;
  }
  // All stages split: the Concat is a kernel of its own (a copy).
  if (split_stages == shape.stages && !concat_ops.empty()) {
    n.kernels.push_back(concat_ops);
    n.kernel_names.push_back("concat.instances");
  }
  n.graph = b.finish({x});
  return n;
}

NetworkProgram tailor_program(const TailorNetwork& net) {
  const Graph& g = net.graph;
  NetworkProgram np;
  for (size_t k = 0; k < net.kernels.size(); ++k) {
    const std::vector<int>& ops = net.kernels[k];
    TileProgramGroup grp;
    grp.ops = ops;
    grp.root = *std::max_element(ops.begin(), ops.end());  // the last op added: the group's end
    const Shape& out = g.tensor(g.op(grp.root).outputs.at(0)).shape;
    grp.root_tile = out;
    grp.root_tile[0] = 1;
    if (out.size() == 4) {
      grp.root_tile[2] = std::min(out[2], kTailorTileEdge);
      grp.root_tile[3] = std::min(out[3], kTailorTileEdge);
    }
    grp.written = tensors_leaving_group(g, ops);
    np.kernels.push_back(build_tile_program(g, grp));
    np.kernel_group.push_back(static_cast<int>(k));
  }
  return np;
}

}  // namespace dgs::graphturbo
