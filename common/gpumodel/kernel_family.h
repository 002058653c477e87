#pragma once
// The achieved-rate model of kernels that are not library-class: the suite's own CUDA kernels
// that measured mode runs (its SIMT GEMM reaches 15% of an H200's FP32 peak where cuBLAS reaches
// several times that). The model's efficiencies (gemm_fp32 = 0.8, ...) describe cuDNN/cuBLAS-class
// kernels; a kernel of the suite is described instead by its FAMILY (how its code spends issue
// slots and waits on memory) and its TILE (what one block and one thread do per step of its main
// loop), and priced by the same block simulation (block_simulation.h) with three mechanisms:
//
//   1. INSTRUCTIONS PER FMA. A thread of a main-loop kernel issues, per step,
//        I = fma + shared_loads + loads_a * c_a + loads_b * c_b + c_step
//      instructions (fma multiply-adds, its shared-memory operand loads, the global elements of
//      the left and right operand it stages into shared memory, each costing the family's
//      address-arithmetic count c_a / c_b, and the family's barriers and loop control c_step),
//      plus c_out per output it writes and any instructions outside the loop. An SM issues at most
//      `suite_issue_per_clock` warp-instructions per clock, so the kernel's FMAs reach at most
//          eta = (FMAs / instructions) * issue_per_clock / fma_warp_instructions_per_clock
//      of the FP32 peak (capped at 1): KernelLaunch::compute_efficiency. The operand reuse of the
//      tile is in these counts: a tm x tn register tile needs tm + tn shared loads per tm * tn
//      FMAs, and a bm x bn block tile (bm + bn) * bk global elements per bm * bn * bk FMAs.
//   2. EXPOSED MEMORY LATENCY. A family whose main loop does not prefetch (load, barrier,
//      compute, barrier) waits one global-memory round trip (`memory_latency_us`) per step, on
//      top of issuing its own instructions: no block of it ends sooner than
//          steps * memory_latency_us + (its instructions * its warps) / (issue_per_clock * clock)
//      (KernelLaunch::block_floor_us). Blocks resident on one SM overlap their waits, so more
//      resident blocks raise an SM's throughput until issue binds (mechanism 1).
//   3. BYTES IN FLIGHT. A memory-bound family keeps a known number of bytes in flight per warp
//      (its loop issues the next load only after using the previous one), so one warp moves at
//      most bytes_in_flight / memory_latency_us (Little's law; KernelLaunch::warp_bytes_per_us).
//
// Families are entries of suite_kernel_families() (a kernel family added later, e.g. cuBLAS or
// CUTLASS kernels, is an entry: a library-class family has no counts and keeps the class
// efficiencies). Every count is read from the family's compiled code (PTX of CUDA 13.0 for sm_90)
// and stated with its source in the table; the two GPU constants are config entries of the
// `efficiency` section (suite_model_keys()), calibrated where a config says so.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/gpumodel/kernel.h"
#include "common/hw/hardware.h"

