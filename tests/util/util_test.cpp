// common/util: the built-in resources compiled into every executable, and atomic file writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/util/error.h"
#include "common/util/parallel_for.h"
#include "common/util/resources.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

TEST(BuiltinResources, HoldEveryHardwareConfigAndPaperDataFileOfTheSourceTree) {
  for (const char* folder : {"hw_configs", "data"}) {
    for (const auto& e :
         fs::recursive_directory_iterator(std::string(DGS_SOURCE_DIR) + "/" + folder)) {
      if (!e.is_regular_file()) continue;
      const std::string ext = e.path().extension().string();
      if (ext != ".json" && ext != ".csv") continue;
      const std::string rel = fs::relative(e.path(), DGS_SOURCE_DIR).string();
      const auto content = builtin_resource(rel);
      ASSERT_TRUE(content.has_value()) << rel << " is not built in";
      EXPECT_EQ(std::string(*content), read_file(e.path().string())) << rel;
    }
  }
  EXPECT_FALSE(builtin_resource("hw_configs/no_such.json").has_value());
  EXPECT_FALSE(builtin_resource("").has_value());  // the generator's sentinel is not a resource
}

TEST(BuiltinResources, ListingUnderAFolderIsSortedAndPrefixed) {
  const auto hw = builtin_resources_under("hw_configs/");
  ASSERT_FALSE(hw.empty());
  EXPECT_TRUE(std::is_sorted(hw.begin(), hw.end()));
  for (const std::string& p : hw) EXPECT_EQ(p.rfind("hw_configs/", 0), 0u) << p;
  EXPECT_NE(std::find(hw.begin(), hw.end(), "hw_configs/v100.json"), hw.end());
}

TEST(Files, ReadFileNamesTheMissingPath) {
  try {
    read_file("/nonexistent/dgs/file.txt");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot read /nonexistent/dgs/file.txt: ", 0), 0u)
        << e.what();
  }
}

