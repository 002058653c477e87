// gpu_validate's per-kernel rows (Welder Fig. 13's schedules timed kernel by kernel): their ids,
// their replay, their pricing, the CSV writers and the program's outputs; all without a GPU (the
// timing half runs on a GPU: tools/gpu_check.sh).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/hw/hardware.h"
#include "common/util/error.h"
#include "validation/validation_cases.h"
#include "validation/validation_report.h"

// Its own namespace: the test program is one unity translation unit with validation_test.cpp.
namespace dgs::validation::kernel_rows_test {
namespace {

const std::string kNone = "welder_fig13.vit_s32.b8.Welder-none";
const std::string kWelder = "welder_fig13.vit_s32.b8.Welder";

const std::vector<ValidationCase>& cases() {
  static const std::vector<ValidationCase> c = validation_cases(true);
  return c;
}
std::vector<std::string> ids() {
  std::vector<std::string> v;
  for (const ValidationCase& c : cases()) v.push_back(c.id);
  return v;
}
const ValidationCase& find(const std::string& id) {
  for (const ValidationCase& c : cases())
    if (c.id == id) return c;
  throw Error("no case " + id);
}
std::string lf(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '\r'), s.end());
  return s;
}
const GpuSpec& h200() {
  static const GpuSpec s = load_gpu_spec("h200");
  return s;
}
// A file's text with the CSV writer's CRLF line ends read as LF.
std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return lf(ss.str());
}

// The two Welder rows of the 2026-11-29 run and three kernel rows (made-up measurements), in
// the order gpu_validate writes a replay file.
const char* kReplay =
    "id,measured_ms,source\n"
    "welder_fig13.vit_s32.b8.Welder-none,74.4375,run\n"
    "welder_fig13.vit_s32.b8.Welder,31.2541,run\n"
    "welder_fig13.vit_s32.b8.Welder-none/k47,4,run; kernel 47 launched alone\n"
    "welder_fig13.vit_s32.b8.Welder/k0,0.5,run; kernel 0 launched alone\n"
    "welder_fig13.vit_s32.b8.Welder/k7,2,run; kernel 7 launched alone\n";

TEST(KernelRows, IdIsTheCaseSlashKAndTheIndex) {
  EXPECT_EQ(kernel_row_id(kWelder, 12), kWelder + "/k12");
  EXPECT_EQ(kernel_row_id("a", 0), "a/k0");
}

// Only Welder Fig. 13's end-to-end cases are timed kernel by kernel.
TEST(KernelRows, OnlyTheWelderSchedulesAreTimedKernelByKernel) {
  for (const ValidationCase& c : cases()) {
    const bool welder = c.id == kNone || c.id == kWelder;
    EXPECT_EQ(static_cast<bool>(c.predict_kernels), welder) << c.id;
    EXPECT_EQ(static_cast<bool>(c.measured_kernels), welder) << c.id;
  }
}

// The schedule's kernels run one after another on one stream, so the kernels priced alone add up
// to the end-to-end prediction (the simulation of the whole sequence), to rounding.
TEST(KernelRows, TheKernelsPricedAloneAddUpToTheEndToEndPrediction) {
  for (const std::string& id : {kNone, kWelder}) {
    const ValidationCase& c = find(id);
    const std::vector<KernelPrediction> p = c.predict_kernels(h200());
    double sum = 0;
    for (const KernelPrediction& k : p) {
      EXPECT_GT(k.predicted_ms, 0) << k.name;
      EXPECT_NE(k.detail.find(" tiles on "), std::string::npos) << k.detail;
      sum += k.predicted_ms;
    }
    EXPECT_NEAR(sum / c.predict_ms(h200()), 1.0, 1e-6) << id;
    // The schedules that ran on the H200 (validation/README.md): 556 and 77 kernels.
    EXPECT_EQ(p.size(), id == kNone ? 556u : 77u) << id;
  }
}

