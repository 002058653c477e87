// Tests of the shared command line (cli/): flags, selection, exit codes, output files.
// run_cli is called in-process with a fake paper and captured streams.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include "cli/cli.h"
#include "common/cuda/device.h"
#include "common/hw/hardware.h"
#include "common/util/error.h"
#include "common/util/parallel_for.h"
#include "common/util/resources.h"
#include "models/zoo.h"
#include "reproductions/papers.h"
#include "tests/cli/run_cli_capture.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

using cli_test::kPaper;
using cli_test::Result;
using cli_test::run;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dgs_cli_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string out_dir() const { return dir_.string(); }

  static Table fig1_table() {
    Table t({"model", "ours", "paper"});
    t.add_row({std::string("ResNet-50"), 1.5, 1.4});
    return t;
  }

  // fig1 (model only), fig2 (not implemented), table3 (model and measured), fig4 (fails).
  std::vector<Experiment> experiments() {
    return {
        {.kind = "fig",
         .number = "1",
         .caption = "Figure 1: speedups",
         .run =
             [this](ExperimentContext& ctx) {
               seen_seed_ = ctx.options().seed;
               seen_hw_ = ctx.options().hw;
               ctx.note("batch size 1 (the paper does not say)");
               ctx.emit_table("Fig. 1", fig1_table());
               ctx.emit_svg("<svg/>\n");
               ctx.emit_claims({{"speedup", "Fig. 1", 1.4, 1.5, ClaimKind::Ratio, "x"}});
             }},
        {.kind = "fig", .number = "2", .caption = "Figure 2: not there yet"},
        {.kind = "table",
         .number = "3.1",
         .caption = "Table 3.1: measured too",
         .run =
             [this](ExperimentContext& ctx) {
               ++table3_runs_;
               ctx.emit_table("Table 3.1", fig1_table());
             },
         .has_measured_mode = true},
        {.kind = "fig",
         .number = "4",
         .caption = "Figure 4: fails",
         .run =
             [](ExperimentContext& ctx) {
               ctx.emit_table("Fig. 4", fig1_table());
               throw Error("model file broken.onnx: node 3: unknown operator 'Foo'");
             }},
    };
  }

  fs::path dir_;
  uint64_t seen_seed_ = 0;
  std::string seen_hw_ = "<unset>";
  int table3_runs_ = 0;
};

TEST_F(CliTest, ListShowsEveryIdWithStatusAndCaption) {
  const Result r = run({"--list"}, experiments());
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("  fig1      implemented          Figure 1: speedups\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  fig2      not implemented yet  Figure 2: not there yet\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("table3.1  implemented"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fig4"), std::string::npos);
}

TEST_F(CliTest, HelpExitsZeroAndNamesTheFlags) {
  const Result r = run({"--help"}, experiments());
  EXPECT_EQ(r.code, 0);
  for (const char* flag :
       {"--list", "--fig", "--table", "--all", "--hw", "--model", "--mode", "--out", "--seed"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  }
}

TEST_F(CliTest, UsageErrorsExitTwoWithOneLine) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bogus"}, "error: unrecognised option '--bogus' (see --help)\n"},
      {{"--fig", "99"},
       "error: --fig 99: no such figure in repro_fakepaper (figures: fig1, fig2, fig4; see "
       "--list)\n"},
      {{"--table", "fig1"},
       "error: --table fig1: no such table in repro_fakepaper (tables: table3.1; see --list)\n"},
      {{"--fig"}, "error: the required argument for option '--fig' is missing (see --help)\n"},
      {{"--mode", "fast", "--fig", "1"},
       "error: --mode: 'fast' is not a mode (expected model or measured)\n"},
      {{"--seed", "-3", "--fig", "1"}, "error: --seed: '-3' is not a non-negative integer\n"},
      {{"--seed", "12x", "--fig", "1"}, "error: --seed: '12x' is not a non-negative integer\n"},
      {{"fig1"}, "error: unexpected argument 'fig1' (options start with --; see --help)\n"},
      {{}, "error: nothing to run: give --fig N, --table N, --all or --list (see --help)\n"},
      {{"--fig", "1", "--hw", "no_such_gpu"}, ""},  // message checked below
      {{"--fig", "1", "--model", "missing/net.onnx"},
       "error: --model: no file missing/net.onnx (give a zoo model name or an .onnx file)\n"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run(args, experiments());
    EXPECT_EQ(r.code, 2) << args.size();
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    if (!message.empty()) {
      EXPECT_EQ(r.err, message);
    }
    EXPECT_EQ(seen_seed_, 0u) << "nothing may run after a usage error";
  }
}

