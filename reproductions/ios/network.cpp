#include "reproductions/ios/network.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/graph/window.h"
#include "common/util/error.h"

namespace dgs::ios {

namespace {

// Where a unit is in its pattern (see network.h).
enum class UnitState {
  ConvHead,   // Conv seen; its Relu may follow
  Terms,      // only Adds so far (pure terms)
  TermsCat,   // Adds and a Concat: only a Relu may follow
  AfterRelu,  // [terms] Relu: a Conv may follow
  AfterDw,    // [terms] Relu depthwise-Conv: a 1x1 Conv may follow
  Closed
};

bool is_depthwise(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.kind != OpKind::Conv) return false;
  const int64_t group = o.attrs.get_int("group", 1);
  const Shape& x = g.tensor(o.inputs[0]).shape;
  return group > 1 && x.size() > 1 && group == x[1];
}

bool is_pointwise(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.kind != OpKind::Conv || o.attrs.get_int("group", 1) != 1) return false;
  const Shape& w = g.tensor(o.inputs[1]).shape;
  for (size_t i = 2; i < w.size(); ++i)
    if (w[i] != 1) return false;
  return true;
}

// The data inputs of an op (tensors produced by ops or graph inputs; not
// weights/constants).
std::vector<int> data_inputs(const Graph& g, int op) {
  std::vector<int> out;
  for (int t : g.op(op).inputs)
    if (t >= 0 && !g.tensor(t).is_param()) out.push_back(t);
  return out;
}

std::string first_component(const std::string& name) {
  const size_t dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

std::string common_prefix(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string p = names[0];
  for (const auto& n : names) {
    size_t i = 0;
    while (i < p.size() && i < n.size() && p[i] == n[i]) ++i;
    p.resize(i);
  }
  while (!p.empty() && (p.back() == '.' || p.back() == '_')) p.pop_back();
  if (p.empty()) p = names[0];
  return p;
}

// Side-input ops (PartRule::Blocks): cheap ops (element-wise, layout, Gather, GatherND, Expand,
// Slice, Concat, Transpose) whose data inputs are graph inputs other than the first, outputs of
// side-input ops, or the first graph input where the op gives a bool (a padding mask compared
// from the token ids), such as the attention mask a BERT export computes once from its
// attention_mask input and every layer reads. The authors' IR has one graph input, the data (the
// image); a value computed from the other inputs alone is, like a constant or a block's enter
// node, ready before the blocks that read it, and an edge from an early block to a later one is
// legal (NASNet cells read the cell before last): the block rule only needs edges to go forward.
// So side values (is_side_value) do not count as live across a cut, and units of side-input ops
// do not keep a block open: BERT with a mask gets one block per layer, as without. A network with
// one float graph input has no side-input ops.
std::vector<char> side_input_ops(const Graph& g, const std::vector<int>& order) {
  std::vector<char> side(static_cast<size_t>(g.num_ops()), 0);
  const std::vector<int> inputs = g.input_tensors();
  if (inputs.empty()) return side;
  for (int op : order) {
    const OpKind k = g.op(op).kind;
    const bool gives_bool =
        !g.op(op).outputs.empty() && g.tensor(g.op(op).outputs[0]).dtype == DType::Bool;
    const bool cheap = is_elementwise(k) || is_layout_only(k) || k == OpKind::Gather ||
                       k == OpKind::GatherND || k == OpKind::Expand || k == OpKind::Slice ||
                       k == OpKind::Concat || k == OpKind::Transpose;
    if (!cheap) continue;
    // an op with no data input (an Expand of a class-token weight) is not a side-input op
    const std::vector<int> ins = data_inputs(g, op);
    bool from_side = !ins.empty();
    for (int t : ins) {
      const int p = g.tensor(t).producer;
      from_side &= p >= 0 ? side[static_cast<size_t>(p)] != 0 : t != inputs.front() || gives_bool;
    }
    side[static_cast<size_t>(op)] = from_side;
  }
  return side;
}

// A value of the side inputs that does not hold a cut open: a side-input op's output read by
// several ops (an attention mask read by every layer), or a graph input read only by side-input
// ops (the attention_mask input itself, read where the mask is computed).
bool is_side_value(const Graph& g, int t, const std::vector<char>& side_op) {
  const Tensor& x = g.tensor(t);
  if (x.role == TensorRole::Output || x.consumers.empty()) return false;
  if (x.producer >= 0) return side_op[static_cast<size_t>(x.producer)] && x.consumers.size() > 1;
  return std::all_of(x.consumers.begin(), x.consumers.end(),
                     [&](int c) { return side_op[static_cast<size_t>(c)] != 0; });
}

}  // namespace

