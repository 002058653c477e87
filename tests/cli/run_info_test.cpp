// The environment fingerprint a --all run leaves beside its summary (cli/run_info.h):
// run_info.csv names the build (the same values as the run's header line), the hardware configs
// read with the hash of their text, the host, the start and wall time, and in measured mode the
// GPU; items.csv gives each item's status, machine and wall time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/run_info.h"
#include "common/cuda/device.h"
#include "common/report/report_folder.h"
#include "common/report/report_page.h"
#include "common/util/build_info.h"
#include "common/util/error.h"
#include "common/util/resources.h"
#include "tests/cli/run_cli_capture.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

class RunInfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dgs_run_info_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // run_info.csv of the fake paper's last --all run: field -> value.
  std::map<std::string, std::string> run_info_fields() const {
    const CsvFile f = read_csv_file((dir_ / "fakepaper" / "run_info.csv").string());
    EXPECT_EQ(f.header, (std::vector<std::string>{"field", "value"}));
    std::map<std::string, std::string> out;
    for (size_t i = 0; i < f.rows.size(); ++i) out[f.get(i, "field")] = f.get(i, "value");
    return out;
  }

  // One experiment that prices nothing but reads its default GPU config (k80).
  static std::vector<Experiment> one_experiment() {
    return {{.kind = "fig",
             .number = "1",
             .caption = "reads its machine",
             .run = [](ExperimentContext& ctx) { (void)ctx.gpu(); },
             .has_measured_mode = true,
             .default_hardware = "k80"}};
  }

  fs::path dir_;
};

TEST_F(RunInfoTest, AllRunWritesTheBuildTheConfigsReadAndTheTimes) {
  const cli_test::Result r =
      cli_test::run({"--all", "--seed", "7", "--out", dir_.string()}, one_experiment());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::map<std::string, std::string> v = run_info_fields();
  const BuildInfo& b = build_info();
  EXPECT_EQ(v.at("paper"), "fakepaper");
  EXPECT_EQ(v.at("mode"), "model");
  EXPECT_EQ(v.at("seed"), "7");
  EXPECT_EQ(v.at("commit"), b.commit);
  EXPECT_EQ(v.at("build_type"), b.build_type);
  EXPECT_EQ(v.at("compiler"), b.compiler);
  EXPECT_EQ(v.at("cuda"), b.cuda);
  EXPECT_EQ(v.at("cudnn"), b.cudnn);
  // The header line names the same build.
  EXPECT_NE(r.out.find(std::string("build ") + b.commit + " (" + b.build_type + ", " + b.compiler),
            std::string::npos)
      << r.out;
  // Each config read, with a hash of its text.
  EXPECT_TRUE(
      std::regex_match(v.at("hardware_configs"), std::regex("hw_configs/k80\\.json#[0-9a-f]{16}")))
      << v.at("hardware_configs");
  EXPECT_FALSE(v.at("host_cpu").empty());
  EXPECT_GE(std::stoi(v.at("host_threads")), 1);
  EXPECT_TRUE(std::regex_match(v.at("started_utc"),
                               std::regex("20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-9:]{8}Z")))
      << v.at("started_utc");
  EXPECT_GE(std::stod(v.at("wall_s")), 0);
  EXPECT_EQ(v.count("gpu"), 0u) << "model mode names no GPU";
  // items.csv: the item's caption, status, machine and wall time.
  const CsvFile items = read_csv_file((dir_ / "fakepaper" / "items.csv").string());
  ASSERT_EQ(items.rows.size(), 1u);
  EXPECT_EQ(items.get(0, "item"), "fig1");
  EXPECT_EQ(items.get(0, "caption"), "reads its machine");
  EXPECT_EQ(items.get(0, "status"), "ran");
  EXPECT_EQ(items.get(0, "hardware"), "hw_configs/k80.json");
  EXPECT_GE(std::stod(items.get(0, "wall_s")), 0);
}

