// ONNX files as PyTorch's exporters and Hugging Face Transformers write them (shape arithmetic,
// masks, Constant and Identity nodes around the real compute; opsets 13, 17 and 18 with IR 10),
// generated from the weight-free fixtures in tests/onnx/fixtures/ (export_fixture.h): each loads
// with its shape chains folded, its FLOPs equal hand counts, and the executor's outputs equal
// ONNX Runtime's stored ones.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/exec/executor.h"
#include "common/graph/op_cost.h"
#include "common/graph/op_dag.h"
#include "common/onnx/onnx_io.h"
#include "tests/error_of.h"
#include "tests/onnx/export_fixture.h"

namespace dgs {
namespace {

std::string fixture_dir() {
  const std::string dir = std::string(DGS_BINARY_DIR) + "/export_fixtures";
  std::filesystem::create_directories(dir);
  return dir;
}

Graph load_fixture(const std::string& name, int64_t batch, OnnxLoadSummary* summary = nullptr) {
  OnnxLoadOptions opts;
  opts.batch = batch;
  opts.summary = summary;
  return load_onnx_file(write_exported_fixture(name, fixture_dir()), opts);
}

// Operator types outside the real compute that folding must have removed.
void expect_only_real_compute(const Graph& g) {
  for (const Op& op : g.ops()) {
    EXPECT_NE(op.kind, OpKind::Identity) << op.name;
    for (int t : op.inputs) {
      if (t < 0) continue;
      // No op computes on constants only: every op reads an input, weight or activation.
    }
    bool reads_data = false;
    for (int t : op.inputs) {
      reads_data |= t >= 0 && g.tensor(t).role != TensorRole::Constant;
    }
    EXPECT_TRUE(reads_data) << op.name << " computes on constants only";
  }
}

int count_kind(const Graph& g, OpKind k) {
  int n = 0;
  for (const Op& op : g.ops()) n += op.kind == k;
  return n;
}

TEST(ExportedModels, EveryFixtureFoldsInOnePass) {
  // The folding pass infers each node as it goes (onnx_node_checks.h): whole-graph shape
  // inference runs once, also for Swin's shifted-window chains.
  for (const char* name :
       {"resnet_block", "vit_block", "swin_block", "bert_block", "bert_mask_block"}) {
    OnnxLoadSummary s;
    load_fixture(name, 2, &s);
    EXPECT_GT(s.folded_total(), 0) << name;
    EXPECT_EQ(s.whole_graph_inferences, 1) << name;
  }
}

TEST(ExportedModels, ResNetBlockFoldsIdentityConstantAndShapeChains) {
  OnnxLoadSummary s;
  const Graph g = load_fixture("resnet_block", 1, &s);
  expect_only_real_compute(g);
  // Conv x6, BatchNormalization, Relu x3, MaxPool, Add x2, GlobalAveragePool, Reshape, Gemm.
  EXPECT_EQ(g.num_ops(), 16);
  EXPECT_EQ(count_kind(g, OpKind::Conv), 6);
  EXPECT_EQ(s.folded.at("Identity"), 2);
  EXPECT_EQ(s.folded.at("Constant"), 3);
  EXPECT_EQ(s.file_opset, 13);
  // The shared conv weight is one tensor, read by two convolutions.
  EXPECT_EQ(g.tensor(g.find_tensor("p_conv2_weight")).consumers.size(), 2u);
  EXPECT_EQ(g.find_tensor("shared_w"), -1);
  // Hand count (op_cost.h rules), batch 1:
  //   conv1 2*2048*27 = 110592; bn 2*2048 = 4096; relu 2048; maxpool 512*4 = 2048;
  //   c2, c3, c3b 3*(2*512*72 + 512) = 222720; relu r2 512; add s 512; relu r3 512;
  //   down, up 2*(2*1024*8) = 32768; add 1024; gap 1024; gemm 2*80 + 5 = 165.
  EXPECT_EQ(graph_cost(g).total.flops,
            110592 + 4096 + 2048 + 2048 + 222720 + 512 + 512 + 512 + 32768 + 1024 + 1024 + 165);
  // Weights above kOnnxSmallFloatConstant elements, the shared one once:
  // 216 + 576 + 576 + 128 + 128 + 80.
  EXPECT_EQ(parameter_count(g), 1704);
  // The raw export's Identity and Constant nodes no longer break the chain into parallel
  // sources: the graph is one block chain with width 2 (the two branches of each residual).
  EXPECT_EQ(graph_width(g), 2);
}

TEST(ExportedModels, VitBlockOpset18Ir10LoadsWithExpandWhereChainFolded) {
  OnnxLoadSummary s;
  const Graph g = load_fixture("vit_block", 1, &s);
  expect_only_real_compute(g);
  EXPECT_EQ(s.file_opset, 18);
  EXPECT_EQ(s.file_ir_version, 10);
  for (const char* type : {"Shape", "ConstantOfShape", "Equal", "Where", "Gather", "Cast"}) {
    EXPECT_GT(s.folded.count(type) ? s.folded.at(type) : 0, 0) << type;
  }
  // The class token's Expand stays compute (at batch 1 a copy): ops do not depend on the batch.
  EXPECT_EQ(count_kind(g, OpKind::Expand), 1);
  EXPECT_EQ(count_kind(g, OpKind::Split), 1);
  EXPECT_EQ(g.tensor(g.find_tensor("cls")).shape, (Shape{1, 1, 32}));
  // Hand count, batch 1 (17 tokens of width 32, 2 heads of 16, MLP 64):
  const int64_t patch = 2 * 512 * 192 + 512;
  const int64_t layer_norm = 544 + 561 + 544 + 544 + 561 + 17 + 17 + 544 + 544 + 544;  // x1 .. ln
  const int64_t qkv = 2 * 17 * 32 * 96 + 17 * 96;
  const int64_t attention = 2 * 2 * 17 * 17 * 16 + 578 + 5 * 578 + 2 * 2 * 17 * 17 * 16;
  const int64_t proj = 2 * 17 * 32 * 32 + 544 + 544;
  const int64_t mlp = 2 * 17 * 32 * 64 + 1088 + 5 * 1088 + 2 * 17 * 64 * 32 + 544 + 544;
  const int64_t head = 2 * 32 * 10 + 10;
  EXPECT_EQ(graph_cost(g).total.flops, patch + layer_norm + qkv + attention + proj + mlp + head);
}

TEST(ExportedModels, BertBlockFoldsMaskRangeCumSumAndModChains) {
  OnnxLoadSummary s;
  const Graph g = load_fixture("bert_block", 1, &s);
  expect_only_real_compute(g);
  for (const char* type : {"ConstantOfShape", "CumSum", "Mod", "Range", "Slice", "Where"}) {
    EXPECT_GT(s.folded.count(type) ? s.folded.at(type) : 0, 0) << type;
  }
  // The extended attention mask is a computed constant with its values (0 where attended).
  const Tensor& mask = g.tensor(g.find_tensor("ext"));
  EXPECT_EQ(mask.role, TensorRole::Constant);
  EXPECT_EQ(mask.shape, (Shape{1, 1, 1, 8}));
  ASSERT_EQ(mask.float_data.size(), 8u);
  EXPECT_EQ(mask.float_data[0], 0.0f);
  // Hand count, batch 1, 8 tokens of width 32, 2 heads of 16:
  const int64_t embed = 256 + 8 * 256;
  const int64_t qkv = 3 * (2 * 8 * 32 * 32 + 256);
  const int64_t attention = 2 * 2 * 8 * 8 * 16 + 128 + 128 + 5 * 128 + 2 * 2 * 8 * 8 * 16;
  const int64_t out = 2 * 8 * 32 * 32 + 256 + 256 + 8 * 256;
  const int64_t pooler = 2 * 32 * 32 + 32 + 32;
  EXPECT_EQ(graph_cost(g).total.flops, embed + qkv + attention + out + pooler);
}

TEST(ExportedModels, BertMaskBlockKeepsRunTimeMaskOperatorsAsCompute) {
  // An attention_mask input: its mask arithmetic (Cast to bool, GatherND, Equal, Not, And,
  // Where) depends on run-time values, so it stays in the graph as element-wise compute.
  OnnxLoadSummary s;
  const Graph g = load_fixture("bert_mask_block", 1, &s);
  expect_only_real_compute(g);
  EXPECT_EQ(count_kind(g, OpKind::GatherND), 1);
  EXPECT_EQ(count_kind(g, OpKind::Equal), 1);
  EXPECT_EQ(count_kind(g, OpKind::Not), 1);
  EXPECT_EQ(count_kind(g, OpKind::And), 2);
  EXPECT_EQ(count_kind(g, OpKind::IsNaN), 1);
  EXPECT_EQ(count_kind(g, OpKind::Where), 2);
  EXPECT_EQ(g.tensor(g.find_tensor("keep")).dtype, DType::Bool);
  EXPECT_EQ(g.tensor(g.find_tensor("bias")).shape, (Shape{1, 1, 1, 8}));
  // The bool mask constant is a weight of the graph but not a learned parameter: embeddings,
  // two LayerNorms and four 32x32 projections with biases.
  EXPECT_EQ(g.tensor(g.find_tensor("all_true")).role, TensorRole::Weight);
  EXPECT_EQ(parameter_count(g), 50 * 32 + 2 * 64 + 4 * (32 * 32 + 32));
  // Hand count, batch 1, 8 tokens of width 32, 2 heads of 16: the mask's Equal, Not, two Ands
  // and Where one FLOP per element each (8 elements), the output's IsNaN and Where 256 each.
  const int64_t mask = 5 * 8;
  const int64_t embed = 8 * 256;
  const int64_t qkv = 3 * (2 * 8 * 32 * 32 + 256);
  const int64_t attention = 2 * 2 * 8 * 8 * 16 + 128 + 128 + 5 * 128 + 2 * 2 * 8 * 8 * 16;
  const int64_t out = 2 * 8 * 32 * 32 + 256 + 256 + 8 * 256;
  const int64_t nan_clean = 2 * 256;
  EXPECT_EQ(graph_cost(g).total.flops, mask + embed + qkv + attention + out + nan_clean);
}

// The executor's outputs at batch 2 equal ONNX Runtime's on the same file and inputs.
class ExportedModelOutputs : public testing::TestWithParam<std::string> {};

TEST_P(ExportedModelOutputs, MatchOnnxRuntimeReference) {
  const std::string name = GetParam();
  const Graph g = load_fixture(name, 2);
  OnnxLoadOptions opts;
  opts.batch = 2;
  const std::map<std::string, TensorData> weights =
      initializer_values(normalized_onnx_model(exported_fixture_model(name), name, opts));
  TensorValues feeds;
  std::map<std::string, TensorData> inputs;
  for (int t : g.input_tensors()) {
    const Tensor& x = g.tensor(t);
    feeds[t] = inputs[x.name] = fixture_input(x.name, x.shape, x.dtype);
  }
  for (int t : g.weight_tensors()) {
    auto it = weights.find(g.tensor(t).name);
    if (it != weights.end()) feeds[t] = it->second;  // else a folded weight: its initializer
    if (it != weights.end()) continue;
    ADD_FAILURE() << "weight " << g.tensor(t).name << " has no initializer";
  }
  {  // the inputs as text, for computing the reference with ONNX Runtime
    std::ofstream(fixture_dir() + "/" + name + ".inputs.txt") << tensors_to_text(inputs);
  }
  std::ifstream ref_file(std::string(DGS_SOURCE_DIR) + "/tests/onnx/fixtures/" + name + ".ref.txt");
  ASSERT_TRUE(ref_file) << "no reference outputs for " << name;
  std::ostringstream text;
  text << ref_file.rdbuf();
  const auto reference = tensors_from_text(text.str());
  const TensorValues got = run_graph(g, feeds, 1);
  ASSERT_EQ(reference.size(), g.output_tensors().size());
  for (int t : g.output_tensors()) {
    const auto it = reference.find(g.tensor(t).name);
    ASSERT_NE(it, reference.end()) << g.tensor(t).name;
    const Comparison c = compare_tensors(got.at(t), it->second, Tolerance{1e-4, 1e-5});
    EXPECT_TRUE(c.passed) << name << " " << g.tensor(t).name << ": " << c.str();
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ExportedModelOutputs,
                         testing::Values("resnet_block", "vit_block", "bert_block", "swin_block",
                                         "bert_mask_block"));

TEST(ExportedModels, SymbolicBatchRebatchesAndFixedBatchIsHonoured) {
  OnnxLoadSummary s;
  const Graph g = load_fixture("vit_block", 4, &s);
  EXPECT_EQ(g.tensor(g.find_tensor("logits")).shape, (Shape{4, 10}));
  // The class token broadcast to the batch stays real compute (not a batch-sized parameter).
  EXPECT_EQ(count_kind(g, OpKind::Expand), 1);
  EXPECT_EQ(g.tensor(g.find_tensor("cls")).shape, (Shape{4, 1, 32}));
  EXPECT_EQ(g.tensor(g.find_tensor("cls")).role, TensorRole::Activation);
  EXPECT_EQ(s.file_batch, 0);  // symbolic in the file
  EXPECT_EQ(s.batch, 4);
  onnx::ModelProto m = exported_fixture_model("resnet_block");
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(3);
  OnnxLoadOptions opts;
  opts.batch = 8;  // a fixed batch in the file wins
  opts.summary = &s;
  const Graph fixed = graph_from_onnx(m, "fixed.onnx", opts);
  EXPECT_EQ(fixed.tensor(fixed.find_tensor("output")).shape, (Shape{3, 5}));
  EXPECT_EQ(s.file_batch, 3);
  EXPECT_EQ(s.batch, 3);
}

onnx::ModelProto parse_model_text(const char* text) {
  onnx::ModelProto m;
  const auto status = onnx::OnnxParser::Parse(m, text);
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  return m;
}

TEST(ExportedModels, Opset20GeluAndOpset18ReductionsLoad) {
  const onnx::ModelProto m = parse_model_text(R"(
    <ir_version: 10, opset_import: ["" : 20]>
    g (float[2, 8] x) => (float[2, 1] y) {
      axes = Constant <value = int64[1] {1}> ()
      h = Gelu (x)
      y = ReduceMax <keepdims = 1> (h, axes)
    })");
  const Graph g = graph_from_onnx(m, "gelu20.onnx");
  ASSERT_EQ(g.num_ops(), 2);
  EXPECT_EQ(g.op(0).kind, OpKind::Gelu);
  EXPECT_EQ(g.op(1).kind, OpKind::ReduceMax);
  EXPECT_EQ(g.op(1).attrs.get_ints("axes", {}), (std::vector<int64_t>{1}));
  EXPECT_EQ(g.tensor(g.find_tensor("y")).shape, (Shape{2, 1}));
}

TEST(ExportedModels, OpsetsOutsideTheSupportedRangeAreRefused) {
  onnx::ModelProto m = parse_model_text(R"(
    <ir_version: 10, opset_import: ["" : 24]>
    g (float[2] x) => (float[2] y) { y = Relu (x) })");
  EXPECT_EQ(error_of([&] { graph_from_onnx(m, "new.onnx"); }),
            "new.onnx: default-domain opset 24 is not supported; expected 1 to 23");
  m = parse_model_text(R"(
    <ir_version: 10, opset_import: ["" : 20]>
    g (float[2] x) => (float[2] y) { y = Gelu <approximate = "tanh"> (x) })");
  EXPECT_EQ(error_of([&] { graph_from_onnx(m, "tanh.onnx"); }),
            "tanh.onnx: node 'Gelu' (Gelu, opset 20): approximate='tanh' is not supported; "
            "expected 'none'");
}

TEST(ExportedModels, TruncatedInitializerIsRefusedInOneLine) {
  onnx::ModelProto m = exported_fixture_model("resnet_block");
  for (auto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() == "p_fc_weight") t.mutable_raw_data()->resize(160);  // 40 of 80 floats
  }
  EXPECT_EQ(error_of([&] { graph_from_onnx(m, "half.onnx"); }),
            "half.onnx: initializer 'p_fc_weight': raw_data holds 160 bytes; dims [5,16] of "
            "float need 320");
}

TEST(ExportedModels, SymbolicSequenceNeedsAValue) {
  onnx::ModelProto m = exported_fixture_model("bert_block");
  auto* dim = m.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(1);
  dim->set_dim_param("sequence");
  EXPECT_EQ(error_of([&] { graph_from_onnx(m, "bert.onnx"); }),
            "bert.onnx: graph input 'input_ids': dimension 1 is symbolic ('sequence'); give it a "
            "value (sequence=N, --dim NAME=N) or export with a static shape");
  OnnxLoadOptions opts;
  opts.dim_values["sequence"] = 8;
  EXPECT_EQ(graph_from_onnx(m, "bert.onnx", opts).tensor(0).shape, (Shape{1, 8}));
}

TEST(ExportedModels, RunTimeValueInAShapeChainIsNamed) {
  // ConstantOfShape of a shape read from the input's values (its first row of token ids), not
  // from its shape, cannot fold.
  onnx::ModelProto m = exported_fixture_model("bert_block");
  auto* g = m.mutable_graph();
  for (auto& n : *g->mutable_node()) {
    if (n.output(0) == "mask") n.set_input(0, "row");
  }
  onnx::NodeProto row;
  row.set_name("/row");
  row.set_op_type("Gather");
  row.add_input("input_ids");
  row.add_input("c0");
  row.add_output("row");
  *g->add_node() = row;
  // Keep the nodes in topological order: the Gather right after the Constant c0 (first node).
  for (int i = g->node_size() - 1; i > 1; --i) g->mutable_node()->SwapElements(i, i - 1);
  EXPECT_EQ(error_of([&] { graph_from_onnx(m, "dyn.onnx"); }),
            "dyn.onnx: node '/mask' (ConstantOfShape) cannot be folded at load time: tensor "
            "'row' is computed at run time (only subgraphs of constants and static shapes "
            "fold)");
}

}  // namespace
}  // namespace dgs