TEST(KernelRows, ReplayAcceptsKernelRowsOfKnownCasesOnly) {
  const auto m = read_replay(kReplay, "k.csv", ids());
  EXPECT_EQ(m.size(), 5u);
  EXPECT_EQ(m.at(kWelder + "/k7").measured_ms, 2.0);
  auto refused = [&](const std::string& row) {
    try {
      read_replay("id,measured_ms,source\n" + row + "\n", "r.csv", ids());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused("nosuchcase/k0,1,x"),
            "r.csv:2: unknown case 'nosuchcase/k0' (see gpu_validate --list)");
  EXPECT_EQ(refused(kWelder + "/k01,1,x"),
            "r.csv:2: unknown case '" + kWelder + "/k01' (see gpu_validate --list)");
  EXPECT_EQ(refused(kWelder + "/k,1,x"),
            "r.csv:2: unknown case '" + kWelder + "/k' (see gpu_validate --list)");
  EXPECT_EQ(refused(kWelder + "/k3,-1,x"), "r.csv:2: measured_ms '-1' is not a positive number");
}

// Kernel rows are priced alone, one per measurement, and never enter the cases' rows, summary or
// pairs; an index the schedule does not have is an error naming it.
TEST(KernelRows, PricedAloneAndNeverInTheSummary) {
  const auto m = read_replay(kReplay, "k.csv", ids());
  const std::vector<ValidationRow> rows = priced_rows(cases(), m, h200());
  ASSERT_EQ(rows.size(), 2u);
  const std::vector<KernelRow> k = priced_kernel_rows(cases(), m, h200());
  ASSERT_EQ(k.size(), 3u);  // in the cases' order: Welder-none first, then Welder's by index
  EXPECT_EQ(k[0].id, kNone + "/k47");
  EXPECT_EQ(k[1].id, kWelder + "/k0");
  EXPECT_EQ(k[2].id, kWelder + "/k7");
  EXPECT_EQ(k[2].index, 7u);
  const std::vector<KernelPrediction> p = find(kWelder).predict_kernels(h200());
  EXPECT_EQ(k[2].name, p[7].name);
  EXPECT_EQ(k[2].predicted_ms, p[7].predicted_ms);
  EXPECT_DOUBLE_EQ(k[2].rel_error(), p[7].predicted_ms / 2.0 - 1.0);
  const std::vector<GroupSummary> s = summarize(rows);
  for (const GroupSummary& g : s) EXPECT_LE(g.cases, 2) << g.group;

  const auto bad = read_replay(std::string(kReplay) + kWelder + "/k77,1,x\n", "k.csv", ids());
  try {
    priced_kernel_rows(cases(), bad, h200());
    ADD_FAILURE() << "kernel 77 of 77 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "kernel row '" + kWelder + "/k77': the schedule on " +
                                         h200().file + " has 77 kernels");
  }
  // A live row names its kernel: the right name is accepted, another is refused by name.
  const std::string named = kWelder + "/k8,2,run; kernel 8 launched alone" + kKernelNameTag;
  const auto right = read_replay(std::string(kReplay) + named + p[8].name + "\n", "k.csv", ids());
  EXPECT_EQ(priced_kernel_rows(cases(), right, h200()).size(), 4u);
  const auto wrong = read_replay(std::string(kReplay) + named + p[6].name + "\n", "k.csv", ids());
  try {
    priced_kernel_rows(cases(), wrong, h200());
    ADD_FAILURE() << "kernel 8 measured as kernel 6's name accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "kernel row '" + kWelder + "/k8' was measured on kernel '" +
                                         p[6].name + "'; the schedule on " + h200().file +
                                         " has '" + p[8].name +
                                         "' there (replay with the run's --hw)");
  }
}

