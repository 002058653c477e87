// Hand-computed cases for the GPU performance model (V100 numbers from tests/gpumodel/v100_spec.h).
#include "common/gpumodel/gpu_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/gpumodel/v100_spec.h"

namespace dgs {
namespace {

using test::hand_v100;

KernelLaunch make_kernel(int64_t grid, int threads, int regs, int64_t smem, double flops_per_block,
                         double dram_per_block) {
  KernelLaunch k;
  k.name = "k";
  k.grid_blocks = grid;
  k.threads_per_block = threads;
  k.registers_per_thread = regs;
  k.shared_bytes_per_block = smem;
  k.flops = flops_per_block * static_cast<double>(grid);
  k.dram_bytes = dram_per_block * static_cast<double>(grid);
  k.l2_bytes = k.dram_bytes;
  k.klass = KernelClass::Gemm;
  return k;
}

// Achievable FP32 FLOP/us of one V100 SM for an implicit-GEMM kernel: 15.7 TFLOP/s / 80 * 0.7.
constexpr double kSmRate = 15.7e6 / 80 * 0.7;
constexpr double kLaunch = 5.0;

// ---------------------------------------------------------------------------------------------
// Occupancy
// ---------------------------------------------------------------------------------------------
TEST(GpuOccupancy, RegistersLimitTheIosThesisConvKernel) {
  // IOS thesis §2.3: 256 threads x 126 registers -> 4096 registers per warp (rounded to 256),
  // 65536 / 4096 = 16 warps -> 2 blocks, 16 warps, occupancy 25% on a 64-warp SM.
  const Occupancy o = occupancy(hand_v100(), make_kernel(1, 256, 126, 0, 0, 0));
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limited_by, OccupancyLimit::Registers);
  EXPECT_EQ(o.warps_per_block, 8);
  EXPECT_EQ(o.registers_per_block, 8 * 4096);
  EXPECT_EQ(o.active_warps_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.occupancy, 0.25);
}

TEST(GpuOccupancy, RegisterAllocationGranularity) {
  // 33 registers x 32 threads = 1056 -> rounded to 1280 per warp; 65536 / 1280 = 51 warps;
  // 51 / 8 = 6 blocks (without rounding it would be 7).
  const Occupancy o = occupancy(hand_v100(), make_kernel(1, 256, 33, 0, 0, 0));
  EXPECT_EQ(o.blocks_per_sm, 6);
  EXPECT_EQ(o.limited_by, OccupancyLimit::Registers);
}

TEST(GpuOccupancy, SharedMemoryLimit) {
  // 40 KiB per block: 96 KiB / 40 KiB = 2 blocks (threads would allow 8).
  const Occupancy o = occupancy(hand_v100(), make_kernel(1, 256, 32, 40 * 1024, 0, 0));
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limited_by, OccupancyLimit::SharedMemory);
  // 1000 bytes round up to 1024 (256-byte units): 98304 / 1024 = 96 -> capped by 8 (threads).
  const Occupancy o2 = occupancy(hand_v100(), make_kernel(1, 256, 32, 1000, 0, 0));
  EXPECT_EQ(o2.shared_per_block, 1024);
  EXPECT_EQ(o2.blocks_per_sm, 8);
  EXPECT_EQ(o2.limited_by, OccupancyLimit::Threads);
}

TEST(GpuOccupancy, ThreadsAndBlockSlotLimits) {
  const Occupancy big = occupancy(hand_v100(), make_kernel(1, 1024, 32, 0, 0, 0));
  EXPECT_EQ(big.blocks_per_sm, 2);  // 2048 / 1024
  EXPECT_EQ(big.limited_by, OccupancyLimit::Threads);
  const Occupancy small = occupancy(hand_v100(), make_kernel(1, 32, 16, 0, 0, 0));
  EXPECT_EQ(small.blocks_per_sm, 32);  // 64 by threads, 32 block slots
  EXPECT_EQ(small.limited_by, OccupancyLimit::Blocks);
  // 48 threads occupy 2 warps: threads allow 2048 / 48 = 42 blocks, warps 64 / 2 = 32, slots 32;
  // the tie between warps and slots names the warps (checked first).
  const Occupancy odd = occupancy(hand_v100(), make_kernel(1, 48, 16, 0, 0, 0));
  EXPECT_EQ(odd.blocks_per_sm, 32);
  EXPECT_EQ(odd.limited_by, OccupancyLimit::Warps);
}

