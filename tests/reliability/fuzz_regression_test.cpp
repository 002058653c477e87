// Every input a fuzz target (fuzz/) found a defect with, kept in fuzz_regressions/<target>/ and
// run through the same loader as the target: each must now be refused with one line (or load).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/hw/hardware_spec.h"
#include "common/onnx/onnx_io.h"
#include "common/plan/plan.h"
#include "common/report/report.h"
#include "models/zoo.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The files of fuzz_regressions/<target>/, sorted.
std::vector<fs::path> regressions(const std::string& target) {
  std::vector<fs::path> out;
  const fs::path dir = fs::path(DGS_SOURCE_DIR) / "tests/reliability/fuzz_regressions" / target;
  if (fs::exists(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// `f` either succeeds or throws a dgs::Error whose message is one non-empty line.
void expect_loads_or_one_line(const std::function<void()>& f, const fs::path& input) {
  try {
    f();
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_FALSE(m.empty()) << input;
    EXPECT_EQ(m.find('\n'), std::string::npos) << input << ": " << m;
  }
}

TEST(FuzzRegressions, OnnxLoader) {
  const auto inputs = regressions("onnx_loader");
  EXPECT_FALSE(inputs.empty());
  for (const fs::path& p : inputs) {
    const std::string bytes = read_bytes(p);
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(bytes)) << p;
    expect_loads_or_one_line([&] { graph_from_onnx(m, "fuzz.onnx"); }, p);
  }
}

// The one-line refusal of the ONNX regression input `file` (fuzz_regressions/onnx_loader/),
// loaded as "fuzz.onnx"; "loaded" when it is accepted.
std::string onnx_refusal(const std::string& file) {
  const fs::path p =
      fs::path(DGS_SOURCE_DIR) / "tests/reliability/fuzz_regressions/onnx_loader" / file;
  onnx::ModelProto m;
  if (!m.ParseFromString(read_bytes(p))) return "unparsable: " + p.string();
  try {
    graph_from_onnx(m, "fuzz.onnx");
  } catch (const Error& e) {
    return e.what();
  }
  return "loaded";
}

TEST(FuzzRegressions, NewlineInANodeNameIsRefusedEscaped) {
  const std::string what = onnx_refusal("newline_in_node_name.onnx");
  EXPECT_NE(what.find("contains a control character"), std::string::npos) << what;
  EXPECT_NE(what.find("\\x0a"), std::string::npos) << what;
}

TEST(FuzzRegressions, ZeroConvStrideIsRefusedBeforeOnnxShapeInferenceDividesByIt) {
  const std::string what = onnx_refusal("conv_zero_stride_sigfpe.onnx");
  EXPECT_EQ(what,
            "fuzz.onnx: node 'c' (Conv): attribute 'strides' [0,1]: expected positive values");
}

TEST(FuzzRegressions, LayerNormalizationOfAScalarIsRefusedBeforeOnnxInference) {
  // libonnx 1.12 built LayerNormalization's function body for a rank-0 X and crashed (SIGSEGV).
  const std::string what = onnx_refusal("layernorm_scalar_input_sigsegv.onnx");
  EXPECT_EQ(what,
            "fuzz.onnx: node 'LayerNormalization_0' (LayerNormalization): input X 'X' has rank 0; "
            "expected rank 1 or more");
}

// A fuzz finding (289,283 executions, CI had one at 370,994): graph input '1' [3, 4], the Gemm's
// B, also declared as a graph output of rank 0. libonnx takes the output's declaration, and its
// Gemm inference read a dimension of a scalar (SIGSEGV).
TEST(FuzzRegressions, AValueDeclaredWithTwoRanksIsRefusedBeforeOnnxInference) {
  EXPECT_EQ(onnx_refusal("gemm_operand_declared_rank0_as_graph_output_sigsegv.onnx"),
            "fuzz.onnx: value '1' is declared with rank 2 (graph input) and rank 0 (graph "
            "output); expected one rank");
}

TEST(FuzzRegressions, FoldingRefusesAnExpandOverTheBudgetBeforeAllocating) {
  // A Constant expanded to [2^20, 2^20] (8 TiB of int64) in shape arithmetic: std::bad_alloc
  // (abort) before the fold budget.
  const std::string what = onnx_refusal("folded_expand_over_budget.onnx");
  EXPECT_EQ(what,
            "fuzz.onnx: node 'expand' (Expand): folding it gives shape [1048576,1048576]; "
            "expected at most 134217728 elements");
}

TEST(FuzzRegressions, HardwareConfigs) {
  for (const fs::path& p : regressions("hw_config")) {
    expect_loads_or_one_line([&] { parse_hardware(read_bytes(p), "fuzz.json"); }, p);
  }
}

TEST(FuzzRegressions, NumbersOverDoublesRangeAreInvalidJsonInConfigsAndPlans) {
  const std::string text = R"({"kind": "gpu", "x": 1E400})";
  try {
    parse_hardware(text, "big.json");
    FAIL() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("big.json: not valid JSON: ", 0), 0u) << e.what();
  }
  const Graph g = build_zoo_model("test_diamond");
  try {
    plan_from_json(R"({"version": 1E400})", g, "plan.json");
    FAIL() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("plan.json: not valid JSON", 0), 0u) << e.what();
  }
}

TEST(FuzzRegressions, Plans) {
  const Graph g = build_zoo_model("test_diamond");
  for (const fs::path& p : regressions("plan")) {
    expect_loads_or_one_line([&] { plan_from_json(read_bytes(p), g, "fuzz.json").check(g); }, p);
  }
}

TEST(FuzzRegressions, Csv) {
  for (const fs::path& p : regressions("csv")) {
    expect_loads_or_one_line([&] { PaperData::parse(read_bytes(p), "fuzz.csv"); }, p);
  }
}

}  // namespace
}  // namespace dgs
