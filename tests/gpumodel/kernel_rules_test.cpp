// Operator -> kernel rules and plan evaluation of the GPU model.
#include <gtest/gtest.h>

#include "common/gpumodel/gpu_model.h"
#include "tests/gpumodel/v100_spec.h"

namespace dgs {
namespace {

using test::hand_v100;

Attributes conv_attrs(int64_t pad_h, int64_t pad_w, int64_t group = 1) {
  Attributes a;
  a.set("pads", std::vector<int64_t>{pad_h, pad_w, pad_h, pad_w});
  a.set("group", group);
  return a;
}

// x[1,64,56,56] -> conv3x3(128) -> relu;  x -> conv1x3(32), conv3x1(32) (mergeable, same input);
// x -> depthwise 3x3; relu -> reshape.
struct SmallNet {
  Graph g;
  int x = -1, conv3 = -1, relu = -1, conv13 = -1, conv31 = -1, dw = -1, reshape = -1;
  SmallNet() {
    g.name = "small";
    x = g.add_input("x", {1, 64, 56, 56});
    const int w3 = g.add_weight("w3", {128, 64, 3, 3});
    const int b3 = g.add_weight("b3", {128});
    const int w13 = g.add_weight("w13", {32, 64, 1, 3});
    const int w31 = g.add_weight("w31", {32, 64, 3, 1});
    const int wdw = g.add_weight("wdw", {64, 1, 3, 3});
    conv3 = g.add_op(OpKind::Conv, "conv3", {x, w3, b3}, conv_attrs(1, 1));
    relu = g.add_op(OpKind::Relu, "relu", {g.op(conv3).outputs[0]});
    conv13 = g.add_op(OpKind::Conv, "conv13", {x, w13}, conv_attrs(0, 1));
    conv31 = g.add_op(OpKind::Conv, "conv31", {x, w31}, conv_attrs(1, 0));
    dw = g.add_op(OpKind::Conv, "dw", {x, wdw}, conv_attrs(1, 1, 64));
    const int shape = g.add_constant_ints("shape", {1, -1});
    reshape = g.add_op(OpKind::Reshape, "flat", {g.op(relu).outputs[0], shape});
    for (int op : {reshape, conv13, conv31, dw}) g.mark_output(g.op(op).outputs[0]);
  }
};

TEST(GpuKernelRules, ConvUsesTheImplicitGemm128x64Grid) {
  SmallNet n;
  const auto ks = kernels_for_op(n.g, n.conv3, hand_v100());
  ASSERT_EQ(ks.size(), 1u);
  const KernelLaunch& k = ks[0];
  // M = 1*56*56 = 3136, N = 128: 128 x 64 tiles give 25 * 2 = 50 blocks < 80 SMs, so the rule
  // takes 64 x 64 tiles: 49 * 2 = 98 blocks.
  EXPECT_EQ(k.grid_blocks, 49 * 2);
  EXPECT_EQ(k.name, "conv3:implicit_gemm_64x64");
  EXPECT_EQ(k.threads_per_block, 256);
  EXPECT_EQ(k.registers_per_thread, 126);
  EXPECT_EQ(k.shared_bytes_per_block, 2 * (64 + 64) * 8 * 4);
  EXPECT_EQ(k.klass, KernelClass::Gemm);
  EXPECT_EQ(k.math, MathUnit::Fp32);
  // FLOPs: 2 * M * C_out * K (K = 64*9) + one bias add per output.
  EXPECT_DOUBLE_EQ(k.flops, 2.0 * 3136 * 128 * 576 + 3136.0 * 128);
  // DRAM: input + weights + bias + output, once each.
  const double dram = 4.0 * (64 * 56 * 56 + 128 * 64 * 9 + 128 + 128 * 56 * 56);
  EXPECT_DOUBLE_EQ(k.dram_bytes, dram);
  // L2: plus each tile's 64 x K and K x 64 panels.
  EXPECT_DOUBLE_EQ(k.l2_bytes, dram + 98.0 * (64 + 64) * 576 * 4);
  // The block's tile, for the operand rule: 64 x 64 FP32 (63 accumulators per thread, 65 threads
  // hold outputs; ~1160 words per step for 8192 FLOPs: ~3.5e5 FLOP/us, above the SM's FP32 peak
  // of 1.96e5, so the rule does not bind).
  EXPECT_EQ(k.tile.m, 64);
  EXPECT_EQ(k.tile.n, 64);
  EXPECT_EQ(k.tile.element_bytes, 4);
  EXPECT_GT(tile_operand_rate_cap(hand_v100(), k), 15.7e6 / 80);
  EXPECT_EQ(kernel_rule_for(n.g, n.conv3), KernelRule::ImplicitGemm);
}

TEST(GpuKernelRules, LargeConvsKeep128x64TilesAndTheThesisConvGets48Blocks) {
  const GpuSpec v = hand_v100();
  Graph g;
  g.name = "tiles";
  const int x = g.add_input("x", {8, 64, 56, 56});
  const int w = g.add_weight("w", {128, 64, 3, 3});
  const int c = g.add_op(OpKind::Conv, "c", {x, w}, conv_attrs(1, 1));
  // M = 8*3136 = 25088 -> 196 tiles of 128; N = 128 -> 2 tiles of 64.
  EXPECT_EQ(kernels_for_op(g, c, v)[0].grid_blocks, 196 * 2);
  // IOS thesis §2.3: C_in=375, C_out=750, 3x3, 15x15, batch 1 launches 48 blocks on a 40-SM GPU.
  const int x2 = g.add_input("x2", {1, 375, 15, 15});
  const int w2 = g.add_weight("w2", {750, 375, 3, 3});
  const int c2 = g.add_op(OpKind::Conv, "c2", {x2, w2}, conv_attrs(1, 1));
  GpuSpec forty = v;
  forty.sm_count = 40;
  EXPECT_EQ(kernels_for_op(g, c2, forty)[0].grid_blocks, 48);
  // On the 80-SM V100 the rule goes on to 64 x 32 tiles: 4 * 24 = 96 blocks.
  EXPECT_EQ(kernels_for_op(g, c2, v)[0].grid_blocks, 96);
}

TEST(GpuKernelRules, ALibraryCallCostIsASetUpKernelBeforeTheConv) {
  SmallNet n;
  GpuSpec v = hand_v100();
  // No cost stated: the conv is one kernel, as calibrated.
  ASSERT_EQ(kernels_for_op(n.g, n.conv3, v).size(), 1u);
  v.efficiency["library_call_us"] = 10;
  v.efficiency["library_fused_call_us"] = 20;
  const auto ks = kernels_for_op(n.g, n.conv3, v);
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "conv3:implicit_gemm_64x64:library_call");
  EXPECT_EQ(ks[0].grid_blocks, 1);
  EXPECT_EQ(ks[0].flops, 0);
  EXPECT_EQ(ks[0].dram_bytes, 0);
  EXPECT_DOUBLE_EQ(ks[0].block_floor_us, 10);
  EXPECT_EQ(ks[1].name, "conv3:implicit_gemm_64x64");
  // On one stream: the set-up kernel is issued after one launch (5 us), lasts 10 us, and the
  // conv starts one launch after it ends: 10 + 5 us more than the conv alone.
  const double alone = estimate_kernel(v, ks[1]).latency_us;
  EXPECT_NEAR(simulate_stage(v, {ks}).latency_us, alone + 10 + 5, 1e-9);
  // Its ReLU in the epilogue: the fused call's cost.
  KernelOptions fold;
  fold.fold_activation = true;
  EXPECT_DOUBLE_EQ(kernels_for_op(n.g, n.conv3, v, fold)[0].block_floor_us, 20);
  // A merged conv is one call.
  EXPECT_EQ(kernels_for_merged_conv(n.g, {n.conv13, n.conv31}, v).size(), 2u);
}

TEST(GpuKernelRules, SerialisedLibraryConvolutionsOverlapOnlyTheirCallCosts) {
  SmallNet n;
  GpuSpec v = hand_v100();
  v.efficiency["library_call_us"] = 10;
  // Default: the GEMM shares the SMs like any kernel.
  EXPECT_FALSE(kernels_for_op(n.g, n.conv3, v).back().exclusive);
  v.efficiency["library_kernels_serialize"] = 1;
  const auto ks = kernels_for_op(n.g, n.conv3, v);
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_FALSE(ks[0].exclusive);  // the call's set-up
  EXPECT_TRUE(ks[1].exclusive);
  EXPECT_TRUE(kernels_for_merged_conv(n.g, {n.conv13, n.conv31}, v).back().exclusive);
  // The same call on two streams: the host issues stream 0's two launches (set-up ready at
  // L = 5 us), then stream 1's (set-up ready at 3L); the set-ups overlap (10 us each), each GEMM
  // is ready L after its set-up ends (stream 0's at 2L + 10), and the second GEMM starts when
  // the first ends: the stage ends at 2L + 10 + 2 G, where G is the GEMM's time alone without
  // its launch.
  const double gemm = estimate_kernel(v, ks[1]).latency_us - 5;
  ASSERT_GT(gemm, 2 * 5.0);  // stream 1's GEMM is ready (at 4L + 10) before the first ends
  EXPECT_NEAR(simulate_stage(v, {ks, ks}).latency_us, 2 * 5 + 10 + 2 * gemm, 1e-9 * gemm);
}

TEST(GpuKernelRules, WinogradTakesItsFractionOfThreeByThreeStrideOneFlops) {
  GpuSpec v = hand_v100();
  Graph g;
  g.name = "winograd";
  const int x = g.add_input("x", {8, 64, 56, 56});
  const int w = g.add_weight("w", {128, 64, 3, 3});
  const int c = g.add_op(OpKind::Conv, "c", {x, w}, conv_attrs(1, 1));
  Attributes s2 = conv_attrs(1, 1);
  s2.set("strides", std::vector<int64_t>{2, 2});
  const int c2 = g.add_op(OpKind::Conv, "c2", {x, w}, s2);
  const double flops = 2.0 * 8 * 3136 * 128 * 576;
  EXPECT_DOUBLE_EQ(kernels_for_op(g, c, v)[0].flops, flops);  // default: implicit GEMM
  v.efficiency["winograd_flop_fraction"] = 16.0 / 36;
  // 392 blocks of 128 x 64 fill the 80 SMs: Winograd F(2x2,3x3), 16 of 36 multiplies.
  const KernelLaunch k = kernels_for_op(g, c, v)[0];
  EXPECT_DOUBLE_EQ(k.flops, flops * 16 / 36);
  EXPECT_EQ(k.name, "c:implicit_gemm_128x64+winograd");
  // Stride 2: implicit GEMM.
  EXPECT_DOUBLE_EQ(kernels_for_op(g, c2, v)[0].flops, 2.0 * 8 * 784 * 128 * 576);
  // The candidacy is the grid at the smallest tile (64 x 32). SmallNet's batch-1 conv
  // (M = 3136, N = 128): 25 x 2 = 50 blocks of 128 x 64 leave SMs idle, but 49 x 4 = 196 of
  // 64 x 32 fill the 80: Winograd, on the tile rule's 64 x 64 (98 blocks).
  SmallNet n;
  const KernelLaunch small = kernels_for_op(n.g, n.conv3, v)[0];
  EXPECT_EQ(small.name, "conv3:implicit_gemm_64x64+winograd");
  EXPECT_DOUBLE_EQ(small.flops, kernels_for_op(n.g, n.conv3, hand_v100())[0].flops * 16 / 36);
  // On 14 x 14 (M = 196): 4 x 4 = 16 blocks of 64 x 32 do not fill the GPU: implicit GEMM.
  const int x14 = g.add_input("x14", {1, 64, 14, 14});
  const int c14 = g.add_op(OpKind::Conv, "c14", {x14, w}, conv_attrs(1, 1));
  EXPECT_EQ(kernels_for_op(g, c14, v)[0].name, "c14:implicit_gemm_64x32");
  EXPECT_DOUBLE_EQ(kernels_for_op(g, c14, v)[0].flops, 2.0 * 196 * 128 * 576);
}

TEST(GpuKernelRules, WinogradCoversFiveByFiveWithItsOwnFraction) {
  // F(2x2,5x5): 6 x 6 = 36 multiplies per 2x2 outputs and input channel instead of 4 x 25 =
  // 100; the config states F(2x2,3x3)'s 16/36, so 5x5 takes 16/36 x (36/100) / (16/36) = 0.36.
  GpuSpec v = hand_v100();
  Graph g;
  g.name = "winograd5";
  const int x = g.add_input("x", {8, 64, 56, 56});
  const int w = g.add_weight("w", {128, 64, 5, 5});
  const int c = g.add_op(OpKind::Conv, "c", {x, w}, conv_attrs(2, 2));
  g.mark_output(g.op(c).outputs[0]);
  const double flops = 2.0 * 8 * 3136 * 128 * 1600;
  EXPECT_DOUBLE_EQ(kernels_for_op(g, c, v)[0].flops, flops);  // default: implicit GEMM
  v.efficiency["winograd_flop_fraction"] = 16.0 / 36;
  EXPECT_NEAR(kernels_for_op(g, c, v)[0].flops, flops * 0.36, 1e-6 * flops);
  // The algorithm search: Winograd at a tile is 36 batched GEMMs of tiles x C_out x C_in
  // (tiles = 8 x 28 x 28 = 6272), the fastest here (0.36 of the FLOPs, the grid fills the GPU).
  v.efficiency["library_algorithm_search"] = 1;
  const KernelLaunch k = kernels_for_op(g, c, v).at(0);
  EXPECT_NE(k.name.find(":winograd:implicit_gemm_"), std::string::npos) << k.name;
  EXPECT_EQ(k.grid_blocks,
            36 * ((6272 + k.tile.m - 1) / k.tile.m) * ((128 + k.tile.n - 1) / k.tile.n));
  // A 7x7 kernel has no Winograd candidate: implicit GEMM.
  const int w7 = g.add_weight("w7", {128, 64, 7, 7});
  const int c7 = g.add_op(OpKind::Conv, "c7", {x, w7}, conv_attrs(3, 3));
  EXPECT_EQ(kernels_for_op(g, c7, v).at(0).name.find("winograd"), std::string::npos);
}

TEST(GpuKernelRules, AlgorithmSearchRunsTheFastestCandidateWithItsPaddedTiles) {
  // A 1x1 conv of 32 output channels: M = 8 * 784 = 6272, N = 32, K = 1024 (compute-bound). The
  // tile rule takes 64 x 64 (49 blocks of 128 x 64 leave SMs of the 80 idle; 98 of 64 x 64 do
  // not) and computes 32 padded columns per tile; the search prices every tile with its whole
  // tiles and takes 64 x 32 (the same 98 blocks, no padding: half the work).
  GpuSpec v = hand_v100();
  Graph g;
  g.name = "search";
  const int x = g.add_input("x", {8, 1024, 28, 28});
  const int w = g.add_weight("w", {32, 1024, 1, 1});
  const int c = g.add_op(OpKind::Conv, "c", {x, w}, conv_attrs(0, 0));
  g.mark_output(g.op(c).outputs[0]);
  const double flops = 2.0 * 6272 * 32 * 1024;
  const KernelLaunch rule = kernels_for_op(g, c, v).at(0);
  EXPECT_EQ(rule.name, "c:implicit_gemm_64x64");
  EXPECT_EQ(rule.grid_blocks, 98);
  EXPECT_DOUBLE_EQ(rule.flops, flops);
  v.efficiency["library_algorithm_search"] = 1;
  const std::vector<KernelLaunch> ks = kernels_for_op(g, c, v);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].name, "c:implicit_gemm_64x32");
  EXPECT_EQ(ks[0].grid_blocks, 98);
  EXPECT_DOUBLE_EQ(ks[0].flops, flops);
  // The rule's tile with its padded columns (2 x its FLOPs) is slower than the chosen one.
  KernelLaunch padded = rule;
  padded.flops = 2.0 * 98 * 64 * 64 * 1024;
  EXPECT_LT(estimate_kernel(v, ks[0]).latency_us, estimate_kernel(v, padded).latency_us);
}

