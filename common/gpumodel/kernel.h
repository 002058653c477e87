#pragma once
// A GPU kernel as the performance model sees it (KernelLaunch), and the names of the model's
// efficiency factors and constants in a config's "efficiency" section.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/hw/hardware.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Efficiency factors and model constants: names of entries in a config's "efficiency" section
// ---------------------------------------------------------------------------------------------
namespace gpu_efficiency {
// Achieved fraction of the per-SM peak rate for each kernel class (at >= Wc resident warps).
inline constexpr std::string_view kGemmFp32 = "gemm_fp32";  // implicit-GEMM conv / GEMM, FP32 SIMT
inline constexpr std::string_view kGemmFp16 = "gemm_fp16";  // same, FP16 SIMT (half2)
inline constexpr std::string_view kGemmTensor = "gemm_tensor";  // same, FP16 tensor cores
inline constexpr std::string_view kDirect = "direct_conv";      // depthwise / direct convolution
inline constexpr std::string_view kMemory = "memory_bound";  // element-wise, pooling, norms, copies
inline constexpr std::string_view kFused = "fused";          // generated fused kernels
// Achieved fraction of peak bandwidth.
inline constexpr std::string_view kDram = "dram_bandwidth";
inline constexpr std::string_view kL2 = "l2_bandwidth";
// Saturation warps (not fractions; stored in the same section so one file holds all model inputs).
inline constexpr std::string_view kComputeSaturationWarps = "compute_saturation_warps_per_sm";
inline constexpr std::string_view kDramSaturationWarps = "dram_saturation_warps_per_sm";
inline constexpr std::string_view kL2SaturationWarps = "l2_saturation_warps_per_sm";
// The shortest time a block takes (warp launch + one DRAM round trip), in microseconds.
inline constexpr std::string_view kBlockMinUs = "block_min_us";

// Defaults used when a config omits an entry (each an assumption; see model_internal.h for
// reasons).
double default_value(std::string_view key);
// spec.efficiency[key] if present, else default_value(key).
double get(const GpuSpec& spec, std::string_view key);
// All keys above, for printing the model's inputs next to a result.
std::vector<std::string_view> all_keys();
}  // namespace gpu_efficiency

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------
enum class MathUnit : uint8_t { Fp32, Fp16, Tensor };  // which peak rate bounds the FLOPs
std::string_view math_unit_name(MathUnit u);           // "fp32", "fp16", "tensor"

enum class KernelClass : uint8_t {
  Gemm,    // implicit-GEMM convolution or GEMM (cuDNN/cuBLAS-class tiles)
  Direct,  // direct convolution (depthwise)
  Memory,  // memory-bound: element-wise, pooling, normalisation, reduction, concat/copy
  Fused    // a generated fused kernel (e.g. a tile-graph scheduler's); efficiency "fused"
};
std::string_view kernel_class_name(KernelClass c);  // "gemm", "direct", "memory", "fused"

// The output tile of one thread block of a GEMM-class kernel: m x n outputs (m: rows of the
// left operand, n: columns of the right one), elements of element_bytes. m == 0: not given (the
// kernel's rate then does not depend on its tile; see tile_operand_rate_cap).
struct GemmTile {
  int64_t m = 0, n = 0;
  int element_bytes = 4;
};

struct KernelLaunch {
  std::string name;         // e.g. "conv3x3:implicit_gemm_128x64"
  int64_t grid_blocks = 1;  // thread blocks in the grid
  int threads_per_block = 256;
  int registers_per_thread = 32;
  int64_t shared_bytes_per_block = 0;
  double flops = 0;       // whole kernel (a multiply-add counts 2)
  double dram_bytes = 0;  // whole kernel, bytes read + written that reach DRAM
  double l2_bytes = 0;    // whole kernel, bytes served by L2 (incl. those from DRAM)
  MathUnit math = MathUnit::Fp32;
  KernelClass klass = KernelClass::Memory;
  double compute_efficiency = 0;  // > 0 overrides the config's factor for `klass`
  GemmTile tile;                  // GEMM-class kernels: the block's output tile (see GemmTile)
  std::vector<int> ops;           // graph ops this kernel computes (for reports); may be empty
  // The achieved-rate model of the suite's own kernels (kernel_family.h) sets these; 0 = not
  // used (library-class kernels: the rate rule of gpu_model.h alone).
  double block_floor_us = 0;     // no block finishes sooner (its exposed memory latency)
  double warp_bytes_per_us = 0;  // > 0: what one warp moves from DRAM at most (its bytes in
                                 // flight / the memory latency), replacing the config's
                                 // saturation-warps cap
  double saturation_warps = 0;   // > 0: resident warps per SM that reach the kernel's rate,
                                 // replacing compute_saturation_warps_per_sm
  // THE EXCLUSIVE-KERNEL RULE (gpu_model.h): no block of an exclusive kernel is dispatched while
  // another exclusive kernel has blocks left to run; a cuDNN-class convolution's GEMM kernel is
  // one where the config's library_kernels_serialize is 1 (library_conv_call).
  bool exclusive = false;
};

// ---------------------------------------------------------------------------------------------
// Tile-shape-dependent compute rate
// ---------------------------------------------------------------------------------------------
// THE OPERAND RULE. A block computing an m x n tile runs, per step of its reduction, m * n
// multiply-adds whose operands come from shared memory. Each thread that holds outputs keeps a
// register tile of q accumulators: as many as half of its registers hold (the rest hold operands
// and addresses), q = min(R / 2, m * n), but at least m * n / T when its T threads must hold all
// outputs (threads beyond m * n / q share the reduction, sliced-K, as library kernels do for small
// tiles); the register tile is the most square one the tile allows (a = b = sqrt(q), clamped to a
// <= m, b <= n), and each of the m * n / q threads reads a + b words per step; the step's m + n
// operand elements, loaded from L2/DRAM, are written to shared memory once. Shared memory delivers
// S bytes per clock per SM (128 from compute capability 5.0 on, 256 on 3.x; model_internal.h), so a
// block's FLOPs cannot run faster than
//   cap = 2 * m * n / ((m + n + (m * n / q) * (a + b)) * element_bytes) * S * clock
// FLOP per second per SM: the tile's arithmetic intensity against the SM's shared-memory
// bandwidth. Thin tiles (m of 1-3: each loaded weight reused by few rows) have a low intensity.
// Tensor-core kernels (MathUnit::Tensor) load operand fragments once per warp, not per thread:
// the holders are warps, each with a register tile of 32 * q accumulators (a * b = 32 * q,
// a = b = sqrt(32 * q), clamped likewise), reading a + b elements per step.
// The block's compute rate is min(P_sm * eta_k, cap). Bank conflicts and broadcasts are not
// modelled.
struct TileOperandTraffic {
  double threads = 0;                // threads (warps with per_warp) that hold outputs
  double register_tile_a = 0;        // a
  double register_tile_b = 0;        // b
  double shared_bytes_per_step = 0;  // (m + n + threads * (a + b)) * element_bytes
  double flops_per_step = 0;         // 2 * m * n
};
// The traffic of tile `t` for a block of `threads` threads of `registers` registers each (all
// zero when t.m == 0); per_warp: operands loaded per warp (tensor cores), warps of `warp_size`.
TileOperandTraffic tile_operand_traffic(const GemmTile& t, int threads, int registers,
                                        bool per_warp = false, int warp_size = 32);
// The cap above in FLOP per microsecond per SM on `spec` (+infinity when k.tile.m == 0 or the
// config has no core clock).
double tile_operand_rate_cap(const GpuSpec& spec, const KernelLaunch& k);

}  // namespace dgs