TEST_F(CliTest, UnknownHardwareNamesTheBuiltins) {
  const Result r = run({"--fig", "1", "--hw", "no_such_gpu"}, experiments());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("error: --hw: no built-in hardware config 'no_such_gpu' (built-in: ", 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("v100"), std::string::npos) << r.err;
}

TEST_F(CliTest, ModelMustBeAZooNameOrAnOnnxFile) {
  const Result bad = run({"--fig", "1", "--model", "no_such_net"}, experiments());
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err_lines(), 1);
  EXPECT_EQ(bad.err.rfind(
                "error: --model: 'no_such_net' is neither a zoo model nor an .onnx file (zoo: ", 0),
            0u)
      << bad.err;
  const std::string garbage = out_dir() + "/garbage.onnx";
  write_file_atomic(garbage, "not a protobuf");
  const Result broken = run({"--fig", "1", "--model", garbage}, experiments());
  EXPECT_EQ(broken.code, 2);
  EXPECT_EQ(broken.err_lines(), 1);
  EXPECT_EQ(broken.err.rfind("error: --model: ", 0), 0u) << broken.err;
  ASSERT_FALSE(zoo_model_names().empty());
  const Result good =
      run({"--fig", "1", "--model", zoo_model_names().front(), "--out", out_dir()}, experiments());
  EXPECT_EQ(good.code, 0) << good.err;
  EXPECT_NE(good.out.find("model: " + zoo_model_names().front()), std::string::npos);
}

TEST_F(CliTest, BrokenHardwareFileIsAUsageErrorNamingTheField) {
  const std::string path = out_dir() + "/bad_gpu.json";
  std::string text(*builtin_resource("hw_configs/v100.json"));
  const std::string from = "\"unit\": \"GB/s\"";
  text.replace(text.find(from), from.size(), "\"unit\": \"MB/s\"");
  write_file_atomic(path, text);
  const Result r = run({"--fig", "1", "--hw", path, "--out", out_dir()}, experiments());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err_lines(), 1);
  EXPECT_NE(r.err.find("error: --hw: " + path + ": field '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unit 'MB/s' is wrong (expected GB/s)"), std::string::npos) << r.err;
}

TEST_F(CliTest, FigureAcceptsNumberOrIdAndRunsWithOptions) {
  for (const std::string sel : {"1", "fig1", "FIG1"}) {
    seen_seed_ = 0;
    const Result r =
        run({"--fig", sel, "--seed", "42", "--hw", "v100", "--out", out_dir()}, experiments());
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(seen_seed_, 42u);
    EXPECT_EQ(seen_hw_, "v100");
    EXPECT_NE(r.out.find(kPaper.title), std::string::npos);
    EXPECT_NE(r.out.find("mode: model | hw: v100 | seed: 42"), std::string::npos) << r.out;
  }
  const Result r =
      run({"--table", "3.1", "--table", "table3.1", "--out", out_dir()}, experiments());
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(table3_runs_, 1) << "a repeated selection runs once";
}