TEST(GpuKernelRules, DepthwiseIsDirectAndElementwiseIsMemoryBound) {
  SmallNet n;
  const GpuSpec v = hand_v100();
  EXPECT_EQ(kernel_rule_for(n.g, n.dw), KernelRule::DepthwiseDirect);
  const auto dw = kernels_for_op(n.g, n.dw, v);
  ASSERT_EQ(dw.size(), 1u);
  EXPECT_EQ(dw[0].klass, KernelClass::Direct);
  EXPECT_EQ(dw[0].grid_blocks, 64 * 56 * 56 / 256);
  const auto relu = kernels_for_op(n.g, n.relu, v);
  ASSERT_EQ(relu.size(), 1u);
  EXPECT_EQ(relu[0].klass, KernelClass::Memory);
  EXPECT_EQ(relu[0].grid_blocks, 128 * 56 * 56 / 256);
  EXPECT_DOUBLE_EQ(relu[0].dram_bytes, 2.0 * 4 * 128 * 56 * 56);
}

TEST(GpuKernelRules, LayoutOnlyOpsAndFoldedActivationsLaunchNothing) {
  SmallNet n;
  const GpuSpec v = hand_v100();
  EXPECT_EQ(kernel_rule_for(n.g, n.reshape), KernelRule::LayoutOnly);
  EXPECT_TRUE(kernels_for_op(n.g, n.reshape, v).empty());
  KernelOptions fold;
  fold.fold_activation = true;
  EXPECT_TRUE(is_folded_activation(n.g, n.relu));
  EXPECT_TRUE(kernels_for_op(n.g, n.relu, v, fold).empty());
  EXPECT_EQ(kernels_for_op(n.g, n.relu, v).size(), 1u);
}

