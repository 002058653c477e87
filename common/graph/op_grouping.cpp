#include "common/graph/op_grouping.h"

#include <algorithm>
#include <string>

namespace dgs {

namespace {

constexpr const char* kSumPattern = "Sum";  // the pattern of sum units (CompoundOptions::sum_units)

class Grouper {
 public:
  Grouper(const Graph& g, const CompoundOptions& opts)
      : g_(g), opts_(opts), unit_(g.num_ops(), -1), topo_(g.topo_order()) {}

  OpGrouping run() {
    if (opts_.relu_sepconv) rule_sepconv();
    if (opts_.epilogue) rule_epilogue();
    if (opts_.pre_activation) rule_pre_activation();
    if (opts_.sum_units || opts_.absorb_input_sums) rule_sums();
    for (int o : topo_) {
      if (unit_[o] < 0 && !(opts_.absorb_layout_ops && is_layout_only(g_.op(o).kind))) {
        new_unit({o}, o, std::string(op_kind_name(g_.op(o).kind)));
      }
    }
    if (opts_.absorb_layout_ops) rule_layout();
    return finish();
  }

 private:
  // The only op consuming any output of `o`, or -1 (none, several, or a graph output).
  int sole_consumer(int o) const {
    int c = -1;
    for (int t : g_.op(o).outputs) {
      if (t < 0) continue;
      const Tensor& x = g_.tensor(t);
      if (x.role == TensorRole::Output) return -1;
      for (int u : x.consumers) {
        if (c >= 0 && c != u) return -1;
        c = u;
      }
    }
    return c;
  }
  // True when `prev` is the only op feeding `o` and every other input of `o` is a parameter.
  bool fed_only_by(int o, int prev) const {
    for (int t : g_.op(o).inputs) {
      if (t < 0) continue;
      const Tensor& x = g_.tensor(t);
      if (x.producer == prev) continue;
      if (!x.is_param()) return false;
    }
    return true;
  }
  bool free_(int o) const { return o >= 0 && unit_[o] < 0; }

  bool is_depthwise(int o) const {
    const Op& op = g_.op(o);
    if (op.kind != OpKind::Conv) return false;
    const int64_t group = op.attrs.get_int("group", 1);
    const Shape& x = g_.tensor(op.inputs[0]).shape;
    return group > 1 && x.size() > 1 && group == x[1];
  }
  bool is_pointwise(int o) const {
    const Op& op = g_.op(o);
    if (op.kind != OpKind::Conv || op.attrs.get_int("group", 1) != 1) return false;
    const Shape& w = g_.tensor(op.inputs[1]).shape;
    for (size_t i = 2; i < w.size(); ++i) {
      if (w[i] != 1) return false;
    }
    return true;
  }

  int new_unit(std::vector<int> ops, int anchor, std::string pattern) {
    const int id = static_cast<int>(units_.size());
    for (int o : ops) unit_[o] = id;
    units_.push_back({std::move(ops), anchor, std::move(pattern), true});
    return id;
  }
  void join(int unit, int o, bool front = false) {
    unit_[o] = unit;
    auto& ops = units_[unit].ops;
    if (front) {
      ops.insert(ops.begin(), o);
    } else {
      ops.push_back(o);
    }
  }

  void rule_sepconv() {
    for (int o : topo_) {
      if (!free_(o)) continue;
      if (is_activation(g_.op(o).kind)) {
        int dw = sole_consumer(o);
        if (!free_(dw) || !is_depthwise(dw) || !fed_only_by(dw, o)) continue;
        int pw = sole_consumer(dw);
        if (!free_(pw) || !is_pointwise(pw) || !fed_only_by(pw, dw)) continue;
        new_unit({o, dw, pw}, dw, std::string(op_kind_name(g_.op(o).kind)) + "-SepConv");
      } else if (is_depthwise(o)) {
        int pw = sole_consumer(o);
        if (!free_(pw) || !is_pointwise(pw) || !fed_only_by(pw, o)) continue;
        new_unit({o, pw}, o, "SepConv");
      }
    }
  }

  bool is_epilogue(int o, int prev) const {
    const Op& op = g_.op(o);
    if (!fed_only_by(o, prev)) return false;
    if (op.kind == OpKind::BatchNormalization || is_activation(op.kind)) return true;
    // Add/Sub/Mul/Div with a parameter operand: bias or scale (fed_only_by checked the rest).
    return op.kind == OpKind::Add || op.kind == OpKind::Sub || op.kind == OpKind::Mul ||
           op.kind == OpKind::Div;
  }