TEST(GpuOccupancy, BlocksThatCannotRunAreErrors) {
  const GpuSpec v = hand_v100();
  try {
    occupancy(v, make_kernel(1, 256, 32, 64 * 1024, 0, 0));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shared bytes per block"), std::string::npos) << e.what();
  }
  EXPECT_THROW(occupancy(v, make_kernel(1, 2048, 32, 0, 0, 0)), Error);
  EXPECT_THROW(occupancy(v, make_kernel(1, 256, 300, 0, 0, 0)), Error);
  EXPECT_THROW(occupancy(v, make_kernel(0, 256, 32, 0, 0, 0)), Error);
  // 1024 threads x 255 registers = 261120 registers > 65536: no block fits.
  EXPECT_THROW(occupancy(v, make_kernel(1, 1024, 255, 0, 0, 0)), Error);
}

// ---------------------------------------------------------------------------------------------
// Single kernels
// ---------------------------------------------------------------------------------------------
TEST(GpuKernel, ThreeWavesForTwoFullWavesPlusOneBlock) {
  const GpuSpec v = hand_v100();
  // 2 blocks/SM (registers), so 2 * 80 * 2 + 1 = 321 blocks take 3 waves.
  const KernelLaunch k = make_kernel(2 * 80 * 2 + 1, 256, 126, 0, 1e6, 0);
  const KernelEstimate e = estimate_kernel(v, k);
  EXPECT_EQ(e.waves, 3);
  // Full wave: two 8-warp blocks share an SM (16 warps >= 8 saturation): each runs at half rate.
  const double t_full = 1e6 / (kSmRate * 0.5);
  // Last wave: one block alone on one SM gets the whole SM (8 warps saturate it).
  const double t_tail = 1e6 / kSmRate;
  EXPECT_NEAR(e.full_wave_block_us, t_full, 1e-9 * t_full);
  EXPECT_NEAR(e.latency_us, kLaunch + 2 * t_full + t_tail, 1e-9 * e.latency_us);
  const StageResult s = simulate_stage(v, {{k}});
  EXPECT_NEAR(s.latency_us, e.latency_us, 1e-9 * e.latency_us);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(s.kernels[0].ready_us, kLaunch);
  EXPECT_DOUBLE_EQ(s.kernels[0].start_us, kLaunch);
  EXPECT_NEAR(s.kernels[0].end_us, e.latency_us, 1e-9 * e.latency_us);
  // Achieved warps: 16 per SM during the two full waves, 8/80 during the tail, 0 during launch.
  const double warps = (16.0 * 2 * t_full + 8.0 / 80 * t_tail) / e.latency_us;
  EXPECT_NEAR(e.achieved_warps_per_sm, warps, 1e-9 * warps);
  EXPECT_NEAR(s.avg_active_warps_per_sm, warps, 1e-9 * warps);
}

TEST(GpuKernel, MemoryBoundKernelRunsAtDramBandwidth) {
  const GpuSpec v = hand_v100();
  // 8 blocks/SM (threads), 640 per wave, 4 full waves of 64 KiB blocks, no FLOPs.
  const KernelLaunch k = make_kernel(640 * 4, 256, 32, 0, 0, 65536);
  const double bytes = 640.0 * 4 * 65536;
  const double bw = 900e3 * 0.8;  // bytes per us
  const KernelEstimate e = estimate_kernel(v, k);
  EXPECT_NEAR(e.latency_us, kLaunch + bytes / bw, 1e-9 * e.latency_us);
  EXPECT_NEAR(simulate_stage(v, {{k}}).latency_us, e.latency_us, 1e-9 * e.latency_us);
}

TEST(GpuKernel, FewWarpsCannotSaturateDram) {
  // Little's-law cap: one 8-warp block can move at most 8 / (32 * 80) of the DRAM bandwidth.
  const GpuSpec v = hand_v100();
  const KernelLaunch k = make_kernel(1, 256, 32, 0, 0, 1e6);
  const double cap = 8.0 * 900e3 * 0.8 / (32 * 80);
  EXPECT_NEAR(estimate_kernel(v, k).latency_us, kLaunch + 1e6 / cap, 1e-6);
}

