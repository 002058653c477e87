// Tests of the experiment scaffolding (cli/): an experiment's hardware (its default, or
// --hw), the paper's data, and which experiments run under --all --mode measured.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "cli/cli.h"
#include "common/hw/hardware.h"
#include "common/util/error.h"
#include "common/util/resources.h"
#include "tests/cli/run_cli_capture.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;
using cli_test::Result;
using cli_test::run;

class ExperimentScaffoldingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dgs_scaffolding_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string out_dir() const { return dir_.string(); }

  // An experiment that records the hardware the scaffolding gives it.
  Experiment hardware_probe(const std::string& number, const std::string& default_hardware) {
    return {.kind = "fig",
            .number = number,
            .caption = "Figure " + number + ": records its hardware",
            .run =
                [this](ExperimentContext& ctx) {
                  seen_hardware_name_ = ctx.hardware_name();
                  seen_gpu_name_ = ctx.gpu().name;
                  seen_gpu_file_ = ctx.gpu().file;
                },
            .default_hardware = default_hardware};
  }

  fs::path dir_;
  std::string seen_hardware_name_ = "<unset>";
  std::string seen_gpu_name_ = "<unset>", seen_gpu_file_ = "<unset>";
};

TEST_F(ExperimentScaffoldingTest, DefaultHardwareIsUsedWithoutHw) {
  const Result r = run({"--fig", "1", "--out", out_dir()}, {hardware_probe("1", "k80")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(seen_hardware_name_, "k80");
  EXPECT_EQ(seen_gpu_name_, load_gpu_spec("k80").name);
  EXPECT_NE(seen_gpu_name_, load_gpu_spec("v100").name);
}

TEST_F(ExperimentScaffoldingTest, HwReplacesTheDefault) {
  const Result r =
      run({"--fig", "1", "--hw", "v100", "--out", out_dir()}, {hardware_probe("1", "k80")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(seen_hardware_name_, "v100");
  EXPECT_EQ(seen_gpu_name_, load_gpu_spec("v100").name);
}

TEST_F(ExperimentScaffoldingTest, HwFileReplacesTheDefault) {
  const std::string path = out_dir() + "/my_gpu.json";
  write_file_atomic(path, std::string(*builtin_resource("hw_configs/a100.json")));
  const Result r =
      run({"--fig", "1", "--hw", path, "--out", out_dir()}, {hardware_probe("1", "k80")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(seen_hardware_name_, path);
  EXPECT_EQ(seen_gpu_file_, path);
  EXPECT_EQ(seen_gpu_name_, load_gpu_spec("a100").name);
}

TEST_F(ExperimentScaffoldingTest, EachExperimentGetsItsOwnDefault) {
  std::vector<std::string> seen;
  auto record = [&seen](ExperimentContext& ctx) { seen.push_back(ctx.gpu().name); };
  const std::vector<Experiment> experiments = {
      {.kind = "fig",
       .number = "1",
       .caption = "on a K80",
       .run = record,
       .default_hardware = "k80"},
      {.kind = "fig",
       .number = "2",
       .caption = "on an A100",
       .run = record,
       .default_hardware = "a100"},
  };
  const Result r = run({"--all", "--out", out_dir()}, experiments);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(seen,
            (std::vector<std::string>{load_gpu_spec("k80").name, load_gpu_spec("a100").name}));
  const Result hw = run({"--all", "--hw", "h100", "--out", out_dir()}, experiments);
  ASSERT_EQ(hw.code, 0) << hw.err;
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[2], load_gpu_spec("h100").name);
  EXPECT_EQ(seen[3], load_gpu_spec("h100").name);
}

TEST_F(ExperimentScaffoldingTest, HardwareIsLoadedOncePerExperiment) {
  std::ostringstream out;
  ExperimentContext ctx("fakepaper", "fig1", RunOptions{}, out, "v100");
  const GpuSpec* first = &ctx.gpu();
  EXPECT_EQ(&ctx.gpu(), first);
  EXPECT_EQ(first->name, load_gpu_spec("v100").name);
}

TEST_F(ExperimentScaffoldingTest, NoHardwareIsAnErrorOfThatExperimentOnly) {
  const Result r =
      run({"--all", "--out", out_dir()}, {hardware_probe("1", ""), hardware_probe("2", "v100")});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "error: fig1: no hardware: the experiment has no default machine; give one with --hw "
            "NAME|FILE.json\n");
  EXPECT_EQ(seen_gpu_name_, load_gpu_spec("v100").name) << "fig2 still ran";
  // --hw gives it one.
  const Result hw =
      run({"--fig", "1", "--hw", "a100", "--out", out_dir()}, {hardware_probe("1", "")});
  EXPECT_EQ(hw.code, 0) << hw.err;
  EXPECT_EQ(seen_gpu_name_, load_gpu_spec("a100").name);
}

// --hw is loaded (load_hardware) before anything runs: a config of a kind the suite does not know
// is a usage error naming the file and the known kinds.
TEST_F(ExperimentScaffoldingTest, ConfigOfAnUnknownKindIsAUsageError) {
  const std::string path = out_dir() + "/mesh.json";
  write_file_atomic(path, "{\"kind\": \"mesh_accelerator\", \"name\": \"a mesh\"}\n");
  const Result r =
      run({"--fig", "1", "--hw", path, "--out", out_dir()}, {hardware_probe("1", "v100")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "error: --hw: " + path +
                       ": kind 'mesh_accelerator' is not known (known kinds: gpu, dsa)\n");
  EXPECT_EQ(seen_gpu_name_, "<unset>");
}

TEST_F(ExperimentScaffoldingTest, PaperDataComesFromTheDataFolderOfThePaper) {
  fs::create_directories(dir_ / "data" / "fakepaper");
  write_file_atomic((dir_ / "data" / "fakepaper" / "fig1.csv").string(),
                    "model,speedup,source\nResNet-50,1.4,Fig. 1\n");
  ASSERT_EQ(setenv("DGS_DATA_DIR", (dir_ / "data").c_str(), 1), 0);
  std::optional<double> value;
  std::string source;
  const Result r = run({"--fig", "1", "--out", out_dir()},
                       {{.kind = "fig",
                         .number = "1",
                         .caption = "reads its paper values",
                         .run = [&](ExperimentContext& ctx) {
                           const PaperData d = ctx.paper_data("fig1.csv");
                           value = d.value({{"model", "ResNet-50"}}, "speedup");
                           source = d.source({{"model", "ResNet-50"}});
                         }}});
  unsetenv("DGS_DATA_DIR");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(value.has_value());
  EXPECT_DOUBLE_EQ(*value, 1.4);
  EXPECT_EQ(source, "Fig. 1");
}

TEST_F(ExperimentScaffoldingTest, MissingPaperDataNamesTheFile) {
  std::ostringstream out;
  const ExperimentContext ctx("fakepaper", "fig1", RunOptions{}, out);
  try {
    (void)ctx.paper_data("no_such.csv");
    FAIL() << "no error for a missing paper data file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("data/fakepaper/no_such.csv"), std::string::npos)
        << e.what();
  }
}

// --all --mode measured runs only the experiments that declare a measured version, on a machine
// with a GPU (simulated here by the probe); without one it refuses before anything runs.
class MeasuredSelectionTest : public ExperimentScaffoldingTest {
 protected:
  std::vector<Experiment> experiments() {
    auto record = [this](ExperimentContext& ctx) {
      ran_.push_back(ctx.experiment_id() +
                     (ctx.options().mode == RunMode::Measured ? ":measured" : ":model"));
    };
    return {
        {.kind = "fig", .number = "1", .caption = "model only", .run = record},
        {.kind = "fig",
         .number = "2",
         .caption = "has a measured version",
         .run = record,
         .has_measured_mode = true},
        {.kind = "table", .number = "1", .caption = "model only", .run = record},
        {.kind = "table",
         .number = "2",
         .caption = "has a measured version",
         .run = record,
         .has_measured_mode = true},
        {.kind = "fig", .number = "3", .caption = "not implemented"},
    };
  }
  std::vector<std::string> ran_;
};

TEST_F(MeasuredSelectionTest, OnlyExperimentsWithAMeasuredVersionRun) {
  const GpuProbe gpu_here = [](LiveGpuProperties* d, std::string*) {
    *d = {"NVIDIA H200", 132, 90, 0};
    return true;
  };
  const Result r =
      run({"--all", "--mode", "measured", "--out", out_dir()}, experiments(), gpu_here);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ran_, (std::vector<std::string>{"fig2:measured", "table2:measured"}));
  EXPECT_NE(r.out.find("skipped fig1: model mode only\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped table1: model mode only\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped fig3: not implemented yet"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 of 2 experiments completed"), std::string::npos) << r.out;
}

TEST_F(MeasuredSelectionTest, ModelModeRunsThemAll) {
  const Result r = run({"--all", "--out", out_dir()}, experiments());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ran_,
            (std::vector<std::string>{"fig1:model", "fig2:model", "table1:model", "table2:model"}));
}

TEST_F(MeasuredSelectionTest, WithoutAGpuNothingRuns) {
  const GpuProbe no_gpu = [](LiveGpuProperties*, std::string* why) {
    *why = "no device in this test";
    return false;
  };
  const Result r = run({"--all", "--mode", "measured", "--out", out_dir()}, experiments(), no_gpu);
  EXPECT_EQ(r.code, 4);
  EXPECT_EQ(r.err, "error: measured mode needs an NVIDIA GPU: no device in this test\n");
  EXPECT_TRUE(ran_.empty());
  EXPECT_EQ(r.out, "");
}

TEST_F(MeasuredSelectionTest, NamingAModelOnlyExperimentIsAUsageErrorEvenWithAGpu) {
  const GpuProbe gpu_here = [](LiveGpuProperties* d, std::string*) {
    *d = {"NVIDIA H200", 132, 90, 0};
    return true;
  };
  const Result r = run({"--fig", "1", "--fig", "2", "--mode", "measured", "--out", out_dir()},
                       experiments(), gpu_here);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: --mode measured: no measured version of fig1 (model mode only; see --list)\n");
  EXPECT_TRUE(ran_.empty());
}

// Measured mode without --hw runs on the built-in config of the live GPU (a fake device here).
class MeasuredHardwareTest : public ExperimentScaffoldingTest {
 protected:
  std::vector<Experiment> experiments() {
    return {{.kind = "fig",
             .number = "1",
             .caption = "measured",
             .run = [this](ExperimentContext& ctx) { hw_ = ctx.hardware_name(); },
             .has_measured_mode = true,
             .default_hardware = "v100"}};
  }
  static GpuProbe device(LiveGpuProperties p) {
    return [p](LiveGpuProperties* d, std::string*) {
      *d = p;
      return true;
    };
  }
  std::string hw_;
};

TEST_F(MeasuredHardwareTest, TheLiveGpusConfigIsTheDefault) {
  const Result r = run({"--fig", "1", "--mode", "measured", "--out", out_dir()}, experiments(),
                       device({"NVIDIA H200", 132, 90, 0}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(hw_, "h200");
  EXPECT_NE(r.out.find("hw: h200 (the live GPU's config)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: hardware: the live GPU 'NVIDIA H200' is hw_configs/h200.json"),
            std::string::npos)
      << r.out;
}

TEST_F(MeasuredHardwareTest, AnHwFlagWins) {
  const Result r = run({"--fig", "1", "--mode", "measured", "--hw", "a100", "--out", out_dir()},
                       experiments(), device({"NVIDIA H200", 132, 90, 0}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(hw_, "a100");
}

TEST_F(MeasuredHardwareTest, AGpuWithoutAConfigIsRefusedInOneLine) {
  const Result r = run({"--fig", "1", "--mode", "measured", "--out", out_dir()}, experiments(),
                       device({"NVIDIA L4", 58, 89, 0}));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err_lines(), 1) << r.err;
  EXPECT_EQ(r.err.rfind("error: --mode measured: no built-in GPU config matches the live GPU "
                        "'NVIDIA L4' (58 SMs, sm_89)",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("give --hw NAME|FILE.json"), std::string::npos) << r.err;
  EXPECT_TRUE(hw_.empty());
}

TEST_F(MeasuredHardwareTest, FullProtocolIsAnOption) {
  bool full = false;
  const std::vector<Experiment> e = {
      {.kind = "fig",
       .number = "1",
       .caption = "measured",
       .run = [&](ExperimentContext& ctx) { full = ctx.options().full_protocol; },
       .has_measured_mode = true}};
  const Result r = run({"--fig", "1", "--mode", "measured", "--full-protocol", "--out", out_dir()},
                       e, device({"NVIDIA H200", 132, 90, 0}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(full);
}

}  // namespace
}  // namespace dgs
