// ONNX in and out: round trips of zoo models, a libonnx-testdata model, and the one-line errors
// for malformed files and unknown operators.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

#include "common/onnx/onnx_io.h"
#include "common/util/resources.h"
#include "models/builder.h"
#include "models/zoo.h"
#include "tests/scratch_dir.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Attributes equal, floats compared as the float32 ONNX stores.
bool same_attr(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (auto p = std::get_if<double>(&a)) {
    return static_cast<float>(*p) == static_cast<float>(std::get<double>(b));
  }
  if (auto p = std::get_if<std::vector<double>>(&a)) {
    const auto& q = std::get<std::vector<double>>(b);
    if (p->size() != q.size()) return false;
    for (size_t i = 0; i < p->size(); ++i) {
      if (static_cast<float>((*p)[i]) != static_cast<float>(q[i])) return false;
    }
    return true;
  }
  return a == b;
}

// Structural equality of two graphs, by names (indices may differ).
void expect_same_graph(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.num_ops(), b.num_ops()) << a.name;
  ASSERT_EQ(a.num_tensors(), b.num_tensors()) << a.name;
  EXPECT_EQ(a.name, b.name);
  for (const Tensor& t : a.tensors()) {
    const int j = b.find_tensor(t.name);
    ASSERT_GE(j, 0) << "tensor " << t.name << " missing after the round trip";
    const Tensor& u = b.tensor(j);
    EXPECT_EQ(t.shape, u.shape) << t.name;
    EXPECT_EQ(t.dtype, u.dtype) << t.name;
    EXPECT_EQ(t.role, u.role) << t.name;
    EXPECT_EQ(t.int_data, u.int_data) << t.name;
    if (t.dtype == DType::F16) {
      ASSERT_EQ(t.float_data.size(), u.float_data.size()) << t.name;
      for (size_t i = 0; i < t.float_data.size(); ++i) {
        EXPECT_NEAR(t.float_data[i], u.float_data[i], 1e-3 * std::fabs(t.float_data[i])) << t.name;
      }
    } else {
      EXPECT_EQ(t.float_data, u.float_data) << t.name;
    }
  }
  for (const Op& o : a.ops()) {
    const int j = b.find_op(o.name);
    ASSERT_GE(j, 0) << "op " << o.name << " missing after the round trip";
    const Op& p = b.op(j);
    EXPECT_EQ(o.kind, p.kind) << o.name;
    ASSERT_EQ(o.inputs.size(), p.inputs.size()) << o.name;
    for (size_t i = 0; i < o.inputs.size(); ++i) {
      if (o.inputs[i] < 0) {
        EXPECT_LT(p.inputs[i], 0) << o.name;
      } else {
        EXPECT_EQ(a.tensor(o.inputs[i]).name, b.tensor(p.inputs[i]).name) << o.name;
      }
    }
    ASSERT_EQ(o.outputs.size(), p.outputs.size()) << o.name;
    for (size_t i = 0; i < o.outputs.size(); ++i) {
      EXPECT_EQ(a.tensor(o.outputs[i]).name, b.tensor(p.outputs[i]).name) << o.name;
    }
    ASSERT_EQ(o.attrs.all().size(), p.attrs.all().size()) << o.name;
    for (const auto& [name, value] : o.attrs.all()) {
      ASSERT_TRUE(p.attrs.has(name)) << o.name << "." << name;
      EXPECT_TRUE(same_attr(value, p.attrs.all().at(name))) << o.name << "." << name;
    }
  }
}

Graph round_trip(const Graph& g) {
  const std::string bytes = graph_to_onnx_bytes(g);
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return graph_from_onnx(m, g.name + ".onnx");
}

TEST(OnnxIo, RoundTripOfZooModels) {
  ZooOptions small_bert;
  small_bert.seq_len = 16;
  for (const char* name : {"resnet18", "inception_v3", "squeezenet", "mobilenet_v2", "test_diamond",
                           "test_residual_block"}) {
    SCOPED_TRACE(name);
    const Graph g = build_zoo_model(name);
    expect_same_graph(g, round_trip(g));
  }
  const Graph bert = build_zoo_model("bert_base", small_bert);
  expect_same_graph(bert, round_trip(bert));
}