TEST(Files, AtomicWriteCreatesFoldersAndLeavesNoTemporaryFile) {
  const fs::path dir = fs::temp_directory_path() / ("dgs_util_" + std::to_string(::getpid()));
  const fs::path target = dir / "a" / "b" / "out.csv";
  write_file_atomic(target.string(), "x,y\n1,2\n");
  EXPECT_EQ(read_file(target.string()), "x,y\n1,2\n");
  write_file_atomic(target.string(), "replaced\n");
  EXPECT_EQ(read_file(target.string()), "replaced\n");
  int files = 0;
  for (const auto& e : fs::directory_iterator(target.parent_path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);  // no out.csv.tmp left behind
  fs::remove_all(dir);
}

TEST(Files, AtomicWriteOverAFolderFailsAndWritesNothing) {
  const fs::path dir = fs::temp_directory_path() / ("dgs_util_dir_" + std::to_string(::getpid()));
  fs::create_directories(dir / "taken");
  EXPECT_THROW(write_file_atomic((dir / "taken").string(), "data"), Error);
  EXPECT_TRUE(fs::is_directory(dir / "taken"));
  EXPECT_FALSE(fs::exists(dir / "taken.tmp"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dgs

namespace dgs {
namespace {

// An error quoting user input stays on one line: control characters are written as escapes
// (a fuzz finding: a plan's unit kind "engi\ne" from a JSON string broke the line).
TEST(Errors, MessagesQuotingControlCharactersStayOnOneLine) {
  EXPECT_STREQ(Error("unit kind 'engi\ne'").what(), "unit kind 'engi\\ne'");
  EXPECT_STREQ(UsageError(std::string("a\tb\rc\x1b") + '\x7f').what(), "a\\tb\\rc\\x1b\\x7f");
  EXPECT_STREQ(Error("plain text, unchanged").what(), "plain text, unchanged");
}

}  // namespace
}  // namespace dgs

namespace dgs {
namespace {

// A worker's exception reaches the caller (after every worker joined) instead of terminating the
// process, and no further index starts once one has thrown.
TEST(ParallelFor, RethrowsAWorkersExceptionOnTheCallingThread) {
  for (int threads : {1, 2, 4}) {
    std::atomic<int> ran{0};
    // The other indices take a while (sleeping, so the failing worker gets a CPU at once): the
    // failure must stop the hand-out long before they are all run. With instant work, the other
    // workers could run all 996 before the throwing one reaches its catch (a flake seen in CI).
    EXPECT_THROW(parallel_for(1000, threads,
                              [&](int64_t i) {
                                ++ran;
                                if (i == 3) throw Error("index 3 failed");
                                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                              }),
                 Error);
    EXPECT_LT(ran.load(), 1000) << threads << " threads";
  }
  std::vector<int> done(100, 0);
  parallel_for(100, 4, [&](int64_t i) { done[size_t(i)] = 1; });
  EXPECT_EQ(std::count(done.begin(), done.end(), 1), 100);
}

// The exception rethrown is the lowest failing index's even when a higher index throws first
// (index 0 throws after index 1 has): the one a loop in index order would throw.
TEST(ParallelFor, RethrowsTheLowestFailingIndexsExceptionWhateverFinishesFirst) {
  for (int threads : {1, 2, 4}) {
    try {
      parallel_for(2, threads, [&](int64_t i) {
        if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        throw Error("index " + std::to_string(i) + " failed");
      });
      ADD_FAILURE() << "no exception, " << threads << " threads";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "index 0 failed") << threads << " threads";
    }
  }
}

// Results come back in index order whatever the thread count and finishing order.
TEST(ParallelMap, KeepsIndexOrder) {
  for (int threads : {1, 2, 4}) {
    const std::vector<std::string> out = parallel_map(50, threads, [](int64_t i) {
      return std::string(static_cast<size_t>(i % 7), 'x') + std::to_string(i);
    });
    ASSERT_EQ(out.size(), 50u);
    for (int64_t i = 0; i < 50; ++i)
      EXPECT_EQ(out[size_t(i)], std::string(static_cast<size_t>(i % 7), 'x') + std::to_string(i));
  }
  EXPECT_TRUE(parallel_map(0, 4, [](int64_t i) { return i; }).empty());
}

// The exception rethrown is the lowest failing index's (the one a loop in order throws), after
// every worker joined, and no index starts after a failure.
TEST(ParallelMap, RethrowsTheLowestFailingIndexsException) {
  for (int threads : {1, 2, 4}) {
    std::atomic<int> ran{0};
    try {
      parallel_map(1000, threads, [&](int64_t i) {
        ++ran;
        if (i == 5 || i == 6 || i == 9) throw Error("index " + std::to_string(i) + " failed");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // as in ParallelFor's test
        return i;
      });
      ADD_FAILURE() << "no exception, " << threads << " threads";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "index 5 failed") << threads << " threads";
    }
    EXPECT_LT(ran.load(), 1000) << threads << " threads";
  }
}

// On one thread the jobs run in the order handed out: the largest size first, equal sizes by the
// lower job index (sizes 10, 7, 7, 3, 3, 0 at jobs 3, 1, 4, 0, 2, 5), and largest_first_order
// says the same order.
TEST(ParallelForLargestFirst, HandsOutTheLargestFirstTiesByTheLowerJob) {
  const std::vector<double> sizes = {3, 7, 3, 10, 7, 0};
  const std::vector<int64_t> expected = {3, 1, 4, 0, 2, 5};
  std::vector<int64_t> ran;
  parallel_for_largest_first(sizes, 1, [&](int64_t job) { ran.push_back(job); });
  EXPECT_EQ(ran, expected);
  EXPECT_EQ(largest_first_order(sizes), expected);
  EXPECT_TRUE(largest_first_order(std::vector<int>{}).empty());
}

// Whatever the thread count, every job runs exactly once and is given its own index (not its
// position in the order), so each result lands in the job's slot; no jobs, no call.
TEST(ParallelForLargestFirst, RunsEveryJobOnceIntoItsOwnSlot) {
  std::vector<int64_t> sizes;
  for (int64_t j = 0; j < 200; ++j) sizes.push_back((j * 37) % 11);  // many ties
  for (int threads : {1, 2, 4}) {
    std::vector<std::atomic<int>> runs(sizes.size());
    std::vector<int64_t> out(sizes.size(), -1);
    parallel_for_largest_first(sizes, threads, [&](int64_t job) {
      ++runs[static_cast<size_t>(job)];
      out[static_cast<size_t>(job)] = job * job;
    });
    for (size_t j = 0; j < sizes.size(); ++j) {
      EXPECT_EQ(runs[j].load(), 1) << "job " << j << ", " << threads << " threads";
      EXPECT_EQ(out[j], static_cast<int64_t>(j * j))
          << "job " << j << ", " << threads << " threads";
    }
  }
  int calls = 0;
  parallel_for_largest_first(std::vector<int>{}, 4, [&](int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// The exception rethrown is that of the failing job earliest in the handed-out order, not the
// lowest failing job index: sizes 1, 5, 3, 5 hand out jobs 1, 3, 2, 0; jobs 3 and 0 throw, job 3
// after a while (so that with several threads job 0 throws first). On one thread nothing starts
// after job 3's failure.
TEST(ParallelForLargestFirst, RethrowsTheEarliestHandedOutFailingJobsException) {
  const std::vector<int> sizes = {1, 5, 3, 5};
  for (int threads : {1, 2, 4}) {
    std::mutex m;
    std::vector<int64_t> ran;
    try {
      parallel_for_largest_first(sizes, threads, [&](int64_t job) {
        {
          const std::lock_guard<std::mutex> lock(m);
          ran.push_back(job);
        }
        if (job == 3) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (job == 3 || job == 0) throw Error("job " + std::to_string(job) + " failed");
      });
      ADD_FAILURE() << "no exception, " << threads << " threads";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "job 3 failed") << threads << " threads";
    }
    if (threads == 1) {
      EXPECT_EQ(ran, (std::vector<int64_t>{1, 3}));
    }
  }
}

}  // namespace
}  // namespace dgs
