// Patterns found in real torch.onnx.export files (torchvision Swin-T, Hugging Face BERT, and the
// dynamo exporter's default file layout) that the loader handles: a shifted-window attention mask
// built by ScatterND of a large float constant into zeros, token-type ids taken from a buffer by
// GatherElements (swin_block fixture), and weights stored in an external data file beside the
// model.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/graph/op_cost.h"
#include "common/onnx/onnx_io.h"
#include "common/onnxcheck/onnx_case_check.h"
#include "tests/error_of.h"
#include "tests/onnx/export_fixture.h"

namespace dgs {
namespace {

std::string pattern_dir() {
  const std::string dir = std::string(DGS_BINARY_DIR) + "/export_patterns";
  std::filesystem::create_directories(dir);
  return dir;
}

int count_kind(const Graph& g, OpKind k) {
  int n = 0;
  for (const Op& op : g.ops()) n += op.kind == k;
  return n;
}

TEST(ExportPatterns, ScatterNdMaskAndGatherElementsIdsFold) {
  OnnxLoadSummary s;
  OnnxLoadOptions opts;
  opts.summary = &s;
  const Graph g = load_onnx_file(write_exported_fixture("swin_block", pattern_dir()), opts);
  EXPECT_EQ(s.folded.at("ScatterND"), 1);
  EXPECT_EQ(s.folded.at("GatherElements"), 1);
  EXPECT_EQ(s.folded.at("Slice"), 1);
  EXPECT_EQ(s.folded.at("Mod"), 1);
  // The mask is a computed constant (its updates, 128 floats, are not a parameter): rows 8-15
  // hold -100 in their first 8 columns.
  const Tensor& mask = g.tensor(g.find_tensor("window_mask"));
  EXPECT_EQ(mask.role, TensorRole::Constant);
  ASSERT_EQ(mask.float_data.size(), 256u);
  EXPECT_EQ(mask.float_data[7 * 16 + 0], 0.0f);
  EXPECT_EQ(mask.float_data[8 * 16 + 0], -100.0f);
  EXPECT_EQ(mask.float_data[8 * 16 + 8], 0.0f);
  // Token types: the buffer 0..15 reversed, mod 2.
  const Tensor& types = g.tensor(g.find_tensor("types"));
  EXPECT_EQ(types.role, TensorRole::Constant);
  EXPECT_EQ(types.int_data, (std::vector<int64_t>{1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}));
  // What is left is the real compute: the embedding Gather, 4 MatMuls, Softmax, Split,
  // Transpose, Mul and 5 Adds.
  EXPECT_EQ(g.num_ops(), 14);
  EXPECT_EQ(count_kind(g, OpKind::Gather), 1);
  EXPECT_EQ(count_kind(g, OpKind::MatMul), 4);
  EXPECT_EQ(count_kind(g, OpKind::Add), 5);
  // Parameters above kOnnxSmallFloatConstant elements: embedding 24, qkv 192 + 24, proj 64 (not
  // the mask's 128 updates).
  EXPECT_EQ(parameter_count(g), 24 + 192 + 24 + 64);
}

// The model of `name` with every initializer of more than 16 elements moved to `data_file`
// (beside the model, as torch.onnx.export(..., dynamo=True) writes it); returns the model's path.
std::string write_with_external_data(const std::string& name, const std::string& data_file) {
  onnx::ModelProto m = exported_fixture_model(name);
  std::string data;
  for (auto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.raw_data().size() <= 64) continue;
    auto add = [&](const std::string& key, const std::string& value) {
      auto* kv = t.add_external_data();
      kv->set_key(key);
      kv->set_value(value);
    };
    add("location", data_file);
    add("offset", std::to_string(data.size()));
    add("length", std::to_string(t.raw_data().size()));
    data += t.raw_data();
    t.clear_raw_data();
    t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  }
  const std::string path = pattern_dir() + "/" + name + "_external.onnx";
  std::ofstream(pattern_dir() + "/" + data_file, std::ios::binary) << data;
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

TEST(ExportPatterns, ExternalDataBesideTheModelLoadsLikeInlineWeights) {
  const std::string path = write_with_external_data("vit_block", "vit_block_external.onnx.data");
  OnnxLoadSummary s;
  OnnxLoadOptions opts;
  opts.summary = &s;
  const Graph external = load_onnx_file(path, opts);
  const Graph inline_weights =
      load_onnx_file(write_exported_fixture("vit_block", pattern_dir()), OnnxLoadOptions{});
  EXPECT_EQ(external.num_ops(), inline_weights.num_ops());
  EXPECT_EQ(graph_cost(external).total.flops, graph_cost(inline_weights).total.flops);
  EXPECT_EQ(parameter_count(external), parameter_count(inline_weights));
  EXPECT_EQ(s.file_ir_version, 10);
}

TEST(ExportPatterns, ExternalDataOutsideTheModelsFolderOrTruncatedIsRefused) {
  onnx::ModelProto m = exported_fixture_model("resnet_block");
  onnx::TensorProto* w = nullptr;
  for (auto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() == "p_fc_weight") w = &t;
  }
  ASSERT_NE(w, nullptr);
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  auto write = [&](const std::string& where) {
    location->set_value(where);
    const std::string path = pattern_dir() + "/bad_external.onnx";
    std::ofstream(path, std::ios::binary) << m.SerializeAsString();
    return path;
  };
  std::string path = write("../secret.bin");
  EXPECT_EQ(error_of([&] { load_onnx_file(path); }),
            path +
                ": initializer 'p_fc_weight': external data location '../secret.bin' must be "
                "a file name relative to the model's directory");
  std::ofstream(pattern_dir() + "/short.bin", std::ios::binary) << std::string(100, '\0');
  path = write("short.bin");
  EXPECT_EQ(error_of([&] { load_onnx_file(path); }),
            path +
                ": initializer 'p_fc_weight': external data at offset 0 of 320 bytes is beyond "
                "the end of 'short.bin' (100 bytes)");
  path = write("missing.bin");
  EXPECT_EQ(error_of([&] { load_onnx_file(path); }),
            path + ": initializer 'p_fc_weight': cannot open its external data file '" +
                pattern_dir() + "/missing.bin'");
}

// A float tensor as a TensorProto file (input_0.pb / output_0.pb of a test case).
void write_float_proto(const std::string& path, const std::string& name, const TensorData& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto_DataType_FLOAT);
  for (int64_t d : v.shape) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(v.f.data()), v.f.size() * 4));
  std::ofstream(path, std::ios::binary) << t.SerializeAsString();
}