TEST(GpuKernelRules, Fp16UsesTensorCoresUnlessDisabled) {
  Graph g;
  g.name = "half";
  const int x = g.add_input("x", {64, 512}, DType::F16);
  const int w = g.add_weight("w", {512, 1024}, DType::F16);
  const int mm = g.add_op(OpKind::MatMul, "mm", {x, w});
  g.mark_output(g.op(mm).outputs[0]);
  const GpuSpec v = hand_v100();
  const auto tc = kernels_for_op(g, mm, v);
  ASSERT_EQ(tc.size(), 1u);
  EXPECT_EQ(tc[0].math, MathUnit::Tensor);
  // M = 64, N = 1024: 16 tiles of 128 x 64 or 64 x 64, 32 of 64 x 32 (the smallest).
  EXPECT_EQ(tc[0].grid_blocks, 32);
  EXPECT_EQ(tc[0].shared_bytes_per_block, 2 * (64 + 32) * 8 * 2);
  KernelOptions simt;
  simt.tensor_cores = false;
  EXPECT_EQ(kernels_for_op(g, mm, v, simt)[0].math, MathUnit::Fp16);
}

TEST(GpuKernelRules, MergedConvPadsKernelsToTheLargest) {
  SmallNet n;
  const auto ks = kernels_for_merged_conv(n.g, {n.conv13, n.conv31}, hand_v100());
  ASSERT_EQ(ks.size(), 1u);
  const KernelLaunch& k = ks[0];
  // One 3x3 conv with 32 + 32 output channels: M = 3136, N = 64, K = 64 * 9 (zero padding
  // tripled the FLOPs of the two 1x3 / 3x1 convs); 64 x 32 tiles: 49 * 2 blocks.
  EXPECT_EQ(k.grid_blocks, 49 * 2);
  EXPECT_DOUBLE_EQ(k.flops, 2.0 * 3136 * 64 * 576);
  const double separate = kernels_for_op(n.g, n.conv13, hand_v100())[0].flops +
                          kernels_for_op(n.g, n.conv31, hand_v100())[0].flops;
  EXPECT_DOUBLE_EQ(k.flops, 3 * separate);
  // DRAM: the input once, padded weights, both outputs.
  const double dram = 4.0 * (64 * 56 * 56 + 64 * 64 * 9 + 2 * 32 * 56 * 56);
  EXPECT_DOUBLE_EQ(k.dram_bytes, dram);
}

