// plan_eval, the tool that evaluates a plan written by any scheduler: exit codes, one-line errors,
// and that what it reports follows from the plan (a plan equal to the sequential one has speedup
// 1; fusing keeps intermediates off DRAM).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "common/report/report.h"
#include "common/util/resources.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

struct ToolRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

ToolRun run_plan_eval(const std::string& args) {
  const std::string cmd = std::string(DGS_BINARY_DIR) + "/plan_eval " + args + " 2>&1";
  ToolRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("dgs_plan_eval_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// The CSV row of `plan` ("yours" or "sequential") as fields.
std::vector<std::string> csv_row(const std::string& csv, const std::string& plan) {
  for (const auto& row : parse_csv(csv, "plan_eval output")) {
    if (!row.empty() && row[0] == plan) return row;
  }
  return {};
}

// Columns: plan,scheduler,stages,tasks,kernels,latency_ms,sync_ms,dram_mib,warps,speedup
constexpr int kKernels = 4, kLatency = 5, kDram = 7, kSpeedup = 9;

class PlanEvalTool : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(std::string(DGS_BINARY_DIR) + "/plan_eval")) GTEST_SKIP() << "not built";
  }
};

TEST_F(PlanEvalTool, TheSequentialPlanEvaluatesLikeTheSequentialBaseline) {
  const std::string seq = temp_path("seq.json");
  const ToolRun w = run_plan_eval("--model ios_fig1_2 --write-sequential " + seq);
  ASSERT_EQ(w.exit_code, 0) << w.out;
  const ToolRun r = run_plan_eval("--model ios_fig1_2 --plan " + seq + " --csv");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto yours = csv_row(r.out, "yours"), base = csv_row(r.out, "sequential");
  ASSERT_EQ(yours.size(), 10u) << r.out;
  ASSERT_EQ(base.size(), 10u) << r.out;
  EXPECT_EQ(yours[kLatency], base[kLatency]);
  EXPECT_DOUBLE_EQ(std::stod(yours[kSpeedup]), 1.0);
  fs::remove(seq);
}

TEST_F(PlanEvalTool, ConcurrentAndFusedPlansAreEvaluatedAsWritten) {
  // The Fig. 1.2 graph: a, d concurrently, then b, c concurrently (IOS's schedule); each branch's
  // conv+relu as one Fused task, so its intermediate never reaches DRAM.
  const std::string plan = temp_path("mine.json");
  write_file_atomic(plan, R"({"scheduler": "test", "graph": "ios_fig1_2", "stages": [
    {"tasks": [{"kind": "fused", "ops": ["block.a.conv", "block.a.relu"]},
               {"kind": "fused", "ops": ["block.d.conv", "block.d.relu"]}]},
    {"tasks": [{"kind": "fused", "ops": ["block.b.conv", "block.b.relu"]},
               {"kind": "fused", "ops": ["block.c.conv", "block.c.relu"]}]},
    {"tasks": [{"kind": "sequential", "ops": ["block.concat.concat"]}]}]})");
  const ToolRun r = run_plan_eval("--model ios_fig1_2 --plan " + plan + " --csv");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto yours = csv_row(r.out, "yours"), base = csv_row(r.out, "sequential");
  ASSERT_EQ(yours.size(), 10u) << r.out;
  EXPECT_EQ(yours[kKernels], "5");  // four fused kernels and the concat
  EXPECT_EQ(base[kKernels], "9");
  EXPECT_LT(std::stod(yours[kDram]), std::stod(base[kDram]));
  EXPECT_GT(std::stod(yours[kSpeedup]), 1.0);
  fs::remove(plan);
}

TEST_F(PlanEvalTool, BadPlansAndFlagsAreOneLineErrors) {
  const std::string plan = temp_path("bad.json");
  write_file_atomic(
      plan, R"({"scheduler": "x", "graph": "g", "stages": [{"tasks": [{"ops": ["nope"]}]}]})");
  const ToolRun bad = run_plan_eval("--model ios_fig1_2 --plan " + plan);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("unknown op 'nope'"), std::string::npos) << bad.out;
  EXPECT_EQ(std::count(bad.out.begin(), bad.out.end(), '\n'), 1) << bad.out;
  // A plan that leaves ops out is refused by Plan::check.
  write_file_atomic(plan, R"({"scheduler": "x", "graph": "g", "stages": [
    {"tasks": [{"kind": "sequential", "ops": ["block.a.conv"]}]}]})");
  const ToolRun partial = run_plan_eval("--model ios_fig1_2 --plan " + plan);
  EXPECT_EQ(partial.exit_code, 2) << partial.out;
  EXPECT_EQ(std::count(partial.out.begin(), partial.out.end(), '\n'), 1) << partial.out;
  const ToolRun flag = run_plan_eval("--bogus");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_EQ(flag.out.rfind("error: ", 0), 0u) << flag.out;
  fs::remove(plan);
}

}  // namespace
}  // namespace dgs