TEST(GpuKernel, SimulationEqualsAnalyticForSingleKernels) {
  const GpuSpec v = hand_v100();
  std::vector<KernelLaunch> ks = {
      make_kernel(1, 256, 126, 12288, 3e6, 2e4),   make_kernel(50, 256, 126, 12288, 3e6, 2e4),
      make_kernel(161, 256, 126, 12288, 3e6, 2e4), make_kernel(1000, 256, 32, 0, 512, 8192),
      make_kernel(12345, 256, 32, 0, 256, 2048),   make_kernel(77, 1024, 64, 0, 1e5, 1e5),
      make_kernel(4097, 128, 40, 20000, 2e5, 3e4), make_kernel(3, 32, 16, 0, 0, 0)};
  ks[3].klass = KernelClass::Memory;
  ks[4].klass = KernelClass::Memory;
  ks[4].l2_bytes = ks[4].dram_bytes * 3;
  for (const KernelLaunch& k : ks) {
    const KernelEstimate e = estimate_kernel(v, k);
    const StageResult s = simulate_stage(v, {{k}});
    EXPECT_NEAR(s.latency_us, e.latency_us, 1e-9 * e.latency_us) << "grid " << k.grid_blocks;
    EXPECT_NEAR(s.avg_active_warps_per_sm, e.achieved_warps_per_sm,
                1e-9 * (1 + e.achieved_warps_per_sm))
        << "grid " << k.grid_blocks;
  }
}

TEST(GpuKernel, TensorCoresAndFp16RaiseTheComputeRate) {
  const GpuSpec v = hand_v100();
  KernelLaunch k = make_kernel(640, 256, 126, 0, 1e7, 0);
  const double fp32 = estimate_kernel(v, k).latency_us - kLaunch;
  k.math = MathUnit::Fp16;
  const double fp16 = estimate_kernel(v, k).latency_us - kLaunch;
  k.math = MathUnit::Tensor;
  const double tensor = estimate_kernel(v, k).latency_us - kLaunch;
  EXPECT_NEAR(fp32 / fp16, 31.4 / 15.7, 1e-9);
  EXPECT_NEAR(fp32 / tensor, (125 * 0.5) / (15.7 * 0.7), 1e-9);
}

// ---------------------------------------------------------------------------------------------
// The operand rule: a GEMM tile's intensity against the SM's shared-memory bandwidth
// ---------------------------------------------------------------------------------------------
// Shared memory of one V100 SM: 32 banks x 4 bytes x 1530 MHz = 195840 bytes per microsecond.
constexpr double kSharedRate = 32 * 4 * 1530.0;

TEST(GpuTileRate, ThinTileIsBoundByItsOperandTraffic) {
  const GpuSpec v = hand_v100();
  // A 1 x 256 tile, 256 threads of 32 registers: a register tile holds 32 / 2 = 16 accumulators,
  // so 16 threads hold outputs (the others share the reduction), each a 1 x 16 tile (a is
  // clamped to the tile's one row). Per step: 16 * (1 + 16) = 272 words read, 257 staged,
  // 529 words = 2116 bytes for 512 FLOPs.
  KernelLaunch k = make_kernel(80, 256, 32, 0, 1e6, 0);
  k.tile = GemmTile{1, 256, 4};
  const TileOperandTraffic t = tile_operand_traffic(k.tile, 256, 32);
  EXPECT_DOUBLE_EQ(t.threads, 16);
  EXPECT_DOUBLE_EQ(t.register_tile_a, 1);
  EXPECT_DOUBLE_EQ(t.register_tile_b, 16);
  EXPECT_DOUBLE_EQ(t.shared_bytes_per_step, 2116);
  EXPECT_DOUBLE_EQ(t.flops_per_step, 512);
  const double cap = 512.0 / 2116.0 * kSharedRate;  // 47386.6 FLOP/us, a third of kSmRate
  EXPECT_NEAR(tile_operand_rate_cap(v, k), cap, 1e-9 * cap);
  // One block per SM, 8 warps (>= Wc = 8): the block runs at the cap.
  const double expect = kLaunch + 1e6 / cap;
  EXPECT_NEAR(estimate_kernel(v, k).latency_us, expect, 1e-9 * expect);
  EXPECT_NEAR(simulate_stage(v, {{k}}).latency_us, expect, 1e-9 * expect);
}