TEST(OnnxIo, RoundTripOfFloat16AndGeluOpAndDataMovement) {
  ModelBuilder b("mixed", DType::F16);
  int x = b.input("data", {2, 8, 6, 6});
  x = b.conv2d(x, 8, 3, 1, 1);
  x = b.relu6(x);
  auto parts = b.split(x, {3, 5}, 1);
  int y = b.concat({parts[1], parts[0]}, 1);
  y = b.slice(y, {1}, {5}, {2}, {2});
  y = b.pad(y, {0, 0, 1, 0, 0, 0, 1, 0});
  y = b.resize(y, {1.0f, 1.0f, 2.0f, 2.0f});
  y = b.transpose(y, {0, 2, 3, 1});
  y = b.reshape(y, {2, -1, 8});
  y = b.gelu_op(y);
  y = b.gelu(y);
  y = b.layernorm(y);
  y = b.softmax(y);
  y = b.unsqueeze(y, {0});
  y = b.squeeze(y, {0});
  y = b.reduce_mean(y, {1}, false);
  y = b.linear(y, 4);
  const Graph g = b.finish({y});
  const Graph back = round_trip(g);
  expect_same_graph(g, back);
  EXPECT_EQ(back.tensor(back.output_tensors().at(0)).shape, (Shape{2, 4}));
  EXPECT_EQ(back.tensor(back.output_tensors().at(0)).dtype, DType::F16);
}

TEST(OnnxIo, WritesWeightsAsInputsAndConstantsAsInitializers) {
  const Graph g = build_zoo_model("test_diamond");
  onnx::ModelProto m;
  graph_to_onnx(g, &m);
  EXPECT_EQ(m.opset_import(0).version(), 17);
  EXPECT_EQ(m.graph().initializer_size(), 0);  // no constants in the diamond
  int weights = 0;
  for (const auto& in : m.graph().input()) weights += in.doc_string() == kOnnxWeightDocString;
  EXPECT_EQ(weights, static_cast<int>(g.weight_tensors().size()));
  EXPECT_EQ(m.graph().input_size(), weights + 1);
  // Deterministic bytes.
  EXPECT_EQ(graph_to_onnx_bytes(g), graph_to_onnx_bytes(build_zoo_model("test_diamond")));
}

TEST(OnnxIo, LoadsAnOnnxBackendTestModel) {
  const std::string path =
      "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is not installed (libonnx-testdata)";
  const Graph g = load_onnx_file(path);
  ASSERT_EQ(g.num_ops(), 1);
  EXPECT_EQ(g.op(0).kind, OpKind::Conv);
  // x [1,1,7,5], W [1,1,3,3], strides 2, pads 1 -> y [1,1,4,3] (ONNX's test_conv reference).
  EXPECT_EQ(g.tensor(g.find_tensor("x")).shape, (Shape{1, 1, 7, 5}));
  EXPECT_EQ(g.tensor(g.find_tensor("W")).shape, (Shape{1, 1, 3, 3}));
  ASSERT_EQ(g.output_tensors().size(), 1u);
  EXPECT_EQ(g.tensor(g.output_tensors()[0]).shape, (Shape{1, 1, 4, 3}));
  EXPECT_EQ(g.op(0).attrs.get_ints("strides", {}), (std::vector<int64_t>{2, 2}));
}

TEST(OnnxIo, MalformedFileGivesOneLineNamingTheFile) {
  ScratchDir dir("onnx_test");
  const std::string path = dir.file("garbage.onnx");
  write_file_atomic(path, std::string("\xff\xff\xff\xff this is not a protobuf \x07\x00", 30));
  const std::string msg = error_of([&] { load_onnx_file(path); });
  EXPECT_EQ(msg, path + ": not a valid ONNX model (protobuf parsing failed)");
  const std::string missing = dir.file("missing.onnx");
  EXPECT_EQ(error_of([&] { load_onnx_file(missing); }), missing + ": cannot open the file");
}

// A one-node model: x [1, 4] -> <op_type> -> y [1, 4].
onnx::ModelProto single_node_model(const std::string& op_type) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("single");
  auto add_vi = [](onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(1);
    tt->mutable_shape()->add_dim()->set_dim_value(4);
  };
  add_vi(g->add_input(), "x");
  add_vi(g->add_output(), "y");
  auto* n = g->add_node();
  n->set_name("foo");
  n->set_op_type(op_type);
  n->add_input("x");
  n->add_output("y");
  return m;
}

