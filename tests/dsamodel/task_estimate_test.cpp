// The DSA model's public task estimate (task_estimate.h), which schedulers size tasks by: the
// same working set and cycles as the model's own demand, the loads hand-counted, and a placement
// the machine lacks refused; on the ladder test's engine and GEMM (ladder_fixture.h).
#include <gtest/gtest.h>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/task_estimate.h"
#include "common/util/error.h"
#include "tests/dsamodel/ladder_fixture.h"

namespace dgs {
namespace {

// 256 x 256 x 128 fits the buffer untiled: A and B are loaded once (65536 + 32768 elements), the
// working set is the whole 128 KiB, and the cycles are the demand's.
TEST(DsaTaskEstimate, AGemmThatFitsLoadsEachInputOnce) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(256, 256, 128);
  const Task t = ladder_task();
  const DsaTaskEstimate e = dsa_task_estimate(g, t, spec);
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, {0});
  EXPECT_EQ(e.working_set_bytes, 131072);
  EXPECT_EQ(e.working_set_bytes, d.working_set_bytes);
  EXPECT_DOUBLE_EQ(e.compute_cycles, d.compute_cycles());
  EXPECT_GT(e.compute_cycles, 32768);  // the array's steps at least
  EXPECT_DOUBLE_EQ(e.loaded_elements, 65536 + 32768);
}

// Tiled, the working set shrinks and what the loop nest loads again shows in the loads.
TEST(DsaTaskEstimate, TilingShrinksTheWorkingSetAndCanOnlyAddLoads) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(512, 256, 256);
  const DsaTaskEstimate whole = dsa_task_estimate(g, ladder_task(), spec);
  const DsaTaskEstimate tiled = dsa_task_estimate(g, ladder_task({64, 64}), spec);
  EXPECT_LT(tiled.working_set_bytes, whole.working_set_bytes);
  EXPECT_GE(tiled.loaded_elements, whole.loaded_elements);
  EXPECT_GE(whole.loaded_elements, 512 * 256 + 256 * 256);
}

TEST(DsaTaskEstimate, APlacementTheMachineLacksIsRefused) {
  const DsaSpec spec = ladder_engine();
  const Graph g = ladder_gemm(64, 64, 64);
  EXPECT_THROW(dsa_task_estimate(g, ladder_task({}, UnitKind::Core), spec), Error);
}

}  // namespace
}  // namespace dgs
