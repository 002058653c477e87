#include "reproductions/welder/tile_graph.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "common/graph/op_cost.h"
#include "common/util/error.h"

namespace dgs::welder {

int TileGraph::add_tensor(TileTensor t) {
  tensors.push_back(std::move(t));
  return static_cast<int>(tensors.size()) - 1;
}

int TileGraph::add_op(TileOp op) {
  const int id = static_cast<int>(ops.size());
  for (const auto& in : op.inputs) {
    auto& cons = tensors.at(static_cast<size_t>(in.tensor)).consumers;
    if (std::find(cons.begin(), cons.end(), id) == cons.end()) cons.push_back(id);
  }
  tensors.at(static_cast<size_t>(op.output)).producer = id;
  ops.push_back(std::move(op));
  return id;
}

namespace {

int64_t clip(int64_t v, int64_t hi) {
  return std::max<int64_t>(1, std::min(v, hi));
}

}  // namespace

namespace {

// The region of every custom input of `op` for the (already clipped) output tile; other inputs
// get an empty vector.
std::vector<std::vector<int64_t>> custom_regions(const TileGraph& g, const TileOp& op,
                                                 const int64_t* clipped_tile) {
  Region tile;
  for (size_t d = 0; d < op.space.size(); ++d) tile.push_back({0, clipped_tile[d]});
  const auto regions = input_regions(*g.source, op.graph_op, tile, op.output_index);
  std::vector<std::vector<int64_t>> out(op.inputs.size());
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    const TileInput& in = op.inputs[k];
    if (!in.custom()) continue;
    const Shape& shape = g.tensors[in.tensor].shape;
    const Region& r = regions.at(static_cast<size_t>(in.graph_input));
    out[k].assign(shape.size(), 1);
    for (size_t d = 0; d < r.size() && d < shape.size(); ++d)
      out[k][d] = clip(r[d].size(), shape[d]);
  }
  return out;
}

}  // namespace

void affine_input_region(const TileGraph& g, const TileOp& op, int k, const int64_t* space_tile,
                         const int64_t* reduce_tile, int64_t* out) {
  const TileInput& in = op.inputs[static_cast<size_t>(k)];
  const Shape& shape = g.tensors[in.tensor].shape;
  auto extent = [&](const IndexTerm& t) {
    const size_t ax = static_cast<size_t>(t.axis);
    return t.reduction ? std::min(reduce_tile[ax], op.reduce[ax])
                       : std::min(space_tile[ax], op.space[ax]);
  };
  for (size_t d = 0; d < shape.size(); ++d) {
    const AxisIndex& a = in.dims[d];
    out[d] = a.full ? shape[d] : clip(affine_span(a, extent), shape[d]);
  }
}

std::vector<int64_t> input_region(const TileGraph& g, const TileOp& op, int k,
                                  const std::vector<int64_t>& space_tile,
                                  const std::vector<int64_t>& reduce_tile) {
  const TileInput& in = op.inputs.at(static_cast<size_t>(k));
  const Shape& shape = g.tensors[in.tensor].shape;
  if (in.custom()) {
    // Concat, Reshape-like, Resize, DepthToSpace, ConvTranspose, ...: the shared iteration
    // spaces compute the region (common/graph/iteration_space.h).
    std::vector<int64_t> tile(op.space.size());
    for (size_t d = 0; d < op.space.size(); ++d)
      tile[d] = std::max<int64_t>(1, std::min(space_tile[d], op.space[d]));
    return custom_regions(g, op, tile.data())[static_cast<size_t>(k)];
  }
  std::vector<int64_t> region(shape.size(), 1);
  affine_input_region(g, op, k, space_tile.data(), reduce_tile.data(), region.data());
  return region;
}

const int64_t* CustomRegionMemo::region(const TileGraph& g, int op_index, int k,
                                        const int64_t* space_tile) {
  if (graph_ != &g) {
    if (graph_)
      throw Error("Welder region memo: used with a second tile-graph (one memo per graph)");
    graph_ = &g;
  }
  const TileOp& op = g.ops[static_cast<size_t>(op_index)];
  key_.resize(op.space.size() + 1);
  key_[0] = op_index;
  for (size_t d = 0; d < op.space.size(); ++d)
    key_[d + 1] = std::max<int64_t>(1, std::min(space_tile[d], op.space[d]));
  return find_or_add(g, op_index, k);
}