TEST(OnnxIo, UnknownOperatorIsNamed) {
  ScratchDir dir("onnx_test");
  const std::string path = dir.file("foobar.onnx");
  write_file_atomic(path, single_node_model("FooBar").SerializeAsString());
  EXPECT_EQ(error_of([&] { load_onnx_file(path); }),
            path + ": node 'foo' has unsupported operator 'FooBar'");
  // The same model with a known operator loads.
  write_file_atomic(path, single_node_model("Relu").SerializeAsString());
  const Graph g = load_onnx_file(path);
  EXPECT_EQ(g.num_ops(), 1);
  EXPECT_EQ(g.op(0).name, "foo");
}

TEST(OnnxIo, CheckerErrorsAreOneLine) {
  onnx::ModelProto m = single_node_model("Relu");
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");  // dangling input
  const std::string msg = error_of([&] { graph_from_onnx(m, "dangling.onnx"); });
  EXPECT_EQ(msg.rfind("dangling.onnx: ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(OnnxIo, ShapeInitializersBecomeConstantsAndSymbolicBatchIsBound) {
  // x [N, 6] (N symbolic) -> Reshape(shape = int64 initializer [-1, 3]) -> Mul(scalar 0.5) -> y;
  // a float initializer w that nothing reads is added.
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("reshape_model");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("N");
  tt->mutable_shape()->add_dim()->set_dim_value(6);
  auto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto_DataType_INT64);
  shape->add_dims(2);
  shape->add_int64_data(-1);
  shape->add_int64_data(3);
  auto* half = g->add_initializer();
  half->set_name("half");
  half->set_data_type(onnx::TensorProto_DataType_FLOAT);
  half->add_float_data(0.5f);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto_DataType_FLOAT);
  w->add_dims(kOnnxSmallFloatConstant + 1);
  for (int i = 0; i <= kOnnxSmallFloatConstant; ++i) w->add_float_data(1.0f);
  auto* n1 = g->add_node();
  n1->set_op_type("Reshape");
  n1->add_input("x");
  n1->add_input("shape");
  n1->add_output("r");
  auto* n2 = g->add_node();
  n2->set_op_type("Mul");
  n2->add_input("r");
  n2->add_input("half");
  n2->add_output("y");
  auto* y = g->add_output();
  y->set_name("y");
  auto* yt = y->mutable_type()->mutable_tensor_type();
  yt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  yt->mutable_shape()->add_dim()->set_dim_param("M");  // left to shape inference
  yt->mutable_shape()->add_dim()->set_dim_value(3);

  OnnxLoadOptions opts;
  opts.batch = 4;
  const Graph loaded = graph_from_onnx(m, "reshape.onnx", opts);
  EXPECT_EQ(loaded.tensor(loaded.find_tensor("x")).shape, (Shape{4, 6}));
  const Tensor& s = loaded.tensor(loaded.find_tensor("shape"));
  EXPECT_EQ(s.role, TensorRole::Constant);
  EXPECT_EQ(s.int_data, (std::vector<int64_t>{-1, 3}));
  const Tensor& h = loaded.tensor(loaded.find_tensor("half"));
  EXPECT_EQ(h.role, TensorRole::Constant);
  EXPECT_EQ(h.float_data, (std::vector<float>{0.5f}));
  EXPECT_EQ(loaded.find_tensor("w"), -1);  // an initializer nothing reads is dropped
  EXPECT_EQ(loaded.tensor(loaded.find_tensor("y")).shape, (Shape{8, 3}));
  EXPECT_EQ(loaded.op(0).name, "Reshape_0");  // unnamed nodes get "<op_type>_<index>"
}

TEST(OnnxIo, ConstantNodesBecomeConstantTensors) {
  onnx::ModelProto m = single_node_model("Unsqueeze");
  auto* g = m.mutable_graph();
  // y becomes [1, 1, 4] through Unsqueeze(x, axes) with axes from a Constant node.
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("axes");
  auto* a = c->add_attribute();
  a->set_name("value_ints");
  a->set_type(onnx::AttributeProto_AttributeType_INTS);
  a->add_ints(0);
  g->mutable_node()->SwapElements(0, 1);  // Constant first (topological order)
  g->mutable_node(1)->add_input("axes");
  auto* yshape = g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  yshape->clear_dim();
  for (int64_t d : {1, 1, 4}) yshape->add_dim()->set_dim_value(d);
  const Graph loaded = graph_from_onnx(m, "unsqueeze.onnx");
  ASSERT_EQ(loaded.num_ops(), 1);
  const Tensor& axes = loaded.tensor(loaded.find_tensor("axes"));
  EXPECT_EQ(axes.role, TensorRole::Constant);
  EXPECT_EQ(axes.int_data, (std::vector<int64_t>{0}));
  EXPECT_EQ(loaded.tensor(loaded.find_tensor("y")).shape, (Shape{1, 1, 4}));
}

