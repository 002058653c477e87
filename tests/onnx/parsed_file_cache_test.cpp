// parsed_onnx_file: a large file is parsed once while it is unchanged (experiments that rebatch a
// symbolic-batch file load it once per batch), a changed file is parsed again, a small file every
// time; graphs loaded from the kept parse are those of a fresh parse.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/onnx/onnx_io.h"
#include "tests/scratch_dir.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

// y = x * w with w a float initializer of `elements` values, x of shape [batch, elements] with a
// symbolic batch.
void write_model(const std::string& path, int64_t elements) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("scale");
  auto* x = g->add_input();
  x->set_name("x");
  auto* xt = x->mutable_type()->mutable_tensor_type();
  xt->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  xt->mutable_shape()->add_dim()->set_dim_param("batch");
  xt->mutable_shape()->add_dim()->set_dim_value(elements);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto_DataType_FLOAT);
  w->add_dims(elements);
  w->mutable_raw_data()->resize(static_cast<size_t>(elements) * 4);
  auto* n = g->add_node();
  n->set_op_type("Mul");
  n->set_name("scale");
  for (const std::string in : {"x", "w"}) n->add_input(in);
  n->add_output(std::string("y"));
  auto* y = g->add_output();
  y->set_name("y");
  *y->mutable_type() = x->type();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(m.SerializeToOstream(&out));
}

// The model of write_model with w's data in the external file `location` beside it.
void write_external_model(const std::string& path, const std::string& location, int64_t elements) {
  write_model(path, elements);
  onnx::ModelProto m;
  {
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&in));
  }
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* kv = w->add_external_data();
  kv->set_key("location");
  kv->set_value(location);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  ASSERT_TRUE(m.SerializeToOstream(&out));
}

// Writes w's data file: `elements` floats of value `v`, then `extra` bytes past them.
void write_data(const std::string& path, int64_t elements, float v, int64_t extra) {
  std::vector<float> data(static_cast<size_t>(elements), v);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(data.size() * sizeof(float)));
  out << std::string(static_cast<size_t>(extra), '\0');
}

class ParsedFileCache : public ::testing::Test {
 protected:
  std::string file(const std::string& name) const { return scratch_.file(name); }
  ScratchDir scratch_{"parsed_cache"};
  const fs::path dir_ = scratch_.path();
};

constexpr int64_t kLargeElements = int64_t{5} << 20;  // 20 MiB of weights: kept parsed

TEST_F(ParsedFileCache, LargeFileParsedOnceWhileUnchanged) {
  const std::string path = file("large.onnx");
  write_model(path, kLargeElements);
  const auto first = parsed_onnx_file(path);
  const auto second = parsed_onnx_file(path);
  EXPECT_EQ(first.get(), second.get());
  // Loading it at two batches rebatches the one parse.
  OnnxLoadOptions b4;
  b4.batch = 4;
  const Graph g1 = load_onnx_file(path);
  const Graph g4 = load_onnx_file(path, b4);
  EXPECT_EQ(g1.tensor(g1.find_tensor("y")).shape, (Shape{1, kLargeElements}));
  EXPECT_EQ(g4.tensor(g4.find_tensor("y")).shape, (Shape{4, kLargeElements}));
  EXPECT_EQ(parsed_onnx_file(path).get(), first.get());
}

TEST_F(ParsedFileCache, ChangedFileParsedAgain) {
  const std::string path = file("changing.onnx");
  write_model(path, kLargeElements);
  const auto before = parsed_onnx_file(path);
  write_model(path, kLargeElements + 1);
  const auto after = parsed_onnx_file(path);
  EXPECT_NE(before.get(), after.get());
  EXPECT_EQ(after->graph().initializer(0).dims(0), kLargeElements + 1);
  EXPECT_EQ(before->graph().initializer(0).dims(0), kLargeElements);  // still valid for its user
}

// A data file of any name (not only "<model>.onnx.data") is part of the stamp: rewriting it alone
// parses the model again, with the new weights.
TEST_F(ParsedFileCache, ChangedExternalDataFileParsedAgain) {
  const std::string path = file("external.onnx");
  write_external_model(path, "weights.bin", kLargeElements);
  write_data(file("weights.bin"), kLargeElements, 1.0f, 0);
  const auto before = parsed_onnx_file(path);
  EXPECT_EQ(parsed_onnx_file(path).get(), before.get());
  write_data(file("weights.bin"), kLargeElements, 2.0f, 4);
  const auto after = parsed_onnx_file(path);
  ASSERT_NE(after.get(), before.get());
  float first = 0;
  std::memcpy(&first, after->graph().initializer(0).raw_data().data(), sizeof first);
  EXPECT_EQ(first, 2.0f);
}

TEST_F(ParsedFileCache, AnotherPathParsedAgain) {
  write_model(file("a.onnx"), kLargeElements);
  write_model(file("b.onnx"), kLargeElements);
  const auto a = parsed_onnx_file(file("a.onnx"));
  const auto b = parsed_onnx_file(file("b.onnx"));
  EXPECT_NE(a.get(), b.get());
  EXPECT_NE(parsed_onnx_file(file("a.onnx")).get(), a.get());  // only the last file is kept
}

TEST_F(ParsedFileCache, SmallFileParsedEveryTime) {
  const std::string path = file("small.onnx");
  write_model(path, 8);
  EXPECT_NE(parsed_onnx_file(path).get(), parsed_onnx_file(path).get());
}

}  // namespace
}  // namespace dgs
