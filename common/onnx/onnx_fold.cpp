#include "common/onnx/onnx_fold.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "common/onnx/onnx_convert.h"
#include "common/onnx/onnx_fold_eval.h"
#include "common/onnx/onnx_io.h"
#include "common/onnx/onnx_node_checks.h"
#include "common/onnx/onnx_tensor.h"

namespace dgs {

namespace {

int64_t default_opset_of(const onnx::ModelProto& m) {
  for (const auto& o : m.opset_import()) {
    if (is_onnx_domain(o.domain())) return o.version();
  }
  return 0;
}

// Known values by name: initializers with data, read lazily, and folded results.
class KnownValues {
 public:
  KnownValues(const onnx::GraphProto& g, const std::string& origin) : origin_(origin) {
    for (const auto& t : g.initializer()) {
      if (has_data(t) && !has_external_data(t) && is_foldable_elem_type(t.data_type())) {
        initializers_[t.name()] = &t;
      }
    }
    // Graph inputs that shadow an initializer (IR < 4 style with overridable defaults) are not
    // constants.
    for (const auto& in : g.input()) {
      initializers_.erase(in.name());
      shadowed_.insert(in.name());
    }
  }
  bool known(const std::string& name) const {
    return values_.count(name) != 0 || initializers_.count(name) != 0;
  }
  // get(name).from_weight and get(name).numel(), without reading an initializer's data.
  bool from_weight(const std::string& name) const {
    auto it = values_.find(name);
    if (it != values_.end()) return it->second.from_weight;
    const onnx::TensorProto& t = *initializers_.at(name);
    return is_float_elem_type(t.data_type()) && numel(dims_of(t)) > kOnnxSmallFloatConstant;
  }
  int64_t numel_of(const std::string& name) const {
    auto it = values_.find(name);
    return it != values_.end() ? it->second.numel() : numel(dims_of(*initializers_.at(name)));
  }
  const OnnxValue& get(const std::string& name) {
    auto it = values_.find(name);
    if (it != values_.end()) return it->second;
    const onnx::TensorProto& t = *initializers_.at(name);
    OnnxValue v = read_onnx_value(t, origin_ + ": initializer '" + name + "'");
    v.from_weight = v.is_float() && v.numel() > kOnnxSmallFloatConstant;
    return values_.emplace(name, std::move(v)).first->second;
  }
  void set(const std::string& name, OnnxValue v) { values_[name] = std::move(v); }
  // A Constant node's value, known from here on as the initializer it becomes (read lazily, as
  // initializers are; not when a graph input shadows it or its element type does not fold).
  void add_initializer(const onnx::TensorProto& t) {
    if (!has_data(t) || has_external_data(t) || !is_foldable_elem_type(t.data_type()) ||
        shadowed_.count(t.name()))
      return;
    added_.push_back(t);
    initializers_[t.name()] = &added_.back();
  }

