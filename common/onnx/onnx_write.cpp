// Writing graphs as weight-free ONNX models (onnx_io.h: graph_to_onnx, save_onnx_file).
#include "common/onnx/onnx_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include <cstring>

#include "common/graph/onnx_dtype.h"
#include "common/onnx/onnx_convert.h"
#include "common/onnx/onnx_tensor.h"
#include "common/util/resources.h"

namespace dgs {

namespace {

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------
void set_value_info(onnx::ValueInfoProto* v, const Tensor& t) {
  v->set_name(t.name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(dtype_to_onnx(t.dtype));
  auto* shape = tt->mutable_shape();
  for (int64_t d : t.shape) shape->add_dim()->set_dim_value(d);
}

void set_constant_data(onnx::TensorProto* p, const Tensor& t) {
  p->set_name(t.name);
  p->set_data_type(dtype_to_onnx(t.dtype));
  for (int64_t d : t.shape) p->add_dims(d);
  const std::string what = "constant '" + t.name + "'";
  switch (t.dtype) {
    case DType::I64:
      if (static_cast<int64_t>(t.int_data.size()) != t.numel()) {
        throw Error(what + ": " + std::to_string(t.int_data.size()) + " values for shape " +
                    shape_str(t.shape));
      }
      for (int64_t v : t.int_data) p->add_int64_data(v);
      break;
    case DType::I32:
    case DType::Bool:
      if (static_cast<int64_t>(t.int_data.size()) != t.numel()) {
        throw Error(what + ": " + std::to_string(t.int_data.size()) + " values for shape " +
                    shape_str(t.shape));
      }
      for (int64_t v : t.int_data) p->add_int32_data(static_cast<int32_t>(v));
      break;
    case DType::F32:
      if (static_cast<int64_t>(t.float_data.size()) != t.numel()) {
        throw Error(what + ": " + std::to_string(t.float_data.size()) + " values for shape " +
                    shape_str(t.shape));
      }
      for (float v : t.float_data) p->add_float_data(v);
      break;
    case DType::F16:
      if (static_cast<int64_t>(t.float_data.size()) != t.numel()) {
        throw Error(what + ": " + std::to_string(t.float_data.size()) + " values for shape " +
                    shape_str(t.shape));
      }
      for (float v : t.float_data) p->add_int32_data(float_to_half(v));
      break;
  }
}

void set_attribute(onnx::AttributeProto* a, const std::string& name, const AttrValue& v) {
  a->set_name(name);
  if (auto p = std::get_if<int64_t>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_INT);
    a->set_i(*p);
  } else if (auto p = std::get_if<double>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
    a->set_f(static_cast<float>(*p));
  } else if (auto p = std::get_if<std::string>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_STRING);
    a->set_s(*p);
  } else if (auto p = std::get_if<std::vector<int64_t>>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_INTS);
    for (int64_t x : *p) a->add_ints(x);
  } else if (auto p = std::get_if<std::vector<double>>(&v)) {
    a->set_type(onnx::AttributeProto_AttributeType_FLOATS);
    for (double x : *p) a->add_floats(static_cast<float>(x));
  }
}

std::string serialize_deterministic(const onnx::ModelProto& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream sos(&out);
    google::protobuf::io::CodedOutputStream cos(&sos);
    cos.SetSerializationDeterministic(true);
    if (!m.SerializeToCodedStream(&cos)) {
      throw Error("graph '" + m.graph().name() + "': ONNX serialization failed");
    }
  }
  return out;
}

}  // namespace

void graph_to_onnx(const Graph& g, onnx::ModelProto* model) {
  model->Clear();
  model->set_ir_version(kOnnxWriteIrVersion);
  model->set_producer_name("dgs");
  model->set_model_version(1);
  auto* opset = model->add_opset_import();
  opset->set_domain("");
  opset->set_version(kOnnxWriteOpset);
  bool uses_microsoft = false;
  for (const Op& op : g.ops()) uses_microsoft |= op.kind == OpKind::Gelu;
  if (uses_microsoft) {
    auto* ms = model->add_opset_import();
    ms->set_domain(kMicrosoftDomain);
    ms->set_version(kMicrosoftDomainVersion);
  }

  onnx::GraphProto* gp = model->mutable_graph();
  gp->set_name(g.name);
  for (int t : g.input_tensors()) set_value_info(gp->add_input(), g.tensor(t));
  for (int t : g.weight_tensors()) {
    auto* v = gp->add_input();
    set_value_info(v, g.tensor(t));
    v->set_doc_string(kOnnxWeightDocString);
  }
  for (const Tensor& t : g.tensors()) {
    if (t.role == TensorRole::Constant) set_constant_data(gp->add_initializer(), t);
  }
  for (int o : g.topo_order()) {
    const Op& op = g.op(o);
    onnx::NodeProto* n = gp->add_node();
    n->set_name(op.name);
    n->set_op_type(std::string(op_kind_name(op.kind)));
    if (op.kind == OpKind::Gelu) n->set_domain(kMicrosoftDomain);
    for (int t : op.inputs) n->add_input(t < 0 ? std::string() : g.tensor(t).name);
    for (int t : op.outputs) n->add_output(g.tensor(t).name);
    for (const auto& [name, value] : op.attrs.all()) set_attribute(n->add_attribute(), name, value);
  }
  for (int t : g.output_tensors()) set_value_info(gp->add_output(), g.tensor(t));
}

std::string graph_to_onnx_bytes(const Graph& g) {
  onnx::ModelProto m;
  graph_to_onnx(g, &m);
  return serialize_deterministic(m);
}

void save_onnx_file(const Graph& g, const std::string& path) {
  write_file_atomic(path, graph_to_onnx_bytes(g));
}

}  // namespace dgs
