// Plan::check's read rule (every region an op of a task reads is written by earlier stages, and
// no write of its stage or later overlaps it) and check_plan_prefix's (the region is written
// whole by earlier stages), which find the overlapping writes through an index of each tensor's
// written regions (common/graph/region_index.h): on random atom plans, valid and invalid, the
// verdict and message are those of a scan of every write in order, spelled out here, with the
// regions a 3x3 convolution reads computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/plan/plan.h"
#include "common/plan/plan_check.h"
#include "tests/error_of.h"

namespace dgs {
namespace {

constexpr int64_t kN = 2, kC = 8, kH = 12, kW = 12;
const std::string kPasses = "<no error>";  // error_of of a call that throws nothing

// x [2,8,12,12] -> relu 'a' -> t -> conv 'conv' (8 filters 3x3, pad 1) -> y (output).
Graph relu_conv_graph() {
  Graph g;
  g.name = "relu_conv";
  const int x = g.add_input("x", {kN, kC, kH, kW});
  const int a = g.add_op(OpKind::Relu, "a", {x}, {}, 1, {"t"});
  const int w = g.add_weight("w", {kC, kC, 3, 3});
  const int c = g.add_op(
      OpKind::Conv, "conv", {g.op(a).outputs[0], w},
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}, 1,
      {"y"});
  g.mark_output(g.op(c).outputs[0]);
  return g;
}

// The boxes of a grid over [kN,kC,kH,kW] with 0..3 random cuts per axis.
std::vector<Region> random_grid(std::mt19937& rng) {
  const int64_t ext[4] = {kN, kC, kH, kW};
  std::vector<std::vector<int64_t>> cuts(4);
  for (int d = 0; d < 4; ++d) {
    cuts[d] = {0, ext[d]};
    const int n = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int k = 0; k < n; ++k)
      cuts[d].push_back(std::uniform_int_distribution<int64_t>(1, ext[d] - 1)(rng));
    std::sort(cuts[d].begin(), cuts[d].end());
    cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
  }
  std::vector<Region> boxes;
  for (size_t i = 0; i + 1 < cuts[0].size(); ++i)
    for (size_t j = 0; j + 1 < cuts[1].size(); ++j)
      for (size_t k = 0; k + 1 < cuts[2].size(); ++k)
        for (size_t l = 0; l + 1 < cuts[3].size(); ++l)
          boxes.push_back({{cuts[0][i], cuts[0][i + 1]},
                           {cuts[1][j], cuts[1][j + 1]},
                           {cuts[2][k], cuts[2][k + 1]},
                           {cuts[3][l], cuts[3][l + 1]}});
  std::shuffle(boxes.begin(), boxes.end(), rng);
  return boxes;
}