TEST(GpuTileRate, SquareTilesOfFewRegistersAreCappedAndLibraryTilesAreNot) {
  const GpuSpec v = hand_v100();
  // 64 x 64, 256 threads of 16 registers (8 accumulators, fewer than the 16 outputs per thread
  // the tile needs): every thread holds a 4 x 4 tile; per step 256 * 8 = 2048 words read, 128
  // staged: 8704 bytes for 8192 FLOPs, cap = 16/17 * 195840 = 184320 FLOP/us.
  KernelLaunch k = make_kernel(80, 256, 16, 0, 1e6, 0);
  k.tile = GemmTile{64, 64, 4};
  EXPECT_DOUBLE_EQ(tile_operand_traffic(k.tile, 256, 16).shared_bytes_per_step, 8704);
  EXPECT_NEAR(tile_operand_rate_cap(v, k), 184320, 1e-9 * 184320);
  // Above kSmRate (137375 FLOP/us): the tile does not bind, the latency is the untiled one.
  KernelLaunch untiled = k;
  untiled.tile = GemmTile{};
  EXPECT_EQ(estimate_kernel(v, k).latency_us, estimate_kernel(v, untiled).latency_us);
  // The library kernel's 128 x 64 tile (126 registers: 63 accumulators, 130 threads hold
  // outputs, sliced-K) reads 2256 words per step for 16384 FLOPs: 1.82 FLOP/byte, far above.
  KernelLaunch lib = make_kernel(80, 256, 126, 12288, 1e6, 0);
  lib.tile = GemmTile{128, 64, 4};
  EXPECT_GT(tile_operand_rate_cap(v, lib), 2.5 * kSmRate);
  // Tensor cores load fragments per warp: the 64 x 64 FP16 tile with 126 registers gives a warp
  // 32 * 63 = 2016 accumulators (a = b = sqrt(2016), 4096 / 2016 warps hold outputs), so per
  // step 128 + 2 * 4096 / sqrt(2016) = 310.4 elements are moved for 8192 FLOPs.
  KernelLaunch tc = make_kernel(80, 256, 126, 0, 1e6, 0);
  tc.math = MathUnit::Tensor;
  tc.tile = GemmTile{64, 64, 2};
  const TileOperandTraffic tt = tile_operand_traffic(tc.tile, 256, 126, true, 32);
  EXPECT_DOUBLE_EQ(tt.threads, 4096.0 / 2016);
  EXPECT_NEAR(tt.shared_bytes_per_step, (128 + 2 * 4096 / std::sqrt(2016.0)) * 2, 1e-9);
  EXPECT_NEAR(tile_operand_rate_cap(v, tc), 8192 / tt.shared_bytes_per_step * kSharedRate, 1e-6);
  // No tile, or no clock: no cap.
  EXPECT_TRUE(std::isinf(tile_operand_rate_cap(v, untiled)));
  GpuSpec no_clock = v;
  no_clock.core_clock_mhz = 0;
  EXPECT_TRUE(std::isinf(tile_operand_rate_cap(no_clock, k)));
}

// ---------------------------------------------------------------------------------------------
// Several streams
// ---------------------------------------------------------------------------------------------
TEST(GpuStage, SmallKernelsOnTwoStreamsOverlap) {
  const GpuSpec v = hand_v100();
  // 40 blocks each: together they fit on the 80 SMs, one block per SM.
  const KernelLaunch a = make_kernel(40, 256, 126, 12288, 1e6, 0);
  const double one = simulate_stage(v, {{a}}).latency_us;
  EXPECT_NEAR(one, kLaunch + 1e6 / kSmRate, 1e-9 * one);
  const StageResult both = simulate_stage(v, {{a}, {a}});
  // The host issues the second stream's launch one launch time after the first's.
  EXPECT_NEAR(both.latency_us, one + kLaunch, 1e-9 * one);
  EXPECT_NEAR(both.avg_busy_sms, 80.0 * (one - kLaunch) / both.latency_us, 1e-6);
  // On one stream they run one after the other, each with its launch overhead.
  EXPECT_NEAR(simulate_stage(v, {{a, a}}).latency_us, 2 * one, 1e-9 * one);
}