TEST(GpuKernelRules, MergingConvsWithDifferentInputsIsAnError) {
  SmallNet n;
  try {
    kernels_for_merged_conv(n.g, {n.conv3, n.dw}, hand_v100());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'dw'"), std::string::npos) << e.what();
  }
  // conv3 (on x) and ... a conv on another tensor: reuse relu's output via a new graph.
  Graph g;
  g.name = "two_inputs";
  const int a = g.add_input("a", {1, 8, 8, 8});
  const int b = g.add_input("b", {1, 8, 8, 8});
  const int w = g.add_weight("w", {8, 8, 1, 1});
  const int c1 = g.add_op(OpKind::Conv, "c1", {a, w});
  const int c2 = g.add_op(OpKind::Conv, "c2", {b, w});
  EXPECT_THROW(kernels_for_merged_conv(g, {c1, c2}, hand_v100()), Error);
}

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------
Task task(TaskKind kind, std::vector<int> ops) {
  Task t;
  t.kind = kind;
  t.ops = std::move(ops);
  return t;
}

Task seq(std::vector<int> ops) {
  return task(TaskKind::Sequential, std::move(ops));
}

TEST(GpuPlan, SequentialPlanIsTheSumOfItsKernels) {
  SmallNet n;
  const GpuSpec v = hand_v100();
  Plan p;
  p.scheduler = "Sequential";
  p.graph = n.g.name;
  for (int op : n.g.topo_order()) p.stages.push_back(Stage{{seq({op})}});
  p.check(n.g);
  const PlanEvaluation e = evaluate_plan(n.g, p, v);
  double sum = 0;
  int64_t kernels = 0;
  for (int op = 0; op < n.g.num_ops(); ++op)
    for (const KernelLaunch& k : kernels_for_op(n.g, op, v)) {
      sum += estimate_kernel(v, k).latency_us;
      ++kernels;
    }
  EXPECT_EQ(e.kernels, kernels);
  EXPECT_EQ(kernels, 5);    // reshape launches nothing
  EXPECT_EQ(e.sync_us, 0);  // single-task stages share stream 0
  EXPECT_NEAR(e.latency_us, sum, 1e-9 * sum);
  EXPECT_DOUBLE_EQ(plan_latency(n.g, p, v), e.latency_us);
}