TEST_F(CliTest, OutputFilesGoToOutDirSlashPaper) {
  const Result r = run({"--fig", "1", "--out", out_dir()}, experiments());
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path base = dir_ / "fakepaper";
  EXPECT_EQ(read_file((base / "fig1.csv").string()), to_csv(fig1_table()));
  EXPECT_EQ(read_file((base / "fig1.svg").string()), "<svg/>\n");
  EXPECT_EQ(read_file((base / "fig1_notes.txt").string()),
            "batch size 1 (the paper does not say)\n");
  const std::string claims = read_file((base / "fig1_claims.csv").string());
  EXPECT_NE(
      claims.find(
          "speedup,Fig. 1,ratio,1.4,,1.5,0.14,1.27273,1.54,x,paper's method,holds,\"ours - 1 has "
          "the sign of paper - 1"),
      std::string::npos)
      << claims;
  EXPECT_NE(r.out.find("holds     speedup [Fig. 1]: paper 1.4x, ours 1.5x (ratio)"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(base / "summary.csv")) << "only --all writes the summary";
  EXPECT_NE(r.out.find("| ResNet-50 | 1.50 |  1.40 |"), std::string::npos) << r.out;
}

TEST_F(CliTest, AllEndsWithASummaryOfClaimsAndPaperCells) {
  const Result r = run({"--all", "--out", out_dir()}, experiments());
  EXPECT_EQ(r.code, 1) << "fig4 fails";
  // fig1: one claim holding, one paper cell (1.5 vs 1.4); table3.1: the same cell; fig4 failed
  // and is not in the summary.
  const std::string csv = read_file((dir_ / "fakepaper" / "summary.csv").string());
  EXPECT_EQ(csv,
            "item,own_hold,own_deviate,stand_in_hold,stand_in_deviate,informational,calibration,"
            "paper_cells,median_rel_error,p90_rel_error\r\n"
            "fig1,1,0,0,0,0,0,1,0.0714286,0.0714286\r\n"
            "table3.1,0,0,0,0,0,0,1,0.0714286,0.0714286\r\n"
            "total,1,0,0,0,0,0,2,0.0714286,0.0714286\r\n");
  EXPECT_NE(r.out.find("claims: 1 of 1 checked claims hold"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ratio: ours - 1 has the sign of paper - 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("every numeric value of data/fakepaper/ is read by some item"),
            std::string::npos)
      << r.out;
}

TEST_F(CliTest, CalibratedConstantsAreNamedWithConfigValueAndExperiment) {
  EXPECT_EQ(ExperimentContext::calibrated_constants(load_gpu_spec("v100")),
            "V100: compute_saturation_warps_per_sm = 12, gemm_fp32 = 0.8");
  // MI50's sources say "same value as hw_configs/v100_pcie.json", where they are calibrated.
  EXPECT_EQ(ExperimentContext::calibrated_constants(load_gpu_spec("mi50")),
            "MI50: compute_saturation_warps_per_sm = 12, gemm_fp32 = 0.8");
  RunOptions opts;
  opts.out_dir = out_dir();
  std::ostringstream os;
  ExperimentContext ctx("fakepaper", "fig1", opts, os, "v100");
  (void)ctx.gpu();
  ctx.commit_files();  // notes the constants of the machine the experiment loaded
  const std::string notes = read_file((dir_ / "fakepaper" / "fig1_notes.txt").string());
  EXPECT_NE(notes.find("calibrated constant used: V100 gemm_fp32 = 0.8, calibrated on IOS thesis "
                       "Fig. 1.2 (the 4-conv graph, batch 1, V100, Sequential schedule)"),
            std::string::npos)
      << notes;
  ExperimentContext none("fakepaper", "fig2", opts, os, "v100");
  EXPECT_TRUE(none.commit_files().empty()) << "no hardware loaded, no note";
}

TEST_F(CliTest, NotImplementedExitsThreeAndRunsNothing) {
  const Result r = run({"--fig", "1", "--fig", "2", "--out", out_dir()}, experiments());
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "error: not implemented yet in repro_fakepaper: fig2 (see --list)\n");
  EXPECT_EQ(seen_seed_, 0u);
  EXPECT_FALSE(fs::exists(dir_ / "fakepaper"));
}

TEST_F(CliTest, ExperimentErrorExitsOneAndWritesNothing) {
  const Result r = run({"--fig", "4", "--out", out_dir()}, experiments());
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: fig4: model file broken.onnx: node 3: unknown operator 'Foo'\n");
  EXPECT_FALSE(fs::exists(dir_ / "fakepaper" / "fig4.csv"));
}

TEST_F(CliTest, AllRunsImplementedListsTheRestAndReportsFailure) {
  const Result r = run({"--all", "--out", out_dir()}, experiments());
  EXPECT_EQ(r.code, 1);  // fig4 fails; the others still ran
  EXPECT_EQ(r.err, "error: fig4: model file broken.onnx: node 3: unknown operator 'Foo'\n");
  EXPECT_NE(r.out.find("skipped fig2: not implemented yet"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 of 3 experiments completed"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "fakepaper" / "fig1.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "fakepaper" / "table3.1.csv"));
}

TEST_F(CliTest, AllWithNothingImplementedExitsThree) {
  std::vector<Experiment> none = {{.kind = "fig", .number = "5", .caption = "Figure 5: a"},
                                  {.kind = "table", .number = "2", .caption = "Table 2: b"}};
  const Result r = run({"--all"}, none);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "error: none of the 2 experiments of repro_fakepaper is implemented yet\n");
  EXPECT_NE(r.out.find("fig5    not implemented yet  Figure 5: a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("table2  not implemented yet  Table 2: b"), std::string::npos) << r.out;
}

TEST_F(CliTest, MeasuredModeWithoutGpuExitsFour) {
  std::string why;
  if (cuda_gpu_available(&why))
    GTEST_SKIP() << "a GPU is present; the no-GPU path cannot be tested here";
  const Result r = run({"--table", "3.1", "--mode", "measured", "--out", out_dir()}, experiments());
  EXPECT_EQ(r.code, 4);
  EXPECT_EQ(r.err, "error: measured mode needs an NVIDIA GPU: " + why + "\n");
  EXPECT_EQ(table3_runs_, 0);
  EXPECT_EQ(r.out, "");
}

TEST_F(CliTest, ModelIsRefusedForAnExperimentOnItsOwnGraphs) {
  std::vector<Experiment> e = experiments();
  e[2].accepts_model = false;  // table3.1 runs the paper's own graphs
  const Result r = run({"--table", "3.1", "--model", "resnet50", "--out", out_dir()}, e);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: --model: table3.1 runs the paper's own graphs; --model does not apply (see "
            "--list)\n");
  EXPECT_EQ(table3_runs_, 0);
  EXPECT_FALSE(fs::exists(fs::path(out_dir()) / "fakepaper"));
  // Under --all it is skipped and the others run on the model.
  const Result all = run({"--all", "--model", "resnet50", "--out", out_dir()}, e);
  EXPECT_NE(all.out.find("skipped table3.1: runs the paper's own graphs (no --model)"),
            std::string::npos)
      << all.out;
  EXPECT_EQ(table3_runs_, 0);
}

TEST_F(CliTest, MeasuredModeRefusesAModelOnlyExperiment) {
  // A usage error on any machine, GPU or not: it is checked before the GPU.
  const Result r = run({"--fig", "1", "--mode", "measured", "--out", out_dir()}, experiments());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: --mode measured: no measured version of fig1 (model mode only; see --list)\n");
}

TEST_F(CliTest, ProgressLinesGoToStderrWithElapsedTimeUnlessQuiet) {
  std::vector<Experiment> e = experiments();
  e[0].run = [](ExperimentContext& ctx) {
    ctx.progress("network resnet50 (1 of 2)");
    ctx.progress("network bert_base (2 of 2)");
    ctx.emit_table("Fig. 1", fig1_table());
  };
  const Result r = run({"--fig", "1", "--out", out_dir()}, e);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err_lines(), 2) << r.err;
  EXPECT_EQ(r.err.rfind("[fig1 ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" s] network resnet50 (1 of 2)\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s] network bert_base (2 of 2)\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("network resnet50"), std::string::npos) << "progress is not a result";
  const Result quiet = run({"--fig", "1", "--quiet", "--out", out_dir()}, e);
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
}