TEST(GpuStage, KernelsThatFillTheGpuSerialise) {
  const GpuSpec v = hand_v100();
  // 4 full waves each (160 blocks per wave): the second kernel only gets SMs as the first leaves.
  const KernelLaunch a = make_kernel(640, 256, 126, 12288, 1e6, 0);
  const double one = simulate_stage(v, {{a}}).latency_us;
  const double both = simulate_stage(v, {{a}, {a}}).latency_us;
  EXPECT_NEAR(both, 2 * one - kLaunch, 1e-9 * both);
  EXPECT_NEAR(both, kLaunch + 8 * 1e6 / (kSmRate * 0.5), 1e-9 * both);
}

TEST(GpuStage, ExclusiveKernelsRunOneAtATime) {
  const GpuSpec v = hand_v100();
  // The two 40-block kernels of SmallKernelsOnTwoStreamsOverlap, exclusive: the second stream's
  // kernel (ready at 2L) waits until the first's last block ends (L + T), then runs T alone.
  KernelLaunch a = make_kernel(40, 256, 126, 12288, 1e6, 0);
  a.exclusive = true;
  const double t = 1e6 / kSmRate;
  const StageResult both = simulate_stage(v, {{a}, {a}});
  ASSERT_EQ(both.kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(both.kernels[1].ready_us, 2 * kLaunch);
  EXPECT_NEAR(both.kernels[1].start_us, kLaunch + t, 1e-9 * t);
  EXPECT_NEAR(both.latency_us, kLaunch + 2 * t, 1e-9 * t);
  // Four streams: four times T after the first launch, in the order the host issued them.
  const StageResult four = simulate_stage(v, {{a}, {a}, {a}, {a}});
  EXPECT_NEAR(four.latency_us, kLaunch + 4 * t, 1e-9 * t);
  for (size_t s = 1; s < 4; ++s)
    EXPECT_NEAR(four.kernels[s].start_us, four.kernels[s - 1].end_us, 1e-9 * t);
  // A kernel that is not exclusive runs beside an exclusive one (its 40 blocks on the 40 free
  // SMs), and an exclusive kernel beside it: both end at 2L + T at the latest.
  const KernelLaunch b = make_kernel(40, 256, 126, 12288, 1e6, 0);
  EXPECT_NEAR(simulate_stage(v, {{a}, {b}}).latency_us, 2 * kLaunch + t, 1e-9 * t);
  EXPECT_NEAR(simulate_stage(v, {{b}, {a}}).latency_us, 2 * kLaunch + t, 1e-9 * t);
  // Alone, or one after another on one stream, nothing changes.
  EXPECT_NEAR(simulate_stage(v, {{a}}).latency_us, kLaunch + t, 1e-9 * t);
  EXPECT_NEAR(simulate_stage(v, {{a, a}}).latency_us, 2 * (kLaunch + t), 1e-9 * t);
}

TEST(GpuStage, ExclusiveKernelsWaitInReadyOrder) {
  const GpuSpec v = hand_v100();
  // Stream 0: a short exclusive kernel (T/2), then a long one (T); stream 1: one exclusive
  // kernel (T), ready at 3L (after stream 0's two launches). Stream 1's kernel starts when stream
  // 0's first ends (L + T/2); stream
  // 0's second becomes ready L after that and waits for stream 1's to end (L + 3T/2), so the
  // stage takes L + 5T/2.
  KernelLaunch shorter = make_kernel(40, 256, 126, 12288, 4e6, 0);
  KernelLaunch longer = make_kernel(40, 256, 126, 12288, 8e6, 0);
  shorter.exclusive = longer.exclusive = true;
  const double t = 8e6 / kSmRate;
  ASSERT_GT(t / 2, 3 * kLaunch);  // stream 1's kernel is ready before stream 0's first ends
  const StageResult r = simulate_stage(v, {{shorter, longer}, {longer}});
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_NEAR(r.kernels[2].start_us, kLaunch + t / 2, 1e-9 * t);
  EXPECT_NEAR(r.kernels[1].start_us, kLaunch + 1.5 * t, 1e-9 * t);
  EXPECT_NEAR(r.latency_us, kLaunch + 2.5 * t, 1e-9 * t);
}

TEST(GpuStage, TheSimulationKeyHoldsEveryFieldTheSimulationReads) {
  const KernelLaunch base = make_kernel(40, 256, 126, 12288, 1e6, 1e4);
  auto key = [](const KernelLaunch& k) {
    std::string s;
    append_simulation_key(s, k);
    return s;
  };
  const std::string k0 = key(base);
  // Each field prepare() or the occupancy reads changes the key.
  const std::vector<void (*)(KernelLaunch&)> changes = {
      [](KernelLaunch& k) { k.grid_blocks += 1; },
      [](KernelLaunch& k) { k.threads_per_block = 128; },
      [](KernelLaunch& k) { k.registers_per_thread = 64; },
      [](KernelLaunch& k) { k.shared_bytes_per_block = 0; },
      [](KernelLaunch& k) { k.flops *= 2; },
      [](KernelLaunch& k) { k.dram_bytes *= 2; },
      [](KernelLaunch& k) { k.l2_bytes *= 2; },
      [](KernelLaunch& k) { k.math = MathUnit::Tensor; },
      [](KernelLaunch& k) { k.klass = KernelClass::Fused; },
      [](KernelLaunch& k) { k.compute_efficiency = 0.3; },
      [](KernelLaunch& k) { k.tile.m = 64; },
      [](KernelLaunch& k) { k.tile.n = 32; },
      [](KernelLaunch& k) { k.tile.element_bytes = 2; },
      [](KernelLaunch& k) { k.block_floor_us = 11.2; },
      [](KernelLaunch& k) { k.warp_bytes_per_us = 300; },
      [](KernelLaunch& k) { k.saturation_warps = 8; },
      [](KernelLaunch& k) { k.exclusive = true; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    KernelLaunch k = base;
    changes[i](k);
    EXPECT_NE(key(k), k0) << "change " << i;
  }
  // The name and the ops are for reports only.
  KernelLaunch named = base;
  named.name = "other";
  named.ops = {3, 4};
  EXPECT_EQ(key(named), k0);
}

TEST(GpuStage, ConcurrentMemoryKernelsShareBandwidth) {
  const GpuSpec v = hand_v100();
  // Two memory-bound kernels that together fit on the GPU (4 blocks/SM each, 320 blocks):
  // running them concurrently takes the time of their summed bytes at full bandwidth.
  KernelLaunch a = make_kernel(320, 256, 32, 0, 0, 65536);
  a.klass = KernelClass::Memory;
  const StageResult both = simulate_stage(v, {{a}, {a}});
  EXPECT_NEAR(both.latency_us, kLaunch + 2 * 320 * 65536 / (900e3 * 0.8), 1e-6);
}

TEST(GpuStage, TimingsAreOrderedAndEmptyStagesAreFree) {
  const GpuSpec v = hand_v100();
  EXPECT_EQ(simulate_stage(v, {}).latency_us, 0);
  EXPECT_EQ(simulate_stage(v, {{}, {}}).latency_us, 0);
  const KernelLaunch a = make_kernel(200, 256, 126, 12288, 2e6, 1e4);
  const KernelLaunch b = make_kernel(30, 256, 32, 0, 1e3, 6e4);
  const StageResult r = simulate_stage(v, {{a, b}, {b}, {a, a, b}});
  ASSERT_EQ(r.kernels.size(), 6u);
  double last = 0;
  for (const KernelTiming& t : r.kernels) {
    EXPECT_LE(t.ready_us, t.start_us);
    EXPECT_LT(t.start_us, t.end_us);
    last = std::max(last, t.end_us);
  }
  EXPECT_DOUBLE_EQ(r.latency_us, last);
  // Stream order: each kernel is ready a launch after its predecessor on the stream ends.
  EXPECT_NEAR(r.kernels[1].ready_us, r.kernels[0].end_us + kLaunch, 1e-9);
  EXPECT_NEAR(r.kernels[4].ready_us, r.kernels[3].end_us + kLaunch, 1e-9);
}

TEST(GpuStage, OneHostThreadStaggersTheStreamsLaunches) {
  const GpuSpec v = hand_v100();
  // 3 streams of one 20-block kernel each (60 blocks: each gets an SM of its own): the host
  // issues the launches L apart, so the kernels start at L, 2L, 3L (0, L, 2L after the first).
  const KernelLaunch a = make_kernel(20, 256, 126, 12288, 1e6, 0);
  const StageResult r = simulate_stage(v, {{a}, {a}, {a}});
  ASSERT_EQ(r.kernels.size(), 3u);
  for (int s = 0; s < 3; ++s) {
    EXPECT_DOUBLE_EQ(r.kernels[static_cast<size_t>(s)].ready_us, (s + 1) * kLaunch);
    EXPECT_DOUBLE_EQ(r.kernels[static_cast<size_t>(s)].start_us, (s + 1) * kLaunch);
  }
  // 60 blocks on 80 SMs, one each: every kernel runs 1e6 / kSmRate after its start.
  EXPECT_NEAR(r.latency_us, 3 * kLaunch + 1e6 / kSmRate, 1e-9 * r.latency_us);
  // Stream by stream: stream 0's two launches come first (L, 2L), then stream 2's (3L; the
  // empty stream 1 issues nothing); stream 0's second kernel still waits for its predecessor
  // (ready L after it ends).
  const StageResult r2 = simulate_stage(v, {{a, a}, {}, {a}});
  ASSERT_EQ(r2.kernels.size(), 3u);
  EXPECT_DOUBLE_EQ(r2.kernels[0].start_us, kLaunch);
  EXPECT_NEAR(r2.kernels[1].ready_us, r2.kernels[0].end_us + kLaunch, 1e-9);
  EXPECT_EQ(r2.kernels[2].stream, 2);
  EXPECT_DOUBLE_EQ(r2.kernels[2].start_us, 3 * kLaunch);
  // Three kernels on stream 0 delay stream 1's first launch to 4L.
  const StageResult r4 = simulate_stage(v, {{a, a, a}, {a}});
  ASSERT_EQ(r4.kernels.size(), 4u);
  EXPECT_DOUBLE_EQ(r4.kernels[3].start_us, 4 * kLaunch);
  // One stream: the host runs ahead, so the stagger changes nothing there.
  const StageResult r3 = simulate_stage(v, {{a, a, a}});
  EXPECT_NEAR(r3.latency_us, 3 * (kLaunch + 1e6 / kSmRate), 1e-9 * r3.latency_us);
}

// The simulator keeps working vectors and per-resident rate caches between simulations on a
// thread; none of it may leak into a result. Random stages (seeded) mixing compute- and
// memory-bound kernels (so that DRAM is saturated in some events and not in others), simulated
// forwards and then backwards, give bit-identical results each time.
TEST(GpuStage, ResultsDoNotDependOnPreviousSimulations) {
  const GpuSpec v = hand_v100();
  std::mt19937 rng(20261121);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<std::vector<std::vector<KernelLaunch>>> stages;
  for (int s = 0; s < 40; ++s) {
    std::vector<std::vector<KernelLaunch>> streams(static_cast<size_t>(pick(1, 6)));
    for (auto& stream : streams)
      for (int i = pick(1, 3); i > 0; --i) {
        const bool memory = pick(0, 1) == 1;
        KernelLaunch k =
            make_kernel(pick(1, 400), 32 * pick(1, 8), memory ? 32 : 126, memory ? 0 : 12288,
                        memory ? 0 : 1e6 * pick(1, 8), 1e3 * pick(1, 100));
        if (memory) k.klass = KernelClass::Memory;
        stream.push_back(k);
      }
    stages.push_back(std::move(streams));
  }
  std::vector<StageResult> forward;
  for (const auto& st : stages) forward.push_back(simulate_stage(v, st));
  for (size_t s = stages.size(); s-- > 0;) {
    const StageResult again = simulate_stage(v, stages[s]);
    EXPECT_EQ(again.latency_us, forward[s].latency_us) << "stage " << s;
    EXPECT_EQ(again.events, forward[s].events) << "stage " << s;
    ASSERT_EQ(again.kernels.size(), forward[s].kernels.size());
    for (size_t k = 0; k < again.kernels.size(); ++k)
      EXPECT_EQ(again.kernels[k].end_us, forward[s].kernels[k].end_us) << "stage " << s;
  }
}

// The stage lower bound (used by IOS's DP to skip stages that cannot win) never exceeds the
// simulated latency: random stages (seeded) of compute- and memory-bound kernels, 1 to 8 streams,
// grids from one block to several waves; also zoo-like tails (84-block GEMMs on 80 SMs), where
// the per-SM bound is tight.
TEST(GpuStage, LowerBoundNeverExceedsTheSimulatedLatency) {
  const GpuSpec v = hand_v100();
  std::mt19937 rng(20261122);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int tight = 0;
  for (int s = 0; s < 300; ++s) {
    std::vector<std::vector<KernelLaunch>> streams(static_cast<size_t>(pick(1, 8)));
    std::vector<KernelWorkBound> bounds(streams.size());
    for (size_t j = 0; j < streams.size(); ++j)
      for (int i = pick(1, 4); i > 0; --i) {
        const bool memory = pick(0, 1) == 1;
        KernelLaunch k = make_kernel(pick(0, 3) == 0 ? 80 + pick(1, 8) : pick(1, 2000),
                                     32 * pick(1, 8), memory ? 32 : 126, memory ? 0 : 12288,
                                     memory ? 0 : 1e5 * pick(1, 80), 1e3 * pick(0, 100));
        if (memory) k.klass = KernelClass::Memory;
        k.l2_bytes = k.dram_bytes * pick(1, 4);
        streams[j].push_back(k);
        bounds[j] += kernel_work_bound(v, k);
      }
    const double sim = simulate_stage(v, streams).latency_us;
    const double lb = stage_latency_lower_bound_us(v, bounds);
    EXPECT_LE(lb, sim) << "stage " << s;
    EXPECT_GT(lb, 0.0) << "stage " << s;
    if (lb > 0.99 * sim) ++tight;
  }
  EXPECT_GT(tight, 0);  // a bound that is never close would prune nothing
  // A lone kernel of 84 compute-bound blocks on 80 SMs: 4 SMs run two blocks at half rate each,
  // which the per-SM term of the bound captures exactly.
  const KernelLaunch k = make_kernel(84, 256, 126, 12288, 1e6, 0);
  const double sim = simulate_stage(v, {{k}}).latency_us;
  EXPECT_NEAR(stage_latency_lower_bound_us(v, {kernel_work_bound(v, k)}), sim, 1e-5 * sim);
  EXPECT_EQ(stage_latency_lower_bound_us(v, {}), 0.0);
}

TEST(GpuEfficiency, DefaultsAndConfigOverride) {
  GpuSpec v = hand_v100();
  v.efficiency.clear();
  for (std::string_view key : gpu_efficiency::all_keys())
    EXPECT_GT(gpu_efficiency::get(v, key), 0) << key;
  v.efficiency["dram_bandwidth"] = 0.4;
  EXPECT_DOUBLE_EQ(gpu_efficiency::get(v, gpu_efficiency::kDram), 0.4);
  EXPECT_THROW(gpu_efficiency::default_value("no_such_key"), Error);
  // Halving the DRAM efficiency doubles a memory-bound kernel's execution time.
  const KernelLaunch k = make_kernel(640 * 4, 256, 32, 0, 0, 65536);
  v.efficiency["dram_bandwidth"] = 0.8;
  const double t8 = estimate_kernel(v, k).latency_us - kLaunch;
  v.efficiency["dram_bandwidth"] = 0.4;
  const double t4 = estimate_kernel(v, k).latency_us - kLaunch;
  EXPECT_NEAR(t4 / t8, 2.0, 1e-9);
}

}  // namespace
}  // namespace dgs