TEST(GpuPlan, ConcurrentStageIsFasterAndPaysOneSync) {
  SmallNet n;
  const GpuSpec v = hand_v100();
  Plan p;
  p.scheduler = "test";
  p.stages.push_back(Stage{{seq({n.conv13}), seq({n.conv31}), seq({n.dw})}});
  p.stages.push_back(Stage{{seq({n.conv3, n.relu, n.reshape})}});
  p.check(n.g);
  EXPECT_TRUE(needs_stage_sync(p, 0));
  EXPECT_FALSE(needs_stage_sync(p, 1));
  const PlanEvaluation e = evaluate_plan(n.g, p, v);
  EXPECT_DOUBLE_EQ(e.sync_us, v.stage_sync_us);
  ASSERT_EQ(e.stage_latency_us.size(), 2u);
  double serial = 0;
  for (int op : {n.conv13, n.conv31, n.dw})
    serial += estimate_kernel(v, kernels_for_op(n.g, op, v)[0]).latency_us;
  EXPECT_LT(e.stage_latency_us[0], serial);
  EXPECT_NEAR(e.latency_us, e.stage_latency_us[0] + e.stage_latency_us[1] + v.stage_sync_us, 1e-9);
  EXPECT_DOUBLE_EQ(simulate_plan_stage(n.g, p.stages[0], v).latency_us, e.stage_latency_us[0]);
  // A merged task gives the merged conv's single kernel.
  Plan m = p;
  m.stages[0].tasks = {task(TaskKind::Merged, {n.conv13, n.conv31}), seq({n.dw})};
  const auto streams = stage_streams(n.g, m.stages[0], v);
  ASSERT_EQ(streams.size(), 2u);
  ASSERT_EQ(streams[0].size(), 1u);
  EXPECT_EQ(streams[0][0].ops, (std::vector<int>{n.conv13, n.conv31}));
}