PartRule default_part_rule(const std::string& model) {
  // the suite's own IOS models name every op "<block>.<unit>.<op>"
  return model.rfind("nasnet", 0) == 0 || model.rfind("randwire", 0) == 0 || model == "ios_fig1_2"
             ? PartRule::NamePrefix
             : PartRule::Blocks;
}

namespace {

// Whether `op` is the only reader of `tensor` (and it is not a graph output).
bool sole_consumer(const Graph& g, int tensor, int op) {
  const Tensor& t = g.tensor(tensor);
  return t.role != TensorRole::Output && t.consumers.size() == 1 && t.consumers[0] == op;
}

// The name part an op belongs to under `rule` (NamePrefix: "<part>" of "<part>.<unit>.<op>").
std::string part_key_of(const Graph& g, PartRule rule, int op) {
  return rule == PartRule::NamePrefix ? first_component(g.op(op).name) : std::string();
}

// "<block>.<unit>" of "<block>.<unit>.<op>".
std::string unit_key(const Graph& g, int op) {
  const std::string& n = g.op(op).name;
  const size_t dot = n.rfind('.');
  return dot == std::string::npos ? n : n.substr(0, dot);
}

// Cut detection on ops: after position i of the topological order, is the output of order[i]
// the only value still needed?
struct CutIndex {
  std::vector<int> pos;       // op -> its position in the order
  std::vector<int> last_use;  // tensor -> the position of its last consumer (-1: none)
  // position i -> tensors live across the boundary after i (produced <= i, or graph inputs,
  // used > i); side-input values (side_input_ops) are not held live
  std::vector<int> live_count;