// Atoms of 'a' and of 'conv' (random grids) in random stages: with `ordered`, every 'a' atom in
// the first half of the stages and every 'conv' atom in the second (a valid plan) but for one 'a'
// atom moved into a random stage of the second half half of the time; otherwise any stage.
// Empty stages are dropped.
Plan random_atom_plan(const Graph& g, std::mt19937& rng, bool ordered) {
  const int stages = std::uniform_int_distribution<int>(2, 8)(rng);
  std::vector<Stage> st(static_cast<size_t>(stages));
  auto place = [&](int op, int tensor, const std::vector<Region>& boxes, int lo, int hi) {
    for (const Region& r : boxes) {
      Task t;
      t.ops = {op};
      t.regions[tensor] = r;
      st[static_cast<size_t>(std::uniform_int_distribution<int>(lo, hi)(rng))].tasks.push_back(t);
    }
  };
  const int half = stages / 2;
  const int a = g.find_op("a"), conv = g.find_op("conv");
  place(a, g.find_tensor("t"), random_grid(rng), 0, ordered ? half - 1 : stages - 1);
  place(conv, g.find_tensor("y"), random_grid(rng), ordered ? half : 0, stages - 1);
  if (ordered && std::bernoulli_distribution(0.5)(rng)) {
    std::vector<Task>& from =
        st[static_cast<size_t>(std::uniform_int_distribution<int>(0, half - 1)(rng))].tasks;
    if (!from.empty()) {
      const size_t k = std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng);
      st[static_cast<size_t>(std::uniform_int_distribution<int>(half, stages - 1)(rng))]
          .tasks.push_back(from[k]);
      from.erase(from.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  Plan p;
  p.scheduler = "random";
  p.graph = g.name;
  for (Stage& s : st)
    if (!s.tasks.empty()) p.stages.push_back(std::move(s));
  return p;
}

int64_t overlap(const Region& a, const Region& b) {
  int64_t n = 1;
  for (size_t d = 0; d < a.size(); ++d)
    n *= std::max<int64_t>(0, std::min(a[d].hi, b[d].hi) - std::max(a[d].lo, b[d].lo));
  return n;
}

// The region of t a 'conv' atom writing `y` reads: its samples, every channel, and its rows and
// columns widened by the 3x3 window's one-element border, clipped to the tensor (pad 1).
Region conv_read(const Region& y) {
  return {y[0],
          {0, kC},
          {std::max<int64_t>(0, y[2].lo - 1), std::min(kH, y[2].hi + 1)},
          {std::max<int64_t>(0, y[3].lo - 1), std::min(kW, y[3].hi + 1)}};
}

// What the checker says of `p` (a random_atom_plan, whose grids tile t and y exactly, so its
// first failure is a read), by a scan of every write of t in (stage, task) order for every
// 'conv' atom in that order: error_of's "<no error>" when it passes. `prefix`: check_plan_prefix's
// rule, the read region also written whole by earlier stages.
std::string scanned_verdict(const Graph& g, const Plan& p, bool prefix) {
  const int a = g.find_op("a"), t = g.find_tensor("t");
  struct Write {
    size_t stage, task;
    Region region;
  };
  std::vector<Write> writes;
  for (size_t s = 0; s < p.stages.size(); ++s)
    for (size_t k = 0; k < p.stages[s].tasks.size(); ++k)
      if (p.stages[s].tasks[k].ops[0] == a)
        writes.push_back({s, k, p.stages[s].tasks[k].regions.at(t)});
  const std::string where = "plan 'random' of graph 'relu_conv'" +
                            std::string(prefix ? " (a prefix)" : "") + ": op 'conv' (stage ";
  for (size_t s = 0; s < p.stages.size(); ++s) {
    for (size_t k = 0; k < p.stages[s].tasks.size(); ++k) {
      const Task& task = p.stages[s].tasks[k];
      if (task.ops[0] == a) continue;
      if (writes.empty())  // a prefix before every 'a' atom
        return where + std::to_string(s) + " task " + std::to_string(k) +
               ") reads 't', which no task writes";
      const Region read = conv_read(task.regions.at(g.find_tensor("y")));
      const std::string at = std::to_string(s) + " task " + std::to_string(k) + ") reads region " +
                             region_str(read) + " of 't'";
      int64_t covered = 0;
      for (const Write& w : writes) {
        if (overlap(w.region, read) == 0) continue;
        if (w.stage >= s)
          return where + at + " before stage " + std::to_string(w.stage) + " task " +
                 std::to_string(w.task) + " writes " + region_str(w.region) +
                 " of it; expected its producers in an earlier stage";
        covered += overlap(w.region, read);
      }
      const int64_t total = overlap(read, read);
      if (prefix && covered != total)
        return where + at + ", of which " + std::to_string(total - covered) + " of " +
               std::to_string(total) +
               " elements no earlier stage writes; expected its producers in an earlier stage";
    }
  }
  return kPasses;
}

TEST(PlanCheckReads, RandomAtomPlansGetTheVerdictAndMessageOfAScanOfEveryWrite) {
  const Graph g = relu_conv_graph();
  std::mt19937 rng(28);
  int valid = 0, invalid = 0;
  for (int round = 0; round < 600; ++round) {
    const Plan p = random_atom_plan(g, rng, round % 3 != 0);
    const std::string expected = scanned_verdict(g, p, /*prefix=*/false);
    ASSERT_EQ(error_of([&] { p.check(g); }), expected) << "round " << round;
    ++(expected == kPasses ? valid : invalid);
  }
  // Both verdicts are exercised, each many times.
  EXPECT_GE(valid, 100) << invalid;
  EXPECT_GE(invalid, 100) << valid;
}

TEST(PlanCheckReads, RandomPrefixesGetTheVerdictAndMessageOfAScanOfEveryWrite) {
  const Graph g = relu_conv_graph();
  std::mt19937 rng(2728);
  int valid = 0, overlapped = 0, unwritten = 0;
  for (int round = 0; round < 600; ++round) {
    Plan p = random_atom_plan(g, rng, round % 3 != 0);
    p.stages.resize(std::uniform_int_distribution<size_t>(1, p.stages.size())(rng));
    if (std::bernoulli_distribution(0.5)(rng)) {  // an 'a' atom left out (a prefix may leave gaps)
      std::vector<Task>& tasks =
          p.stages[std::uniform_int_distribution<size_t>(0, p.stages.size() - 1)(rng)].tasks;
      const size_t k = std::uniform_int_distribution<size_t>(0, tasks.size() - 1)(rng);
      if (tasks[k].ops[0] == g.find_op("a") && tasks.size() > 1)
        tasks.erase(tasks.begin() + static_cast<std::ptrdiff_t>(k));
    }
    const std::string expected = scanned_verdict(g, p, /*prefix=*/true);
    ASSERT_EQ(error_of([&] { check_plan_prefix(g, p); }), expected) << "round " << round;
    if (expected == kPasses)
      ++valid;
    else
      ++(expected.find(" before stage ") != std::string::npos ? overlapped : unwritten);
  }
  EXPECT_GE(valid, 100);
  EXPECT_GE(overlapped, 50) << valid << " " << overlapped << " " << unwritten;
  EXPECT_GE(unwritten, 50) << valid << " " << overlapped << " " << unwritten;
}

}  // namespace
}  // namespace dgs
