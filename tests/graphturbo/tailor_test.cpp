// ResNet18-Tailor's three schedules (Table 5, Fig. 18): kernel counts, the inserted Slice/Concat
// operators of the instance split, and the kernels' tile programs on the host interpreter equal to
// the CPU reference (the same programs measured mode launches on a GPU); measured mode without a
// GPU refuses in one line with exit code 4.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/exec/executor.h"
#include "common/exec/plan_exec.h"
#include "common/tileprog/network_program.h"
#include "reproductions/graphturbo/experiments/experiment_list.h"
#include "reproductions/graphturbo/tailor.h"

namespace dgs::graphturbo {
namespace {

// Reduced sizes: 4 images of 8x8, channels 4/8/16/32 (outputs 8x8, 4x4, 2x2, 1x1).
const TailorShape kSmall{.image = 8, .stages = 4, .channels = 4};
constexpr int64_t kBatch = 4;
constexpr uint64_t kSeed = 7;

TensorData reference_output(uint64_t seed) {
  const Graph g = resnet18_tailor(kBatch, DType::F32, kSmall);
  return run_graph(g, {}, seed).at(g.output_tensors().at(0));
}

TEST(GraphTurboTailor, KernelsPerSchedule) {
  EXPECT_EQ(tailor_per_layer(kBatch, DType::F32, kSmall).kernels.size(), 8u);
  EXPECT_EQ(tailor_two_conv(kBatch, DType::F32, kSmall).kernels.size(), 4u);
  const TailorNetwork s = tailor_instance_split(kBatch, DType::F32, 2, 2, kSmall);
  // Two instances of stages 1 and 2, then stages 3 and 4 (Fig. 18c).
  EXPECT_EQ(s.kernels.size(), 6u);
  // Algorithm 3 (fewer live instance outputs than BFS): each stage-2 instance right after its
  // stage-1 instance.
  EXPECT_TRUE(s.algorithm3_order);
  std::string order;
  for (const std::string& k : s.kernel_names) order += (order.empty() ? "" : " ") + k;
  EXPECT_EQ(order,
            "stage1.instance2 stage2.instance2 stage1.instance1 stage2.instance1 stage3 stage4");
  // One Slice per instance and one Concat (§3.5), each inside a kernel.
  EXPECT_EQ(s.inserted_ops, 3);
  int slices = 0, concats = 0;
  for (const std::vector<int>& k : s.kernels)
    for (int op : k) {
      slices += s.graph.op(op).kind == OpKind::Slice;
      concats += s.graph.op(op).kind == OpKind::Concat;
    }
  EXPECT_EQ(slices, 2);
  EXPECT_EQ(concats, 1);
}

TEST(GraphTurboTailor, InstanceSplitGraphEqualsThePlainGraph) {
  const TensorData ref = reference_output(kSeed);
  for (int split_stages : {1, 2, 4}) {
    const TailorNetwork s = tailor_instance_split(kBatch, DType::F32, split_stages, 2, kSmall);
    const TensorData got = run_graph(s.graph, {}, kSeed).at(s.graph.output_tensors().at(0));
    const Comparison c = compare_tensors(got, ref, Tolerance{1e-5, 1e-5});
    EXPECT_TRUE(c.passed) << split_stages << " stages: " << c.str();
  }
}

TEST(GraphTurboTailor, TileProgramsOfEveryScheduleEqualTheReference) {
  const TensorData ref = reference_output(kSeed);
  std::vector<TailorNetwork> nets;
  nets.push_back(tailor_per_layer(kBatch, DType::F32, kSmall));
  nets.push_back(tailor_two_conv(kBatch, DType::F32, kSmall));
  nets.push_back(tailor_instance_split(kBatch, DType::F32, 2, 2, kSmall));
  nets.push_back(tailor_instance_split(kBatch, DType::F32, 4, 4, kSmall));
  nets.push_back(tailor_instances(kBatch, DType::F32, {4, 2, 1, 1}, kSmall));
  for (const TailorNetwork& n : nets) {
    const NetworkProgram np = tailor_program(n);
    EXPECT_EQ(np.kernels.size(), n.kernels.size());
    const TensorValues v = run_network_host(n.graph, np, {}, kSeed, HostTileOrder::Adversarial);
    const Comparison c =
        compare_tensors(v.at(n.graph.output_tensors().at(0)), ref, Tolerance{1e-4, 1e-4});
    EXPECT_TRUE(c.passed) << n.schedule << ": " << c.str();
  }
}

TEST(GraphTurboTailor, RunPlanOfEveryScheduleEqualsThePlainGraph) {
  const TensorData ref = reference_output(kSeed);
  std::vector<TailorNetwork> nets;
  nets.push_back(tailor_two_conv(kBatch, DType::F32, kSmall));
  nets.push_back(tailor_instance_split(kBatch, DType::F32, 2, 2, kSmall));
  nets.push_back(tailor_instances(kBatch, DType::F32, {4, 2, 1, 1}, kSmall));
  for (const TailorNetwork& n : nets) {
    const Plan p = tailor_plan(n);
    p.check(n.graph);
    const TensorValues out = run_plan(n.graph, p, make_graph_feeds(n.graph, {}, kSeed));
    const Comparison c =
        compare_tensors(out.at(n.graph.output_tensors().at(0)), ref, Tolerance{1e-5, 1e-5});
    EXPECT_TRUE(c.passed) << n.schedule << ": " << c.str();
  }
}

TEST(GraphTurboTailor, NestedFactorsConcatProducerInstances) {
  // Factors 4/2/1/1 (the ResNet-50 pattern of Fig. 6): each stage-2 instance reads a Concat of two
  // stage-1 instances, stage 3 a Concat of the two stage-2 instances.
  const TailorNetwork n = tailor_instances(kBatch, DType::F32, {4, 2, 1, 1}, kSmall);
  EXPECT_EQ(n.kernels.size(), 4u + 2u + 1u + 1u);
  EXPECT_EQ(n.inserted_ops, 4 + 2 + 1);  // 4 Slices, 2 + 1 Concats
  std::string order;
  for (const std::string& k : n.kernel_names) order += (order.empty() ? "" : " ") + k;
  EXPECT_EQ(order,
            "stage1.instance4 stage1.instance3 stage2.instance2 stage1.instance2 stage1.instance1 "
            "stage2.instance1 stage3 stage4");
  try {
    tailor_instances(kBatch, DType::F32, {2, 4, 1, 1}, kSmall);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "resnet18_tailor instances: stage 2's 4 instances do not divide stage 1's 2");
  }
}

TEST(GraphTurboTailor, InstancesMustDivideTheBatch) {
  try {
    tailor_instance_split(kBatch, DType::F32, 2, 3, kSmall);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "resnet18_tailor instances: 3 instances do not divide batch 4");
  }
}

TEST(GraphTurboTailor, MeasuredTable5WithoutGpuRefusesInOneLine) {
  const char* argv[] = {"repro_graphturbo",
                        "--table",
                        "5",
                        "--mode",
                        "measured",
                        "--out",
                        "/nonexistent-graphturbo-test"};
  std::ostringstream out, err;
  const int code = run_cli(7, argv, paper_info(), experiments(), out, err,
                           [](LiveGpuProperties*, std::string* why) {
                             *why = "no GPU in this test";
                             return false;
                           });
  EXPECT_EQ(code, 4);
  EXPECT_EQ(err.str(), "error: measured mode needs an NVIDIA GPU: no GPU in this test\n");
}

}  // namespace
}  // namespace dgs::graphturbo
