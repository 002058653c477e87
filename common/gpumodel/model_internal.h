#pragma once
// Internal to common/gpumodel (not part of its API): the model's named constants and what its
// source files share (the simulation's per-GPU and per-kernel terms, the kernel builders).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/gpumodel/block_simulation.h"
#include "common/gpumodel/kernel.h"
#include "common/gpumodel/kernel_rules.h"
#include "common/graph/graph.h"
#include "common/hw/hardware.h"

namespace dgs::gpu_model_internal {

// ---------------------------------------------------------------------------------------------
// Named constants of the model (not from a paper; each with its reason)
// ---------------------------------------------------------------------------------------------

// Shared memory is allocated to blocks in units of 256 bytes on Volta and later (CUDA occupancy
// calculator, "shared memory allocation unit size").
inline constexpr int64_t kSharedAllocationUnit = 256;

// Implicit-GEMM output tiles (M x N) of the cuDNN-class convolution/GEMM kernels, 256 threads
// (8 warps): the largest of 128 x 64, 64 x 64, 64 x 32 whose grid has at least one block per SM,
// else the smallest (cuDNN/cuBLAS heuristics switch to smaller tiles for small problems; no
// split-K). Evidence: a published profile of a cuDNN convolution, batch 1, C_in=375, C_out=750,
// 3x3 on 15x15, shows 48 blocks of 256 threads on a 40-SM GPU: M = 225, N = 750 gives 24 tiles
// of 128 x 64 (< 40) and 48 of 64 x 64, which this rule picks.
inline constexpr std::pair<int64_t, int64_t> kGemmTiles[] = {{128, 64}, {64, 64}, {64, 32}};
inline constexpr int kGemmThreads = 256;
// Registers per thread of that kernel: the same profile ("256 threads per block and 126
// registers per thread", 2 resident blocks per SM on V100).
inline constexpr int kGemmRegisters = 126;
// K-slice staged in shared memory per main-loop iteration (classic SGEMM: 8), double-buffered:
// smem = 2 * (128 + 64) * 8 * element size (12 KiB in FP32).
inline constexpr int64_t kGemmTileK = 8;
inline constexpr int64_t kGemmBuffers = 2;

// Shared memory serves 32 banks per SM, each 4 bytes per clock on compute capability 5.x-9.0
// (CUDA C++ Programming Guide, "Compute Capabilities", shared memory sections: "Shared memory has
// 32 banks ... Each bank has a bandwidth of 32 bits per clock cycle") and 8 bytes per clock on
// 3.x (same guide, compute capability 3.x: "each bank has a bandwidth of 64 bits per clock
// cycle"); AMD GCN's LDS also has 32 banks of 4 bytes (AMD Graphics Cores Next architecture
// whitepaper, "Local data share": 32 banks). Used by the operand rule (kernel.h).
inline constexpr double kSharedBanks = 32;
inline constexpr double kSharedBankBytes = 4;
inline constexpr double kSharedBankBytesKepler = 8;
inline double shared_bytes_per_clock(const GpuSpec& spec) {
  const bool kepler = spec.compute_capability >= 30 && spec.compute_capability < 50;
  return kSharedBanks * (kepler ? kSharedBankBytesKepler : kSharedBankBytes);
}

// Memory-bound and direct kernels: 256 threads per block, one output element per thread, or one
// thread per 16 input elements when that gives more threads (reductions: a thread reads four
// 16-byte vectors), 32 registers (simple kernels compile to well under 32).
inline constexpr int kSimpleThreads = 256;
inline constexpr int kSimpleRegisters = 32;
inline constexpr int64_t kInputElementsPerThread = 16;

// A block of a kernel whose work and traffic are ~0 still costs this long (warp launch and one
// DRAM round trip, ~0.5 us on V100-class GPUs); it also keeps the simulation's rates finite.
inline constexpr double kDefaultBlockMinUs = 0.5;

// Relative tolerance below which a block's remaining work counts as done.
inline constexpr double kDoneEpsilon = 1e-9;

// Relative margin by which stage_latency_lower_bound_us lowers its bound: far above the
// simulation's rounding (a block ends kDoneEpsilon early; event times accumulate ~1e-16 relative
// error per event), so the bound stays below the simulated latency, yet far below any difference
// between two stages' latencies that a search could act on.
inline constexpr double kLowerBoundMargin = 1e-6;

struct EfficiencyDefault {
  std::string_view key;
  double value;
  // reason (kept here, printed nowhere): see the comments.
};

// Defaults used when a config has no entry (assumptions from public microbenchmarks):
inline constexpr EfficiencyDefault kEfficiencyDefaults[] = {
    // cuDNN/cuBLAS-class kernels reach ~80% of peak FP32 on V100 for large problems (cuBLAS
    // SGEMM ~90%, implicit-GEMM convolutions lower because of im2col address arithmetic).
    {gpu_efficiency::kGemmFp32, 0.80},
    // half2 SIMT kernels: same instruction efficiency as FP32.
    {gpu_efficiency::kGemmFp16, 0.80},
    // cuDNN tensor-core convolutions on V100 reach about half of the 125 TFLOP/s peak.
    {gpu_efficiency::kGemmTensor, 0.50},
    // depthwise/direct convolution: little reuse, ~half of the issue rate goes to loads.
    {gpu_efficiency::kDirect, 0.50},
    // element-wise and reduction kernels: compute rarely binds; half of the issue rate.
    {gpu_efficiency::kMemory, 0.50},
    // TVM-generated fused kernels: between library GEMM and simple kernels.
    {gpu_efficiency::kFused, 0.60},
    // Streaming copies reach ~80% of HBM2 peak on V100 (STREAM-like copy ~720-800 of 900 GB/s).
    {gpu_efficiency::kDram, 0.80},
    // L2 streaming bandwidth achieved ~70% of the nominal figure.
    {gpu_efficiency::kL2, 0.70},
    // Three warps per scheduler (4 schedulers) keep the FMA pipes busy in ILP-rich GEMM loops: a
    // cuDNN kernel built for 2 resident blocks (16 warps) runs a lone block at 8/12 of the SM.
    {gpu_efficiency::kComputeSaturationWarps, 12},
    // Little's law: ~900 GB/s x ~450 ns loaded latency = ~400 KB in flight = ~5 KB per SM; a warp
    // of a simple kernel keeps ~128-256 B in flight, so half of a 64-warp SM saturates DRAM.
    {gpu_efficiency::kDramSaturationWarps, 32},
    // L2 hits return in ~200 cycles (vs ~450 ns for DRAM) and GEMM tiles load 16-byte vectors:
    // a quarter of the warps saturate L2.
    {gpu_efficiency::kL2SaturationWarps, 8},
    // see kDefaultBlockMinUs
    {gpu_efficiency::kBlockMinUs, kDefaultBlockMinUs},
};

inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
inline int64_t round_up(int64_t a, int64_t unit) {
  return unit <= 0 ? a : ceil_div(a, unit) * unit;
}

// Throws dgs::Error unless the config has positive SM limits, peak FP32 and DRAM bandwidth.
void check_spec(const GpuSpec& s);

// ---------------------------------------------------------------------------------------------
// The simulation's inputs
// ---------------------------------------------------------------------------------------------
// A kernel prepared for the simulation: per-block work and resources, in us-based units.
struct SimKernel {
  int64_t grid = 0;
  int threads = 0, warps = 0, regs = 0;
  int64_t smem = 0;
  double flops_b = 0, dram_b = 0, l2_b = 0;  // per block
  double sm_rate = 0;                        // achievable FLOP/us of one SM for this kernel
  double floor_us = 0;                       // KernelLaunch::block_floor_us
  double dram_warp_cap = -1;                 // per-warp DRAM cap (< 0: the model's)
  double sat_warps = -1;                     // saturation warps (< 0: the model's)
  bool exclusive = false;                    // KernelLaunch::exclusive
  int stream = 0, index = 0;
  // state
  double ready = 0;
  int64_t dispatched = 0, finished = 0;
  double start = -1, end = -1;
  // No SM had room for a block of it at the last dispatch, and no block has ended since (SM
  // resources only shrink until one does, so it still fits nowhere).
  bool blocked = false;
};

struct Model {
  double dram_bw = 0;  // bytes/us, after efficiency
  double l2_bw = 0;    // bytes/us, after efficiency (0: no L2 limit)
  double compute_sat_warps = 8;
  double dram_warp_cap = 0;  // bytes/us one warp can move from DRAM
  double l2_warp_cap = 0;    // bytes/us one warp can move from L2
  double block_min_us = kDefaultBlockMinUs;
  double launch_us = 0;
  int sms = 0;
  int max_threads = 0, max_warps = 0, max_blocks = 0, max_regs = 0;
  int64_t max_smem = 0;
};

// The model's per-GPU terms (bandwidths after efficiency, warp caps, launch overhead, SM limits).
Model make_model(const GpuSpec& spec);

// The peak rate of math unit `u` (falling back to FP16 SIMT, then FP32, where the GPU lacks it).
double peak_tflops(const GpuSpec& spec, MathUnit u);

// The efficiency factor of kernel `k`'s class and math unit (or its own compute_efficiency).
double class_efficiency(const GpuSpec& spec, const KernelLaunch& k);

// class_efficiency for the kernels of one simulation, each (class, math unit) looked up once (the
// lookup scans the config's efficiency section).
struct EfficiencyCache {
  double value[4][3] = {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}};
  double get(const GpuSpec& spec, const KernelLaunch& k) {
    if (k.compute_efficiency > 0) return k.compute_efficiency;
    const size_t c = static_cast<size_t>(k.klass), u = static_cast<size_t>(k.math);
    if (c >= 4 || u >= 3) return class_efficiency(spec, k);
    if (value[c][u] < 0) value[c][u] = class_efficiency(spec, k);
    return value[c][u];
  }
};

