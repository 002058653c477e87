// The default comparison (repro_compare with no flags: resnet50 and bert_base on a100, stcp920 and
// atomic_mesh, every registered scheduler) equals the committed reports/compare/, except the
// run-varying values (search_s; common/report/report_compare.h). Release only (the sanitizer run
// excludes it, as it excludes the papers' --all runs).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "common/report/report_compare.h"
#include "compare/compare_cli.h"
#include "tests/scratch_dir.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

TEST(CommittedComparison, DefaultRunEqualsTheCommittedReports) {
  const ScratchDir scratch("committed_comparison");
  const fs::path& dir = scratch.path();
  const std::string out_dir = dir.string();
  const char* argv[] = {"repro_compare", "--quiet", "--out", out_dir.c_str()};
  std::ostringstream out, err;
  ASSERT_EQ(run_compare(4, argv, out, err), 0) << err.str();
  const std::vector<std::string> diffs =
      compare_report_folders((fs::path(DGS_SOURCE_DIR) / "reports" / "compare").string(),
                             (dir / "compare").string(), 5, "compare/");
  EXPECT_TRUE(diffs.empty()) << "the default comparison differs from reports/compare/ (rerun "
                                "./build/repro_compare --out reports if the change is meant):\n"
                             << [&] {
                                  std::string s;
                                  for (const std::string& d : diffs) s += d + "\n";
                                  return s;
                                }();
}

}  // namespace
}  // namespace dgs
