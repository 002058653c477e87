// plan_eval, the tool that evaluates a plan written by any scheduler: exit codes, one-line errors,
// and that what it reports follows from the plan (a plan equal to the sequential one has speedup
// 1; fusing keeps intermediates off DRAM).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
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

// The index of column `name` in the CSV's header (-1 if absent). The columns are plan,
// scheduler, stages, tasks, kernels, latency_ms, then the model's per-level bytes, unit busy
// averages, energy and own figures, and speedup_vs_sequential last.
int column(const std::string& csv, const std::string& name) {
  const auto rows = parse_csv(csv, "plan_eval output");
  if (rows.empty()) return -1;
  const auto& header = rows.front();
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

// The field of `row` in column `name`.
std::string field(const std::string& csv, const std::vector<std::string>& row,
                  const std::string& name) {
  const int i = column(csv, name);
  return i >= 0 && i < static_cast<int>(row.size()) ? row[static_cast<size_t>(i)] : "<absent>";
}

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
  // The GPU model's columns: bytes at l2 and dram, busy streams and SMs, its own figures.
  for (const char* name : {"kernels", "latency_ms", "l2_mib", "dram_mib", "avg_busy_stream",
                           "avg_busy_sm", "sync_us", "avg_active_warps_per_sm"})
    EXPECT_GE(column(r.out, name), 0) << name << "\n" << r.out;
  EXPECT_EQ(column(r.out, "speedup_vs_sequential"), static_cast<int>(yours.size()) - 1) << r.out;
  ASSERT_EQ(yours.size(), base.size()) << r.out;
  EXPECT_EQ(field(r.out, yours, "latency_ms"), field(r.out, base, "latency_ms"));
  EXPECT_DOUBLE_EQ(std::stod(field(r.out, yours, "speedup_vs_sequential")), 1.0);
  // One stream per stage: one stream busy all the time; the SMs are busy at most all 80 of them.
  EXPECT_NEAR(std::stod(field(r.out, yours, "avg_busy_stream")), 1.0, 1e-5);
  EXPECT_GT(std::stod(field(r.out, yours, "avg_busy_sm")), 0.0);
  EXPECT_LE(std::stod(field(r.out, yours, "avg_busy_sm")), 80.0);
  fs::remove(seq);
}

TEST_F(PlanEvalTool, DsaConfigsEvaluatePlansWithTheDsaModel) {
  for (const char* hw : {"stcp920", "atomic_mesh"}) {
    const std::string plan = temp_path(std::string(hw) + ".json");
    const ToolRun w =
        run_plan_eval("--model resnet18 --hw " + std::string(hw) + " --write-sequential " + plan);
    ASSERT_EQ(w.exit_code, 0) << w.out;
    const ToolRun r =
        run_plan_eval("--model resnet18 --hw " + std::string(hw) + " --plan " + plan + " --csv");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto yours = csv_row(r.out, "yours");
    EXPECT_GT(std::stod(field(r.out, yours, "latency_ms")), 0) << r.out;
    EXPECT_GT(std::stod(field(r.out, yours, "mac_uj")), 0) << r.out;
    EXPECT_GT(std::stod(field(r.out, yours, "static_uj")), 0) << r.out;
    for (const char* name : {"avg_busy_matrix", "mac_utilisation", "dram_busy_fraction"})
      EXPECT_GE(column(r.out, name), 0) << name << "\n" << r.out;
    fs::remove(plan);
  }
  // Without --plan: the default plan of the hardware's kind (on a DSA, every op over every core
  // or engine, tiled by the model's mapper), which fits every buffer.
  for (const char* hw : {"stcp920", "atomic_mesh"}) {
    const ToolRun d = run_plan_eval("--model resnet18 --hw " + std::string(hw) + " --csv");
    ASSERT_EQ(d.exit_code, 0) << d.out;
    const auto row = csv_row(d.out, "default");
    EXPECT_GT(std::stod(field(d.out, row, "latency_ms")), 0) << d.out;
    const ToolRun table = run_plan_eval("--model resnet18 --hw " + std::string(hw));
    ASSERT_EQ(table.exit_code, 0) << table.out;
    EXPECT_NE(table.out.find("no --plan: evaluating the default plan for"), std::string::npos)
        << table.out;
  }
  // The levels and units are the config's: an "sm" placement is refused on the mesh.
  const std::string plan = temp_path("sm.json");
  write_file_atomic(plan, R"({"version": 2, "scheduler": "x", "graph": "g", "stages": [
    {"tasks": [{"ops": ["block.a.conv", "block.a.relu", "block.d.conv", "block.d.relu",
      "block.c.conv", "block.c.relu", "block.b.conv", "block.b.relu", "block.concat.concat"],
      "placement": {"unit": "sm_set", "index": [0]}}]}]})");
  const ToolRun sm = run_plan_eval("--model ios_fig1_2 --hw atomic_mesh --plan " + plan);
  EXPECT_EQ(sm.exit_code, 2) << sm.out;
  EXPECT_NE(sm.out.find("has no unit of kind 'sm_set'"), std::string::npos) << sm.out;
  fs::remove(plan);
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
  ASSERT_FALSE(yours.empty()) << r.out;
  EXPECT_EQ(field(r.out, yours, "kernels"), "5");  // four fused kernels and the concat
  EXPECT_EQ(field(r.out, base, "kernels"), "9");
  EXPECT_LT(std::stod(field(r.out, yours, "dram_mib")), std::stod(field(r.out, base, "dram_mib")));
  EXPECT_GT(std::stod(field(r.out, yours, "speedup_vs_sequential")), 1.0);
  // Two concurrent tasks in two of the three stages: more than one stream busy on average, and
  // a synchronisation after each of those stages.
  EXPECT_GT(std::stod(field(r.out, yours, "avg_busy_stream")), 1.0);
  EXPECT_GT(std::stod(field(r.out, yours, "sync_us")), 0.0);
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
  // A hardware config of a kind that has no description is refused in one line.
  const std::string hw = temp_path("tpu.json");
  write_file_atomic(hw, R"({"name": "tpu", "kind": "tpu", "fields": {}})");
  const ToolRun tpu = run_plan_eval("--model ios_fig1_2 --plan " + plan + " --hw " + hw);
  EXPECT_EQ(tpu.exit_code, 2) << tpu.out;
  EXPECT_EQ(tpu.out, "error: --hw: " + hw + ": kind 'tpu' is not known (known kinds: gpu, dsa)\n");
  fs::remove(hw);
  const ToolRun flag = run_plan_eval("--bogus");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_EQ(flag.out.rfind("error: ", 0), 0u) << flag.out;
  fs::remove(plan);
}