const int64_t* CustomRegionMemo::find_or_add(const TileGraph& g, int op_index, int k) {
  const TileOp& op = g.ops[static_cast<size_t>(op_index)];
  // Offset of input k's region inside the op's value block.
  auto value_of = [&](const Entry& e) {
    size_t off = e.value;
    for (int j = 0; j < k; ++j)
      if (op.inputs[static_cast<size_t>(j)].custom())
        off += g.tensors[op.inputs[static_cast<size_t>(j)].tensor].shape.size();
    return values_.data() + off;
  };
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the key's words
  for (int64_t v : key_) {
    h ^= static_cast<uint64_t>(v);
    h *= 1099511628211ull;
  }
  if (slots_.empty()) slots_.assign(1024, -1);
  size_t mask = slots_.size() - 1;
  size_t s = static_cast<size_t>(h) & mask;
  for (; slots_[s] >= 0; s = (s + 1) & mask) {
    const Entry& e = entries_[static_cast<size_t>(slots_[s])];
    if (e.hash == h && std::equal(key_.begin(), key_.end(), keys_.begin() + e.key))
      return value_of(e);
  }
  Entry e;
  e.key = keys_.size();
  e.value = values_.size();
  e.hash = h;
  keys_.insert(keys_.end(), key_.begin(), key_.end());
  for (const auto& r : custom_regions(g, op, key_.data() + 1))
    values_.insert(values_.end(), r.begin(), r.end());
  entries_.push_back(e);
  slots_[s] = static_cast<int>(entries_.size()) - 1;
  if (2 * entries_.size() > slots_.size()) {  // grow and re-index
    slots_.assign(2 * slots_.size(), -1);
    mask = slots_.size() - 1;
    for (size_t i = 0; i < entries_.size(); ++i) {
      size_t t = static_cast<size_t>(entries_[i].hash) & mask;
      while (slots_[t] >= 0) t = (t + 1) & mask;
      slots_[t] = static_cast<int>(i);
    }
  }
  return value_of(entries_.back());
}

// ---------------------------------------------------------------------------------------------
// Hand-built graphs
// ---------------------------------------------------------------------------------------------
int add_tensor(TileGraph& g, const std::string& name, const Shape& shape, bool param,
               int64_t elem_bytes) {
  TileTensor t;
  t.name = name;
  t.shape = shape;
  t.param = param;
  t.graph_input = !param;
  t.elem_bytes = elem_bytes;
  return g.add_tensor(std::move(t));
}

namespace {
// An input dim indexed by output axis `axis` (reduction axis with `reduction`).
AxisIndex axis_dim(size_t axis, bool reduction = false) {
  AxisIndex a;
  a.terms.push_back({.axis = static_cast<int>(axis), .reduction = reduction});
  return a;
}

// Right-aligned NumPy broadcasting of an input of shape `in` against output axes [0, out_rank).
TileInput broadcast_access(int tensor, const Shape& in, size_t out_rank, const Shape& out) {
  TileInput a;
  a.tensor = tensor;
  const size_t off = out_rank - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    a.dims.push_back(in[d] == 1 && out[off + d] != 1 ? AxisIndex{} : axis_dim(off + d));
  }
  return a;
}

int new_output(TileGraph& g, const std::string& name, const Shape& shape, int64_t eb) {
  TileTensor t;
  t.name = name + ":0";
  t.shape = shape;
  t.elem_bytes = eb;
  return g.add_tensor(std::move(t));
}
}  // namespace

int add_elementwise(TileGraph& g, const std::string& name, const std::vector<int>& inputs,
                    const Shape& shape, double flops_per_elem) {
  TileOp op;
  op.name = name;
  op.type = "Elementwise";
  op.space = shape;
  for (int t : inputs)
    op.inputs.push_back(broadcast_access(t, g.tensors[t].shape, shape.size(), shape));
  op.output = new_output(g, name, shape, g.tensors[inputs.at(0)].elem_bytes);
  op.flops = flops_per_elem * static_cast<double>(numel(shape));
  return g.add_op(std::move(op));
}