// An item that runs its units one per CPU (parallel_for) prints one line per unit as the unit
// ends: in the order they end (forced here: the last index first), times non-decreasing.
TEST_F(CliTest, ParallelUnitsPrintOneProgressLineEachInTheOrderTheyEnd) {
  constexpr int kUnits = 4;
  std::vector<Experiment> e = experiments();
  e[0].run = [](ExperimentContext& ctx) {
    std::atomic<int> turn{kUnits - 1};
    parallel_for(kUnits, kUnits, [&](int64_t i) {
      while (turn.load() != i) std::this_thread::yield();
      ctx.progress("network " + std::to_string(i));
      turn.store(static_cast<int>(i) - 1);
    });
    ctx.emit_table("Fig. 1", fig1_table());
  };
  const Result r = run({"--fig", "1", "--out", out_dir()}, e);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.err_lines(), kUnits) << r.err;
  std::istringstream lines(r.err);
  double last = 0;
  for (int i = kUnits - 1; i >= 0; --i) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line));
    double t = -1;
    char what[32] = {};
    ASSERT_EQ(std::sscanf(line.c_str(), "[fig1 %lf s] %31[^\n]", &t, what), 2) << line;
    EXPECT_EQ(std::string(what), "network " + std::to_string(i)) << r.err;
    EXPECT_GE(t, last) << r.err;
    last = t;
  }
  const Result quiet = run({"--fig", "1", "--quiet", "--out", out_dir()}, e);
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
}