// Kernel `k` prepared for the simulation as kernel `index` of stream `stream`.
SimKernel prepare(const GpuSpec& spec, const KernelLaunch& k, int stream, int index,
                  EfficiencyCache* efficiency = nullptr);

// Simulates kernels `ks` (their state is updated: ready, start, end, ...) on the streams
// `streams` (indices into ks per stream) under model `m`. The result's `kernels` is left empty.
StageResult run_simulation(const Model& m, std::vector<SimKernel>& ks,
                           const std::vector<std::vector<int>>& streams);

// ---------------------------------------------------------------------------------------------
// Kernel builders shared by the operator rules and the merged convolutions
// ---------------------------------------------------------------------------------------------
// Throws the one-line error "gpu model: op '<name>' (<kind>) in graph '<g>': <what>; expected
// <expected>".
[[noreturn]] void op_fail(const Graph& g, int op, const std::string& what,
                          const std::string& expected);

// The math unit of a kernel whose output has dtype `dt` (`gemm`: a GEMM-class kernel).
MathUnit math_for(DType dt, const GpuSpec& spec, const KernelOptions& opts, bool gemm);

// An implicit-GEMM kernel (the 128x64 rule) for `batch` independent GEMMs of M x N x K;
// `tile` >= 0: kGemmTiles[tile] instead of the rule's.
KernelLaunch gemm_kernel(const std::string& name, int64_t batch, int64_t M, int64_t N, int64_t K,
                         double flops, double dram_bytes, DType dt, MathUnit math, int sm_count,
                         int tile = -1);

