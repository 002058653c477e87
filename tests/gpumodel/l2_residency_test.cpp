// Hand-computed cases for the L2 residency rule (common/gpumodel/l2_residency.h) on the hand-built
// V100 (6 MiB of L2).
#include "common/gpumodel/l2_residency.h"

#include <gtest/gtest.h>

#include "common/gpumodel/gpu_model.h"
#include "tests/gpumodel/v100_spec.h"

namespace dgs {
namespace {

using test::hand_v100;

constexpr double kMiB = 1 << 20;

// x (rows x 1024 floats) -> relu1 -> [reshape] -> relu2 -> output; y -> relu3 -> output.
struct Chain {
  Graph g;
  int relu1 = -1, reshape = -1, relu2 = -1, relu3 = -1;
  Chain(int64_t rows, bool with_reshape) {
    g.name = "chain";
    const int x = g.add_input("x", {rows, 1024});
    const int y = g.add_input("y", {rows, 1024});
    relu1 = g.add_op(OpKind::Relu, "relu1", {x});
    int t = g.op(relu1).outputs[0];
    if (with_reshape) {
      const int shape = g.add_constant_ints("shape", {1, -1});
      reshape = g.add_op(OpKind::Reshape, "flat", {t, shape});
      t = g.op(reshape).outputs[0];
    }
    relu2 = g.add_op(OpKind::Relu, "relu2", {t});
    relu3 = g.add_op(OpKind::Relu, "relu3", {y});
    g.mark_output(g.op(relu2).outputs[0]);
    g.mark_output(g.op(relu3).outputs[0]);
  }
  Stage stage(std::vector<std::vector<int>> tasks) const {
    Stage st;
    for (auto& ops : tasks) {
      Task t;
      t.kind = TaskKind::Sequential;
      t.ops = std::move(ops);
      st.tasks.push_back(std::move(t));
    }
    return st;
  }
};

TEST(GpuL2Residency, NextKernelReadsWhatFitsFromL2) {
  const GpuSpec v = hand_v100();
  // 1024 x 1024 floats = 4 MiB <= 6 MiB: relu2 reads relu1's output from L2. Each Relu moves
  // 4 MiB in and 4 MiB out of DRAM; relu2 keeps only its 4 MiB write.
  const Chain c(1024, false);
  const auto streams = stage_streams(c.g, c.stage({{c.relu1, c.relu2}}), v);
  ASSERT_EQ(streams.size(), 1u);
  ASSERT_EQ(streams[0].size(), 2u);
  EXPECT_DOUBLE_EQ(streams[0][0].dram_bytes, 8 * kMiB);
  EXPECT_DOUBLE_EQ(streams[0][1].dram_bytes, 4 * kMiB);
  EXPECT_DOUBLE_EQ(streams[0][1].l2_bytes, 8 * kMiB);  // still through L2
  EXPECT_DOUBLE_EQ(l2_resident_bytes(c.g, streams[0][0], streams[0][1], 6 * kMiB), 4 * kMiB);
  // The most relu2 could ever save; relu1 reads a graph input (nothing to save).
  EXPECT_DOUBLE_EQ(l2_resident_bytes_at_most(c.g, v, streams[0][1]), 4 * kMiB);
  EXPECT_DOUBLE_EQ(l2_resident_bytes_at_most(c.g, v, streams[0][0]), 0);
  // Through a layout-only op: the Reshape's output is relu1's bytes.
  const Chain r(1024, true);
  const auto rs = stage_streams(r.g, r.stage({{r.relu1, r.reshape, r.relu2}}), v);
  ASSERT_EQ(rs[0].size(), 2u);
  EXPECT_DOUBLE_EQ(rs[0][1].dram_bytes, 4 * kMiB);
}

TEST(GpuL2Residency, TensorsLargerThanTheStreamsShareGoToDram) {
  const GpuSpec v = hand_v100();
  // Two streams share the 6 MiB: 3 MiB each, so the 4 MiB tensor does not stay.
  const Chain c(1024, false);
  const auto two = stage_streams(c.g, c.stage({{c.relu1, c.relu2}, {c.relu3}}), v);
  EXPECT_DOUBLE_EQ(two[0][1].dram_bytes, 8 * kMiB);
  EXPECT_DOUBLE_EQ(l2_share_per_stream(v, 2), 3 * kMiB);
  // 2048 x 1024 floats = 8 MiB > 6 MiB: not even one stream keeps it.
  const Chain big(2048, false);
  const auto one = stage_streams(big.g, big.stage({{big.relu1, big.relu2}}), v);
  EXPECT_DOUBLE_EQ(one[0][1].dram_bytes, 16 * kMiB);
  // Not across streams, nor without a producer just before: relu3 after relu1 saves nothing.
  EXPECT_DOUBLE_EQ(l2_resident_bytes(c.g, two[0][0], two[1][0], 6 * kMiB), 0);
  // No L2 size in the config: nothing stays.
  GpuSpec no_l2 = v;
  no_l2.l2_bytes = 0;
  const auto none = stage_streams(c.g, c.stage({{c.relu1, c.relu2}}), no_l2);
  EXPECT_DOUBLE_EQ(none[0][1].dram_bytes, 8 * kMiB);
}

TEST(GpuL2Residency, ResidencyShortensAMemoryBoundStage) {
  const GpuSpec v = hand_v100();
  // 640 x 1024 floats = 2.5 MiB: each Relu is 2560 blocks of 256 threads, 4 full waves of 8
  // blocks (64 warps) per SM, so DRAM is saturated throughout: 5 + 2.5 MiB of DRAM at 720 GB/s
  // plus two launches (without the rule: 5 + 5 MiB).
  const Chain c(640, false);
  const StageResult r = simulate_plan_stage(c.g, c.stage({{c.relu1, c.relu2}}), v);
  const double dram_rate = 900e3 * 0.8;  // bytes per microsecond
  const double expect = 2 * 5.0 + 7.5 * kMiB / dram_rate;
  EXPECT_NEAR(r.latency_us, expect, 1e-9 * expect);
}

}  // namespace
}  // namespace dgs