TEST(GpuPlan, FusedTasksNeedTheCallersKernels) {
  SmallNet n;
  const GpuSpec v = hand_v100();
  Plan p;
  p.stages.push_back(Stage{{task(TaskKind::Fused, {n.conv3, n.relu, n.reshape}), seq({n.conv13}),
                            seq({n.conv31}), seq({n.dw})}});
  EXPECT_THROW(plan_latency(n.g, p, v), Error);
  int calls = 0;
  FusedKernelFn fused = [&](const Graph&, const Task& t, const GpuSpec&) {
    ++calls;
    KernelLaunch k;
    k.name = "fused";
    k.grid_blocks = 100;
    k.flops = 1e9;
    k.dram_bytes = 1e6;
    k.l2_bytes = 1e6;
    k.klass = KernelClass::Fused;
    k.ops = t.ops;
    return std::vector<KernelLaunch>{k};
  };
  const PlanEvaluation e = evaluate_plan(n.g, p, v, fused);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(e.kernels, 4);
  EXPECT_GT(e.latency_us, 0);
}

// An IOS merge stage: convs sharing an input plus the Relu after one of them, folded into the
// merged conv's epilogue.
TEST(GpuPlan, MergedTaskFoldsTheReluOfItsConvs) {
  SmallNet n;
  const GpuSpec v = hand_v100();
  KernelOptions fold;
  fold.fold_activation = true;
  const Task merged = task(TaskKind::Merged, {n.conv3, n.conv13, n.relu});
  const auto ks = kernels_for_merged_task(n.g, merged.ops, v, fold);
  const auto ref = kernels_for_merged_conv(n.g, {n.conv3, n.conv13}, v, fold);
  ASSERT_EQ(ks.size(), 1u);
  ASSERT_EQ(ref.size(), 1u);
  EXPECT_EQ(ks[0].name, ref[0].name);
  EXPECT_EQ(ks[0].grid_blocks, ref[0].grid_blocks);
  EXPECT_DOUBLE_EQ(ks[0].flops, ref[0].flops);
  EXPECT_DOUBLE_EQ(ks[0].dram_bytes, ref[0].dram_bytes);
  EXPECT_EQ(ks[0].ops, merged.ops);
  Plan p;
  p.stages.push_back(Stage{{merged, seq({n.dw})}});
  p.stages.push_back(Stage{{seq({n.conv31}), seq({n.reshape})}});
  p.options.fold_activation = true;
  const PlanEvaluation e = evaluate_plan(n.g, p, v);
  EXPECT_EQ(e.kernels, 3);  // merged conv, dw, conv31 (the reshape launches nothing)
  EXPECT_DOUBLE_EQ(e.stage_latency_us[0],
                   simulate_stage(v, {ref, kernels_for_op(n.g, n.dw, v, fold)}).latency_us);
  // Without folding the Relu is a kernel of its own and cannot be in a merged task.
  EXPECT_THROW(kernels_for_merged_task(n.g, merged.ops, v), Error);
  p.options.fold_activation = false;
  EXPECT_THROW(evaluate_plan(n.g, p, v), Error);
  // A Relu whose conv is not in the task, or an op that is no epilogue, is rejected too.
  EXPECT_THROW(kernels_for_merged_task(n.g, {n.conv13, n.conv31, n.relu}, v, fold), Error);
  EXPECT_THROW(kernels_for_merged_task(n.g, {n.conv3, n.conv13, n.reshape}, v, fold), Error);
}

