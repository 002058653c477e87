// The deterministic simulation of memoized bricks' atomics: one worker has no conflict; every
// brick is computed once with two compulsory atomics; the result is the same on every run; deeper
// merges conflict more (§4.5.1's trend).
#include <gtest/gtest.h>

#include "models/zoo.h"
#include "reproductions/brickdl/conflict_sim.h"
#include "reproductions/brickdl/experiments/workloads.h"

namespace dgs::brickdl {
namespace {

TEST(ConflictSim, OneWorkerNeverConflictsAndEveryBrickOnce) {
  const Graph g = build_zoo_model("brickdl_proxy3", {.image_size = 30});
  const SubgraphAnalysis a = analyze_subgraph(g, g.topo_order(), 8);
  const ConflictEstimate one = simulate_memoized(g, a, 1);
  EXPECT_EQ(one.bricks, a.memo_bricks);
  EXPECT_EQ(one.compulsory, 2 * a.memo_bricks);
  EXPECT_EQ(one.conflicting, 0);
  EXPECT_EQ(one.time_units, a.memo_bricks);  // one worker computes them one after another
  const ConflictEstimate many = simulate_memoized(g, a, 16);
  EXPECT_EQ(many.bricks, a.memo_bricks);
  EXPECT_EQ(many.compulsory, 2 * a.memo_bricks);
  EXPECT_GT(many.conflicting, 0);
  EXPECT_LT(many.time_units, one.time_units);
  const ConflictEstimate again = simulate_memoized(g, a, 16);
  EXPECT_EQ(again.conflicting, many.conflicting);  // deterministic
}

TEST(ConflictSim, DeeperMergesConflictMore) {
  const Graph g = build_zoo_model("brickdl_proxy6", {.image_size = 40});
  auto conflicts = [&](const std::vector<int>& layers) {
    int64_t n = 0;
    for (const NamedSubgraph& s : split_conv_chain(g, layers))
      n += simulate_memoized(g, analyze_subgraph(g, s.ops, 8), 64).conflicting;
    return n;
  };
  EXPECT_LT(conflicts({2, 2, 2}), conflicts({6}));
}

}  // namespace
}  // namespace dgs::brickdl
