// repro_brickdl end to end in model mode: every figure runs and writes its table, SVG, claims and
// notes; the claims the model is built to reproduce hold (the brick-size rule, the delta rule on
// ResNet-50, the orderings of Fig. 11); measured mode without a GPU refuses in one line (exit 4).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"
#include "reproductions/brickdl/experiments/experiment_list.h"
#include "reproductions/brickdl/perf_model.h"
#include "tests/scratch_dir.h"

namespace dgs::brickdl {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int code = -1;
  std::string out, err;
};

CliRun run_repro(const std::vector<std::string>& args, const GpuProbe& gpu = {}) {
  std::vector<const char*> argv = {"repro_brickdl"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliRun r;
  r.code = run_cli(static_cast<int>(argv.size()), argv.data(), paper_info(), experiments(), out,
                   err, gpu);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ReproBrickdl, AllFiguresRunInModelMode) {
  const ScratchDir scratch("brickdl_experiments_test");
  const fs::path& dir = scratch.path();
  const CliRun r = run_repro({"--all", "--out", dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* id : {"fig7", "fig8", "fig9", "fig10", "fig11"}) {
    for (const char* suffix : {".csv", ".svg", "_claims.csv", "_notes.txt"})
      EXPECT_TRUE(fs::exists(dir / "brickdl" / (std::string(id) + suffix))) << id << suffix;
  }
  // Claims the static model reproduces exactly.
  const std::string c8 = read(dir / "brickdl" / "fig8_claims.csv");
  EXPECT_NE(c8.find("subgraphs where the delta rule picks the paper's variant,"),
            std::string::npos);
  EXPECT_NE(c8.find("paper's variant,§4.4: subgraphs 3-7 have delta > 15%"), std::string::npos);
  EXPECT_NE(c8.find(",count,7,,7,"), std::string::npos) << c8;
  const std::string c11 = read(dir / "brickdl" / "fig11_claims.csv");
  EXPECT_NE(c11.find(",count,16,,16,"), std::string::npos) << c11;
  EXPECT_NE(c11.find("B,paper's method,holds"), std::string::npos) << c11;
  EXPECT_NE(c11.find("variants for which 4^3 is the slowest brick"), std::string::npos);
  // The TorchScript and XLA bars are labelled, not invented.
  const std::string f7 = read(dir / "brickdl" / "fig7.csv");
  EXPECT_NE(f7.find("TorchScript (not reproduced)"), std::string::npos);
}

TEST(ReproBrickdl, MeasuredModeWithoutGpuRefusesInOneLine) {
  const CliRun r =
      run_repro({"--fig", "11", "--mode", "measured"}, [](LiveGpuProperties*, std::string* why) {
        *why = "no GPU in this test";
        return false;
      });
  EXPECT_EQ(r.code, 4);
  EXPECT_EQ(r.err, "error: measured mode needs an NVIDIA GPU: no GPU in this test\n");
}

}  // namespace
}  // namespace dgs::brickdl

namespace dgs::brickdl {
namespace {

// The model's per-atomic cost is a declared assumption derived from the hardware config (a round
// trip to L2 in SM cycles at the config's clock), never the paper's A100 value, which sits in
// data/brickdl/constants.csv only to be compared.
TEST(BrickdlModelInputs, AtomicCostIsTheConfigsAssumptionNotThePapersValue) {
  const GpuSpec a100 = load_gpu_spec("a100");
  EXPECT_DOUBLE_EQ(atomic_ns(a100), kAtomicRoundTripCycles / a100.core_clock_mhz * 1e3);
  GpuSpec slower = a100;
  slower.core_clock_mhz = a100.core_clock_mhz / 2;
  EXPECT_DOUBLE_EQ(atomic_ns(slower), 2 * atomic_ns(a100));  // follows the config
  const PaperData d = PaperData::load("brickdl", "constants.csv");
  EXPECT_NE(*d.value({{"quantity", "t_atomic_ns"}}, "value"), atomic_ns(a100));
  EXPECT_NE(atomic_cost_note(a100).find("ASSUMPTION"), std::string::npos);
  GpuSpec no_clock = a100;
  no_clock.core_clock_mhz = 0;
  EXPECT_THROW(atomic_ns(no_clock), Error);
}

}  // namespace
}  // namespace dgs::brickdl