TEST_F(RunInfoTest, MeasuredRunNamesTheGpu) {
  const GpuProbe gpu_here = [](LiveGpuProperties* d, std::string*) {
    *d = {"NVIDIA H200", 132, 90, 0};
    return true;
  };
  const cli_test::Result r =
      cli_test::run({"--all", "--mode", "measured", "--hw", "k80", "--out", dir_.string()},
                    one_experiment(), gpu_here);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::map<std::string, std::string> v = run_info_fields();
  EXPECT_EQ(v.at("mode"), "measured");
  EXPECT_EQ(v.at("hw"), "k80");
  // The GPU the CUDA runtime reports: its name, driver, clock and memory; on a machine where the
  // runtime has none (a build without CUDA: the probe above is fake), "unknown (why)".
  ASSERT_EQ(v.count("gpu"), 1u);
  if (v.at("gpu").rfind("unknown (", 0) != 0) {
    for (const char* f :
         {"gpu_driver", "gpu_cuda_driver_api", "cudnn_loaded", "gpu_core_clock_mhz", "gpu_memory"})
      EXPECT_EQ(v.count(f), 1u) << f;
  }
}

// The driver version from /proc/driver/nvidia/version's line, for both kernel modules: the open
// module's line (the H200 of 2026-11-30) has "for x86_64" after "Kernel Module", which the
// run_info of that run gave as the driver.
TEST(NvidiaDriverVersion, IsTheFirstDottedNumberOfEitherModulesLine) {
  EXPECT_EQ(nvidia_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                  "580.159.04  Release Build  (dvs-builder@U22-I3-AF03-09-1)  "
                                  "Thu Aug 28 00:58:47 UTC 2025"),
            "580.159.04");
  EXPECT_EQ(nvidia_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  "
                                  "Sat Aug 19 01:15:15 UTC 2023"),
            "535.104.05");
  EXPECT_EQ(nvidia_driver_version("NVRM version: unreadable"), "NVRM version: unreadable");
}

// The loaded libraries' version numbers as text (run_info's gpu_cuda_driver_api and
// cudnn_loaded): cuDNN changed its encoding at 9 (CUDNN_VERSION 91400 is 9.14.0, 8906 is 8.9.6).
TEST(LoadedCudaVersions, NumbersAsText) {
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(12040), "12.4");
  EXPECT_EQ(cudnn_version_text(91400), "9.14.0");
  EXPECT_EQ(cudnn_version_text(91900), "9.19.0");
  EXPECT_EQ(cudnn_version_text(8906), "8.9.6");
}

// items.csv of the fake paper's folder: item -> (status, hardware, wall_s).
std::map<std::string, std::vector<std::string>> item_rows(const fs::path& dir) {
  const CsvFile f = read_csv_file((dir / "fakepaper" / "items.csv").string());
  EXPECT_EQ(f.header,
            (std::vector<std::string>{"item", "caption", "status", "hardware", "wall_s"}));
  std::map<std::string, std::vector<std::string>> out;
  for (size_t i = 0; i < f.rows.size(); ++i)
    out[f.get(i, "item")] = {f.get(i, "status"), f.get(i, "hardware"), f.get(i, "wall_s")};
  return out;
}

// fig1 (reads k80), fig2 (not implemented), table3 (reads v100), fig4 (fails).
std::vector<Experiment> four_experiments() {
  return {{.kind = "fig",
           .number = "1",
           .caption = "reads k80",
           .run = [](ExperimentContext& ctx) { (void)ctx.gpu(); },
           .default_hardware = "k80"},
          {.kind = "fig", .number = "2", .caption = "not there yet"},
          {.kind = "table",
           .number = "3",
           .caption = "reads v100",
           .run = [](ExperimentContext& ctx) { (void)ctx.gpu(); },
           .default_hardware = "v100"},
          {.kind = "fig", .number = "4", .caption = "fails", .run = [](ExperimentContext&) -> void {
             throw Error("broken");
           }}};
}

