#pragma once
// Small float ONNX models for the reliability tests: inputs and outputs with their dims, nodes in
// the given order, integer initializers (Reshape shapes, axes) and float weights.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dgs {

inline onnx::ValueInfoProto* add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* vs,
                                       const std::string& name, const std::vector<int64_t>& dims) {
  onnx::ValueInfoProto* v = vs->Add();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  auto* shape = tt->mutable_shape();  // declared even when empty (a scalar)
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  return v;
}

struct NodeSpec {
  std::string name, op;
  std::vector<std::string> inputs, outputs;
  std::vector<std::pair<std::string, std::vector<int64_t>>> int_list_attributes = {};
};

using NamedDims = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// A float model: inputs and outputs with their dims, nodes in the given order.
inline onnx::ModelProto model_of(const NamedDims& inputs, const NamedDims& outputs,
                                 const std::vector<NodeSpec>& nodes) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("catalogue");
  for (const auto& [n, d] : inputs) add_value(g->mutable_input(), n, d);
  for (const auto& [n, d] : outputs) add_value(g->mutable_output(), n, d);
  for (const NodeSpec& s : nodes) {
    auto* n = g->add_node();
    n->set_name(s.name);
    n->set_op_type(s.op);
    for (const auto& i : s.inputs) n->add_input(i);
    for (const auto& o : s.outputs) n->add_output(o);
    for (const auto& [name, values] : s.int_list_attributes) {
      auto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto_AttributeType_INTS);
      for (int64_t v : values) a->add_ints(v);
    }
  }
  return m;
}

// An int64 initializer of shape [values.size()].
inline void add_int64_initializer(onnx::ModelProto* m, const std::string& name,
                                  const std::vector<int64_t>& values) {
  auto* t = m->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto_DataType_INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

// A float initializer of shape `dims`, all zeros.
inline void add_float_initializer(onnx::ModelProto* m, const std::string& name,
                                  const std::vector<int64_t>& dims) {
  auto* t = m->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto_DataType_FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(0.0f);
}

}  // namespace dgs