// The synchronisation rule: every multi-task stage (the last one too) pays one stage_sync_us,
// single-task stages pay nothing, so a plan's latency is the sum of per-stage costs.
TEST(GpuPlan, SyncIsChargedPerMultiTaskStageSoStageCostsAdd) {
  SmallNet n;
  const GpuSpec v = hand_v100();
  Plan p;
  p.stages.push_back(Stage{{seq({n.conv3})}});
  p.stages.push_back(Stage{{seq({n.conv13}), seq({n.conv31})}});
  p.stages.push_back(Stage{{seq({n.relu, n.reshape})}});
  p.stages.push_back(Stage{{seq({n.dw})}});
  EXPECT_FALSE(needs_stage_sync(p, 0));
  EXPECT_TRUE(needs_stage_sync(p, 1));
  EXPECT_FALSE(needs_stage_sync(p, 2));
  const PlanEvaluation e = evaluate_plan(n.g, p, v);
  EXPECT_DOUBLE_EQ(e.sync_us, v.stage_sync_us);
  double sum = 0;
  for (const Stage& st : p.stages)
    sum += simulate_plan_stage(n.g, st, v).latency_us + stage_sync_cost_us(v, st.tasks.size());
  EXPECT_NEAR(e.latency_us, sum, 1e-9 * sum);
  // A multi-task last stage pays its join as well.
  p.stages.push_back(Stage{{seq({n.conv13}), seq({n.conv31})}});
  EXPECT_TRUE(needs_stage_sync(p, 4));
  EXPECT_DOUBLE_EQ(evaluate_plan(n.g, p, v).sync_us, 2 * v.stage_sync_us);
}

}  // namespace
}  // namespace dgs

