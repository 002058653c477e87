// Determinism through the real executables: the same items run twice with the same seed, from two
// different working directories (one with a relative --out, one with an absolute one) and with
// one CPU and thread versus several, write byte-identical files, except the values that differ
// between runs by nature (run_varying_values(): wall-clock columns and the environment
// fingerprint, common/report/report_compare.h); a different seed changes the randomised items.
//
// The items are a representative subset that runs in seconds (every implemented paper, the
// randomised item, a figure with an SVG); paper_reports_test runs every --all once.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/report/report.h"
#include "common/report/report_compare.h"
#include "tests/reliability/subprocess_run.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

struct Items {
  std::string paper;
  std::string args;
};
// Table 3.1 has the randomised row (randwire_ws, graphs generated with --seed).
const std::vector<Items> kItems = {
    {"ios", "--table 3.1 --fig 1.2"},
    {"welder", "--fig 13 --table 7"},
    {"brickdl", "--all"},
    {"graphturbo", "--all"},
    // The seeded searches (SA and GA; the iterative search, whose candidates run on threads, in
    // Fig. 4: Fig. 10 runs the same search on more networks), the Fig. 6 schedule, the search
    // time's cpu_search_s.
    {"atomic", "--fig 5 --fig 7 --fig 6 --fig 4"},
};

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The files under `dir`, relative to it, sorted.
std::vector<std::string> relative_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const std::string& f : files_under(dir)) out.push_back(fs::relative(f, dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

// Differences between two files of the same name, outside the values that differ between runs
// (run_varying_values(): wall-clock columns, the environment fingerprint).
std::vector<std::string> differences(const std::string& rel, const std::string& a,
                                     const std::string& b) {
  if (a == b || is_run_varying_file(rel)) return {};
  if (!rel.ends_with(".csv")) return {rel + ": bytes differ"};
  const auto ra = parse_csv(a, rel), rb = parse_csv(b, rel);
  if (ra.size() != rb.size() || ra.empty() || ra[0] != rb[0])
    return {rel + ": rows or header differ"};
  std::vector<std::string> out;
  for (size_t i = 1; i < ra.size(); ++i) {
    if (ra[i].size() != rb[i].size()) {
      out.push_back(rel + ": row " + std::to_string(i) + " differs in length");
      continue;
    }
    for (size_t j = 0; j < ra[i].size(); ++j) {
      const std::string col = j < ra[0].size() ? ra[0][j] : std::to_string(j);
      if (ra[i][j] != rb[i][j] && !is_run_varying_column(rel, col)) {
        out.push_back(rel + ": row " + std::to_string(i) + " column " + col + ": " + ra[i][j] +
                      " vs " + rb[i][j]);
      }
    }
  }
  return out;
}

// Thread-count independence: the one search that runs threads (Atomic's iterative search prices
// its candidate atom sets in parallel, common/util/parallel_for.h) keeps the minimum of (latency,
// index), whatever order they finish in; the BrickDL CPU executor's workers run in tests only
// (merged_exec_test checks them) and Eigen is built without OpenMP. The runs pin that down from
// outside: one run on one CPU, one on every CPU (std::thread::hardware_concurrency follows the
// affinity mask), whatever a library might read from the environment.
// The one CPU: the i-th of this process's CPUs (modulo their number), so that the one-CPU runs of
// two items that ctest -j runs at once do not share a core.
std::string one_thread(size_t i) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  const int cpu = cpus.empty() ? 0 : cpus[i % cpus.size()];
  return "taskset -c " + std::to_string(cpu) + " env OMP_NUM_THREADS=1";
}
const std::string kManyThreads = "env OMP_NUM_THREADS=8";

class Determinism : public ::testing::TestWithParam<Items> {};

TEST_P(Determinism, SameSeedSameFilesFromAnyDirectory) {
  const Items& it = GetParam();
  const std::string program = "repro_" + it.paper;
  if (!fs::exists(std::string(DGS_BINARY_DIR) + "/" + program)) GTEST_SKIP() << "not built";
  ScratchDir first("determinism_a"), second("determinism_b");
  // First run: relative --out from its own folder, on one CPU with OMP_NUM_THREADS=1;
  // second: absolute --out from another folder, on every CPU with 8 threads allowed.
  const auto index =
      static_cast<size_t>(std::find_if(kItems.begin(), kItems.end(),
                                       [&](const Items& x) { return x.paper == it.paper; }) -
                          kItems.begin());
  const ProcessRun r1 = run_program(program, it.args + " --seed 7 --out out", first.path().string(),
                                    one_thread(index));
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const fs::path out2 = second.path() / "reports";
  const ProcessRun r2 = run_program(program, it.args + " --seed 7 --out " + out2.string(),
                                    second.path().string(), kManyThreads);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  const fs::path out1 = first.path() / "out";
  const auto files = relative_files(out1);
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files, relative_files(out2));
  bool svg = false;
  for (const std::string& rel : files) {
    svg = svg || rel.ends_with(".svg");
    for (const std::string& d : differences(rel, read_all(out1 / rel), read_all(out2 / rel)))
      ADD_FAILURE() << d;
  }
  EXPECT_TRUE(svg) << "no SVG among the items of " << it.paper;
}

INSTANTIATE_TEST_SUITE_P(Papers, Determinism, ::testing::ValuesIn(kItems),
                         [](const auto& info) { return info.param.paper; });

TEST(DeterminismOfSeeds, ADifferentSeedChangesTheRandomisedRowOnly) {
  if (!fs::exists(std::string(DGS_BINARY_DIR) + "/repro_ios")) GTEST_SKIP() << "not built";
  ScratchDir dir("determinism_seed");
  for (const char* seed : {"7", "8"}) {
    const ProcessRun r = run_program(
        "repro_ios", std::string("--table 3.1 --seed ") + seed + " --out " + dir.file(seed));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto a = parse_csv(read_all(dir.file("7") + "/ios/table3.1.csv"), "seed 7");
  const auto b = parse_csv(read_all(dir.file("8") + "/ios/table3.1.csv"), "seed 8");
  ASSERT_EQ(a.size(), b.size());
  int randomised_rows_changed = 0;
  for (size_t i = 1; i < a.size(); ++i) {
    if (a[i][0] == "randwire_ws") {
      randomised_rows_changed += a[i] != b[i];
    } else {
      EXPECT_EQ(a[i], b[i]) << "row " << i << " (" << a[i][0] << ") depends on the seed";
    }
  }
  EXPECT_GT(randomised_rows_changed, 0) << "the seed changes nothing of randwire_ws";
}

}  // namespace
}  // namespace dgs
