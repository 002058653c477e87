// Figs. 8-11's evaluate_ms: the figures' schedules as plans through evaluate()
// (experiments/evaluated.h) cost what BrickDL's own model gives them, one stand-in kernel launch
// per memoized subgraph more (its atomics, brick_plan.h).
#include <gtest/gtest.h>

#include "common/hw/hardware_spec.h"
#include "models/zoo.h"
#include "reproductions/brickdl/experiments/evaluated.h"
#include "reproductions/brickdl/experiments/workloads.h"
#include "reproductions/brickdl/perf_model.h"

namespace dgs::brickdl {
namespace {

// ResNet-50's first three subgraphs (Figs. 8-9): plans of the sub-graph of each one's ops.
TEST(BrickdlEvaluated, ResNetSubgraphsCostWhatTheOwnModelGives) {
  const HardwareSpec hw = load_hardware("a100");
  const GpuSpec& spec = *hw.gpu;
  const Graph g = build_zoo_model("resnet50", {.batch = 2});
  const std::vector<NamedSubgraph> subs = resnet50_subgraphs(g);
  ASSERT_GE(subs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const NamedSubgraph& s = subs[i];
    const int64_t edge = 4;
    const SubgraphAnalysis a = analyze_subgraph(g, s.ops, edge);
    EXPECT_DOUBLE_EQ(evaluate_cudnn(g, s.ops, hw).latency_us, price_cudnn(g, s.ops, spec).total_us)
        << s.name;
    EXPECT_NEAR(evaluate_merged(g, {s.ops}, MergeVariant::Padded, edge, hw).latency_us,
                price_merged(g, a, MergeVariant::Padded, spec).total_us, 1e-9)
        << s.name;
    EXPECT_NEAR(evaluate_merged(g, {s.ops}, MergeVariant::Memoized, edge, hw).latency_us,
                price_merged(g, a, MergeVariant::Memoized, spec).total_us + spec.kernel_launch_us,
                1e-9)
        << s.name;
  }
}

// Fig. 10's merge configurations: several merged subgraphs in one plan of the whole proxy.
TEST(BrickdlEvaluated, ConfigurationsOfSeveralSubgraphs) {
  const HardwareSpec hw = load_hardware("a100");
  const GpuSpec& spec = *hw.gpu;
  const Graph g = build_zoo_model("brickdl_proxy6");
  std::vector<std::vector<int>> parts;
  double own = 0;
  for (const NamedSubgraph& s : split_conv_chain(g, {2, 2, 2})) {
    parts.push_back(s.ops);
    own += price_merged(g, analyze_subgraph(g, s.ops, 8), MergeVariant::Memoized, spec).total_us;
  }
  EXPECT_NEAR(evaluate_merged(g, parts, MergeVariant::Memoized, 8, hw).latency_us,
              own + 3 * spec.kernel_launch_us, 1e-9 * own);
}

}  // namespace
}  // namespace dgs::brickdl
