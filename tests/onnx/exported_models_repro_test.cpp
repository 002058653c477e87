// The reproductions on exported-style ONNX files (export_fixture.h): IOS and Welder items that take
// --model finish on each, name their outputs after the model (not its path), and an item that
// needs another batch than the one a file fixes refuses in one line.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "common/util/resources.h"
#include "tests/onnx/export_fixture.h"

namespace dgs {
namespace {

std::string work_dir() {
  const std::string dir = std::string(DGS_BINARY_DIR) + "/export_fixtures/repro";
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs a command; returns its exit status and its output (stdout and stderr, kept in
// `log_name`.txt: tests run in parallel under ctest).
std::pair<int, std::string> run(const std::string& cmd, const std::string& log_name) {
  const std::string log = work_dir() + "/" + log_name + ".txt";
  const int status = std::system((cmd + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  std::ostringstream s;
  s << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, s.str()};
}

class ExportedModelRepro : public testing::TestWithParam<std::string> {};

TEST_P(ExportedModelRepro, IosAndWelderItemsFinish) {
  const std::string file = write_exported_fixture(GetParam(), work_dir());
  const std::string out = work_dir() + "/reports_" + GetParam();
  const std::string bin = std::string(DGS_BINARY_DIR);
  for (const char* item : {"--table 3.1", "--fig 4.1", "--fig 4.6", "--table 4.2", "--fig 4.9"}) {
    const auto [rc, text] =
        run(bin + "/repro_ios " + item + " --model " + file + " --out " + out, GetParam());
    EXPECT_EQ(rc, 0) << item << "\n" << text;
  }
  const auto [rc, text] =
      run(bin + "/repro_welder --fig 13 --model " + file + " --out " + out, GetParam());
  EXPECT_EQ(rc, 0) << text;
  // The plan is named after the model, inside the report folder.
  EXPECT_TRUE(std::filesystem::exists(out + "/welder/fig13_plan_" + GetParam() + ".json"));
  EXPECT_NE(text.find("model: " + GetParam() + " (--model"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ExportedModelRepro,
                         testing::Values("resnet_block", "vit_block", "bert_block", "swin_block",
                                         "bert_mask_block"));

TEST(ExportedModelRepro, FixedBatchFileIsRefusedWhereAnotherBatchIsNeeded) {
  onnx::ModelProto m = exported_fixture_model("resnet_block");
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(1);
  std::string bytes;
  m.SerializeToString(&bytes);
  const std::string file = work_dir() + "/fixed_batch1.onnx";
  write_file_atomic(file, bytes);
  const auto [rc, text] = run(std::string(DGS_BINARY_DIR) + "/repro_ios --table 4.2 --model " +
                                  file + " --out " + work_dir() + "/reports_fixed",
                              "fixed_batch1");
  EXPECT_NE(rc, 0);
  EXPECT_NE(text.find("error: table4.2: " + file +
                      ": the file fixes batch 1; this experiment needs batch 32 (export with a "
                      "symbolic batch dimension)\n"),
            std::string::npos)
      << text;
}

TEST(ExportedModelRepro, PlanEvalTakesSymbolicDimensions) {
  onnx::ModelProto m = exported_fixture_model("bert_block");
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_param("sequence");
  std::string bytes;
  m.SerializeToString(&bytes);
  const std::string file = work_dir() + "/bert_sequence.onnx";
  write_file_atomic(file, bytes);
  const std::string plan_eval = std::string(DGS_BINARY_DIR) + "/plan_eval --model " + file;
  const std::string plan = work_dir() + "/bert_sequence_plan.json";
  auto [rc, text] = run(plan_eval + " --write-sequential " + plan, "plan_eval_no_dim");
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(text, "error: --model: " + file +
                      ": graph input 'input_ids': dimension 1 is symbolic ('sequence'); give it a "
                      "value (sequence=N, --dim NAME=N) or export with a static shape\n");
  std::tie(rc, text) =
      run(plan_eval + " --dim sequence=8 --batch 2 --write-sequential " + plan, "plan_eval_dim");
  EXPECT_EQ(rc, 0) << text;
  std::tie(rc, text) =
      run(plan_eval + " --dim sequence=8 --batch 2 --plan " + plan + " --check", "plan_eval_run");
  EXPECT_EQ(rc, 0) << text;
  std::tie(rc, text) = run(plan_eval + " --dim sequence=0 --plan " + plan, "plan_eval_bad_dim");
  EXPECT_EQ(rc, 2);
  EXPECT_EQ(text, "error: --dim sequence=0: expected NAME=N with N >= 1\n");
}

}  // namespace
}  // namespace dgs
