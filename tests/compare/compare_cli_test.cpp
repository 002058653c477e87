// repro_compare (compare/compare_cli.h): the table across schedulers, your own scheduler as a
// program (examples/wavefront_scheduler.cpp) and its failures, bad input, and a sharded run merged
// into the same files as one run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/cuda/device.h"
#include "common/report/report.h"
#include "common/report/report_compare.h"
#include "common/util/resources.h"
#include "compare/compare_cli.h"
#include "compare/comparison.h"
#include "reproductions/papers.h"
#include "tests/scratch_dir.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out, err;
};

Result compare(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"repro_compare"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Result r;
  r.code = run_compare(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

int lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

const std::string kWavefront = std::string(DGS_BINARY_DIR) + "/wavefront_scheduler";

class CompareCli : public ::testing::Test {
 protected:
  std::string path(const std::string& rel) const { return (dir_ / rel).string(); }
  // A shell script in the scratch folder, executable.
  std::string script(const std::string& name, const std::string& body) const {
    const std::string p = path(name);
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p;
  }
  std::vector<std::vector<std::string>> csv(const std::string& rel) const {
    return parse_csv(read_file(path(rel)), rel);
  }
  ScratchDir scratch_{std::string("compare_") +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  const fs::path dir_ = scratch_.path();
};

// The column `name` of row `r` (row 0 is the header).
std::string cell(const std::vector<std::vector<std::string>>& t, size_t r, const std::string& n) {
  const auto& h = t.at(0);
  const size_t c = static_cast<size_t>(std::find(h.begin(), h.end(), n) - h.begin());
  return t.at(r).at(c);
}

TEST_F(CompareCli, YourProgramRunsBesideTheBaselineOnEveryMachine) {
  const Result r = compare({"--model", "test_diamond", "--hw", "a100", "--hw", "stcp920",
                            "--scheduler", "cmd:" + kWavefront, "--scheduler-arg=--streams",
                            "--scheduler-arg=2", "--write-plans", "--out", path("out"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto t = csv("out/compare/compare.csv");
  ASSERT_EQ(t.size(), 5u);  // header + 2 machines x (sequential, wavefront)
  EXPECT_EQ(cell(t, 1, "scheduler"), "sequential");
  EXPECT_EQ(cell(t, 1, "speedup_vs_sequential"), "1");
  EXPECT_EQ(cell(t, 2, "scheduler"), "cmd:wavefront_scheduler");
  EXPECT_EQ(cell(t, 2, "status"), "ok");
  EXPECT_EQ(cell(t, 2, "plan_check"), "ok");
  // test_diamond is under the 1 GFLOP limit: the plan ran on the CPU reference.
  EXPECT_EQ(cell(t, 2, "run_plan").rfind("passed (", 0), 0u) << cell(t, 2, "run_plan");
  // Its plan has no fused task: no note of the rule for fused kernels.
  EXPECT_EQ(cell(t, 2, "note"), "");
  // At most two streams per stage: more stages than the graph's depth would need with more.
  EXPECT_GT(std::stoi(cell(t, 2, "stages")), 1);
  EXPECT_TRUE(fs::exists(path("out/compare/plans/test_diamond@a100@cmd_wavefront_scheduler.json")));
  // The program declines the DSA with exit status 3: not applicable, with its reason.
  EXPECT_EQ(cell(t, 4, "status"),
            "not applicable: cmd:wavefront_scheduler: wavefront_scheduler schedules GPUs only, "
            "not hardware of kind 'dsa'");
  EXPECT_EQ(cell(t, 4, "latency_ms"), "");
  EXPECT_TRUE(fs::exists(path("out/compare/compare_a100.svg")));
  EXPECT_TRUE(fs::exists(path("out/compare/compare_stcp920.svg")));
  const std::string summary = read_file(path("out/compare/compare_summary.txt"));
  EXPECT_NE(summary.find("cmd:wavefront_scheduler: "), std::string::npos) << summary;
}

// A plan file's row names GENERIC_FUSED_KERNEL_RULE, the GPU model of the fused kernels of plans
// from outside, exactly when the plan has a fused task.
TEST_F(CompareCli, ThePlanFileNoteNamesTheFusedKernelRuleOnlyForFusedTasks) {
  const std::string seq = path("seq.json");
  std::ofstream(seq) << R"({"version": 2, "graph": "test_residual_block", "stages": [{"tasks": [
      {"ops": ["conv1", "bn1", "relu1", "conv2", "bn2", "add", "relu2"]}]}]})";
  const std::string fused = std::string(DGS_SOURCE_DIR) + "/common/plan/examples/fused_tiles.json";
  const Result r =
      compare({"--model", "test_residual_block", "--hw", "a100", "--plan", "seq=" + seq, "--plan",
               "fused=" + fused, "--out", path("out"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = csv("out/compare/compare.csv");
  ASSERT_EQ(t.size(), 4u);  // header, sequential, seq, fused
  EXPECT_EQ(cell(t, 2, "scheduler"), "seq");
  EXPECT_EQ(cell(t, 2, "status"), "ok");
  EXPECT_EQ(cell(t, 2, "note"), "");
  EXPECT_EQ(cell(t, 3, "scheduler"), "fused");
  EXPECT_EQ(cell(t, 3, "status"), "ok");
  EXPECT_EQ(cell(t, 3, "note"), "fused tasks: GENERIC_FUSED_KERNEL_RULE");
}

// --seed is the default of a scheduler's seed option (Atomic Dataflow's simulated annealing, whose
// atoms on test_diamond differ between seeds 1 and 2: the plans' energy differs, 34.3644 against
// 34.2653 uJ; the SA's evaluations are 2002 for both since the KC-P sliding input window; with
// atomic.even_split=0, since LS's even split, which no seed changes, runs faster there), the
// same seed gives the same files, and an explicit --scheduler-option atomic.seed wins; stdout
// says which seed it got.
TEST_F(CompareCli, TheSeedSeedsTheSchedulersUnlessAnOptionSaysOtherwise) {
  auto run = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> a = {
        "--model", "test_diamond", "--hw",    "atomic_prototype",   "--scheduler",        "atomic",
        "--out",   path(out),      "--quiet", "--scheduler-option", "atomic.even_split=0"};
    a.insert(a.end(), extra.begin(), extra.end());
    return compare(a);
  };
  const Result one = run("one", {"--seed", "1"}), two = run("two", {"--seed", "2"}),
               again = run("again", {"--seed", "2"}),
               option = run("option", {"--seed", "1", "--scheduler-option", "atomic.seed=2"});
  for (const Result* r : {&one, &two, &again, &option}) ASSERT_EQ(r->code, 0) << r->err;
  EXPECT_NE(one.out.find("\nseed 1: the reference check's inputs, atomic.seed=1\n"),
            std::string::npos)
      << one.out;
  EXPECT_NE(two.out.find("\nseed 2: the reference check's inputs, atomic.seed=2\n"),
            std::string::npos)
      << two.out;
  EXPECT_NE(option.out.find("\nseed 1: the reference check's inputs, atomic.seed=2 "
                            "(--scheduler-option)\n"),
            std::string::npos)
      << option.out;
  const auto t1 = csv("one/compare/compare.csv"), t2 = csv("two/compare/compare.csv"),
             to = csv("option/compare/compare.csv");
  ASSERT_EQ(cell(t1, 2, "scheduler"), "atomic");
  EXPECT_NE(cell(t1, 2, "energy_uj"), cell(t2, 2, "energy_uj"));
  EXPECT_EQ(cell(to, 2, "energy_uj"), cell(t2, 2, "energy_uj"));
  EXPECT_EQ(cell(to, 2, "on_chip_mib"), cell(t2, 2, "on_chip_mib"));
  EXPECT_EQ(compare_report_folders(path("two/compare"), path("again/compare"), 5, "compare/"),
            std::vector<std::string>{});
}

// Every way a program can fail is one line naming it, and the rest of the table comes out.
TEST_F(CompareCli, FailingProgramsAreOneLineAndTheTableStillComesOut) {
  const std::string out_flag = "--out=" + path("out");
  struct Case {
    std::string body, expected;
  };
  const std::vector<Case> cases = {
      {"echo 'bad input: no way'; exit 1", "exited with status 1: bad input: no way"},
      {"exit 0", "exited 0 but wrote no plan"},
      {"sleep 5", "timed out after 0 s"},
      {"while [ \"$1\" != --out ]; do shift; done; echo '{\"version\": 2, \"stages\": []}' > $2",
       "invalid plan"}};
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string prog = script("prog" + std::to_string(k), cases[k].body);
    const Result r = compare({"--model", "test_diamond", "--hw", "a100", "--scheduler",
                              "cmd:" + prog, "--scheduler-timeout", "0.3", out_flag, "--quiet"});
    EXPECT_EQ(r.code, 1) << k << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("cmd:prog" + std::to_string(k) + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(cases[k].expected), std::string::npos) << r.err;
    const auto t = csv("out/compare/compare.csv");
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(cell(t, 1, "status"), "ok");  // the baseline's row is there
    EXPECT_EQ(cell(t, 2, "status").rfind("failed: ", 0), 0u);
  }
}

TEST_F(CompareCli, BadInputIsOneLineAndWritesNothing) {
  const std::string out = "--out=" + path("out");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--scheduler", "no_such"}, "error: --scheduler 'no_such': unknown scheduler (registered: "},
      {{"--scheduler", "cmd:" + path("missing")}, "not an executable file"},
      {{"--shard", "3/2"}, "error: --shard 3/2: shard index 3 is out of range"},
      {{"--hw", "nope"}, "error: --hw nope: "},
      {{"--model", "nope.onnx"}, "error: --model nope.onnx: "},
      {{"--plan", "x"}, "error: --plan 'x': expected NAME=FILE"},
      {{"--scheduler-option", "sequential.k=1"}, "sequential: unknown option 'k'"},
      {{"--scheduler-arg", "1"}, "--scheduler-arg is for --scheduler cmd:PATH"},
      {{"--merge", path("nowhere")}, "error: --merge"},
      {{"--scheduler", "atomic", "--hw", "atomic_prototype", "--model", "test_diamond", "--seed",
        "18446744073709551615"},
       "error: --seed: 18446744073709551615 is above 9223372036854775807, the largest atomic.seed "
       "takes"}};
  for (const auto& [args, expected] : cases) {
    std::vector<std::string> a = args;
    a.push_back(out);
    const Result r = compare(a);
    EXPECT_EQ(r.code, 2) << args[0] << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("out/compare"))) << args[0];
  }
}