  void rule_epilogue() {
    for (int o : topo_) {
      const OpKind k = g_.op(o).kind;
      int unit = unit_[o];
      bool anchor = false;
      if (unit < 0 && (is_conv_like(k) || is_matmul_like(k))) {
        anchor = true;
      } else if (unit >= 0 && units_[unit].ops.back() == o &&
                 units_[unit].pattern.find("SepConv") != std::string::npos) {
        anchor = true;  // the pointwise conv ending a separable conv
      }
      if (!anchor) continue;
      std::vector<int> chain;
      std::string pattern = unit >= 0 ? units_[unit].pattern : std::string(op_kind_name(k));
      for (int cur = o;;) {
        int c = sole_consumer(cur);
        if (!free_(c) || !is_epilogue(c, cur)) break;
        chain.push_back(c);
        pattern.push_back('-');
        pattern.append(op_kind_name(g_.op(c).kind));
        cur = c;
      }
      if (unit < 0) unit = new_unit({o}, o, pattern);
      units_[unit].pattern = pattern;
      for (int c : chain) join(unit, c);
    }
  }

  void rule_pre_activation() {
    for (int o : topo_) {
      if (!free_(o) || !is_activation(g_.op(o).kind)) continue;
      int c = sole_consumer(o);
      if (c < 0 || unit_[c] < 0 || g_.op(c).kind != OpKind::Conv) continue;
      const int unit = unit_[c];
      if (units_[unit].ops.front() != c || !fed_only_by(c, o)) continue;
      join(unit, o, /*front=*/true);
      units_[unit].pattern = std::string(op_kind_name(g_.op(o).kind)) + "-" + units_[unit].pattern;
    }
  }

  // Sum nodes (a node that adds the values of each input term and concatenates the terms, and
  // units that take such sums as inputs) are, in ONNX, trees of Add ops (and a Concat): an Add
  // whose only consumer is an Add/Concat of a sum unit joins that unit; with absorb_input_sums,
  // an Add whose only consumer is the first op of a compound unit joins that unit. (Contracting
  // an op into its only consumer's unit never creates a cycle.)
  void rule_sums() {
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it) {
      const int o = *it;
      const OpKind k = g_.op(o).kind;
      if (opts_.sum_units && k == OpKind::Identity && free_(o)) {
        new_unit({o}, o, kSumPattern);  // an explicit copy: a sum of one term
        continue;
      }
      if (!free_(o) || (k != OpKind::Add && k != OpKind::Concat)) continue;
      const int c = sole_consumer(o);
      const int cu = c >= 0 ? unit_[c] : -1;
      if (k == OpKind::Add && cu >= 0) {
        const bool sum = units_[cu].pattern == kSumPattern;
        if (opts_.sum_units && sum) {
          join(cu, o, /*front=*/true);
          continue;
        }
        // Only into compound units (more than one op): a bare Relu or pool takes its input as
        // is (e.g. a network's tail Relu after its last sum).
        if (opts_.absorb_input_sums && !sum && units_[cu].ops.size() > 1 &&
            units_[cu].ops.front() == c) {
          join(cu, o, /*front=*/true);
          continue;
        }
      }
      if (opts_.sum_units) new_unit({o}, o, kSumPattern);
    }
  }

  void rule_layout() {
    for (int o : topo_) {
      if (unit_[o] >= 0) continue;
      std::vector<int> preds = g_.predecessors(o);
      if (preds.size() == 1 && unit_[preds[0]] >= 0) {
        join(unit_[preds[0]], o);
      } else {
        int u = new_unit({o}, o, std::string(op_kind_name(g_.op(o).kind)));
        units_[u].counted = false;
      }
    }
  }

  OpGrouping finish() {
    // Order ops inside units topologically, then the units by a topological order of the
    // contracted DAG (ties by the position of their first op).
    std::vector<int> pos(g_.num_ops());
    for (size_t i = 0; i < topo_.size(); ++i) pos[topo_[i]] = static_cast<int>(i);
    for (auto& u : units_) {
      std::sort(u.ops.begin(), u.ops.end(), [&](int a, int b) { return pos[a] < pos[b]; });
    }
    std::vector<std::vector<int>> ops;
    for (const auto& u : units_) ops.push_back(u.ops);
    OpDag d = unit_dag(g_, ops);
    OpGrouping r;
    r.unit_of_op.assign(g_.num_ops(), -1);
    for (int u : d.topo) {
      for (int o : units_[u].ops) r.unit_of_op[o] = static_cast<int>(r.units.size());
      r.units.push_back(units_[u]);
    }
    return r;
  }

  const Graph& g_;
  CompoundOptions opts_;
  std::vector<int> unit_;
  std::vector<int> topo_;
  std::vector<ScheduleUnit> units_;
};

}  // namespace

std::vector<std::vector<int>> OpGrouping::unit_ops() const {
  std::vector<std::vector<int>> out;
  out.reserve(units.size());
  for (const auto& u : units) out.push_back(u.ops);
  return out;
}

int OpGrouping::counted_units() const {
  int n = 0;
  for (const auto& u : units) n += u.counted ? 1 : 0;
  return n;
}

OpGrouping compound_operators(const Graph& g, const CompoundOptions& opts) {
  return Grouper(g, opts).run();
}

}  // namespace dgs