 private:
  std::string origin_;
  std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
  std::unordered_map<std::string, OnnxValue> values_;
  std::unordered_set<std::string> shadowed_;
  std::deque<onnx::TensorProto> added_;
};

// Data-movement operators whose output is a selection or copy of input 0's elements and carries
// its weight origin (OnnxValue::from_weight).
bool moves_input_elements(const std::string& op_type) {
  return op_type == "Gather" || op_type == "GatherElements" || op_type == "Slice" ||
         op_type == "Expand" || op_type == "Tile";
}

// True when folding `n` would be refused after evaluating it by the weight rule of
// fold_constant_nodes (a value derived from a learned parameter folds only when it keeps the
// parameter's size, and never through Expand or Tile), as far as that follows from input 0 and
// the output shape ONNX inferred. Evaluating such a node first would only be thrown away: at
// batch 128 a token-type embedding Gather copies 12.6 million elements.
bool weight_copy_would_stay_a_node(const onnx::NodeProto& n, const KnownValues& known,
                                   const std::map<std::string, Shape>& static_shapes) {
  if (!moves_input_elements(n.op_type()) || n.input_size() < 1 || n.output_size() != 1) {
    return false;
  }
  const std::string& data = n.input(0);
  if (data.empty() || !known.known(data) || !known.from_weight(data)) return false;
  if (n.op_type() == "Expand" || n.op_type() == "Tile") return true;
  auto out = static_shapes.find(n.output(0));
  return out != static_shapes.end() && numel(out->second) != known.numel_of(data);
}

}  // namespace

int fold_constant_nodes(onnx::ModelProto* model, const std::map<std::string, Shape>& static_shapes,
                        std::set<std::string>* computed_constants, OnnxLoadSummary* summary,
                        const std::string& origin, OnnxNodeInference* per_node) {
  onnx::GraphProto* g = model->mutable_graph();
  const int64_t opset = default_opset_of(*model);
  std::unordered_set<std::string> graph_outputs;
  for (const auto& o : g->output()) graph_outputs.insert(o.name());
  KnownValues known(*g, origin);
  std::unordered_map<std::string, std::string> renamed;  // Identity output -> its input
  std::vector<onnx::TensorProto> new_initializers;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  int changed = 0;
  auto count = [&](const std::string& type) {
    ++changed;
    if (summary) ++summary->folded[type];
  };
  int index = -1;
  for (onnx::NodeProto& n : *g->mutable_node()) {
    ++index;
    for (std::string& in : *n.mutable_input()) {
      auto r = renamed.find(in);
      if (r != renamed.end()) in = r->second;
    }
    // A node that stays: inferred (per_node), then moved to the kept nodes.
    auto keep = [&] {
      if (per_node) per_node->infer(n, index);
      *kept.Add() = std::move(n);
    };
    if (per_node) per_node->check(n, index);
    const std::string what = origin + ": node '" + n.name() + "' (" + n.op_type() + ")";
    bool outputs_free = n.output_size() > 0;
    for (const std::string& o : n.output()) outputs_free &= !o.empty() && !graph_outputs.count(o);
    if (!is_onnx_domain(n.domain()) || !outputs_free) {
      keep();
      continue;
    }
    if (n.op_type() == "Constant" && n.output_size() == 1) {
      if (auto t = constant_node_tensor(n)) {
        t->set_name(n.output(0));
        if (per_node) per_node->add_value(*t);
        known.add_initializer(*t);
        new_initializers.push_back(*t);
        count("Constant");
        continue;
      }
    }
    bool all_known = true;
    for (const std::string& in : n.input()) all_known &= in.empty() || known.known(in);
    if (n.op_type() == "Identity" && n.input_size() == 1 && all_known) {
      renamed[n.output(0)] = n.input(0);
      count("Identity");
      continue;
    }
    std::optional<std::vector<OnnxValue>> outs;
    if ((n.op_type() == "Shape" || n.op_type() == "Size") && n.input_size() == 1) {
      std::optional<Shape> s;
      if (known.known(n.input(0))) s = known.get(n.input(0)).dims;
      if (auto it = static_shapes.find(n.input(0)); !s && it != static_shapes.end()) s = it->second;
      if (!s && per_node) s = per_node->static_shape(n.input(0));
      if (s) {
        OnnxValue v;
        v.elem_type = onnx::TensorProto_DataType_INT64;
        if (n.op_type() == "Size") {
          v.i = {numel(*s)};
        } else {
          const auto rank = static_cast<int64_t>(s->size());
          int64_t start = 0, end = rank;
          for (const auto& a : n.attribute()) {
            if (a.name() == "start") start = a.i();
            if (a.name() == "end") end = a.i();
          }
          if (start < 0) start += rank;
          if (end < 0) end += rank;
          start = std::clamp<int64_t>(start, 0, rank);
          end = std::clamp<int64_t>(end, start, rank);
          v.i.assign(s->begin() + start, s->begin() + end);
          v.dims = {end - start};
        }
        outs = std::vector<OnnxValue>{std::move(v)};
      }
    } else if (all_known && n.input_size() > 0 && is_foldable_op_type(n.op_type()) &&
               !weight_copy_would_stay_a_node(n, known, static_shapes)) {
      std::vector<const OnnxValue*> ins;
      for (const std::string& in : n.input()) ins.push_back(in.empty() ? nullptr : &known.get(in));
      try {
        outs = evaluate_constant_node(n, ins, opset, what);
      } catch (const FoldTooLarge& e) {
        throw Error(what + ": " + e.what());
      }
    }
    bool fold = outs && static_cast<int>(outs->size()) == n.output_size();
    // Values derived from learned parameters fold only when they keep the parameter's size
    // (Transpose, Reshape, Cast, scaling of a weight): a Gather or Slice of an embedding table,
    // or an Expand of a class token to the batch, stays real compute, so that parameter counts
    // stay those of the network. Expand and Tile of a weight never fold, even where they copy
    // it unchanged (batch 1): the graph's ops must not depend on the batch.
    int64_t weight_elements = -1;
    for (const std::string& in : n.input()) {
      if (fold && !in.empty() && known.known(in) && known.get(in).from_weight) {
        weight_elements = std::max(weight_elements, known.get(in).numel());
      }
    }
    for (size_t k = 0; fold && k < outs->size(); ++k) {
      const OnnxValue& v = (*outs)[k];
      fold = v.numel() <= kOnnxMaxFoldedElements &&
             !(v.from_weight &&
               (v.numel() != weight_elements || n.op_type() == "Expand" || n.op_type() == "Tile"));
    }
    if (!fold) {
      keep();
      continue;
    }
    for (size_t k = 0; k < outs->size(); ++k) {
      OnnxValue& v = (*outs)[k];
      const std::string& name = n.output(static_cast<int>(k));
      onnx::TensorProto t;
      write_onnx_value(v, name, &t);
      if (per_node) per_node->add_value(t);
      new_initializers.push_back(std::move(t));
      if (v.is_float() && !v.from_weight && v.numel() <= kOnnxMaxComputedConstant) {
        computed_constants->insert(name);
      }
      known.set(name, std::move(v));
    }
    count(n.op_type());
  }
  for (auto& o : *g->mutable_output()) {
    auto r = renamed.find(o.name());
    if (r != renamed.end()) o.set_name(r->second);
  }
  g->mutable_node()->Swap(&kept);
  for (auto& t : new_initializers) *g->add_initializer() = std::move(t);
  return changed;
}

void remove_dead_nodes(onnx::ModelProto* model, OnnxLoadSummary* summary) {
  onnx::GraphProto* g = model->mutable_graph();
  std::unordered_set<std::string> used;
  for (const auto& o : g->output()) used.insert(o.name());
  std::vector<bool> keep(static_cast<size_t>(g->node_size()), false);
  for (int i = g->node_size(); i-- > 0;) {
    const onnx::NodeProto& n = g->node(i);
    bool live = false;
    for (const std::string& o : n.output()) live |= !o.empty() && used.count(o);
    if (!live) continue;
    keep[static_cast<size_t>(i)] = true;
    for (const std::string& in : n.input()) used.insert(in);
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g->node_size(); ++i) {
    if (keep[static_cast<size_t>(i)]) {
      *nodes.Add() = std::move(*g->mutable_node(i));
    } else if (summary) {
      ++summary->dead_nodes_removed;
    }
  }
  g->mutable_node()->Swap(&nodes);
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  std::unordered_set<std::string> dropped;
  for (auto& t : *g->mutable_initializer()) {
    if (used.count(t.name())) {
      *inits.Add() = std::move(t);
    } else {
      dropped.insert(t.name());
      if (summary) ++summary->unused_initializers_removed;
    }
  }
  g->mutable_initializer()->Swap(&inits);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (auto& in : *g->mutable_input()) {
    if (!dropped.count(in.name())) *inputs.Add() = std::move(in);
  }
  g->mutable_input()->Swap(&inputs);
}

}  // namespace dgs