// Three shards merged give the files of one run (run-varying columns excepted: search_s), and a
// missing shard is refused in one line.
TEST_F(CompareCli, ShardsMergedEqualOneRun) {
  const std::vector<std::string> base = {
      "--model",     "test_diamond",      "--hw",         "a100", "--hw", "stcp920", "--quiet",
      "--scheduler", "cmd:" + kWavefront, "--write-plans"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ASSERT_EQ(compare(with({"--out", path("one")})).code, 0);
  for (int i = 0; i < 3; ++i) {
    const Result r = compare(
        with({"--shard", std::to_string(i) + "/3", "--out", path("s" + std::to_string(i))}));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(fs::exists(path("s" + std::to_string(i) + "/compare/compare.csv")));
  }
  const Result missing = compare({"--merge", path("s0"), path("s1"), "--out", path("m")});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("shard 2/3 is missing"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(path("m/compare")));
  const Result merged =
      compare({"--merge", path("s0"), path("s1"), path("s2"), "--out", path("m")});
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(compare_report_folders(path("one/compare"), path("m/compare"), 5, "compare/"),
            std::vector<std::string>{});
  // Resuming: every row is complete, nothing runs again, same files.
  const Result again = compare(with({"--shard", "1/3", "--skip-existing", "--out", path("s1")}));
  ASSERT_EQ(again.code, 0) << again.err;
}

// Every registered scheduler on a small model and one machine of each shape: none fails, every
// paper has a priced row, and every priced plan ran on the CPU reference to the graph's outputs.
TEST_F(CompareCli, EveryRegisteredSchedulerOnEveryKindOfMachine) {
  const Result r = compare({"--model", "test_diamond", "--hw", "a100", "--hw", "stcp920", "--hw",
                            "atomic_mesh", "--out", path("out"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = csv("out/compare/compare.csv");
  std::set<std::string> papers_priced;
  for (size_t i = 1; i < t.size(); ++i) {
    const std::string status = cell(t, i, "status");
    EXPECT_TRUE(status == "ok" || status.rfind("not applicable: ", 0) == 0)
        << cell(t, i, "scheduler") << " on " << cell(t, i, "hw") << ": " << status;
    if (status != "ok") continue;
    papers_priced.insert(cell(t, i, "paper"));
    EXPECT_EQ(cell(t, i, "run_plan").rfind("passed (", 0), 0u)
        << cell(t, i, "scheduler") << " on " << cell(t, i, "hw") << ": " << cell(t, i, "run_plan");
    EXPECT_FALSE(cell(t, i, "speedup_vs_sequential").empty()) << cell(t, i, "scheduler");
  }
  std::set<std::string> every_paper = {"baseline"};
  for (const PaperEntry& p : paper_list()) every_paper.insert(p.key);
  EXPECT_EQ(papers_priced, every_paper);
}

TEST_F(CompareCli, MeasuredModeWithoutAGpuSaysSoInOneLine) {
  std::string why;
  if (cuda_gpu_available(&why)) GTEST_SKIP() << "a GPU is here: MeasuredModeRunsTheRunnablePlans";
  const Result r = compare(
      {"--mode", "measured", "--model", "test_diamond", "--hw", "a100", "--out", path("out")});
  EXPECT_EQ(r.code, 4);
  EXPECT_EQ(r.err, "error: measured mode needs an NVIDIA GPU: " + why + "\n");
  EXPECT_FALSE(fs::exists(path("out/compare")));
}

// On a GPU: the plans the stage executor runs (IOS's) are timed; fused plans (Welder's) and DSA
// rows say why they are not run.
TEST_F(CompareCli, MeasuredModeRunsTheRunnablePlans) {
  std::string why;
  if (!cuda_gpu_available(&why)) GTEST_SKIP() << why;
  const Result r =
      compare({"--mode", "measured", "--model", "test_diamond", "--hw", "a100", "--hw", "stcp920",
               "--scheduler", "ios", "--scheduler", "welder", "--out", path("out"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = csv("out/compare/compare.csv");
  for (size_t i = 1; i < t.size(); ++i) {
    if (cell(t, i, "status") != "ok") continue;
    const std::string m = cell(t, i, "measured");
    if (cell(t, i, "hw") == "stcp920") {
      EXPECT_EQ(m.rfind("not run on the GPU: a dsa config", 0), 0u) << m;
    } else if (cell(t, i, "scheduler") == "welder") {
      EXPECT_EQ(m.rfind("not run on the GPU: it has fused tasks", 0), 0u) << m;
    } else {
      EXPECT_EQ(m.rfind("on ", 0), 0u) << cell(t, i, "scheduler") << ": " << m;
      EXPECT_GT(std::stod(cell(t, i, "measured_ms")), 0.0);
    }
  }
}

TEST_F(CompareCli, ListNamesEveryRegisteredScheduler) {
  const Result r = compare({"--list"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("  sequential (baseline; gpu,dsa): "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace dgs

namespace dgs {
namespace {

TEST(ReducedReferenceModel, TheLargestRungUnderTheLimitOrNone) {
  std::string label;
  const std::optional<Graph> g = reduced_reference_model("resnet50", 0.2, &label);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(label, "resnet50 at 32x32, batch 1");
  EXPECT_EQ(g->tensor(g->input_tensors().front()).shape, (Shape{1, 3, 32, 32}));
  EXPECT_FALSE(reduced_reference_model("bert_base", 1.0, &label).has_value());  // 1.4 at seq 8
  EXPECT_TRUE(reduced_reference_model("bert_base", 2.0, &label).has_value());
  EXPECT_EQ(label, "bert_base at sequence 8, batch 1");
  EXPECT_FALSE(reduced_reference_model("model.onnx", 1.0, &label).has_value());
}

// A model over the limit: each plan of the scheduler is checked on the stated smaller input.
TEST(ReducedReferenceModel, RowsOfAModelOverTheLimitArePassedOnTheSubset) {
  const ScratchDir scratch("compare_subset");
  const fs::path& dir = scratch.path();
  const Result r = compare({"--model", "squeezenet", "--hw", "a100", "--scheduler", "ios",
                            "--reference-limit-gflop", "0.5", "--reference-subset-gflop", "0.05",
                            "--out", dir.string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = parse_csv(read_file((dir / "compare/compare.csv").string()), "compare.csv");
  ASSERT_EQ(t.size(), 3u);
  for (size_t i = 1; i < t.size(); ++i)
    EXPECT_EQ(cell(t, i, "run_plan").rfind("passed on squeezenet at ", 0), 0u)
        << cell(t, i, "run_plan");
}

}  // namespace
}  // namespace dgs
