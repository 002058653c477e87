// The model zoo: committed weight-free ONNX files equal a fresh export, published MAC and
// parameter counts, IOS's operator counts, options and errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/graph/op_cost.h"
#include "common/onnx/onnx_io.h"
#include "common/report/report.h"
#include "common/util/resources.h"
#include "models/zoo.h"
#include "reproductions/ios/operator_count.h"

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

// Learned parameters as PyTorch counts them (BatchNorm running statistics are buffers, not
// parameters).
int64_t trainable_params(const Graph& g) {
  int64_t n = 0;
  for (int t : g.weight_tensors()) {
    const std::string& name = g.tensor(t).name;
    if (name.ends_with(".running_mean") || name.ends_with(".running_var")) continue;
    n += g.tensor(t).numel();
  }
  return n;
}

const Shape& output_shape(const Graph& g) {
  return g.tensor(g.output_tensors().at(0)).shape;
}

// Every committed models/onnx/<name>.onnx equals a fresh export (regenerated into a temp dir with
// save_onnx_file), and loading it gives the same graph (ops, tensors, shapes).
TEST(Zoo, CommittedOnnxFilesMatchRegeneration) {
  const fs::path dir = fs::temp_directory_path() / ("dgs_zoo_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const std::string& name : zoo_model_names()) {
    SCOPED_TRACE(name);
    const std::string committed = std::string(DGS_SOURCE_DIR) + "/models/onnx/" + name + ".onnx";
    ASSERT_TRUE(fs::exists(committed)) << committed << " is missing: run gen_models models/onnx";
    const Graph g = build_zoo_model(name);
    const std::string fresh = (dir / (name + ".onnx")).string();
    save_onnx_file(g, fresh);
    EXPECT_TRUE(read_file(committed) == read_file(fresh))
        << committed << " differs from a fresh export: run gen_models models/onnx";
    const Graph loaded = load_onnx_file(committed);
    ASSERT_EQ(loaded.num_ops(), g.num_ops());
    ASSERT_EQ(loaded.num_tensors(), g.num_tensors());
    for (const Tensor& t : g.tensors()) {
      const int j = loaded.find_tensor(t.name);
      ASSERT_GE(j, 0) << t.name;
      EXPECT_EQ(loaded.tensor(j).shape, t.shape) << t.name;
      EXPECT_EQ(loaded.tensor(j).role, t.role) << t.name;
    }
    for (const Op& o : g.ops()) {
      const int j = loaded.find_op(o.name);
      ASSERT_GE(j, 0) << o.name;
      EXPECT_EQ(loaded.op(j).kind, o.kind) << o.name;
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// Published counts: torchvision's model documentation (ResNet50_Weights.IMAGENET1K_V1 etc.:
// "num_params" exact, "GFLOPS" = multiply-adds of conv and linear layers, rounded to 2 decimals).
struct PublishedCounts {
  const char* model;
  int64_t params;
  double gmacs;
};

TEST(Zoo, ParametersAndMacsMatchTorchvision) {
  const PublishedCounts published[] = {{"resnet18", 11689512, 1.81},
                                       {"resnet50", 25557032, 4.09},
                                       {"vgg16", 138357544, 15.47},
                                       {"mobilenet_v2", 3504872, 0.30}};
  for (const PublishedCounts& p : published) {
    SCOPED_TRACE(p.model);
    const Graph g = build_zoo_model(p.model);
    EXPECT_EQ(trainable_params(g), p.params);
    const double gmacs = static_cast<double>(graph_cost(g).total.macs) / 1e9;
    // Rounding to 2 decimals: +-0.005 G, and at most 1% (the brief's tolerance for ResNet-50).
    EXPECT_NEAR(gmacs, p.gmacs, std::max(0.005, 0.01 * p.gmacs)) << gmacs;
  }
}

TEST(Zoo, ResNet50Within1PercentOf41GMacsAnd256MParams) {
  const Graph g = build_zoo_model("resnet50");
  const GraphCost c = graph_cost(g);
  EXPECT_NEAR(static_cast<double>(c.total.macs), 4.1e9, 0.01 * 4.1e9);
  // All weights, BatchNorm running statistics included (the suite's parameter_count).
  EXPECT_NEAR(static_cast<double>(parameter_count(g)), 25.6e6, 0.01 * 25.6e6);
  EXPECT_EQ(output_shape(g), (Shape{1, 1000}));
}

// BERT-base without the pooler: 23,837,184 embedding + 12 x 7,087,872 layer parameters.
TEST(Zoo, BertBaseParametersAndShapes) {
  ZooOptions o;
  o.batch = 2;
  o.seq_len = 64;
  const Graph g = build_zoo_model("bert_base", o);
  EXPECT_EQ(parameter_count(g), 108891648);
  EXPECT_EQ(output_shape(g), (Shape{2, 64, 768}));
  int layernorms = 0, softmaxes = 0, erfs = 0;
  for (const Op& op : g.ops()) {
    layernorms += op.kind == OpKind::LayerNormalization;
    softmaxes += op.kind == OpKind::Softmax;
    erfs += op.kind == OpKind::Erf;
  }
  EXPECT_EQ(layernorms, 1 + 2 * 12);
  EXPECT_EQ(softmaxes, 12);
  EXPECT_EQ(erfs, 12);
  // Q.K^T per layer: [2, 12, 64, 64].
  EXPECT_EQ(g.tensor(g.find_tensor("encoder.layer.0.attention.scores:0")).shape,
            (Shape{2, 12, 64, 64}));
  ZooOptions too_long;
  too_long.seq_len = 513;
  EXPECT_THROW(build_zoo_model("bert_base", too_long), UsageError);
}

// A simple count of IOS schedule units, independent of the layer grouping (op_grouping.h): every op
// except a Relu that directly follows a Conv (IOS fuses Conv+bias+Relu into one unit).
int conv_relu_units(const Graph& g) {
  int n = 0;
  for (const Op& op : g.ops()) {
    const bool fused_relu = op.kind == OpKind::Relu && g.tensor(op.inputs[0]).producer >= 0 &&
                            g.op(g.tensor(op.inputs[0]).producer).kind == OpKind::Conv;
    n += !fused_relu;
  }
  return n;
}

// IOS thesis Table 4.1: Inception V3 has 119 operators, SqueezeNet 50 (Conv-Relu units).
TEST(Zoo, IosOperatorCounts) {
  const Graph inception = build_zoo_model("inception_v3");
  const Graph squeezenet = build_zoo_model("squeezenet");
  EXPECT_EQ(conv_relu_units(inception), 119);
  EXPECT_EQ(conv_relu_units(squeezenet), 50);
  EXPECT_EQ(ios::ios_operator_count(inception), 119);
  EXPECT_EQ(ios::ios_operator_count(squeezenet), 50);
}

TEST(Zoo, InceptionV3ShapesFollowTheIosDefinition) {
  const Graph g = build_zoo_model("inception_v3");
  auto shape_of = [&](const std::string& op) {
    return g.tensor(g.op(g.find_op(op)).outputs.at(0)).shape;
  };
  EXPECT_EQ(g.tensor(g.input_tensors().at(0)).shape, (Shape{1, 3, 299, 299}));
  EXPECT_EQ(shape_of("maxpool2"), (Shape{1, 192, 35, 35}));
  EXPECT_EQ(shape_of("Mixed_5b.concat"), (Shape{1, 256, 35, 35}));
  EXPECT_EQ(shape_of("Mixed_5d.concat"), (Shape{1, 288, 35, 35}));
  EXPECT_EQ(shape_of("Mixed_6a.concat"), (Shape{1, 768, 17, 17}));
  EXPECT_EQ(shape_of("Mixed_6e.concat"), (Shape{1, 768, 17, 17}));
  EXPECT_EQ(shape_of("Mixed_7a.concat"), (Shape{1, 1280, 8, 8}));
  EXPECT_EQ(shape_of("Mixed_7c.concat"), (Shape{1, 2048, 8, 8}));
  EXPECT_EQ(output_shape(g), (Shape{1, 2048, 1, 1}));
  // No BatchNormalization: every conv has a bias.
  for (const Op& op : g.ops()) {
    EXPECT_NE(op.kind, OpKind::BatchNormalization);
    if (op.kind == OpKind::Conv) {
      EXPECT_EQ(op.inputs.size(), 3u) << op.name;
    }
  }
}

TEST(Zoo, SqueezeNetShapesFollowTheIosDefinition) {
  const Graph g = build_zoo_model("squeezenet");
  auto shape_of = [&](const std::string& op) {
    return g.tensor(g.op(g.find_op(op)).outputs.at(0)).shape;
  };
  EXPECT_EQ(shape_of("maxpool1"), (Shape{1, 96, 55, 55}));
  EXPECT_EQ(shape_of("fire2.add"), (Shape{1, 128, 55, 55}));
  EXPECT_EQ(shape_of("fire9.add"), (Shape{1, 512, 13, 13}));
  EXPECT_EQ(output_shape(g), (Shape{1, 1000, 1, 1}));
  // Bypass convolutions where the channels change (fire2, 4, 6, 8), identity elsewhere.
  for (const char* fire : {"fire2", "fire4", "fire6", "fire8"}) {
    EXPECT_GE(g.find_op(std::string(fire) + ".bypass"), 0) << fire;
  }
  for (const char* fire : {"fire3", "fire5", "fire7", "fire9"}) {
    EXPECT_LT(g.find_op(std::string(fire) + ".bypass"), 0) << fire;
  }
}

TEST(Zoo, OptionsChangeBatchImageAndDtype) {
  ZooOptions o;
  o.batch = 4;
  o.image_size = 256;
  o.dtype = DType::F16;
  const Graph g = build_zoo_model("resnet18", o);
  EXPECT_EQ(g.tensor(g.input_tensors().at(0)).shape, (Shape{4, 3, 256, 256}));
  EXPECT_EQ(output_shape(g), (Shape{4, 1000}));
  for (int t : g.weight_tensors()) EXPECT_EQ(g.tensor(t).dtype, DType::F16);
  EXPECT_EQ(g.tensor(g.output_tensors().at(0)).dtype, DType::F16);
  // Every model builds and validates at batch 2, in float16 too.
  for (const std::string& name : zoo_model_names()) {
    ZooOptions b2;
    b2.batch = 2;
    b2.dtype = DType::F16;
    EXPECT_NO_THROW(build_zoo_model(name, b2)) << name;
  }
  ZooOptions bad;
  bad.batch = 0;
  EXPECT_EQ(error_of([&] { build_zoo_model("resnet18", bad); }),
            "model 'resnet18': batch size 0 is invalid; expected >= 1");
}

TEST(Zoo, UnknownNameListsTheKnownOnes) {
  const std::string msg = error_of([] { build_zoo_model("resnet5000"); });
  EXPECT_EQ(msg.rfind("unknown model 'resnet5000'; expected one of: resnet18, resnet50", 0), 0u)
      << msg;
  for (const std::string& name : zoo_model_names()) {
    EXPECT_NE(msg.find(name), std::string::npos) << name;
  }
  EXPECT_THROW(load_model("resnet5000"), UsageError);
  EXPECT_EQ(error_of([] { load_model("/nonexistent/model.onnx"); }),
            "/nonexistent/model.onnx: cannot open the file");
}

TEST(Zoo, LoadModelTakesNamesAndFiles) {
  const Graph by_name = load_model("test_residual_block");
  const Graph by_file =
      load_model(std::string(DGS_SOURCE_DIR) + "/models/onnx/test_residual_block.onnx");
  EXPECT_EQ(by_name.num_ops(), by_file.num_ops());
  EXPECT_EQ(output_shape(by_name), output_shape(by_file));
}

// The model_info tool (built beside this test): a table for a zoo name, CSV for a file, and one
// line with exit code 2 for an unknown name or a malformed file.
struct ToolRun {
  int exit_code;
  std::string out;
};
ToolRun run_tool(const std::string& args) {
  const fs::path out = fs::temp_directory_path() / ("dgs_model_info_" + std::to_string(::getpid()));
  const std::string cmd =
      std::string(DGS_BINARY_DIR) + "/model_info " + args + " > " + out.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  ToolRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out.string())};
  fs::remove(out);
  return r;
}

TEST(Zoo, ModelInfoTool) {
  if (!fs::exists(std::string(DGS_BINARY_DIR) + "/model_info")) {
    GTEST_SKIP() << "model_info is not built";
  }
  const ToolRun table = run_tool("resnet50 --batch 2");
  EXPECT_EQ(table.exit_code, 0) << table.out;
  EXPECT_NE(table.out.find("| resnet50 |     2 | Conv"), std::string::npos) << table.out;
  const ToolRun csv =
      run_tool(std::string(DGS_SOURCE_DIR) + "/models/onnx/test_diamond.onnx --csv");
  EXPECT_EQ(csv.exit_code, 0) << csv.out;
  const Graph g = build_zoo_model("test_diamond");
  const GraphCost c = graph_cost(g);
  // TOTAL row: ops, FLOPs, MACs, params, bytes, width 2 (b and c), blocks.
  const std::string total = "test_diamond,1,TOTAL,6," + std::to_string(c.total.flops) + "," +
                            std::to_string(c.total.macs) + "," +
                            std::to_string(parameter_count(g)) + ",";
  EXPECT_NE(csv.out.find(total), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.rfind("model,batch,op_type,count,flops,macs,params,bytes_read,", 0), 0u);
  // --ops: every op in topological order with its tensors (the names plans use).
  const ToolRun ops = run_tool("test_diamond --ops --csv");
  EXPECT_EQ(ops.exit_code, 0) << ops.out;
  const auto rows = parse_csv(ops.out, "model_info --ops");  // RFC 4180
  ASSERT_EQ(rows.size(), 7u) << ops.out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"op", "type", "inputs", "outputs"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"a", "Conv",
                                               "data[1,32,28,28] a.weight[32,32,3,3] a.bias[32]",
                                               "a:0[1,32,28,28]"}));
  EXPECT_EQ(rows[5], (std::vector<std::string>{"add", "Add", "b:0[1,32,28,28] c:0[1,32,28,28]",
                                               "add:0[1,32,28,28]"}));
  EXPECT_EQ(rows[6][0], "relu");
  const ToolRun unknown = run_tool("no_such_model");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.out.rfind("error: unknown model 'no_such_model'", 0), 0u) << unknown.out;
  EXPECT_EQ(std::count(unknown.out.begin(), unknown.out.end(), '\n'), 1) << unknown.out;
  const fs::path garbage =
      fs::temp_directory_path() / ("dgs_garbage_" + std::to_string(::getpid()) + ".onnx");
  write_file_atomic(garbage.string(), std::string("\xff\xff\xff\xff not onnx", 13));
  const ToolRun bad = run_tool(garbage.string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out,
            "error: " + garbage.string() + ": not a valid ONNX model (protobuf parsing failed)\n");
  fs::remove(garbage);
}

}  // namespace
}  // namespace dgs