// --check runs the plan on the CPU reference executor: a sequential plan and a version-2 plan of
// bricks with recomputed halos (common/plan/examples) equal the unscheduled graph; the GPU model
// prices whole operators only, so the brick plan is checked and not priced (without --check that
// is a one-line error).
TEST_F(PlanEvalTool, CheckRunsThePlanOnTheCpuReference) {
  const std::string seq = temp_path("seq_check.json");
  ASSERT_EQ(run_plan_eval("--model test_diamond --write-sequential " + seq).exit_code, 0);
  const ToolRun r = run_plan_eval("--model test_diamond --plan " + seq + " --check --seed 5");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("run_plan (CPU reference, seed 5): 1 outputs equal to the reference"),
            std::string::npos)
      << r.out;
  fs::remove(seq);
  const std::string bricks =
      std::string(DGS_SOURCE_DIR) + "/common/plan/examples/bricks_padded.json";
  const ToolRun b = run_plan_eval("--model test_residual_block --plan " + bricks + " --check");
  EXPECT_EQ(b.exit_code, 0) << b.out;
  EXPECT_NE(b.out.find("1 outputs equal to the reference\n"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("not priced: the task of op 'conv1' computes a region"), std::string::npos)
      << b.out;
  EXPECT_EQ(std::count(b.out.begin(), b.out.end(), '\n'), 2) << b.out;
  // A plan written for an accelerator (levels l1/llb, cores) is checked, and not priced on V100.
  const std::string inst = std::string(DGS_SOURCE_DIR) + "/common/plan/examples/instances.json";
  const ToolRun i = run_plan_eval("--model test_residual_block --plan " + inst + " --check");
  EXPECT_EQ(i.exit_code, 0) << i.out;
  EXPECT_NE(i.out.find("1 outputs equal to the reference\nnot priced: plan 'example: two height "
                       "instances of each of two fused groups, instance by instance on the 8 cores "
                       "of cluster 0 of STCP920 (levels l1, llb)' of graph 'test_residual_block': "
                       "stage 0 task 0 kept.conv1:0: memory level 'l1' does not exist on V100"),
            std::string::npos)
      << i.out;
  const ToolRun n = run_plan_eval("--model test_residual_block --plan " + bricks);
  EXPECT_EQ(n.exit_code, 2) << n.out;
  EXPECT_NE(n.out.find("prices whole operators only; --check runs it on the CPU reference"),
            std::string::npos)
      << n.out;
  EXPECT_EQ(std::count(n.out.begin(), n.out.end(), '\n'), 1) << n.out;
}

