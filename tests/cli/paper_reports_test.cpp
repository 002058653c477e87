// Every paper's `--all` run, checked for what the reports promise: each figure writes its SVG,
// the run ends with summary.csv, and every numeric value of data/<paper>/ is read by some item
// (so no published number sits in data/ without being compared). Papers with nothing
// implemented yet are skipped.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli/cli.h"
#include "common/util/resources.h"
#include "reproductions/atomic/experiment_list.h"
#include "reproductions/brickdl/experiment_list.h"
#include "reproductions/graphturbo/experiment_list.h"
#include "reproductions/ios/experiment_list.h"
#include "reproductions/welder/experiment_list.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

struct PaperUnderTest {
  std::string name;
  std::function<PaperInfo()> info;
  std::function<std::vector<Experiment>()> experiments;
};

const std::vector<PaperUnderTest>& papers() {
  static const std::vector<PaperUnderTest> p = {
      {"graphturbo", graphturbo::paper_info, graphturbo::experiments},
      {"ios", ios::paper_info, ios::experiments},
      {"welder", welder::paper_info, welder::experiments},
      {"atomic", atomic::paper_info, atomic::experiments},
      {"brickdl", brickdl::paper_info, brickdl::experiments},
  };
  return p;
}

class PaperReports : public ::testing::TestWithParam<PaperUnderTest> {};

TEST_P(PaperReports, AllRunWritesEverySvgTheSummaryAndReadsEveryPaperValue) {
  const PaperUnderTest& paper = GetParam();
  const std::vector<Experiment> experiments = paper.experiments();
  bool any = false;
  for (const Experiment& e : experiments) any = any || static_cast<bool>(e.run);
  if (!any) GTEST_SKIP() << paper.name << ": nothing implemented yet";
  const fs::path dir = fs::temp_directory_path() / ("dgs_paper_reports_" + paper.name);
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
  EXPECT_TRUE(fs::exists(dir / info.key / "summary.csv"));
  EXPECT_NE(out.str().find("every numeric value of data/" + info.key + "/ is read by some item"),
            std::string::npos)
      << out.str().substr(out.str().rfind("claims: "));
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(EveryPaper, PaperReports, ::testing::ValuesIn(papers()),
                         [](const ::testing::TestParamInfo<PaperUnderTest>& p) {
                           return p.param.name;
                         });

}  // namespace
}  // namespace dgs