namespace dgs {
namespace {

// IOS thesis Fig. 1.2: the 4-conv graph (x[1,375,15,15]; a = 3x3x384 -> b = 3x3x768; c = 3x3x384;
// d = 3x3x768; concat), with the built-in V100 config. The paper's ordering Sequential > Greedy
// > IOS (0.48 / 0.37 / 0.33 ms) and IOS's higher active warps (Fig. 4.3) must come out of the
// model. (gemm_fp32 was calibrated on the Sequential stages of this figure; the other two
// schedules and the warps are not fitted.)
TEST(GpuPlan, IosFigure12OrderingHoldsOnTheV100Config) {
  const GpuSpec v = load_gpu_spec("v100");
  Graph g;
  g.name = "fig1_2";
  const int x = g.add_input("x", {1, 375, 15, 15});
  auto conv = [&](const std::string& n, int in, int64_t cin, int64_t cout) {
    const int w = g.add_weight(n + "_w", {cout, cin, 3, 3});
    const int b = g.add_weight(n + "_b", {cout});
    const int c = g.add_op(OpKind::Conv, n, {in, w, b}, conv_attrs(1, 1));
    return g.add_op(OpKind::Relu, n + "_relu", {g.op(c).outputs[0]});
  };
  const int a = conv("a", x, 375, 384);
  const int b = conv("b", g.op(a).outputs[0], 384, 768);
  const int c = conv("c", x, 375, 384);
  const int d = conv("d", x, 375, 768);
  Attributes axis;
  axis.set("axis", int64_t{1});
  const int cat = g.add_op(OpKind::Concat, "cat",
                           {g.op(b).outputs[0], g.op(c).outputs[0], g.op(d).outputs[0]}, axis);
  g.mark_output(g.op(cat).outputs[0]);
  auto unit = [&](int relu) { return seq({relu - 1, relu}); };  // conv, relu
  Plan sequential, greedy, ios;
  for (int r : {a, b, c, d}) sequential.stages.push_back(Stage{{unit(r)}});
  greedy.stages = {Stage{{unit(a), unit(c), unit(d)}}, Stage{{unit(b)}}};
  ios.stages = {Stage{{unit(a), unit(d)}}, Stage{{unit(b), unit(c)}}};
  std::vector<PlanEvaluation> r;
  for (Plan* p : {&sequential, &greedy, &ios}) {
    p->stages.push_back(Stage{{seq({cat})}});
    p->options.fold_activation = true;  // the Relus run in the convs' epilogues
    p->check(g);
    r.push_back(evaluate_plan(g, *p, v));
  }
  EXPECT_EQ(r[0].kernels, 5);  // the Relus run in the convs' epilogues
  EXPECT_GT(r[0].latency_us, r[1].latency_us);
  EXPECT_GT(r[1].latency_us, r[2].latency_us);
  EXPECT_GT(r[2].avg_active_warps_per_sm, r[0].avg_active_warps_per_sm);
}

}  // namespace
}  // namespace dgs