// Every committed example plan (common/plan/examples/) runs on the CPU reference and is priced on
// the machine it is written for, so none can rot unseen: a file not in this list fails. The one
// exception is stated: bricks_padded's tasks compute regions, which the GPU model does not price
// (checked only; the message says so).
TEST_F(PlanEvalTool, EveryExamplePlanIsPricedOnTheMachineItTargets) {
  struct Example {
    std::string model, hw;
    bool priced;
  };
  const std::map<std::string, Example> targets = {
      {"bricks_memoized.json", {"test_residual_block", "a100", true}},
      {"bricks_padded.json", {"test_residual_block", "a100", false}},
      {"fused_tiles.json", {"test_residual_block", "a100", true}},
      {"instances.json", {"test_residual_block", "stcp920", true}},
      {"merged.json", {"test_diamond", "a100", true}},
      {"partial_sums.json", {"test_diamond", "atomic_prototype", true}},
      {"sequential_streams.json", {"test_diamond", "a100", true}}};
  size_t seen = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(DGS_SOURCE_DIR) + "/common/plan/examples")) {
    const std::string name = entry.path().filename().string();
    const auto it = targets.find(name);
    if (it == targets.end()) {
      ADD_FAILURE() << name << ": an example plan with no target machine in this test's list";
      continue;
    }
    ++seen;
    const Example& e = it->second;
    const ToolRun r = run_plan_eval("--model " + e.model + " --hw " + e.hw + " --plan " +
                                    entry.path().string() + " --check --csv");
    const std::string first =
        "run_plan (CPU reference, seed 1): 1 outputs equal to the reference\n";
    if (r.exit_code != 0 || r.out.rfind(first, 0) != 0) {
      ADD_FAILURE() << name << " on " << e.hw << ": exit " << r.exit_code << "\n" << r.out;
      continue;
    }
    const std::string rest = r.out.substr(first.size());
    if (!e.priced) {
      EXPECT_EQ(rest.rfind("not priced: the task of op 'conv1' computes a region", 0), 0u)
          << name << "\n"
          << r.out;
      continue;
    }
    const auto yours = csv_row(rest, "yours");
    ASSERT_FALSE(yours.empty()) << name << "\n" << r.out;
    EXPECT_GT(std::stod(field(rest, yours, "latency_ms")), 0) << name << "\n" << r.out;
  }
  EXPECT_EQ(seen, targets.size()) << "an example in the list is missing from the folder";
}

// Version-2 plans are checked against the hardware: a memory level the GPU does not have, and
// regions that overlap, are refused with one line (exit 2).
TEST_F(PlanEvalTool, VersionTwoPlansAreCheckedAgainstGraphAndHardware) {
  const std::string plan = temp_path("v2.json");
  write_file_atomic(plan, R"({"version": 2, "graph": "test_diamond", "stages": [
    {"tasks": [{"ops": ["a", "a.relu", "b", "c", "add", "relu"], "kept": {"a:0": "lb"}}]}]})");
  const ToolRun lvl = run_plan_eval("--model test_diamond --plan " + plan);
  EXPECT_EQ(lvl.exit_code, 2) << lvl.out;
  EXPECT_NE(lvl.out.find("memory level 'lb' does not exist on V100; expected one of register, "
                         "shared, l2, dram, host"),
            std::string::npos)
      << lvl.out;
  write_file_atomic(plan, R"({"version": 2, "graph": "test_diamond", "stages": [
    {"tasks": [{"ops": ["a", "a.relu", "b", "c", "add", "relu"],
                "regions": {"relu:0": [[0, 1], [0, 32], [0, 15], [0, 28]]}}]},
    {"tasks": [{"ops": ["a", "a.relu", "b", "c", "add", "relu"],
                "regions": {"relu:0": [[0, 1], [0, 32], [14, 28], [0, 28]]}}]}]})");
  const ToolRun overlap = run_plan_eval("--model test_diamond --plan " + plan + " --check");
  EXPECT_EQ(overlap.exit_code, 2) << overlap.out;
  EXPECT_NE(overlap.out.find("region [0:1,0:32,14:28,0:28] of 'relu:0' (op 'relu', stage 1 task "
                             "0) overlaps region [0:1,0:32,0:15,0:28]"),
            std::string::npos)
      << overlap.out;
  EXPECT_EQ(std::count(overlap.out.begin(), overlap.out.end(), '\n'), 1) << overlap.out;
  fs::remove(plan);
}

}  // namespace
}  // namespace dgs