// The writers: the per-kernel table, the notes' lines (hand-computed from two rows) and the
// replay table, which read_replay reads back to the same measurements.
TEST(KernelRows, WritersAndTheirReplayRoundTrip) {
  KernelRow a, b;
  a.id = kWelder + "/k0", a.case_id = kWelder, a.index = 0, a.name = "x..y", a.detail = "Add";
  a.measured_ms = 2.0, a.predicted_ms = 3.0, a.source = "run";  // +50%
  b = a;
  b.id = kWelder + "/k1", b.index = 1, b.measured_ms = 4.0, b.predicted_ms = 3.0;  // -25%
  EXPECT_EQ(kernel_summary({a, b}),
            "kernels of " + kWelder +
                ": 2 timed alone, mae 0.3750, signed mean +0.1250; sum measured 6.0000 ms, "
                "predicted 6.0000 ms\n");
  const std::string csv = lf(to_csv(kernel_rows_table({a, b})));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "id,case,index,kernel,measured_ms,predicted_ms,rel_error,model,source");
  EXPECT_NE(csv.find(kWelder + "/k1," + kWelder + ",1,x..y,4,3,-0.25,Add,run"), std::string::npos)
      << csv;
  ValidationRow r;
  r.id = kWelder, r.measured_ms = 31.2541, r.source = "run, with a comma";
  const auto back = read_replay(to_csv(replay_table({r}, {a, b})), "back.csv", ids());
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back.at(kWelder).measured_ms, 31.2541);
  EXPECT_EQ(back.at(kWelder).source, "run, with a comma");
  EXPECT_EQ(back.at(kWelder + "/k1").measured_ms, 4.0);
}

int run_validate(const std::string& args, const std::string& out = "/dev/null") {
  return std::system(
      (std::string(DGS_BINARY_DIR) + "/gpu_validate " + args + " >" + out + " 2>/dev/null")
          .c_str());
}

// gpu_validate --replay with kernel rows writes them to gpu_validate_kernels.csv and a line per
// case to the notes, leaves the summary as without them, and writes the replay file back.
TEST(KernelRows, GpuValidateReplaysThemIntoTheirOwnCsv) {
  const std::string dir = std::string(DGS_BINARY_DIR) + "/kernel_rows_test_" +
                          std::to_string(static_cast<long>(getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir + "/with.csv") << kReplay;
    std::string without(kReplay);
    without = without.substr(0, without.find(kNone + "/k47"));
    std::ofstream(dir + "/without.csv") << without;
  }
  ASSERT_EQ(run_validate("--replay " + dir + "/with.csv --hw h200 --out " + dir + "/a"), 0);
  ASSERT_EQ(run_validate("--replay " + dir + "/without.csv --hw h200 --out " + dir + "/b"), 0);
  EXPECT_EQ(read(dir + "/a/gpu_validate_summary.csv"), read(dir + "/b/gpu_validate_summary.csv"));
  EXPECT_EQ(read(dir + "/a/gpu_validate.csv"), read(dir + "/b/gpu_validate.csv"));
  const std::string kcsv = read(dir + "/a/gpu_validate_kernels.csv");
  EXPECT_EQ(std::count(kcsv.begin(), kcsv.end(), '\n'), 4) << kcsv;
  EXPECT_FALSE(std::filesystem::exists(dir + "/b/gpu_validate_kernels.csv"));
  EXPECT_NE(read(dir + "/a/gpu_validate_notes.txt").find("kernels of " + kWelder + ": 2 timed"),
            std::string::npos);
  EXPECT_EQ(read(dir + "/a/gpu_validate_replay.csv"), kReplay);
  // --predict-kernels: every kernel of both schedules, no GPU and no measurement needed.
  ASSERT_EQ(run_validate("--predict-kernels --hw h200", dir + "/p.csv"), 0);
  const std::string p = read(dir + "/p.csv");
  EXPECT_EQ(std::count(p.begin(), p.end(), '\n'), 1 + 556 + 77);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dgs::validation::kernel_rows_test