// Opset-11 Squeeze keeps its axes in an attribute; the loader moves them to a Constant input (the
// opset-13 form the Graph uses), so shape inference and the writer see one form.
TEST(OnnxIo, OlderOpsetAttributesBecomeConstantInputs) {
  onnx::ModelProto m = single_node_model("Squeeze");
  m.mutable_opset_import(0)->set_version(11);
  auto* a = m.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("axes");
  a->set_type(onnx::AttributeProto_AttributeType_INTS);
  a->add_ints(0);
  auto* yshape = m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
  yshape->mutable_shape()->clear_dim();
  yshape->mutable_shape()->add_dim()->set_dim_value(4);
  const Graph g = graph_from_onnx(m, "squeeze11.onnx");
  ASSERT_EQ(g.num_ops(), 1);
  ASSERT_EQ(g.op(0).inputs.size(), 2u);
  EXPECT_FALSE(g.op(0).attrs.has("axes"));
  EXPECT_EQ(g.tensor(g.op(0).inputs[1]).int_data, (std::vector<int64_t>{0}));
  EXPECT_EQ(g.tensor(g.output_tensors().at(0)).shape, (Shape{4}));
  // Written back at opset 17, it loads again unchanged.
  expect_same_graph(g, round_trip(g));
}

// PyTorch-style dynamic reshape: y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])).
// The shape arithmetic is folded into a Constant [2, -1] (values from ONNX's data propagation).
TEST(OnnxIo, ShapeArithmeticIsFoldedIntoConstants) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("dynamic_reshape");
  auto add_float_vi = [](onnx::ValueInfoProto* v, const std::string& name, const Shape& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  };
  add_float_vi(g->add_input(), "x", {2, 3, 4});
  add_float_vi(g->add_output(), "y", {2, 12});
  auto add_ints = [&](const std::string& name, const Shape& dims, std::vector<int64_t> values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
  };
  add_ints("zero", {}, {0});
  add_ints("axes0", {1}, {0});
  add_ints("minus_one", {1}, {-1});
  auto add_node = [&](const std::string& op, std::vector<std::string> ins, const std::string& out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out + "_node");
    for (const auto& i : ins) n->add_input(i);
    n->add_output(out);
    return n;
  };
  add_node("Shape", {"x"}, "s");
  add_node("Gather", {"s", "zero"}, "d");
  add_node("Unsqueeze", {"d", "axes0"}, "d1");
  auto* cat = add_node("Concat", {"d1", "minus_one"}, "shape");
  auto* axis = cat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto_AttributeType_INT);
  axis->set_i(0);
  add_node("Reshape", {"x", "shape"}, "y");

  const Graph loaded = graph_from_onnx(m, "dynamic.onnx");
  ASSERT_EQ(loaded.num_ops(), 1);  // only the Reshape is left
  EXPECT_EQ(loaded.op(0).kind, OpKind::Reshape);
  const Tensor& shape = loaded.tensor(loaded.find_tensor("shape"));
  EXPECT_EQ(shape.role, TensorRole::Constant);
  EXPECT_EQ(shape.int_data, (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(loaded.tensor(loaded.find_tensor("y")).shape, (Shape{2, 12}));

  // Without folding, Shape is an unsupported operator.
  OnnxLoadOptions no_fold;
  no_fold.fold_shape_computations = false;
  EXPECT_EQ(error_of([&] { graph_from_onnx(m, "dynamic.onnx", no_fold); }),
            "dynamic.onnx: node 's_node' has unsupported operator 'Shape'");
}

TEST(OnnxIo, SaveIsAtomicAndReloads) {
  ScratchDir dir("onnx_test");
  const std::string path = dir.file("sub/diamond.onnx");
  const Graph g = build_zoo_model("test_diamond");
  save_onnx_file(g, path);
  expect_same_graph(g, load_onnx_file(path));
  EXPECT_EQ(read_file(path), graph_to_onnx_bytes(g));
}

}  // namespace
}  // namespace dgs
