// The achieved-rate model of the suite's own kernels (stated in kernel_family.h).
#include "common/gpumodel/kernel_family.h"

#include <algorithm>
#include <cmath>

#include "common/gpumodel/model_internal.h"
#include "common/util/error.h"

namespace dgs {

using namespace gpu_model_internal;

namespace gpu_efficiency {

namespace {
struct SuiteDefault {
  std::string_view key;
  double value;
  std::string_view reason;
};
constexpr SuiteDefault kSuiteDefaults[] = {
    {kSuiteIssuePerClock, 4.0,
     "assumption: every one of an SM's 4 warp schedulers issues one instruction per clock (CUDA "
     "C++ Programming Guide, 'Compute Capabilities': 4 warp schedulers per SM from compute "
     "capability 5.0 on); a config may state the rate measured for the suite's kernels"},
    {kMemoryLatencyUs, 0.45,
     "assumption: a loaded global-memory round trip of ~450 ns (the latency the configs' "
     "dram_saturation_warps_per_sm assumes); a config may state the value measured"},
    {kL2LatencyUs, 0.15,
     "assumption: an L2 hit returns in ~300 clocks (~0.15 us at ~2 GHz), about a third of the "
     "loaded DRAM round trip; a config may state the value measured"},
    {kLibraryCallUs, 0.0,
     "assumption: a cuDNN-class convolution call costs no more than its kernel launch "
     "(kernel_launch_us); a config may state the fixed cost measured on its GPU"},
    {kLibraryFusedCallUs, 0.0,
     "assumption: as library_call_us, for the fused Conv+bias+activation call"},
    {kWinogradFlopFraction, 1.0,
     "assumption: the library runs 3x3 stride-1 convolutions as implicit GEMM (all "
     "multiply-adds); a config may state that its library runs Winograd F(2x2,3x3) (16/36 of "
     "them) where the measurements show it"},
    {kLibraryAlgorithmSearch, 0.0,
     "assumption: a convolution call runs the implicit GEMM at the largest tile whose grid has a "
     "block per SM (the tile rule of kernel_rules.h); a config may state 1: the library's "
     "algorithm search, the fastest of its candidate kernels as the model prices them"},
    {kLibraryKernelsSerialize, 0.0,
     "assumption: the GEMM kernels of convolution calls on concurrent streams share the SMs like "
     "any kernels (concurrent cuDNN convolutions measured faster than sequential ones on a V100 "
     "in the literature this suite reproduces); a config may state 1 where its measurements show "
     "them run one at a time"},
};
}  // namespace

std::vector<std::string_view> suite_model_keys() {
  std::vector<std::string_view> k;
  for (const SuiteDefault& d : kSuiteDefaults) k.push_back(d.key);
  return k;
}
double suite_model_default(std::string_view key) {
  for (const SuiteDefault& d : kSuiteDefaults)
    if (d.key == key) return d.value;
  throw Error("gpu model: unknown suite-kernel model key '" + std::string(key) + "'");
}
std::string_view suite_model_default_reason(std::string_view key) {
  for (const SuiteDefault& d : kSuiteDefaults)
    if (d.key == key) return d.reason;
  return "";
}
double suite_model_value(const GpuSpec& spec, std::string_view key) {
  for (const auto& [k, v] : spec.efficiency)
    if (k == key) return v;
  return suite_model_default(key);
}

}  // namespace gpu_efficiency

namespace {

// Counts read from the PTX that nvcc 13.0 writes for sm_90 (-O3) of each kernel's loop, with the
// expansion of what PTX writes as one instruction but SASS as several stated where it matters.
constexpr std::string_view kGemmSource =
    "PTX of tiled_gemm_kernel<GemmProblem> (nvcc 13.0, sm_90, -O3): per staged element 22-28 "
    "instructions (64-bit strided address, bounds check, ld.global, st.shared), 25 taken; per "
    "step 2 bar.sync and loop control, 10 taken with the load loops' entries; per output of the "
    "epilogue 8-10 (64-bit index, alpha, bias and activation tests, st.global), 10 taken";
constexpr std::string_view kConvSource =
    "PTX of tiled_gemm_kernel<ConvProblem> (nvcc 13.0, sm_90): a right-operand (weight) element "
    "as the GEMM's plus two multiplies, 30; a left-operand (im2col) element needs 4 integer "
    "divisions/remainders by run-time extents (pixel / out_w, pixel % out_w, k / (r*s), k % s), "
    "each a 32-bit fast-path test (8) and a div/rem.u32, which SASS expands to ~20 instructions "
    "(no integer divider): 25 + 4 x 28 = 137";
constexpr std::string_view kChainSource =
    "PTX of mlp_chain_kernel (nvcc 13.0, sm_90): a layer stages its 64 x 64 weights (16 per "
    "thread, ~20 instructions each: strided 64-bit address, ld.global, st.shared), waits on them "
    "(2 bar.sync), then 64 reduction steps of (rows/16) x 4 FMAs and rows/16 + 4 shared loads; "
    "per output of a layer ~8 (bias, activation, st.shared)";
constexpr std::string_view kMemorySource =
    "the kernel's loop loads one 4-byte element per lane and uses it before the next load (a "
    "warp has one coalesced 128-byte line in flight)";

constexpr std::string_view kTileProgramSource =
    "PTX of tile_program_kernel (nvcc 13.0, sm_90, -O3; 104 registers, 512-byte stack frame): "
    "the reduction loops of MatMul/Gemm are unrolled 4 times (8 ld.global, 4 fma, 12 address "
    "and loop instructions per 4 multiply-adds: 6 per multiply-add, one wait per 4), the "
    "ReduceMean/GlobalAveragePool and Softmax-max loops likewise (one wait per 4 elements, 4 "
    "and 8 instructions per element), the Softmax-sum loop is not (one wait and 29 instructions "
    "per element: ex2 and a double add); per computed element ~20 instructions of dispatch and "
    "store plus 30 per output dimension (64-bit division and remainder of the flat index by "
    "the region, a 32-bit fast path) and 10 + 6 per dimension per operand read (strides read "
    "from the op's descriptor), one wait for the element's operands; suite_kernels.h "
    "(tile_program_kernel) sums them over the program's tiles";
constexpr std::string_view kPoolSource =
    "pool2d_kernel's loop over the window (run-time extents, not unrolled: nvcc 13.0 issues "
    "each element's ld.global after the previous element's max/sum, so every window element "
    "waits one round trip, one step per element): per element ~16 instructions (two bounds "
    "tests, 64-bit address, ld.global, max, the double sum, the count), loop control 3; per "
    "output ~100 (three 64-bit divisions/remainders of the flat index, each a 32-bit fast-path "
    "test and div/rem.u32 of ~28 in SASS, the store); a warp keeps one 128-byte line in flight";

const std::vector<KernelFamily> kFamilies = {
    {.name = "suite_gemm",
     .kernel = "tiled_gemm_kernel<GemmProblem> (common/cuda/gemm_kernels.cu)",
     .instructions_per_load_a = 25,
     .instructions_per_load_b = 25,
     .instructions_per_step = 10,
     .instructions_per_output = 10,
     .step_waits_for_memory = true,
     .klass = KernelClass::Gemm,
     .source = kGemmSource},
    {.name = "suite_conv_implicit_gemm",
     .kernel = "tiled_gemm_kernel<ConvProblem> (common/cuda/gemm_kernels.cu)",
     .instructions_per_load_a = 137,
     .instructions_per_load_b = 30,
     .instructions_per_step = 10,
     .instructions_per_output = 14,
     .step_waits_for_memory = true,
     .klass = KernelClass::Gemm,
     .source = kConvSource},
    {.name = "suite_gemm_softmax",
     .kernel = "gemm_softmax_kernel (common/cuda/gemm_softmax_kernels.cu)",
     .instructions_per_load_a = 25,
     .instructions_per_load_b = 25,
     .instructions_per_step = 10,
     .instructions_per_output = 6,
     .step_waits_for_memory = true,
     .klass = KernelClass::Fused,
     .source = kGemmSource},
    {.name = "suite_mlp_chain",
     .kernel = "mlp_chain_kernel (common/cuda/gemm_chain_kernels.cu)",
     .instructions_per_load_a = 20,
     .instructions_per_load_b = 20,
     .instructions_per_step = 10,
     .instructions_per_output = 8,
     .step_waits_for_memory = true,
     .klass = KernelClass::Fused,
     .source = kChainSource},
    {.name = "suite_row_softmax",
     .kernel = "row_softmax_kernel (common/cuda/gemm_softmax_kernels.cu): one warp per row",
     .bytes_in_flight_per_warp = 128,
     .klass = KernelClass::Memory,
     .source = kMemorySource},
    {.name = "suite_elementwise",
     .kernel =
         "elementwise_kernel, strided_copy_kernel, fill_kernel (common/cuda/tensor_kernels.cu)",
     .bytes_in_flight_per_warp = 128,
     .klass = KernelClass::Memory,
     .source = kMemorySource},
    {.name = "suite_pool2d",
     .kernel = "pool2d_kernel (common/cuda/tensor_kernels.cu): one output per thread, its window "
               "read element by element",
     .instructions_per_load_a = 16,
     .instructions_per_step = 3,
     .instructions_per_output = 100,
     .step_waits_for_memory = true,
     .bytes_in_flight_per_warp = 128,
     .klass = KernelClass::Memory,
     .source = kPoolSource},
    {.name = "suite_tile_program",
     .kernel = "tile_program_kernel (common/cuda/tile_program.cu): the tile-program interpreter, "
               "every element of every op of a tile computed by index arithmetic from global "
               "memory or the block's scratch (common/tileprog/tile_program_interpreter.h)",
     .step_waits_for_memory = true,
     .waits_hit_l2 = true,
     .klass = KernelClass::Fused,
     .source = kTileProgramSource},
    {.name = "suite_brick_direct",
     .kernel = "padded_chain_kernel, memoized_chain_kernel (common/cuda/brick_kernels.cu): direct "
               "3-D convolution, one output element per thread, operands from global memory",
     .instructions_per_load_a = 4,
     .instructions_per_load_b = 4,
     .instructions_per_step = 2,
     .instructions_per_output = 30,
     .step_waits_for_memory = false,
     .klass = KernelClass::Direct,
     .source = "the loop of the brick kernels' convolution: per multiply-add one input and one "
               "weight load (L1/L2 hits, ~4 instructions each with the index), loop control 2; "
               "per output the bias, ReLU and the store with the brick index, ~30"},
};

double fma_warp_instructions_per_clock(const GpuSpec& spec) {
  // FP32 lanes per SM (a multiply-add per lane per clock) / warp size.
  const double lanes =
      spec.peak_fp32_tflops * 1e6 / (2.0 * spec.core_clock_mhz * std::max(1, spec.sm_count));
  return std::max(1e-9, lanes / std::max(1, spec.warp_size));
}

}  // namespace

const std::vector<KernelFamily>& suite_kernel_families() {
  return kFamilies;
}

const KernelFamily& suite_kernel_family(std::string_view name) {
  std::string known;
  for (const KernelFamily& f : kFamilies) {
    if (f.name == name) return f;
    known += (known.empty() ? "" : ", ") + std::string(f.name);
  }
  throw Error("gpu model: no kernel family '" + std::string(name) + "' (known: " + known + ")");
}

SuiteKernelRates suite_kernel_rates(const GpuSpec& spec, const SuiteKernel& k) {
  const KernelFamily& f = suite_kernel_family(k.family);
  SuiteKernelRates r;
  const double steps = static_cast<double>(std::max<int64_t>(0, k.steps));
  const double per_step = k.fma_per_step + k.shared_loads_per_step +
                          k.loads_a_per_step * f.instructions_per_load_a +
                          k.loads_b_per_step * f.instructions_per_load_b + f.instructions_per_step;
  r.fma_per_thread = steps * k.fma_per_step;
  r.instructions_per_thread =
      steps * per_step + k.outputs_per_thread * f.instructions_per_output + k.other_instructions;
  const double issue = gpu_efficiency::suite_model_value(spec, gpu_efficiency::kSuiteIssuePerClock);
  const double latency = gpu_efficiency::suite_model_value(
      spec, f.waits_hit_l2 ? gpu_efficiency::kL2LatencyUs : gpu_efficiency::kMemoryLatencyUs);
  if (r.instructions_per_thread > 0 && r.fma_per_thread > 0)
    r.issue_efficiency = r.fma_per_thread / r.instructions_per_thread * issue /
                         fma_warp_instructions_per_clock(spec);
  if (r.instructions_per_thread > 0 && spec.core_clock_mhz > 0 && issue > 0) {
    const double warps = std::ceil(static_cast<double>(k.threads) / std::max(1, spec.warp_size));
    const double own_issue_us = r.instructions_per_thread * warps / (issue * spec.core_clock_mhz);
    r.block_floor_us = (f.step_waits_for_memory ? steps * latency : 0.0) + own_issue_us;
  }
  if (f.bytes_in_flight_per_warp > 0 && latency > 0)
    r.warp_bytes_per_us = f.bytes_in_flight_per_warp / latency;
  return r;
}

KernelLaunch library_class_launch(const SuiteKernel& k) {
  const KernelFamily& f = suite_kernel_family(k.family);
  KernelLaunch l;
  l.name = k.name;
  l.grid_blocks = std::max<int64_t>(1, k.grid_blocks);
  l.threads_per_block = k.threads;
  l.registers_per_thread = k.registers;
  l.shared_bytes_per_block = k.shared_bytes;
  l.flops = k.flops;
  l.dram_bytes = k.dram_bytes;
  l.l2_bytes = std::max(k.l2_bytes, k.dram_bytes);
  l.math = MathUnit::Fp32;
  l.klass = f.klass;
  return l;
}

KernelLaunch suite_kernel_launch(const GpuSpec& spec, const SuiteKernel& k) {
  KernelLaunch l = library_class_launch(k);
  const SuiteKernelRates r = suite_kernel_rates(spec, k);
  if (r.issue_efficiency > 0) {
    l.compute_efficiency = std::min(1.0, r.issue_efficiency);
    // Issue saturates with one warp per scheduler; the latency is the floor's.
    l.saturation_warps =
        std::max(1.0, gpu_efficiency::suite_model_value(spec, gpu_efficiency::kSuiteIssuePerClock));
  }
  l.block_floor_us = r.block_floor_us;
  l.warp_bytes_per_us = r.warp_bytes_per_us;
  return l;
}

}  // namespace dgs
