#pragma once
// Welder's cost model (OSDI'23 §3.1, §4.1): for a connected sub-graph (one kernel) and an output
// tile, Propagate gives every operator's tile; MemTraffic is (input tiles + output tiles) x number
// of tiles, with the hardware's transaction sizes (128-B reads, 32-B writes: the uncoalesced
// penalty of §4.1); MemFootprint is the shared-memory high-water mark of the tiles kept in shared
// memory plus the reduction inputs' staging buffers (32-B aligned); the ranking key is
// (traffic + 1) x waves (the parallelism penalty). Tiles are enumerated Roller-style (base tile,
// divisor steps, best-first search with a visit cap) and the top-k are "profiled" with the
// analytic kernel latency.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/gpumodel/kernel.h"
#include "common/hw/hardware.h"
#include "reproductions/welder/tile_graph.h"

namespace dgs::welder {

// Connection level of an edge. Fig. 7 numbers levels from the lowest (0 = DRAM) upwards.
enum class Conn : uint8_t { Host = 0, Dram = 1, Shared = 2, Register = 3 };
std::string conn_name(Conn c);

// The cost-model constants of one GPU (the artifact's arch classes, filled from a GpuSpec).
struct WelderArch {
  std::string name;
  int sm_count = 80;
  int64_t smem_per_block = 49152;   // capacity of the shared-memory level per block
  int64_t smem_per_sm = 96 * 1024;  // for blocks per SM
  int64_t reg_cap = 65536;          // 32-bit registers a block may use (artifact estimate)
  int max_blocks_per_sm = 4;        // the artifact's sm_partition cap
  int read_transaction = 128;       // bytes; §4.1 "128 contiguous bytes (one transaction)"
  int write_transaction = 32;       // bytes (artifact)
  int sector_bytes = 32;            // what nvprof counts as one transaction
  double dram_gbs = 900;
  double l2_gbs = 2500;
  double peak_tflops = 15.7;      // the dtype's SIMT peak
  double peak_tensor_tflops = 0;  // used for conv/matmul when tensor cores are on
  double launch_us = 4;
  double eta_dram = 0.8;  // achieved fraction of DRAM bandwidth
  double eta_l2 = 0.7;
  double eta_compute = 0.6;  // achieved fraction of peak for reduction kernels
  double pcie_gbs = 12;
  int64_t dram_capacity = 16LL << 30;  // the device-memory level's capacity (host experiments)
  bool tensor_cores = false;
  // When set, the top-k configurations are "profiled" with the suite's GPU model
  // (common/gpumodel: occupancy, waves, roofline per block); otherwise with the roofline above.
  std::optional<GpuSpec> gpu;
};

// Arch from a GPU config (hw_configs/*.json); efficiencies come from its `efficiency` map when
// present ("dram_bandwidth", "l2_bandwidth", "fused"), else the named defaults above.
WelderArch arch_from_gpu(const GpuSpec& gpu, bool fp16_tensor_cores);
// The V100 constants of the artifact and the datasheet (tests and the §2 example).
WelderArch v100_arch();

// One kernel: the ops of a connected sub-graph and the level at which each internal edge
// (producer op -> consumer op) is connected. Ops are tile-op indices in topological order.
struct KernelGroup {
  std::vector<int> ops;
  std::map<std::pair<int, int>, Conn> edges;  // internal edges only
};

struct TileConfig {
  std::vector<int64_t> tile;  // output tile of the group's root (last sink)
  int64_t grid = 0;           // number of tiles (thread blocks)
  double tile_bytes = 0;      // bytes of one tile's global inputs + outputs (no penalties)
  double rank_bytes = 0;      // traffic with coalescing penalties, all tiles
  double sectors = 0;         // 32-B transactions, all tiles
  double unique_bytes = 0;    // compulsory DRAM bytes (each byte once; L2 absorbs re-reads)
  double work_elems = 0;      // elements computed by all operators, all tiles (recomputation)
  // The tile of the group's heaviest MatMul/Gemm, per matrix: rows x columns of its output
  // region (0: none), for the GPU model's operand rule.
  int64_t gemm_rows = 0, gemm_cols = 0;
  int64_t smem = 0;
  int64_t regs = 0;
  int blocks_per_sm = 0;
  int64_t waves = 0;
  double priority = 0;
  double latency_us = 0;
  bool valid = false;
  std::string why;  // why invalid
};

struct GroupResult {
  bool valid = false;
  std::string why;
  TileConfig best;
  int candidates = 0;    // configs "profiled" (top-k) for this group
  int visited = 0;       // tiles propagated during the search
  bool launches = true;  // false for groups of layout-only ops
  double irs_bytes = 0;  // bytes of the tensors it writes to global memory
};

struct SearchLimits {
  int topk = 20;          // §5.2: "20 per subgraph in our evaluation"
  int max_visits = 2000;  // artifact policy/default.py: best-first search stops after 2000
};

// Propagates `tile` (the root's output tile) through the group and costs it.
TileConfig evaluate_tile(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                         const std::vector<int64_t>& tile);
// evaluate_tile, then "profiled" as the search profiles its top-k (the GPU model when the arch
// carries a GPU config).
TileConfig profile_tile(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                        const std::vector<int64_t>& tile);
// The kernel launch (grid, threads, registers, shared memory, FLOPs, DRAM and L2 bytes, math
// unit, class, GEMM tile) that profile_tile and the search hand to the suite's GPU model
// (estimate_kernel) for configuration `cfg` of `grp`, with KernelLaunch::ops = the graph ops of
// the group's tile ops. Throws dgs::Error when the arch carries no GPU config.
KernelLaunch group_kernel(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                          const TileConfig& cfg);
// SubGraphTiling for one kernel at the shared-memory level: enumerate, filter, top-k, profile.
GroupResult schedule_group(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                           const SearchLimits& lim);
// The same, with the custom regions memoised in `memo` (shared by the groups of one scheduling
// run; null: a memo of its own).
GroupResult schedule_group(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                           const SearchLimits& lim, CustomRegionMemo* memo);
// Root op of the group (its last sink in topological order).
int group_root(const TileGraph& g, const KernelGroup& grp);
// A canonical description of the group (shapes, accesses, edges) used to cache results of
// identical sub-graphs (the artifact caches by sub-graph signature, §4.2).
std::string group_signature(const TileGraph& g, const KernelGroup& grp);

// §2 example helpers: bytes of one region under coalescing with transaction `txn_bytes`.
double coalesced_bytes(const std::vector<int64_t>& region, const Shape& shape, int64_t elem,
                       int txn_bytes);
double sector_count(const std::vector<int64_t>& region, const Shape& shape, int64_t elem,
                    int sector_bytes);

}  // namespace dgs::welder