int add_matmul(TileGraph& g, const std::string& name, int a, int b) {
  const Shape as = g.tensors[a].shape;
  const Shape bs = g.tensors[b].shape;
  if (as.size() < 2 || bs.size() != 2 || as.back() != bs[0])
    throw Error("welder matmul '" + name + "': shapes " + shape_str(as) + " x " + shape_str(bs) +
                " do not match; expected [..,M,K] x [K,N]");
  TileOp op;
  op.name = name;
  op.type = "MatMul";
  op.space = as;
  op.space.back() = bs[1];
  op.reduce = {as.back()};
  TileInput ia;
  ia.tensor = a;
  for (size_t d = 0; d + 1 < as.size(); ++d) ia.dims.push_back(axis_dim(d));
  ia.dims.push_back(axis_dim(0, true));  // K
  TileInput ib;
  ib.tensor = b;
  ib.dims.push_back(axis_dim(0, true));
  ib.dims.push_back(axis_dim(op.space.size() - 1));
  op.inputs = {ia, ib};
  op.output = new_output(g, name, op.space, g.tensors[a].elem_bytes);
  op.flops = 2.0 * static_cast<double>(numel(op.space)) * static_cast<double>(as.back());
  return g.add_op(std::move(op));
}

int add_softmax(TileGraph& g, const std::string& name, int x) {
  const Shape s = g.tensors[x].shape;
  TileOp op;
  op.name = name;
  op.type = "Softmax";
  op.space = s;
  op.reduce = {s.back()};
  TileInput ia;
  ia.tensor = x;
  for (size_t d = 0; d + 1 < s.size(); ++d) ia.dims.push_back(axis_dim(d));
  AxisIndex row;
  row.full = true;
  ia.dims.push_back(row);
  op.inputs = {ia};
  op.output = new_output(g, name, s, g.tensors[x].elem_bytes);
  op.flops = 5.0 * static_cast<double>(numel(s));
  return g.add_op(std::move(op));
}

// ---------------------------------------------------------------------------------------------
// Conversion from dgs::Graph: the shared iteration spaces (common/graph/iteration_space.h)
// ---------------------------------------------------------------------------------------------
TileGraph build_tile_graph(const Graph& graph) {
  TileGraph tg;
  tg.name = graph.name;
  tg.source = std::make_shared<const Graph>(graph);
  const Graph& g = *tg.source;
  std::vector<int> tmap(static_cast<size_t>(g.num_tensors()), -1);
  auto map_tensor = [&](int t) {
    if (tmap[t] >= 0) return tmap[t];
    const Tensor& src = g.tensor(t);
    TileTensor tt;
    tt.name = src.name;
    tt.shape = src.shape;
    tt.elem_bytes = dtype_size(src.dtype);
    tt.param = src.is_param();
    tt.graph_input = src.role == TensorRole::Input;
    tt.graph_output = src.role == TensorRole::Output;
    tt.graph_tensor = t;
    tmap[t] = tg.add_tensor(std::move(tt));
    return tmap[t];
  };
  for (int oi : g.topo_order()) {
    const Op& o = g.op(oi);
    const double flops = static_cast<double>(op_cost(g, oi).flops);
    for (size_t out = 0; out < o.outputs.size(); ++out) {
      if (o.outputs[out] < 0) continue;
      if (o.kind == OpKind::Dropout && out > 0) continue;  // the mask output
      const IterationSpace is = iteration_space(g, oi, static_cast<int>(out));
      TileOp op;
      op.name = out == 0 ? o.name : o.name + "#" + std::to_string(out);
      op.type = std::string(op_kind_name(o.kind));
      op.graph_op = oi;
      op.output_index = static_cast<int>(out);
      op.space = is.output_axes;
      for (const auto& r : is.reduction_axes) op.reduce.push_back(r.extent);
      op.layout_only = is_layout_only(o.kind);
      op.flops = flops / static_cast<double>(o.outputs.size());
      for (size_t k = 0; k < o.inputs.size(); ++k) {
        const int t = o.inputs[k];
        if (t < 0 || is.inputs[k].kind == dgs::InputAccess::Kind::Omitted) continue;
        const Tensor& src = g.tensor(t);
        // Shape-determining constants and folded scalar constants are not loaded by a kernel.
        if (src.role == TensorRole::Constant && (!src.int_data.empty() || numel(src.shape) <= 1))
          continue;
        TileInput a;
        static_cast<dgs::InputAccess&>(a) = is.inputs[k];
        a.tensor = map_tensor(t);
        a.graph_input = static_cast<int>(k);
        op.inputs.push_back(std::move(a));
      }
      op.output = map_tensor(o.outputs[out]);
      tg.add_op(std::move(op));
    }
  }
  return tg;
}

}  // namespace dgs::welder
