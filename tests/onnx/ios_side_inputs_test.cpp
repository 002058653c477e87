// IOS blocks of exported transformers with a run-time attention mask: the mask, computed once
// from the attention_mask input and read by every layer, is a side input (network.cpp,
// side_input_ops) and does not hold the blocks open, so BERT with a mask is partitioned as BERT
// without one; every edge between blocks goes forward.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>

#include "common/onnx/onnx_io.h"
#include "reproductions/ios/network.h"
#include "tests/onnx/export_fixture.h"

namespace dgs {
namespace {

Graph load_fixture(const std::string& name) {
  const std::string dir = std::string(DGS_BINARY_DIR) + "/export_fixtures/ios_side_inputs";
  std::filesystem::create_directories(dir);
  return load_onnx_file(write_exported_fixture(name, dir));
}

// Every unit reads only units of its own part or of earlier parts.
void expect_edges_forward(const ios::Network& net) {
  std::vector<int> part_of(net.units.size(), -1);
  for (size_t p = 0; p < net.parts.size(); ++p)
    for (int u : net.parts[p].units) part_of[static_cast<size_t>(u)] = static_cast<int>(p);
  for (size_t u = 0; u < net.units.size(); ++u) {
    ASSERT_GE(part_of[u], 0) << net.units[u].name;
    for (int p : net.units[u].preds)
      EXPECT_LE(part_of[static_cast<size_t>(p)], part_of[u]) << net.units[u].name;
  }
}

// A BERT-like encoder of `layers` attention layers in ONNX text; with `mask`, each layer adds the
// extended attention mask computed once from an attention_mask input, as Hugging Face's BERT
// does: (1 - float(attention_mask)) * -10000, unsqueezed to [1, 1, 8].
Graph encoder(int layers, bool mask) {
  std::string sig = "float[1, 8, 16] x";
  std::string body;
  if (mask) {
    sig += ", int64[1, 8] attention_mask";
    body += R"(
      m = Cast <to = 1> (attention_mask)
      one = Constant <value = float {1.0}> ()
      inv = Sub (one, m)
      big = Constant <value = float {-10000.0}> ()
      ext0 = Mul (inv, big)
      ext = Unsqueeze (ext0, ax)
)";
  }
  body += "      e = Relu (x)\n";  // the embeddings: the first layer reads a unit, as in BERT
  std::string h = "e";
  for (int l = 0; l < layers; ++l) {
    const std::string L = std::to_string(l);
    sig += ", float[16, 16] l" + L + "_weight";
    body += "      a" + L + " = MatMul (" + h + ", l" + L + "_weight)\n";
    body += "      t" + L + " = Transpose <perm = [0, 2, 1]> (" + h + ")\n";
    body += "      s" + L + " = MatMul (a" + L + ", t" + L + ")\n";
    const std::string scores = mask ? "sm" + L : "s" + L;
    if (mask) body += "      sm" + L + " = Add (s" + L + ", ext)\n";
    body += "      p" + L + " = Softmax <axis = -1> (" + scores + ")\n";
    body += "      o" + L + " = MatMul (p" + L + ", " + h + ")\n";
    body += "      r" + L + " = Add (o" + L + ", " + h + ")\n";
    h = "h" + L;
    body += "      " + h + " = Relu (r" + L + ")\n";
  }
  const std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (" + sig +
                           ") => (float[1, 8, 16] y) {\n      ax = Constant <value = int64[1] "
                           "{1}> ()\n" +
                           body + "      y = Identity (" + h + ")\n}";
  onnx::ModelProto m;
  const auto status = onnx::OnnxParser::Parse(m, text.c_str());
  if (!status.IsOK()) throw Error(status.ErrorMessage() + "\n" + text);
  OnnxLoadOptions opts;
  opts.weight_name_suffixes = {"_weight"};
  return graph_from_onnx(m, mask ? "encoder_mask.onnx" : "encoder.onnx", opts);
}

TEST(IosSideInputs, MaskReadByEveryLayerKeepsOneBlockPerLayer) {
  for (int layers : {2, 4}) {
    const ios::Network a = ios::make_network(encoder(layers, false), ios::PartRule::Blocks);
    const ios::Network b = ios::make_network(encoder(layers, true), ios::PartRule::Blocks);
    // The embeddings, then per layer: attention up to the residual Add, and the Relu after it.
    EXPECT_EQ(a.num_blocks(), 1 + 2 * layers) << layers;
    EXPECT_EQ(b.num_blocks(), a.num_blocks()) << layers;
    EXPECT_EQ(b.units.size(), a.units.size() + 4 + layers);  // the mask's 4 units, an Add a layer
    expect_edges_forward(a);
    expect_edges_forward(b);
  }
}

TEST(IosSideInputs, BertWithMaskHasTheBlocksOfBertWithout) {
  const Graph plain = load_fixture("bert_block");
  const Graph masked = load_fixture("bert_mask_block");
  const ios::Network a = ios::make_network(plain, ios::PartRule::Blocks);
  const ios::Network b = ios::make_network(masked, ios::PartRule::Blocks);
  EXPECT_EQ(a.num_blocks(), 4);  // embeddings and LayerNorm, attention, its LayerNorm, MLP
  EXPECT_EQ(b.num_blocks(), a.num_blocks());
  // The mask's units are there, in the block of the first layer that reads them.
  EXPECT_GT(b.units.size(), a.units.size());
  expect_edges_forward(a);
  expect_edges_forward(b);
}

}  // namespace
}  // namespace dgs
