// BrickDL's measured mode without a GPU: the brick kernels' default timing rule (measured.h).
#include <gtest/gtest.h>

#include "reproductions/brickdl/experiments/measured.h"

namespace dgs::brickdl {
namespace {

TEST(BrickdlMeasuredProtocol, TimesUntilThreeRunsOrTheBudget) {
  // The first run always, even when one run alone exceeds the budget.
  EXPECT_TRUE(another_timed_run({}, 3, 2000));
  EXPECT_FALSE(another_timed_run({6500}, 3, 2000));  // Fig. 10 on the H200: one run of 6.5 s
  // Short runs: up to the run count.
  EXPECT_TRUE(another_timed_run({300}, 3, 2000));
  EXPECT_TRUE(another_timed_run({300, 300}, 3, 2000));
  EXPECT_FALSE(another_timed_run({300, 300, 300}, 3, 2000));
  // In between: until the runs add up to the budget.
  EXPECT_TRUE(another_timed_run({1500}, 3, 2000));
  EXPECT_FALSE(another_timed_run({1500, 1500}, 3, 2000));
  // No run asked for: none.
  EXPECT_FALSE(another_timed_run({}, 0, 2000));
}

}  // namespace
}  // namespace dgs::brickdl