// A paper's item whose units run one per CPU: Atomic Dataflow's Fig. 12 on a small network (its
// two batches at five engine counts: ten (network, point) pairs) prints its start line, then one
// line per pair as the pair ends, each pair once, times non-decreasing; --quiet none.
TEST_F(CliTest, AtomicFig12PrintsOneProgressLinePerNetworkAndPoint) {
  const auto run_fig12 = [this](bool quiet) {
    std::vector<std::string> args = {"repro_atomic", "--fig", "12",     "--model",
                                     "test_diamond", "--out", out_dir()};
    if (quiet) args.push_back("--quiet");
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    const int code = run_cli(static_cast<int>(argv.size()), argv.data(), atomic::paper_info(),
                             atomic::experiments(), out, err);
    EXPECT_EQ(code, 0) << err.str();
    return err.str();
  };
  std::istringstream lines(run_fig12(false));
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_NE(line.find(" s] every network's points, one per CPU at a time"), std::string::npos)
      << line;
  std::set<std::string> units;
  double last = 0;
  while (std::getline(lines, line)) {
    double t = -1;
    char what[64] = {};
    ASSERT_EQ(std::sscanf(line.c_str(), "[fig12 %lf s] %63[^\n]", &t, what), 2) << line;
    EXPECT_TRUE(units.insert(what).second) << "twice: " << line;
    EXPECT_GE(t, last) << line;
    last = t;
  }
  std::set<std::string> expected;
  for (int batch : {1, 2})
    for (int n : {1, 2, 4, 8, 16})
      expected.insert("test_diamond b" + std::to_string(batch) + ", " + std::to_string(n) + "x" +
                      std::to_string(n) + " engines");
  EXPECT_EQ(units, expected);
  EXPECT_EQ(run_fig12(true), "");
}

}  // namespace
}  // namespace dgs
