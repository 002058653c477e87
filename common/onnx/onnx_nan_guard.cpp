#include "common/onnx/onnx_nan_guard.h"

#include <onnx/onnx_pb.h>

#include <unordered_map>
#include <unordered_set>

#include "common/onnx/onnx_tensor.h"

namespace dgs {

namespace {

bool is_default_domain(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx";
}

}  // namespace

int remove_softmax_nan_guards(onnx::GraphProto* g, const std::string& origin) {
  std::unordered_map<std::string, const onnx::NodeProto*> producer;
  std::unordered_map<std::string, int> readers;
  for (const auto& n : g->node()) {
    for (const std::string& o : n.output()) producer[o] = &n;
    for (const std::string& in : n.input()) ++readers[in];
  }
  std::unordered_set<std::string> graph_outputs;
  for (const auto& o : g->output()) graph_outputs.insert(o.name());
  std::unordered_map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& t : g->initializer()) initializers[t.name()] = &t;
  auto is_zero = [&](const std::string& name) {
    std::optional<onnx::TensorProto> t;
    if (auto it = initializers.find(name); it != initializers.end()) {
      t = *it->second;
    } else if (auto p = producer.find(name);
               p != producer.end() && p->second->op_type() == "Constant") {
      t = constant_node_tensor(*p->second);
    }
    if (!t || !has_data(*t) || has_external_data(*t) || !is_foldable_elem_type(t->data_type())) {
      return false;
    }
    const OnnxValue v = read_onnx_value(*t, origin + ": '" + name + "'");
    return v.numel() == 1 && v.at(0) == 0.0;
  };
  auto produced_by = [&](const std::string& name, const char* op_type) {
    auto p = producer.find(name);
    return p != producer.end() && p->second->op_type() == op_type && is_default_domain(*p->second);
  };
  std::unordered_map<std::string, std::string> replaced;  // guard output -> softmax output
  std::unordered_set<const onnx::NodeProto*> removed;
  for (const auto& n : g->node()) {
    if (n.op_type() != "Where" || !is_default_domain(n) || n.input_size() != 3 ||
        n.output_size() != 1 || graph_outputs.count(n.output(0)))
      continue;
    const std::string &condition = n.input(0), &softmax = n.input(2);
    if (!produced_by(condition, "IsNaN") || !produced_by(softmax, "Softmax")) continue;
    const onnx::NodeProto* isnan = producer.at(condition);
    if (isnan->input_size() != 1 || isnan->input(0) != softmax || !is_zero(n.input(1))) continue;
    replaced[n.output(0)] = softmax;
    removed.insert(&n);
    if (readers[condition] == 1) removed.insert(isnan);
  }
  if (replaced.empty()) return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (auto& n : *g->mutable_node()) {
    if (removed.count(&n)) continue;
    for (std::string& in : *n.mutable_input()) {
      if (auto r = replaced.find(in); r != replaced.end()) in = r->second;
    }
    *kept.Add() = std::move(n);
  }
  g->mutable_node()->Swap(&kept);
  return static_cast<int>(replaced.size());
}

}  // namespace dgs