TEST(ExportPatterns, OnnxCheckCaseRunsAWholeExportAgainstOnnxRuntime) {
  // What tools/export_examples.py --reference writes: model.onnx with its weights in a side file,
  // a symbolic batch, shape arithmetic and a mask to fold, and ONNX Runtime's outputs at batch 2.
  const std::string dir = pattern_dir() + "/swin_case";
  std::filesystem::create_directories(dir + "/test_data_set_0");
  std::filesystem::rename(write_with_external_data("swin_block", "swin_block_external.onnx.data"),
                          dir + "/model.onnx");
  std::filesystem::rename(pattern_dir() + "/swin_block_external.onnx.data",
                          dir + "/swin_block_external.onnx.data");
  write_float_proto(dir + "/test_data_set_0/input_0.pb", "x",
                    fixture_input("x", {2, 16, 8}, DType::F32));
  std::ifstream ref(std::string(DGS_SOURCE_DIR) + "/tests/onnx/fixtures/swin_block.ref.txt");
  std::ostringstream text;
  text << ref.rdbuf();
  write_float_proto(dir + "/test_data_set_0/output_0.pb", "y",
                    tensors_from_text(text.str()).at("y"));
  const OnnxCaseResult r = check_onnx_case(dir, Tolerance{1e-4, 1e-5});
  EXPECT_EQ(r.status, OnnxCaseResult::Status::Pass) << r.detail;
}

TEST(ExportPatterns, SoftmaxNanGuardOfScaledDotProductAttentionIsRemoved) {
  // torch.onnx.export(..., dynamo=True) of BERT: probs = Where(IsNaN(s), 0, s), s = Softmax.
  const char* text = R"(
    <ir_version: 10, opset_import: ["" : 18]>
    g (float[2, 4] x) => (float[2, 4] y) {
      s = Softmax <axis = -1> (x)
      nan = IsNaN (s)
      zero = Constant <value = float {0.0}> ()
      probs = Where (nan, zero, s)
      y = Mul (probs, x)
    })";
  onnx::ModelProto m;
  ASSERT_TRUE(onnx::OnnxParser::Parse(m, text).IsOK());
  OnnxLoadSummary s;
  OnnxLoadOptions opts;
  opts.summary = &s;
  const Graph g = graph_from_onnx(m, "guard.onnx", opts);
  ASSERT_EQ(g.num_ops(), 2);
  EXPECT_EQ(g.op(0).kind, OpKind::Softmax);
  EXPECT_EQ(g.op(1).kind, OpKind::Mul);
  EXPECT_EQ(g.op(1).inputs[0], g.find_tensor("s"));
  EXPECT_EQ(s.folded.at("Where(IsNaN) of Softmax"), 1);
  // Another replacement value is not the guard: IsNaN and Where stay as real compute.
  for (auto& n : *m.mutable_graph()->mutable_node()) {
    if (n.output(0) == "zero") n.mutable_attribute(0)->mutable_t()->set_float_data(0, 1.0f);
  }
  const Graph kept = graph_from_onnx(m, "guard1.onnx");
  ASSERT_EQ(kept.num_ops(), 4);
  EXPECT_EQ(kept.op(1).kind, OpKind::IsNaN);
  EXPECT_EQ(kept.op(2).kind, OpKind::Where);
}

