// Every paper's `--all` run, checked for what the reports promise: each figure writes its SVG,
// the run ends with summary.csv, items.csv and run_info.csv, every numeric value of data/<paper>/
// is read by some item (so no published number sits in data/ without being compared), and the
// run's files equal the committed expected results, reports/<paper>/ of the source tree, except
// the values that differ between runs or machines (run_varying_values(),
// common/report/report_compare.h). Papers with nothing implemented yet are skipped.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/report/report_compare.h"
#include "common/util/resources.h"
#include "reproductions/papers.h"

namespace dgs {

// gtest prints the parameter with this (its key, not its bytes); found by ADL, so in dgs.
void PrintTo(const PaperEntry& p, std::ostream* os) {
  *os << p.key;
}

namespace {

namespace fs = std::filesystem;

class PaperReports : public ::testing::TestWithParam<PaperEntry> {};

TEST_P(PaperReports, AllRunWritesEverySvgTheSummaryAndReadsEveryPaperValue) {
  const PaperEntry& paper = GetParam();
  const std::vector<Experiment> experiments = paper.experiments();
  bool any = false;
  for (const Experiment& e : experiments) any = any || static_cast<bool>(e.run);
  if (!any) GTEST_SKIP() << paper.key << ": nothing implemented yet";
  const fs::path dir = fs::temp_directory_path() /
                       ("dgs_paper_reports_" + paper.key + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string out_dir = dir.string();
  const char* argv[] = {"repro", "--all", "--out", out_dir.c_str()};
  std::ostringstream out, err;
  const PaperInfo info = paper.info();
  const int code = run_cli(4, argv, info, experiments, out, err);
  ASSERT_EQ(code, 0) << err.str();
  for (const Experiment& e : experiments) {
    if (e.kind != "fig" || !e.run) continue;
    EXPECT_TRUE(fs::exists(dir / info.key / (e.id() + ".svg"))) << e.id() << " wrote no SVG";
  }
  for (const char* f : {"summary.csv", "items.csv", "run_info.csv"})
    EXPECT_TRUE(fs::exists(dir / info.key / f)) << f;
  EXPECT_NE(out.str().find("every numeric value of data/" + info.key + "/ is read by some item"),
            std::string::npos)
      << out.str().substr(out.str().rfind("claims: "));
  // The expected results: the committed model-mode reports.
  const fs::path committed = fs::path(DGS_SOURCE_DIR) / "reports" / info.key;
  const std::vector<std::string> diffs =
      compare_report_folders(committed.string(), (dir / info.key).string(), 1, info.key + "/");
  EXPECT_TRUE(diffs.empty())
      << "this run's reports differ from the committed reports/" << info.key
      << "/ (outside the run-varying values): " << (diffs.empty() ? "" : diffs[0])
      << "\nIf the change is intended, regenerate the committed reports with `./build.sh "
         "reproduce` (every paper) or `./build/repro_"
      << info.key << " --all` and commit reports/; `./build/repro_report --compare reports/"
      << info.key << " OUT/" << info.key << "` lists up to 20 differences.";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(EveryPaper, PaperReports, ::testing::ValuesIn(paper_list()),
                         [](const ::testing::TestParamInfo<PaperEntry>& p) { return p.param.key; });

}  // namespace
}  // namespace dgs