namespace dgs {
namespace {

// Every built-in GPU config names every model factor (so no result depends on a code default),
// and a kernel of each rule runs on it.
TEST(GpuConfigs, EveryBuiltinConfigHasEveryEfficiencyFactor) {
  const auto names = builtin_gpu_names();
  ASSERT_FALSE(names.empty());
  EXPECT_NO_THROW(load_gpu_spec("v100"));
  for (const std::string& n : names) {
    GpuSpec s;
    try {
      s = load_gpu_spec(n);
    } catch (const Error&) {
      continue;  // loading is tested by tests/hw; here only the model's factors are checked
    }
    for (std::string_view key : gpu_efficiency::all_keys()) {
      EXPECT_EQ(s.efficiency.count(std::string(key)), 1u) << n << " lacks efficiency." << key;
      EXPECT_EQ(s.sources.count("efficiency." + std::string(key)), 1u) << n << " " << key;
    }
    const KernelLaunch k = make_kernel(1000, 256, 126, 12288, 1e6, 1e5);
    const KernelEstimate e = estimate_kernel(s, k);
    EXPECT_GT(e.latency_us, s.kernel_launch_us) << n;
    EXPECT_NEAR(simulate_stage(s, {{k}}).latency_us, e.latency_us, 1e-9 * e.latency_us) << n;
  }
}

}  // namespace
}  // namespace dgs