TEST(ExportPatterns, ChainedShapeComputationsFoldInOnePass) {
  // Swin-T's legacy export chains its blocks through shape arithmetic: each block's Shape reads
  // a Reshape whose target the previous Shape computed, so its shape is static only once that
  // Reshape's target is folded. Folding infers each node as it goes: one pass folds all four
  // Shapes, and ONNX's whole-graph inference runs once (it ran once per block before).
  const char* text = R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 3, 4] x) => (float[2, 3, 4] y) {
      s0 = Shape (x)
      r0 = Reshape (x, s0)
      h0 = Relu (r0)
      s1 = Shape (h0)
      r1 = Reshape (h0, s1)
      h1 = Relu (r1)
      s2 = Shape (h1)
      r2 = Reshape (h1, s2)
      h2 = Relu (r2)
      s3 = Shape (h2)
      r3 = Reshape (h2, s3)
      y = Relu (r3)
    })";
  onnx::ModelProto m;
  const auto status = onnx::OnnxParser::Parse(m, text);
  ASSERT_TRUE(status.IsOK()) << status.ErrorMessage();
  OnnxLoadSummary s;
  OnnxLoadOptions opts;
  opts.summary = &s;
  const Graph g = graph_from_onnx(m, "chain.onnx", opts);
  EXPECT_EQ(s.folded.at("Shape"), 4);
  EXPECT_EQ(s.whole_graph_inferences, 1);
  ASSERT_EQ(g.num_ops(), 8);
  EXPECT_EQ(g.op(6).kind, OpKind::Reshape);
  EXPECT_EQ(g.tensor(g.op(6).inputs[1]).int_data, (std::vector<int64_t>{2, 3, 4}));
}

TEST(ExportPatterns, SymbolicBatchInTheFilesValueInfoTakesTheBatch) {
  // torch.onnx.export(..., dynamo=True, dynamic_shapes=...) annotates intermediate tensors with
  // the symbolic "batch" (value_info); at batch 1 a stale "batch" on the Transpose output made
  // ViT-B/16's Squeeze of its size-1 axis, and the shape chain after it, unknown.
  const char* text = R"(
    <ir_version: 10, opset_import: ["" : 18]>
    g (float[4, batch, 6] x) => (float[4, batch, 2] y)
      <float[4, batch, 3, 2] view, float[1, 4, batch, 3, 2] us, float[3, 4, batch, 1, 2] tr,
       float[3, 4, batch, 2] sq, float[4, batch, 2] sel> {
      target = Constant <value = int64[4] {4, -1, 3, 2}> ()
      view = Reshape <allowzero = 1> (x, target)
      ax0 = Constant <value = int64[1] {0}> ()
      us = Unsqueeze (view, ax0)
      tr = Transpose <perm = [3, 1, 2, 0, 4]> (us)
      axm2 = Constant <value = int64[1] {-2}> ()
      sq = Squeeze (tr, axm2)
      one = Constant <value = int64 {1}> ()
      sel = Gather <axis = 0> (sq, one)
      sh = Shape (sel)
      y = Reshape (sel, sh)
    })";
  onnx::ModelProto m;
  const auto status = onnx::OnnxParser::Parse(m, text);
  ASSERT_TRUE(status.IsOK()) << status.ErrorMessage();
  ASSERT_EQ(m.graph().value_info_size(), 5);
  for (int64_t batch : {1, 3}) {
    OnnxLoadOptions opts;
    opts.dim_values["batch"] = batch;
    const Graph g = graph_from_onnx(m, "annotated.onnx", opts);
    EXPECT_EQ(g.tensor(g.find_tensor("y")).shape, (Shape{4, batch, 2}));
    // The file's annotations take the value too: none keeps the stale "batch".
    const onnx::ModelProto normalized = normalized_onnx_model(m, "annotated.onnx", opts);
    for (const auto& v : normalized.graph().value_info()) {
      for (const auto& d : v.type().tensor_type().shape().dim()) {
        EXPECT_FALSE(d.has_dim_param()) << v.name();
      }
    }
  }
}

