// The suite-kernel model (common/gpumodel/kernel_family.h) on hand-computed cases: a toy GPU of
// one SM at 1000 MHz with 128 FP32 lanes (4 warp-FMAs per clock), an issue rate of 2
// warp-instructions per clock and a memory latency of 0.5 us.
#include "common/gpumodel/kernel_family.h"

#include <gtest/gtest.h>

#include "common/gpumodel/block_simulation.h"
#include "common/util/error.h"

namespace dgs {
namespace {

GpuSpec toy() {
  GpuSpec g;
  g.name = "toy";
  g.file = "toy.json";
  g.compute_capability = 90;
  g.sm_count = 1;
  g.core_clock_mhz = 1000;
  g.max_threads_per_sm = 2048;
  g.max_threads_per_block = 1024;
  g.max_blocks_per_sm = 32;
  g.max_warps_per_sm = 64;
  g.warp_size = 32;
  g.registers_per_sm = 65536;
  g.max_registers_per_thread = 255;
  g.register_allocation_unit = 256;
  g.shared_mem_per_sm = 228 * 1024;
  g.shared_mem_per_block = 227 * 1024;
  g.peak_fp32_tflops = 0.256;  // 128 lanes x 2 FLOP x 1000 MHz
  g.peak_fp16_tflops = 0.512;
  g.dram_bytes = int64_t{1} << 34;
  g.dram_bandwidth_gbs = 1000;  // 1e6 bytes per us: never binding below
  g.l2_bytes = int64_t{1} << 20;
  g.kernel_launch_us = 0;
  g.efficiency = {{"suite_issue_per_clock", 2.0},
                  {"memory_latency_us", 0.5},
                  {"dram_bandwidth", 1.0},
                  {"block_min_us", 0.001}};
  return g;
}

// A GEMM-family block of 256 threads: 10 steps of 32 FMAs, 12 shared loads, 4 + 2 staged
// elements (25 instructions each) and 10 of loop control; 32 outputs of 10 instructions.
SuiteKernel toy_gemm(int64_t blocks) {
  SuiteKernel k;
  k.family = "suite_gemm";
  k.name = "toy gemm";
  k.grid_blocks = blocks;
  k.threads = 256;
  k.registers = 32;
  k.steps = 10;
  k.fma_per_step = 32;
  k.shared_loads_per_step = 12;
  k.loads_a_per_step = 4;
  k.loads_b_per_step = 2;
  k.outputs_per_thread = 32;
  k.flops = 2.0 * 320 * 256 * static_cast<double>(blocks);  // every executed multiply-add
  return k;
}

TEST(SuiteKernelModel, InstructionsPerFmaAndTheLatencyFloor) {
  const SuiteKernelRates r = suite_kernel_rates(toy(), toy_gemm(1));
  // per step 32 + 12 + 4*25 + 2*25 + 10 = 204; 10 steps and 32 outputs of 10: 2360
  EXPECT_DOUBLE_EQ(r.instructions_per_thread, 2360);
  EXPECT_DOUBLE_EQ(r.fma_per_thread, 320);
  // FMAs per instruction x issue rate / FMA warp-instructions per clock = 320/2360 x 2/4
  EXPECT_DOUBLE_EQ(r.issue_efficiency, 320.0 / 2360 * 2 / 4);
  // 10 waits of 0.5 us + its own 2360 instructions x 8 warps at 2 per clock at 1000 MHz
  EXPECT_DOUBLE_EQ(r.block_floor_us, 10 * 0.5 + 2360.0 * 8 / 2000);
  EXPECT_DOUBLE_EQ(r.warp_bytes_per_us, 0);
}

TEST(SuiteKernelModel, ABlockAloneWaitsAndMoreBlocksOverlapTheirWaits) {
  // One block: issuing takes 9.44 us, the floor 14.44 us: it waits.
  EXPECT_NEAR(estimate_kernel(toy(), suite_kernel_launch(toy(), toy_gemm(1))).latency_us, 14.44,
              1e-9);
  // Two blocks share the SM's issue (18.88 us of instructions) and overlap their waits: twice
  // the work in 18.88 us, not 2 x 14.44.
  EXPECT_NEAR(estimate_kernel(toy(), suite_kernel_launch(toy(), toy_gemm(2))).latency_us, 18.88,
              1e-9);
  // Four: issue-bound, 4 x 9.44 us.
  EXPECT_NEAR(estimate_kernel(toy(), suite_kernel_launch(toy(), toy_gemm(4))).latency_us, 37.76,
              1e-9);
}

TEST(SuiteKernelModel, AMemoryBoundWarpMovesItsBytesInFlightPerRoundTrip) {
  SuiteKernel k;
  k.family = "suite_elementwise";
  k.name = "toy copy";
  k.grid_blocks = 1;
  k.threads = 256;
  k.flops = 0;
  k.dram_bytes = 1e6;
  // 128 bytes per warp per 0.5 us: 8 warps move 2048 bytes per us (DRAM gives 1e6 per us).
  EXPECT_DOUBLE_EQ(suite_kernel_rates(toy(), k).warp_bytes_per_us, 256);
  EXPECT_NEAR(estimate_kernel(toy(), suite_kernel_launch(toy(), k)).latency_us, 1e6 / 2048, 1e-9);
}

TEST(SuiteKernelModel, APoolWaitsOneRoundTripPerWindowElement) {
  // A 3x3 max pool: one output per thread, its 9 window elements read one per step.
  SuiteKernel k;
  k.family = "suite_pool2d";
  k.name = "toy pool";
  k.grid_blocks = 1;
  k.threads = 256;
  k.steps = 9;
  k.loads_a_per_step = 1;
  k.outputs_per_thread = 1;
  k.flops = 9.0 * 256;
  k.dram_bytes = 4.0 * 256 * 5;  // a few bytes: the waits bind
  const SuiteKernelRates r = suite_kernel_rates(toy(), k);
  // per element 16 + loop control 3, 9 elements; 100 per output: 271 instructions
  EXPECT_DOUBLE_EQ(r.instructions_per_thread, 9 * (16 + 3) + 100);
  // 9 round trips of 0.5 us + 271 x 8 warps at 2 per clock at 1000 MHz
  EXPECT_DOUBLE_EQ(r.block_floor_us, 9 * 0.5 + 271.0 * 8 / 2000);
  EXPECT_EQ(r.issue_efficiency, 0);  // no multiply-adds: the class efficiency stays
  EXPECT_NEAR(estimate_kernel(toy(), suite_kernel_launch(toy(), k)).latency_us,
              9 * 0.5 + 271.0 * 8 / 2000, 1e-9);
}

TEST(SuiteKernelModel, ConstantsDefaultWhereAConfigHasNone) {
  GpuSpec g = toy();
  g.efficiency.clear();
  EXPECT_DOUBLE_EQ(gpu_efficiency::suite_model_value(g, "suite_issue_per_clock"), 4.0);
  EXPECT_DOUBLE_EQ(gpu_efficiency::suite_model_value(g, "memory_latency_us"), 0.45);
  EXPECT_FALSE(gpu_efficiency::suite_model_default_reason("memory_latency_us").empty());
}

TEST(SuiteKernelModel, ALibraryClassLaunchHasNoneOfTheFamilyTerms) {
  const KernelLaunch l = library_class_launch(toy_gemm(1));
  EXPECT_EQ(l.compute_efficiency, 0);
  EXPECT_EQ(l.block_floor_us, 0);
  EXPECT_EQ(l.warp_bytes_per_us, 0);
  EXPECT_EQ(l.saturation_warps, 0);
  EXPECT_EQ(l.klass, KernelClass::Gemm);
}

TEST(SuiteKernelModel, AnUnknownFamilyIsNamed) {
  try {
    suite_kernel_family("cublas_sgemm");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("gpu model: no kernel family 'cublas_sgemm' (known: "
                                          "suite_gemm, ",
                                          0),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace dgs
