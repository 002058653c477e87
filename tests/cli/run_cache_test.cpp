// RunCache (cli/run_cache.h): one computation per key, one object for concurrent callers of a
// key, and an exception that caches nothing.
#include "cli/run_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dgs {
namespace {

TEST(RunCache, ComputesOncePerKey) {
  RunCache<std::string, int> cache;
  int calls = 0;
  auto compute = [&] {
    ++calls;
    return 40 + calls;
  };
  const int& a = cache.get("a", compute);
  const int& a_again = cache.get("a", compute);
  const int& b = cache.get("b", compute);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(a, 41);
  EXPECT_EQ(&a, &a_again);
  EXPECT_EQ(b, 42);
  EXPECT_TRUE(cache.contains("a"));
  EXPECT_FALSE(cache.contains("c"));
}

TEST(RunCache, ConcurrentCallersOfOneKeyGetTheSameObject) {
  RunCache<int, std::vector<int>> cache;
  std::atomic<int> calls{0};
  constexpr int kThreads = 8;
  std::vector<const std::vector<int>*> seen(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      seen[t] = &cache.get(7, [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::vector<int>{1, 2, 3};
      });
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(calls.load(), 1);
  for (const std::vector<int>* p : seen) {
    ASSERT_EQ(p, seen[0]);
    EXPECT_EQ(*p, (std::vector<int>{1, 2, 3}));
  }
}

TEST(RunCache, AnExceptionIsNotCached) {
  RunCache<std::string, int> cache;
  int calls = 0;
  auto failing_once = [&] {
    if (++calls == 1) throw std::runtime_error("refused");
    return 5;
  };
  EXPECT_THROW(cache.get("k", failing_once), std::runtime_error);
  EXPECT_FALSE(cache.contains("k"));
  EXPECT_EQ(cache.get("k", failing_once), 5);
  EXPECT_EQ(calls, 2);
}

TEST(RunCache, WaitingCallersComputeAgainAfterAnException) {
  RunCache<int, int> cache;
  std::atomic<int> calls{0};
  std::atomic<int> thrown{0};
  constexpr int kThreads = 6;
  std::vector<int> values(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        values[t] = cache.get(1, [&] {
          const int n = ++calls;
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          if (n == 1) throw std::runtime_error("first computation fails");
          return 9;
        });
      } catch (const std::runtime_error&) {
        ++thrown;
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(calls.load(), 2);  // the failed one and the one that is kept
  EXPECT_EQ(thrown.load(), 1);
  int nines = 0;
  for (int v : values) nines += v == 9;
  EXPECT_EQ(nines, kThreads - 1);
}

}  // namespace
}  // namespace dgs