  bool output_is_cut(const Graph& g, int op) const {
    const int i = pos[static_cast<size_t>(op)];
    const Op& o = g.op(op);
    return live_count[static_cast<size_t>(i)] == 1 && !o.outputs.empty() &&
           last_use[static_cast<size_t>(o.outputs[0])] > i;
  }
};

CutIndex cut_index(const Graph& g, const std::vector<int>& order,
                   const std::vector<char>& side_op) {
  const int nops = g.num_ops();
  CutIndex c;
  c.pos.assign(static_cast<size_t>(nops), 0);
  for (int i = 0; i < nops; ++i) c.pos[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
  c.last_use.assign(static_cast<size_t>(g.num_tensors()), -1);
  for (int t = 0; t < g.num_tensors(); ++t)
    for (int cons : g.tensor(t).consumers)
      c.last_use[static_cast<size_t>(t)] =
          std::max(c.last_use[static_cast<size_t>(t)], c.pos[static_cast<size_t>(cons)]);
  c.live_count.assign(static_cast<size_t>(nops), 0);
  for (int t = 0; t < g.num_tensors(); ++t) {
    const Tensor& tt = g.tensor(t);
    if (tt.is_param() || c.last_use[static_cast<size_t>(t)] < 0) continue;
    if (is_side_value(g, t, side_op)) continue;
    const int from = tt.producer >= 0 ? c.pos[static_cast<size_t>(tt.producer)] : 0;
    for (int i = from; i < c.last_use[static_cast<size_t>(t)]; ++i)
      ++c.live_count[static_cast<size_t>(i)];
  }
  return c;
}

// The units as they form: each op's unit, each unit's ops (emptied when merged into another),
// its pattern state and its name part.
struct UnitBuilder {
  std::vector<int> unit_of;
  std::vector<std::vector<int>> unit_ops;
  std::vector<UnitState> state;
  std::vector<std::string> part_key;

  void new_unit(int op, UnitState st, std::string key) {
    unit_ops.push_back({op});
    state.push_back(st);
    part_key.push_back(std::move(key));
    unit_of[static_cast<size_t>(op)] = static_cast<int>(unit_ops.size()) - 1;
  }
  void join(int u, int op, UnitState st) {
    unit_ops[static_cast<size_t>(u)].push_back(op);
    state[static_cast<size_t>(u)] = st;
    unit_of[static_cast<size_t>(op)] = u;
  }
};

// The ops of `g` grouped into units, op by op in `order` (the patterns of network.h; NamePrefix:
// by "<part>.<unit>" names).
UnitBuilder form_units(const Graph& g, PartRule rule, const std::vector<int>& order,
                       const CutIndex& cuts) {
  UnitBuilder b;
  b.unit_of.assign(static_cast<size_t>(g.num_ops()), -1);
  std::map<std::string, int> unit_by_name;
  for (int op : order) {
    const Op& o = g.op(op);
    const std::vector<int> ins = data_inputs(g, op);
    const std::string key = part_key_of(g, rule, op);
    if (rule == PartRule::NamePrefix) {  // units and parts from
                                         // "<part>.<unit>.<op>" names
      auto it = unit_by_name.find(unit_key(g, op));
      if (it == unit_by_name.end()) {
        b.new_unit(op, UnitState::Closed, key);
        unit_by_name[unit_key(g, op)] = b.unit_of[static_cast<size_t>(op)];
      } else {
        b.join(it->second, op, UnitState::Closed);
      }
      continue;
    }
    // the unit this op may extend: its first data input's producer's unit, if
    // it is that tensor's only consumer, in the same name part, and not closed
    // by a cut
    int pu = -1;
    if (!ins.empty()) {
      const int p = g.tensor(ins[0]).producer;
      if (p >= 0 && sole_consumer(g, ins[0], op)) {
        const int u = b.unit_of[static_cast<size_t>(p)];
        if (b.part_key[static_cast<size_t>(u)] == key &&
            !(cuts.output_is_cut(g, p) &&
              (g.op(p).kind == OpKind::Add || g.op(p).kind == OpKind::Concat)))
          pu = u;
      }
    }
    const UnitState ps = pu >= 0 ? b.state[static_cast<size_t>(pu)] : UnitState::Closed;
    switch (o.kind) {
      case OpKind::Conv:
        if (ps == UnitState::AfterRelu) {
          b.join(pu, op, is_depthwise(g, op) ? UnitState::AfterDw : UnitState::Closed);
        } else if (ps == UnitState::AfterDw && is_pointwise(g, op)) {
          b.join(pu, op, UnitState::Closed);
        } else {
          b.new_unit(op, UnitState::ConvHead, key);
        }
        break;
      case OpKind::Relu:
        if (ps == UnitState::ConvHead) {
          b.join(pu, op, UnitState::Closed);
        } else if (ps == UnitState::Terms || ps == UnitState::TermsCat) {
          b.join(pu, op, UnitState::AfterRelu);
        } else {
          b.new_unit(op, UnitState::AfterRelu, key);
        }
        break;
      case OpKind::Add:
      case OpKind::Concat: {
        // absorb every pure-Add unit that feeds only this op (the authors'
        // "terms")
        std::vector<int> absorb;
        for (int t : ins) {
          const int p = g.tensor(t).producer;
          if (p < 0 || !sole_consumer(g, t, op)) continue;
          const int u = b.unit_of[static_cast<size_t>(p)];
          if (b.state[static_cast<size_t>(u)] == UnitState::Terms &&
              b.part_key[static_cast<size_t>(u)] == key && !cuts.output_is_cut(g, p) &&
              std::find(absorb.begin(), absorb.end(), u) == absorb.end())
            absorb.push_back(u);
        }
        const UnitState st = o.kind == OpKind::Concat ? UnitState::TermsCat : UnitState::Terms;
        if (absorb.empty()) {
          b.new_unit(op, st, key);
        } else {
          const int keep = absorb[0];
          for (size_t i = 1; i < absorb.size(); ++i) {
            for (int x : b.unit_ops[static_cast<size_t>(absorb[i])]) {
              b.unit_ops[static_cast<size_t>(keep)].push_back(x);
              b.unit_of[static_cast<size_t>(x)] = keep;
            }
            b.unit_ops[static_cast<size_t>(absorb[i])].clear();
          }
          b.join(keep, op, st);
        }
        break;
      }
      default:
        if (is_layout_only(o.kind) && pu >= 0 && ps != UnitState::Closed) {
          b.join(pu, op, UnitState::Closed);
        } else {
          b.new_unit(op, UnitState::Closed, key);
        }
        break;
    }
  }
  return b;
}

// The units that kept ops, each's ops sorted by position, in topological order of the unit graph
// (Kahn's algorithm, ties by first op position). Throws dgs::Error when the units form a cycle.
std::vector<int> ordered_units(const Graph& g, UnitBuilder& b, const std::vector<int>& pos) {
  std::vector<int> live_units;
  for (int u = 0; u < static_cast<int>(b.unit_ops.size()); ++u)
    if (!b.unit_ops[static_cast<size_t>(u)].empty()) live_units.push_back(u);
  for (int u : live_units) {
    auto& ops = b.unit_ops[static_cast<size_t>(u)];
    std::sort(ops.begin(), ops.end(), [&](int x, int y) {
      return pos[static_cast<size_t>(x)] < pos[static_cast<size_t>(y)];
    });
  }
  std::map<int, std::set<int>> succs;
  std::map<int, int> indeg;
  for (int u : live_units) indeg[u] = 0;
  for (int u : live_units)
    for (int op : b.unit_ops[static_cast<size_t>(u)])
      for (int t : data_inputs(g, op)) {
        const int p = g.tensor(t).producer;
        if (p < 0) continue;
        const int pu = b.unit_of[static_cast<size_t>(p)];
        if (pu != u && succs[pu].insert(u).second) ++indeg[u];
      }
  auto first_pos = [&](int u) {
    return pos[static_cast<size_t>(b.unit_ops[static_cast<size_t>(u)][0])];
  };
  std::set<std::pair<int, int>> ready;
  for (int u : live_units)
    if (indeg[u] == 0) ready.insert({first_pos(u), u});
  std::vector<int> sorted;
  while (!ready.empty()) {
    const int u = ready.begin()->second;
    ready.erase(ready.begin());
    sorted.push_back(u);
    for (int v : succs[u])
      if (--indeg[v] == 0) ready.insert({first_pos(v), v});
  }
  if (sorted.size() != live_units.size())
    throw Error("graph '" + g.name +
                "': its IOS schedule units form a cycle; expected a DAG of units");
  return sorted;
}

// net.units from the ordered units: ops, name, predecessors and the unit's kind.
void add_units(Network& net, const Graph& g, PartRule rule, const UnitBuilder& b,
               const std::vector<int>& live_units) {
  std::vector<int> new_id(b.unit_ops.size(), -1);
  for (size_t i = 0; i < live_units.size(); ++i)
    new_id[static_cast<size_t>(live_units[i])] = static_cast<int>(i);
  for (int u : live_units) {
    Unit unit;
    unit.ops = b.unit_ops[static_cast<size_t>(u)];
    std::vector<std::string> names;
    std::set<int> preds;
    for (int op : unit.ops) {
      names.push_back(g.op(op).name);
      for (int t : data_inputs(g, op)) {
        const int p = g.tensor(t).producer;
        if (p < 0) continue;
        const int pu2 = new_id[static_cast<size_t>(b.unit_of[static_cast<size_t>(p)])];
        if (pu2 != static_cast<int>(net.units.size())) preds.insert(pu2);
      }
    }
    unit.name = rule == PartRule::NamePrefix ? unit_key(g, unit.ops[0]) : common_prefix(names);
    unit.preds.assign(preds.begin(), preds.end());
    const Op& head = g.op(unit.ops[0]);
    const bool relu_after = unit.ops.size() == 2 && g.op(unit.ops[1]).kind == OpKind::Relu;
    if (head.kind == OpKind::Conv && (unit.ops.size() == 1 || relu_after)) {
      unit.kind = relu_after ? "Conv-Relu" : "Conv";
      unit.has_relu = relu_after;
      if (head.attrs.get_int("group", 1) == 1) unit.conv = unit.ops[0];
    } else if (head.kind == OpKind::Relu ||
               std::any_of(unit.ops.begin(), unit.ops.end(),
                           [&](int x) { return g.op(x).kind == OpKind::Relu; })) {
      int convs = 0;
      for (int x : unit.ops) convs += g.op(x).kind == OpKind::Conv;
      unit.kind = convs == 2 ? "Relu-SepConv" : convs == 1 ? "Relu-Conv" : "Relu";
    } else if (head.kind == OpKind::Add || head.kind == OpKind::Concat) {
      unit.kind = "Identity";
    } else {
      unit.kind = std::string(op_kind_name(head.kind));
    }
    net.units.push_back(std::move(unit));
  }
}

// net.blocks and net.parts: NamePrefix by name part; Blocks where nothing before a unit is read
// after it and it combines or fans out; each block cut into parts of at most max_part_size units.
void add_blocks_and_parts(Network& net, const Graph& g, PartRule rule, const std::vector<int>& pos,
                          const std::vector<char>& side_op, int max_part_size) {
  const int nu = static_cast<int>(net.units.size());
  std::vector<int> unit_pos_last(static_cast<size_t>(nu));  // position of the unit's last op
  std::vector<int> succ_count(static_cast<size_t>(nu), 0);
  // A unit of side-input ops only: its edges do not hold a block open (side_input_ops).
  std::vector<char> side_unit(static_cast<size_t>(nu), 0);
  for (int u = 0; u < nu; ++u) {
    const Unit& un = net.units[static_cast<size_t>(u)];
    side_unit[static_cast<size_t>(u)] = std::all_of(
        un.ops.begin(), un.ops.end(), [&](int op) { return side_op[static_cast<size_t>(op)]; });
  }
  // The preds of unit u that the block rule sees.
  auto block_preds = [&](int u) {
    std::vector<int> ps;
    for (int p : net.units[static_cast<size_t>(u)].preds)
      if (!side_unit[static_cast<size_t>(p)]) ps.push_back(p);
    return ps;
  };
  for (int u = 0; u < nu; ++u) {
    unit_pos_last[static_cast<size_t>(u)] =
        pos[static_cast<size_t>(net.units[static_cast<size_t>(u)].ops.back())];
    for (int p : block_preds(u)) ++succ_count[static_cast<size_t>(p)];
  }
  // farthest successor of units 0..u
  std::vector<std::vector<int>> block_units;
  std::vector<std::string> block_names;
  if (rule == PartRule::NamePrefix) {
    for (int u = 0; u < nu; ++u) {
      const std::string k = first_component(g.op(net.units[static_cast<size_t>(u)].ops[0]).name);
      if (block_names.empty() || block_names.back() != k) {
        block_names.push_back(k);
        block_units.emplace_back();
      }
      block_units.back().push_back(u);
    }
  } else {
    std::vector<int> max_succ(static_cast<size_t>(nu), -1);
    for (int u = 0; u < nu; ++u)
      for (int p : block_preds(u))
        max_succ[static_cast<size_t>(p)] = std::max(max_succ[static_cast<size_t>(p)], u);
    int reach = -1;  // farthest unit read by any unit <= u other than u itself
    std::vector<int> current;
    int block_no = 0;
    for (int u = 0; u < nu; ++u) {
      current.push_back(u);
      const bool cut = reach <= u;  // nothing before u is read after u
      reach = std::max(reach, max_succ[static_cast<size_t>(u)]);
      const Unit& un = net.units[static_cast<size_t>(u)];
      const OpKind last = g.op(un.ops.back()).kind;
      const bool combines =
          last == OpKind::Add || last == OpKind::Concat || block_preds(u).size() > 1;
      const bool fans_out = succ_count[static_cast<size_t>(u)] > 1;
      if (u == nu - 1 || (cut && (combines || fans_out))) {
        block_names.push_back("block" + std::to_string(block_no++) + ":" +
                              net.units[static_cast<size_t>(current[0])].name);
        block_units.push_back(current);
        current.clear();
      }
    }
  }
  net.blocks = block_names;
  for (size_t b = 0; b < block_units.size(); ++b) {
    const auto& us = block_units[b];
    for (size_t i = 0; i < us.size(); i += static_cast<size_t>(max_part_size)) {
      Part p;
      p.block = block_names[b];
      p.index_in_block = static_cast<int>(i / static_cast<size_t>(max_part_size));
      p.units.assign(us.begin() + static_cast<long>(i),
                     us.begin() + static_cast<long>(
                                      std::min(us.size(), i + static_cast<size_t>(max_part_size))));
      net.parts.push_back(std::move(p));
    }
  }
}

}  // namespace

Network make_network(const Graph& g, PartRule rule, int max_part_size) {
  if (max_part_size < 1 || max_part_size > 64)
    throw Error("IOS max part size " + std::to_string(max_part_size) + "; expected 1..64");
  Network net;
  net.graph = &g;
  const std::vector<int> order = g.topo_order();
  const std::vector<char> side_op = rule == PartRule::Blocks
                                        ? side_input_ops(g, order)
                                        : std::vector<char>(static_cast<size_t>(g.num_ops()), 0);
  const CutIndex cuts = cut_index(g, order, side_op);
  UnitBuilder b = form_units(g, rule, order, cuts);
  add_units(net, g, rule, b, ordered_units(g, b, cuts.pos));
  add_blocks_and_parts(net, g, rule, cuts.pos, side_op, max_part_size);
  return net;
}

PartDag part_dag(const Network& net, const Part& part) {
  const Graph& g = *net.graph;
  const int n = static_cast<int>(part.units.size());
  if (n > 64)
    throw Error("IOS part of block '" + part.block + "' has " + std::to_string(n) +
                " units; at most 64");
  std::map<int, int> local;
  for (int i = 0; i < n; ++i) local[part.units[static_cast<size_t>(i)]] = i;
  PartDag d = PartDag::from_edges(n, {});
  for (int i = 0; i < n; ++i)
    for (int p : net.units[static_cast<size_t>(part.units[static_cast<size_t>(i)])].preds) {
      auto it = local.find(p);
      if (it != local.end()) d.add_edge(it->second, i);
    }
  // merge classes
  std::map<std::vector<int64_t>, int> classes;
  for (int i = 0; i < n; ++i) {
    const Unit& u = net.units[static_cast<size_t>(part.units[static_cast<size_t>(i)])];
    if (u.conv < 0) continue;
    const Op& c = g.op(u.conv);
    const Window win = resolve_window(g, u.conv);
    if (!win.symmetric_pads() || win.spatial_dims() != 2) continue;
    std::vector<int64_t> key = {c.inputs[0], u.has_relu ? 1 : 0};
    key.insert(key.end(), win.strides.begin(), win.strides.end());
    key.insert(key.end(), win.dilations.begin(), win.dilations.end());
    key.insert(key.end(), win.out_spatial.begin(), win.out_spatial.end());
    // Equal strides, dilations, output sizes and 2 * pad - kernel: centred windows of one input,
    // which one conv with the largest kernel computes.
    key.push_back(2 * win.pads_begin[0] - win.kernel[0]);
    key.push_back(2 * win.pads_begin[1] - win.kernel[1]);
    auto it = classes.emplace(key, static_cast<int>(classes.size())).first;
    d.merge_class[static_cast<size_t>(i)] = it->second;
  }
  return d;
}

}  // namespace dgs::ios