namespace dgs {

namespace gpu_efficiency {
// Warp-instructions an SM issues per clock in the suite's SIMT kernels (<= its 4 schedulers).
inline constexpr std::string_view kSuiteIssuePerClock = "suite_issue_per_clock";
// A global-memory round trip under load, as a waiting loop step exposes it (microseconds).
inline constexpr std::string_view kMemoryLatencyUs = "memory_latency_us";
// A round trip that hits L2, as the waits of the tile-program interpreter expose it (its
// operands, a network's weights and activations, stay in L2; microseconds).
inline constexpr std::string_view kL2LatencyUs = "l2_latency_us";
// Library-call terms of cuDNN-class convolutions (kernels_for_op, kernel_rules.h): the fixed time
// of one convolution call beyond its GEMM kernel (us), the same for the fused
// Conv+bias+activation call, and the fraction of a 3x3 stride-1 convolution's multiply-adds the
// library's Winograd algorithm performs (F(2x2,3x3); < 1 also offers F(2x2,5x5) for 5x5, at its
// own fraction: library_conv_call, model_internal.h). Defaults: 0, 0, 1 (no such term; the configs
// whose constants were calibrated without them keep their results).
inline constexpr std::string_view kLibraryCallUs = "library_call_us";
inline constexpr std::string_view kLibraryFusedCallUs = "library_fused_call_us";
inline constexpr std::string_view kWinogradFlopFraction = "winograd_flop_fraction";
// 1: a convolution call runs the fastest of its candidate kernels as the model prices them (the
// library's algorithm search; library_conv_call, model_internal.h); 0 (default): the tile rule
// of the implicit GEMM (gemm_kernel) and no Winograd.
inline constexpr std::string_view kLibraryAlgorithmSearch = "library_algorithm_search";
// 1: the GEMM kernels of cuDNN-class convolution calls are exclusive (THE EXCLUSIVE-KERNEL RULE,
// gpu_model.h): concurrent streams overlap their calls' fixed costs and other kernels, never two
// such GEMMs; 0 (default): they share the SMs like any kernel.
inline constexpr std::string_view kLibraryKernelsSerialize = "library_kernels_serialize";
// The keys of the suite-kernel model and of the library-call terms (not required in a config:
// each has a default, below).
std::vector<std::string_view> suite_model_keys();
// The default of a suite-model key, and its reason.
double suite_model_default(std::string_view key);
std::string_view suite_model_default_reason(std::string_view key);
// spec.efficiency[key] if present, else the default.
double suite_model_value(const GpuSpec& spec, std::string_view key);
}  // namespace gpu_efficiency

struct KernelFamily {
  std::string_view name;    // "suite_gemm", ...
  std::string_view kernel;  // the code it describes
  // Main-loop families (instruction counts per thread; 0 for memory-bound families).
  double instructions_per_load_a = 0;  // per left-operand element staged into shared memory
  double instructions_per_load_b = 0;  // per right-operand element
  double instructions_per_step = 0;    // barriers and loop control
  double instructions_per_output = 0;  // epilogue, per output element the thread writes
  bool step_waits_for_memory = false;  // no prefetch: every step waits one round trip
  // The round trip a waiting step costs: memory_latency_us, or l2_latency_us for a family whose
  // operands hit L2.
  bool waits_hit_l2 = false;
  // Memory-bound families: bytes one warp keeps in flight (0: not memory-bound).
  double bytes_in_flight_per_warp = 0;
  // Class of the KernelLaunch (reports; the memory-bound efficiency for memory families).
  KernelClass klass = KernelClass::Gemm;
  std::string_view source;  // where the counts come from
};

// The families, in a fixed order.
const std::vector<KernelFamily>& suite_kernel_families();
// The family named `name`; throws dgs::Error naming the known families otherwise.
const KernelFamily& suite_kernel_family(std::string_view name);

// One kernel of a family as it runs: its launch and its tile's per-thread work.
struct SuiteKernel {
  std::string family;  // a suite_kernel_families() name
  std::string name;    // e.g. "gemm 64x64x8/4x4 1024x1024x1024"
  int64_t grid_blocks = 1;
  int threads = 256;
  int registers = 32;
  int64_t shared_bytes = 0;
  double flops = 0;       // a multiply-add counts 2
  double dram_bytes = 0;  // compulsory traffic: inputs and outputs once
  double l2_bytes = 0;    // through L2 (>= dram_bytes; 0: dram_bytes)
  // Main loop, per thread per step.
  int64_t steps = 0;
  double fma_per_step = 0;
  double shared_loads_per_step = 0;
  double loads_a_per_step = 0;
  double loads_b_per_step = 0;
  double outputs_per_thread = 0;  // outputs the thread writes after the loop
  double other_instructions = 0;  // per thread outside the loop (e.g. a fused softmax)
};

// What the model derives from a suite kernel on `spec` (for reports and tests).
struct SuiteKernelRates {
  double instructions_per_thread = 0;  // loop + epilogue + other
  double fma_per_thread = 0;
  double issue_efficiency = 0;   // eta of mechanism 1 (before the cap at 1)
  double block_floor_us = 0;     // mechanism 2 (0 if the family does not wait)
  double warp_bytes_per_us = 0;  // mechanism 3 (0 if not memory-bound)
};
SuiteKernelRates suite_kernel_rates(const GpuSpec& spec, const SuiteKernel& k);

// The KernelLaunch the block simulation prices for `k` on `spec` (mechanisms 1-3 set
// compute_efficiency, block_floor_us, warp_bytes_per_us and saturation_warps).
KernelLaunch suite_kernel_launch(const GpuSpec& spec, const SuiteKernel& k);

// The same kernel as the model prices it without the families (the class efficiencies of
// library-class kernels; the model before the suite-kernel model): for comparison.
KernelLaunch library_class_launch(const SuiteKernel& k);

}  // namespace dgs