TEST(ExportPatterns, EinsumOfConstantsFolds) {
  const char* text = R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2, 2] x, float[3, 2] x2) => (float[2, 2] y, float[3, 2] z) {
      a = Constant <value = float[2, 3] {1, 2, 3, 4, 5, 6}> ()
      b = Constant <value = float[3, 2] {1, 0, 0, 1, 1, 1}> ()
      product = Einsum <equation = "ij,jk"> (a, b)
      transposed = Einsum <equation = "ij -> ji"> (a)
      y = Add (x, product)
      z = Add (x2, transposed)
    })";
  onnx::ModelProto m;
  ASSERT_TRUE(onnx::OnnxParser::Parse(m, text).IsOK());
  OnnxLoadSummary s;
  OnnxLoadOptions opts;
  opts.summary = &s;
  const Graph g = graph_from_onnx(m, "einsum.onnx", opts);
  EXPECT_EQ(g.num_ops(), 2);
  EXPECT_EQ(s.folded.at("Einsum"), 2);
  EXPECT_EQ(g.tensor(g.find_tensor("product")).float_data, (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(g.tensor(g.find_tensor("transposed")).float_data,
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
  for (auto& n : *m.mutable_graph()->mutable_node()) {
    if (n.output(0) == "product") n.mutable_attribute(0)->set_s("ij,kk->ik");
  }
  EXPECT_EQ(error_of([&] { graph_from_onnx(m, "einsum2.onnx"); }),
            "einsum2.onnx: node '' (Einsum): equation letter 'k' has sizes 3 and 2");
}

// Folding refuses, in one line naming the node, what would be undefined behaviour or an
// out-of-bounds read: int64 overflow, INT64_MIN / -1, float indices, mixed-type ScatterND.
TEST(ExportPatterns, FoldingRefusesOverflowAndMistypedIndices) {
  auto load = [](const std::string& body) {
    const std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\n" + body;
    onnx::ModelProto m;
    EXPECT_TRUE(onnx::OnnxParser::Parse(m, text.c_str()).IsOK()) << text;
    return error_of([&] { graph_from_onnx(m, "bad.onnx"); });
  };
  EXPECT_EQ(load(R"(g (float[2] x) => (float[2] y) {
      a = Constant <value = int64[1] {9223372036854775807}> ()
      one = Constant <value = int64[1] {1}> ()
      s = Add (a, one)
      f = Cast <to = 1> (s)
      y = Add (x, f)
    })"),
            "bad.onnx: node '' (Add): integer Add of 9223372036854775807 and 1 overflows 64 "
            "bits");
  EXPECT_EQ(load(R"(g (float[2] x) => (float[2] y) {
      a = Constant <value = int64[1] {-9223372036854775807}> ()
      one = Constant <value = int64[1] {1}> ()
      lo = Sub (a, one)
      m1 = Constant <value = int64[1] {-1}> ()
      q = Div (lo, m1)
      f = Cast <to = 1> (q)
      y = Add (x, f)
    })"),
            "bad.onnx: node '' (Div): integer Div of -9223372036854775808 and -1 overflows 64 "
            "bits");
  EXPECT_EQ(load(R"(g (float[2] x) => (float[2] y) {
      t = Constant <value = float[3] {1, 2, 3}> ()
      i = Constant <value = float[2] {0, 1}> ()
      g = Gather (t, i)
      y = Add (x, g)
    })"),
            "bad.onnx: node '' (Gather): indices of a floating-point type; expected int32 or "
            "int64 indices");
  EXPECT_EQ(load(R"(g (int64[2] x) => (int64[2] y) {
      d = Constant <value = int64[2] {0, 0}> ()
      i = Constant <value = int64[1, 1] {1}> ()
      u = Constant <value = float[1] {5}> ()
      s = ScatterND (d, i, u)
      y = Add (x, s)
    })"),
            "bad.onnx: node '' (ScatterND): ScatterND of float updates into integer data; "
            "expected updates of the data's type");
}

}  // namespace
}  // namespace dgs