// One convolution call's implicit GEMM: `batch` (groups) GEMMs of M x N x K.
struct ConvGemm {
  std::string name;
  int64_t batch = 1, M = 1, N = 1, K = 1;
  double flops = 0, dram_bytes = 0;
  DType dt = DType::F32;
  MathUnit math = MathUnit::Fp32;
};

// A convolution that Winograd F(2x2, r x r) covers (2-D r x r with r = 3 or 5, stride 1,
// dilation 1, group 1), as its GEMM stage sees it: the 2x2 output tiles of all images, the
// channels, r.
struct WinogradConv {
  int64_t tiles = 0;  // N * ceil(OH / 2) * ceil(OW / 2)
  int64_t cin = 0, cout = 0;
  int64_t kernel = 3;  // r of the r x r kernel
};

// THE LIBRARY-CALL TERMS of one cuDNN-class convolution call of implicit GEMM `c` (stated at
// kernels_for_op, kernel_rules.h). Winograd F(2x2, r x r) is a candidate when `winograd` is
// given (a shape Winograd covers), the math is FP32, the config's winograd_flop_fraction (F(2x2,
// 3x3)'s, 16/36) is < 1 and the implicit GEMM's grid at the smallest tile of kGemmTiles fills the
// GPU (its transforms cost a fixed time only a problem of that size repays); its fraction of the
// FLOPs is winograd_flop_fraction x ((r+1)^2 / (4 r^2)) / (16/36) (5x5: 36/100). The call's
// kernel: with the config's library_algorithm_search = 0 (the default), the implicit GEMM at the
// tile rule, its FLOPs times that fraction where Winograd is a candidate; with 1, the library's
// algorithm search (cudnnFind times its candidates and runs the fastest) as the model sees it:
// every candidate priced alone (estimate_kernel) and the fastest taken (ties: the earlier),
// the candidates being the implicit GEMM at each tile of kGemmTiles and, where Winograd is a
// candidate, Winograd at each tile: (r+1)^2 batched GEMMs (one per element of the transformed
// tile) of tiles x C_out x C_in whose FLOPs are the implicit GEMM's times the fraction
// (transforms inside the kernel, uncounted); each candidate issues its whole tiles (FLOPs at
// least grid x tile_m x tile_n x K x 2: the padded rows and columns of edge tiles are computed).
// Then, when the call's fixed cost (library_call_us, or library_fused_call_us for
// `fused_epilogue`) is > 0, a one-block set-up kernel of no work that lasts that long, launched
// before the GEMM on its stream. The GEMM is exclusive (KernelLaunch::exclusive) where the
// config's library_kernels_serialize is > 0. Returns the call's kernels.
std::vector<KernelLaunch> library_conv_call(const GpuSpec& spec, const ConvGemm& c,
                                            const WinogradConv* winograd, bool fused_epilogue);

// Whether op `op`'s output goes only to an activation that its epilogue runs
// (is_folded_activation): the library's fused Conv+bias+activation call.
bool has_folded_epilogue(const Graph& g, int op);

struct ConvDims {
  int64_t n = 0, cin = 0, cout = 0, group = 1;
  int64_t kernel_area = 1;  // product of the kernel's spatial dims
  int64_t out_spatial = 1;  // product of the output's spatial dims
};

ConvDims conv_dims(const Graph& g, int op);

}  // namespace dgs::gpu_model_internal
