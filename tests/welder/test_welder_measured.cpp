// Welder Fig. 2 in measured mode (reproductions/welder/experiments/measured.h): without a GPU it
// refuses in one line; with a GPU it runs on the live device and every kernel (the fused
// GEMM+softmax above all) equals the CPU reference. Figs. 2 and 13 offer a measured version (Fig.
// 13's GPU run is tested at small sizes in tests/welder/test_welder_tile_program.cpp).
#include "reproductions/welder/experiments/measured.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include "cli/cli.h"
#include "common/cuda/device.h"
#include "common/util/error.h"
#include "reproductions/welder/experiments/experiment_list.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {
namespace {

namespace fs = std::filesystem;

// A fresh, empty output directory for one test (removed when the test ends).
struct TempOut {
  fs::path dir;
  explicit TempOut(const std::string& tag)
      : dir(fs::path(::testing::TempDir()) /
            ("dgs_welder_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempOut() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

RunOptions measured_options(const fs::path& out) {
  RunOptions o;
  o.mode = RunMode::Measured;
  o.out_dir = out.string();
  o.seed = 3;
  return o;
}

TEST(WelderMeasured, Figures2And13HaveAMeasuredVersion) {
  int measured = 0;
  for (const Experiment& e : experiments()) {
    EXPECT_EQ(e.has_measured_mode, e.id() == "fig2" || e.id() == "fig13") << e.id();
    measured += e.has_measured_mode ? 1 : 0;
  }
  EXPECT_EQ(measured, 2);
}

// Without a GPU the CLI refuses measured Fig. 13 in one line (exit 4) and writes nothing.
TEST(WelderMeasured, CliRefusesMeasuredFigure13WithoutGpu) {
  std::string why;
  if (cuda_gpu_available(&why)) GTEST_SKIP() << "a GPU is present: the refusal is not reachable";
  TempOut tmp("fig13");
  const std::string out_dir = tmp.dir.string();
  const char* argv[] = {"repro_welder", "--fig", "13",           "--mode",
                        "measured",     "--out", out_dir.c_str()};
  std::ostringstream out, err;
  const PaperInfo paper{"welder", "Welder", "welder_osdi23.txt"};
  const int code = run_cli(7, argv, paper, experiments(), out, err);
  EXPECT_EQ(code, 4) << err.str();
  const std::string e = err.str();
  EXPECT_NE(e.find("needs an NVIDIA GPU"), std::string::npos) << e;
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
  EXPECT_TRUE(fs::is_empty(tmp.dir));
}

// Called directly (past the CLI), measured Fig. 13 refuses in one line too.
TEST(WelderMeasured, Figure13RefusesInOneLineWithoutGpu) {
  std::string why;
  if (cuda_gpu_available(&why)) GTEST_SKIP() << "a GPU is present: the refusal is not reachable";
  TempOut tmp("refuse13");
  std::ostringstream out;
  ExperimentContext ctx("welder", "fig13", measured_options(tmp.dir), out, "v100_pcie");
  try {
    run_fig13(ctx);
    FAIL() << "measured Fig. 13 ran without a GPU";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("fig13 --mode measured needs an NVIDIA GPU"), std::string::npos) << msg;
  }
  EXPECT_TRUE(out.str().empty()) << out.str();
  EXPECT_TRUE(fs::is_empty(tmp.dir));
}

TEST(WelderMeasured, Figure2RefusesInOneLineWithoutGpu) {
  std::string why;
  if (cuda_gpu_available(&why)) GTEST_SKIP() << "a GPU is present: the refusal is not reachable";
  TempOut tmp("refuse");
  std::ostringstream out;
  ExperimentContext ctx("welder", "fig2", measured_options(tmp.dir), out, "v100_pcie");
  try {
    run_fig2(ctx);
    FAIL() << "measured Fig. 2 ran without a GPU";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("needs an NVIDIA GPU"), std::string::npos) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
  }
  EXPECT_TRUE(out.str().empty()) << out.str();
  EXPECT_TRUE(fs::is_empty(tmp.dir));
}

TEST(WelderMeasured, Figure2FusedKernelEqualsCpuReferenceOnGpu) {
  std::string why;
  if (!cuda_gpu_available(&why)) GTEST_SKIP() << "needs an NVIDIA GPU; here: " << why;
  TempOut tmp("fig2");
  std::ostringstream out;
  ExperimentContext ctx("welder", "fig2", measured_options(tmp.dir), out, "v100_pcie");
  const Fig2Measured m = measure_fig2(ctx);
  const Fig2Measurement& fused = m.row("fused");
  EXPECT_TRUE(fused.verified) << fused.check;
  EXPECT_EQ(fused.launches, 1);
  EXPECT_GT(fused.median_ms, 0.0);
  EXPECT_EQ(m.row("unfused").launches, 2);
  for (const Fig2Measurement& r : m.rows) {
    EXPECT_TRUE(r.verified) << r.kernel << ": " << r.check;
    EXPECT_GT(r.median_ms, 0.0) << r.kernel;
  }
  EXPECT_FALSE(ctx.commit_files().empty());
  EXPECT_TRUE(fs::exists(tmp.dir / "welder" / "fig2.csv")) << out.str();
}

}  // namespace
}  // namespace dgs::welder
