// Tests of ExperimentContext::progress from several threads (issue 27): a unit of work run on a
// worker reports itself when it ends, each line whole, in the order the units end, with
// non-decreasing elapsed times.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli.h"

namespace dgs {
namespace {

// A progress line split into its elapsed time and its text; false if the line is not whole
// ("[fig1 <seconds> s] <what>").
bool parse_progress_line(const std::string& line, double* elapsed, std::string* what) {
  static const std::regex kLine(R"(\[fig1 ([0-9]+\.[0-9]) s\] (.+))");
  std::smatch m;
  if (!std::regex_match(line, m, kLine)) return false;
  *elapsed = std::stod(m[1].str());
  *what = m[2].str();
  return true;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) lines.push_back(line);
  return lines;
}

TEST(ProgressTest, UnitsOnThreadsPrintTheirLinesAsTheyEndInThatOrder) {
  std::ostringstream out, err;
  ExperimentContext ctx("fakepaper", "fig1", RunOptions{}, out, "v100");
  ctx.set_progress_stream(&err);
  const ProgressFn done = ctx.progress_fn();
  // Unit k ends when `turn` is k, the last one first: the order in which the units end is the
  // reverse of the order in which their threads start. While a unit ends the others wait, so the
  // stream can be read: the unit's line is there at once (not when every unit has ended).
  constexpr int kUnits = 8;
  std::atomic<int> turn{kUnits - 1};
  std::vector<std::string> seen_at_end(kUnits);
  std::vector<std::thread> threads;
  for (int k = 0; k < kUnits; ++k) {
    threads.emplace_back([&, k] {
      while (turn.load() != k) std::this_thread::yield();
      done("unit " + std::to_string(k));
      seen_at_end[static_cast<size_t>(k)] = err.str();
      turn.store(k - 1);
    });
  }
  for (std::thread& t : threads) t.join();
  const std::vector<std::string> lines = lines_of(err.str());
  ASSERT_EQ(lines.size(), static_cast<size_t>(kUnits)) << err.str();
  double last = 0;
  for (int i = 0; i < kUnits; ++i) {
    const int unit = kUnits - 1 - i;
    double t = -1;
    std::string what;
    ASSERT_TRUE(parse_progress_line(lines[static_cast<size_t>(i)], &t, &what))
        << lines[static_cast<size_t>(i)];
    EXPECT_EQ(what, "unit " + std::to_string(unit));
    EXPECT_GE(t, last);
    last = t;
    // When unit `unit` ended, the stream held its line as its last.
    EXPECT_EQ(lines_of(seen_at_end[static_cast<size_t>(unit)]).size(), static_cast<size_t>(i + 1));
    EXPECT_EQ(lines_of(seen_at_end[static_cast<size_t>(unit)]).back(),
              lines[static_cast<size_t>(i)]);
  }
}

TEST(ProgressTest, ConcurrentLinesArriveWholeOncePerCallWithNonDecreasingTimes) {
  std::ostringstream out, err;
  ExperimentContext ctx("fakepaper", "fig1", RunOptions{}, out, "v100");
  ctx.set_progress_stream(&err);
  const ProgressFn done = ctx.progress_fn();
  constexpr int kThreads = 8, kCalls = 1000;
  const std::string filler(200, 'x');  // long lines: a longer write for another to cut into
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      for (int c = 0; c < kCalls; ++c)
        done("thread " + std::to_string(k) + " call " + std::to_string(c) + " " + filler);
    });
  }
  for (std::thread& t : threads) t.join();
  const std::vector<std::string> lines = lines_of(err.str());
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kCalls));
  std::set<std::string> texts;
  std::vector<int> next_call(kThreads, 0);  // a thread's calls arrive in its order
  double last = 0;
  for (const std::string& line : lines) {
    double t = -1;
    std::string what;
    ASSERT_TRUE(parse_progress_line(line, &t, &what)) << "not whole: " << line;
    EXPECT_GE(t, last) << line;
    last = t;
    texts.insert(what);
    int k = -1, c = -1;
    ASSERT_EQ(std::sscanf(what.c_str(), "thread %d call %d", &k, &c), 2) << what;
    ASSERT_TRUE(k >= 0 && k < kThreads) << what;
    EXPECT_EQ(c, next_call[static_cast<size_t>(k)]++) << what;
  }
  EXPECT_EQ(texts.size(), static_cast<size_t>(kThreads * kCalls)) << "each call once";
}

TEST(ProgressTest, NoStreamNoLines) {
  std::ostringstream out;
  const ExperimentContext ctx("fakepaper", "fig1", RunOptions{}, out, "v100");
  ctx.progress_fn()("unit 0");  // no progress stream (--quiet): nothing, anywhere
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace dgs