// A run of one item (no --all) leaves the fingerprint too, naming that item, and items.csv with
// its row; a second item run into the same folder keeps the first's row and names itself.
TEST_F(RunInfoTest, ASingleItemRunLeavesAFingerprintNamingItAndASecondKeepsTheFirstsRow) {
  const cli_test::Result r =
      cli_test::run({"--fig", "1", "--quiet", "--out", dir_.string()}, four_experiments());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::map<std::string, std::string> v = run_info_fields();
  EXPECT_EQ(v.at("paper"), "fakepaper");
  EXPECT_EQ(v.at("items"), "fig1");
  EXPECT_EQ(v.at("commit"), build_info().commit);
  EXPECT_GE(std::stod(v.at("wall_s")), 0);
  EXPECT_FALSE(fs::exists(dir_ / "fakepaper" / "summary.csv")) << "only --all sums up a paper";
  std::map<std::string, std::vector<std::string>> rows = item_rows(dir_);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows.at("fig1")[0], "ran");
  EXPECT_EQ(rows.at("fig1")[1], "hw_configs/k80.json");
  EXPECT_FALSE(rows.at("fig1")[2].empty());
  EXPECT_EQ(rows.at("fig2"), (std::vector<std::string>{"not implemented yet", "", ""}));
  EXPECT_EQ(rows.at("table3"), (std::vector<std::string>{"not run", "", ""}));
  const std::vector<std::string> fig1_row = rows.at("fig1");

  // The second item, and a failing one: both rows are this run's, fig1's stays as it was.
  const cli_test::Result second = cli_test::run(
      {"--table", "3", "--fig", "4", "--quiet", "--out", dir_.string()}, four_experiments());
  EXPECT_EQ(second.code, 1);
  v = run_info_fields();
  EXPECT_EQ(v.at("items"), "fig4, table3");  // the run's order: figures, then tables
  rows = item_rows(dir_);
  EXPECT_EQ(rows.at("fig1"), fig1_row);
  EXPECT_EQ(rows.at("table3")[0], "ran");
  EXPECT_EQ(rows.at("table3")[1], "hw_configs/v100.json");
  EXPECT_EQ(rows.at("fig4")[0], "failed");
}

// A selection none of whose items completed is a refusal: it leaves no record (nor anything else).
TEST_F(RunInfoTest, ASelectionWhoseItemsAllFailLeavesNoRecord) {
  const cli_test::Result r =
      cli_test::run({"--fig", "4", "--quiet", "--out", dir_.string()}, four_experiments());
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: fig4: broken\n");
  EXPECT_FALSE(fs::exists(dir_ / "fakepaper" / "items.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "fakepaper" / "run_info.csv"));
}

// An item run into the folder of an --all keeps every other row of the --all's items.csv and its
// summary.csv; the fingerprint is the item run's, the page builder still reads the folder.
TEST_F(RunInfoTest, AnItemRunIntoAnAllRunsFolderKeepsTheOtherRowsAndTheSummary) {
  ASSERT_EQ(cli_test::run({"--all", "--quiet", "--out", dir_.string()}, four_experiments()).code,
            1);  // fig4 fails
  EXPECT_EQ(run_info_fields().at("items"), "all");
  const std::map<std::string, std::vector<std::string>> before = item_rows(dir_);
  const std::string summary = read_file((dir_ / "fakepaper" / "summary.csv").string());
  const cli_test::Result r =
      cli_test::run({"--fig", "1", "--quiet", "--out", dir_.string()}, four_experiments());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::map<std::string, std::vector<std::string>> after = item_rows(dir_);
  ASSERT_EQ(after.size(), before.size());
  for (const auto& [item, row] : before) {
    if (item == "fig1") continue;
    EXPECT_EQ(after.at(item), row) << item;
  }
  EXPECT_EQ(after.at("fig4")[0], "failed");
  EXPECT_EQ(after.at("fig1")[0], "ran");
  EXPECT_EQ(read_file((dir_ / "fakepaper" / "summary.csv").string()), summary);
  EXPECT_EQ(run_info_fields().at("items"), "fig1");
  const ReportFolder folder = read_report_folder((dir_ / "fakepaper").string());
  EXPECT_EQ(folder.run_info_value("items"), "fig1");
  ASSERT_EQ(folder.items.size(), 4u);
  EXPECT_EQ(folder.items[3].status, "failed");
  // The page says the last run's wall time is an item's, not the paper's.
  const ReportPage page = build_report_page(dir_.string());
  EXPECT_NE(page.markdown.find(" s (items: fig1).\n"), std::string::npos) << page.markdown;
  EXPECT_NE(page.html.find(" s (items: fig1)</p>"), std::string::npos);
}

}  // namespace
}  // namespace dgs
