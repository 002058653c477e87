#include "reproductions/welder/cost_model.h"

#include "common/gpumodel/gpu_model.h"
#include "common/util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <set>
#include <sstream>
#include <type_traits>
#include <variant>

namespace dgs::welder {

namespace {
// Shared-memory capacity per block of Welder's cost model (artifact arch/V100.py smem_cap).
constexpr int64_t kWelderSmemPerBlock = 49152;
// Alignment of shared-memory buffers (artifact: best-fit allocator with 32-B alignment).
constexpr int64_t kSmemAlign = 32;
// Share of the per-block shared memory that the reduction inputs' staging buffers (the rstep
// tiles) may take before rstep is halved. Assumption: the artifact grows rstep only while the
// occupancy of the chosen tile is kept; half the block's capacity keeps two blocks per SM.
constexpr double kRstepShare = 0.5;
// A dimension of the base tile starts at its full extent when that cuts the workload per item
// (elements computed by all operators of the group / output elements; artifact policy/default.py)
// by more than this factor: only redundant recomputation counts (a Softmax row, whose reductions
// every partial-row tile would redo), not the reuse that a larger tile of a GEMM or pooling gets
// (the search's ranking key weighs that against parallelism). The factor only absorbs rounding.
constexpr double kBaseTileGain = 0.999;
// Bytes per 32-bit register.
constexpr int64_t kRegBytes = 4;

int64_t align_up(int64_t v) {
  return (v + kSmemAlign - 1) / kSmemAlign * kSmemAlign;
}
int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t prod(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Contiguous run (elements) of a region anchored at 0 in a row-major tensor (artifact
// coalesced_factor).
int64_t contiguous_run(const std::vector<int64_t>& sub, const Shape& full) {
  int64_t run = 1;
  for (int d = static_cast<int>(sub.size()) - 1; d >= 0; --d) {
    run *= sub[d];
    if (sub[d] != full[d]) break;
  }
  return std::max<int64_t>(1, run);
}
}  // namespace

double coalesced_bytes(const std::vector<int64_t>& region, const Shape& shape, int64_t elem,
                       int txn_bytes) {
  const double t =
      std::max<double>(1.0, static_cast<double>(txn_bytes) / static_cast<double>(elem));
  const double run = static_cast<double>(contiguous_run(region, shape));
  return t * static_cast<double>(prod(region)) / std::min(t, run) * static_cast<double>(elem);
}

double sector_count(const std::vector<int64_t>& region, const Shape& shape, int64_t elem,
                    int sector_bytes) {
  const int64_t run = contiguous_run(region, shape);
  const int64_t runs = prod(region) / run;
  return static_cast<double>(runs) * static_cast<double>(ceil_div(run * elem, sector_bytes));
}

WelderArch v100_arch() {
  WelderArch a;
  a.name = "V100 (built-in cost-model constants)";
  return a;
}

WelderArch arch_from_gpu(const GpuSpec& gpu, bool fp16_tensor_cores) {
  WelderArch a;
  a.name = gpu.name;
  if (gpu.sm_count > 0) a.sm_count = gpu.sm_count;
  // The shared-memory level's capacity per block is Welder's own choice: the artifact's arch
  // classes use 48 KiB (V100, RTX 3090; 64 KiB on MI50) even where a block may opt in to more.
  if (gpu.shared_mem_per_block > 0)
    a.smem_per_block = std::min<int64_t>(gpu.shared_mem_per_block, kWelderSmemPerBlock);
  if (gpu.shared_mem_per_sm > 0) a.smem_per_sm = gpu.shared_mem_per_sm;
  if (gpu.dram_bandwidth_gbs > 0) a.dram_gbs = gpu.dram_bandwidth_gbs;
  if (gpu.l2_bandwidth_gbs > 0) a.l2_gbs = gpu.l2_bandwidth_gbs;
  if (gpu.kernel_launch_us > 0) a.launch_us = gpu.kernel_launch_us;
  if (gpu.pcie_bandwidth_gbs > 0) a.pcie_gbs = gpu.pcie_bandwidth_gbs;
  if (gpu.dram_bytes > 0) a.dram_capacity = gpu.dram_bytes;
  if (gpu.transaction_bytes > 0) a.sector_bytes = gpu.transaction_bytes;
  a.peak_tflops =
      fp16_tensor_cores && gpu.peak_fp16_tflops > 0 ? gpu.peak_fp16_tflops : gpu.peak_fp32_tflops;
  if (a.peak_tflops <= 0) a.peak_tflops = 15.7;
  a.tensor_cores = fp16_tensor_cores && gpu.peak_tensor_tflops > 0;
  a.peak_tensor_tflops = gpu.peak_tensor_tflops;
  a.eta_dram = gpu.efficiency_or("dram_bandwidth", a.eta_dram);
  a.eta_l2 = gpu.efficiency_or("l2_bandwidth", a.eta_l2);
  a.eta_compute = gpu.efficiency_or("fused", a.eta_compute);
  a.gpu = gpu;
  return a;
}

namespace {

bool uses_tensor_cores(const TileOp& op) {
  return op.type == "Conv" || op.type == "MatMul" || op.type == "Gemm" ||
         op.type == "ConvTranspose";
}

// One input of a group's operator, resolved once per group.
struct PreparedInput {
  int k = 0;                 // index into TileOp::inputs
  int tensor = -1;           // tile tensor
  int producer = -1;         // local index of the in-group producer, or -1
  int ext = -1;              // slot in Prepared::ext_tensors when read from global memory, else -1
  bool custom = false;       // region from the shared iteration spaces
  bool staged = false;       // a reduction stages it in rstep buffers (not kept in shared memory)
  bool shared_edge = false;  // the producer's edge to this op is at the shared-memory level
};

struct Prepared {
  const TileGraph* g = nullptr;
  std::vector<int> ops;                                            // topological
  std::vector<int> local;                                          // tile op -> local index or -1
  std::vector<std::vector<std::pair<int, Conn>>> inner_consumers;  // local -> (local, level)
  std::vector<bool> out_global;                    // output written to global memory
  std::vector<bool> out_shared;                    // output kept in shared memory
  std::vector<int> sinks;                          // local indices
  int root = -1;                                   // local index
  std::vector<int> ext_tensors;                    // tensors read from global memory (ascending)
  std::vector<std::vector<PreparedInput>> inputs;  // per local op
  std::vector<int> shared_consumers;  // per local op: consumers at a non-register level
  std::vector<char> gemm;             // per local op: a MatMul or Gemm
  double t_comp = 0;                  // compute time of the whole group (roofline), s
};

Prepared prepare(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch) {
  Prepared p;
  p.g = &g;
  p.ops = grp.ops;
  std::sort(p.ops.begin(), p.ops.end());
  p.local.assign(g.ops.size(), -1);
  for (size_t i = 0; i < p.ops.size(); ++i) p.local[p.ops[i]] = static_cast<int>(i);
  const size_t n = p.ops.size();
  p.inner_consumers.resize(n);
  p.out_global.assign(n, false);
  p.out_shared.assign(n, false);
  p.shared_consumers.assign(n, 0);
  p.gemm.assign(n, 0);
  std::set<int> ext;
  for (size_t i = 0; i < n; ++i) {
    const TileOp& op = g.ops[p.ops[i]];
    p.gemm[i] = op.type == "MatMul" || op.type == "Gemm";
    const TileTensor& out = g.tensors[op.output];
    bool outside = out.graph_output || out.consumers.empty();
    for (int c : out.consumers) {
      if (p.local[c] < 0) {
        outside = true;
        continue;
      }
      auto it = grp.edges.find({p.ops[i], c});
      const Conn lvl = it == grp.edges.end() ? Conn::Shared : it->second;
      p.inner_consumers[i].push_back({p.local[c], lvl});
      if (lvl != Conn::Register) {
        p.out_shared[i] = true;
        ++p.shared_consumers[i];
      }
    }
    p.out_global[i] = outside;
    if (p.inner_consumers[i].empty()) p.sinks.push_back(static_cast<int>(i));
    for (const auto& in : op.inputs) {
      const int prod_op = g.tensors[in.tensor].producer;
      if (prod_op < 0 || p.local[prod_op] < 0) ext.insert(in.tensor);
    }
  }
  p.root = p.sinks.empty() ? static_cast<int>(n) - 1 : p.sinks.back();
  p.ext_tensors.assign(ext.begin(), ext.end());
  p.inputs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const TileOp& op = g.ops[p.ops[i]];
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      PreparedInput pi;
      pi.k = static_cast<int>(k);
      pi.tensor = op.inputs[k].tensor;
      pi.custom = op.inputs[k].custom();
      const int pr = g.tensors[pi.tensor].producer;
      if (pr >= 0 && p.local[pr] >= 0) {
        pi.producer = p.local[pr];
        for (const auto& [c, lvl] : p.inner_consumers[pi.producer])
          if (c == static_cast<int>(i) && lvl != Conn::Register) pi.shared_edge = true;
      } else {
        pi.ext = static_cast<int>(
            std::lower_bound(p.ext_tensors.begin(), p.ext_tensors.end(), pi.tensor) -
            p.ext_tensors.begin());
      }
      pi.staged = !(pi.producer >= 0 && p.out_shared[pi.producer]);
      p.inputs[i].push_back(pi);
    }
  }
  for (int op : p.ops) {
    const TileOp& o = g.ops[op];
    const double peak_t = arch.tensor_cores && uses_tensor_cores(o) && arch.peak_tensor_tflops > 0
                              ? arch.peak_tensor_tflops
                              : arch.peak_tflops;
    p.t_comp += o.flops / (arch.eta_compute * peak_t * 1e12);
  }
  return p;
}

int64_t grid_of(const std::vector<int64_t>& space, const int64_t* region) {
  int64_t gsz = 1;
  for (size_t d = 0; d < space.size(); ++d) gsz *= ceil_div(space[d], region[d]);
  return gsz;
}

int64_t prod_n(const int64_t* v, size_t n) {
  int64_t p = 1;
  for (size_t i = 0; i < n; ++i) p *= v[i];
  return p;
}

// Why a tile is invalid; the message is built only when asked for (evaluate_why).
enum class Invalid { None, Rank, InconsistentSinks, NoTile, Unaligned, Smem, Registers, NoBlock };

// Buffers of the evaluation, reused across the tiles of one search (no allocation per tile).
struct Workspace {
  std::vector<std::vector<int64_t>> region;  // per local op: its output tile
  std::vector<char> has_region;
  std::vector<std::vector<int64_t>> ext_region;  // per ext tensor: the region read
  std::vector<char> has_ext;
  std::vector<int64_t> in_region;  // one input region
  std::vector<int64_t> rstep;
  std::vector<int> remaining;
  CustomRegionMemo* memo = nullptr;  // null: custom regions are recomputed
  CustomRegionMemo own_memo;
  Invalid invalid = Invalid::None;
  int invalid_op = -1;  // local op the reason names
  explicit Workspace(const Prepared& p, CustomRegionMemo* m) : memo(m ? m : &own_memo) {
    const size_t n = p.ops.size();
    region.resize(n);
    has_region.assign(n, 0);
    ext_region.resize(p.ext_tensors.size());
    has_ext.assign(p.ext_tensors.size(), 0);
    remaining.assign(n, 0);
  }
};

// The region of input `in` of local op `i` for the op's tile `tile` and reduction tile `reduce`,
// into ws.in_region; returns its data (input_region's values).
const int64_t* input_region_of(const Prepared& p, Workspace& ws, int i, const PreparedInput& in,
                               const int64_t* tile, const int64_t* reduce) {
  const TileGraph& g = *p.g;
  if (in.custom) return ws.memo->region(g, p.ops[i], in.k, tile);
  const TileOp& op = g.ops[p.ops[i]];
  ws.in_region.resize(g.tensors[in.tensor].shape.size());
  affine_input_region(g, op, in.k, tile, reduce, ws.in_region.data());
  return ws.in_region.data();
}

// Bounding box; an unset (or rank-0) region takes `r` as it is.
void merge_max(std::vector<int64_t>& into, char& has, const int64_t* r, size_t n) {
  if (!has) {
    into.assign(r, r + n);
    has = n > 0;
    return;
  }
  for (size_t d = 0; d < into.size(); ++d) into[d] = std::max(into[d], r[d]);
}

std::string invalid_why(const Prepared& p, const Workspace& ws, const TileConfig& cfg,
                        size_t tile_rank) {
  const TileGraph& g = *p.g;
  const std::string& root = g.ops[p.ops[p.root]].name;
  const std::string op = ws.invalid_op >= 0 ? g.ops[p.ops[ws.invalid_op]].name : "";
  switch (ws.invalid) {
    case Invalid::None:
      return "";
    case Invalid::Rank:
      return "tile rank " + std::to_string(tile_rank) + " differs from output rank of '" + root +
             "'";
    case Invalid::InconsistentSinks:
      return "outputs '" + op + "' and '" + root + "' have inconsistent tiles";
    case Invalid::NoTile:
      return "op '" + op + "' gets no tile";
    case Invalid::Unaligned:
      return "tile of '" + op + "' is not aligned with the group's output tile";
    case Invalid::Smem:
      return "footprint " + std::to_string(cfg.smem) + " B exceeds shared memory";
    case Invalid::Registers:
      return "tile needs too many registers";
    case Invalid::NoBlock:
      return "no block fits on an SM";
  }
  return "";
}

// Records why a tile is invalid (see invalid_why); false, for `return fail(...)`.
bool fail(Workspace& ws, Invalid why, int op) {
  ws.invalid = why;
  ws.invalid_op = op;
  return false;
}

// Clears every field of `cfg` and the workspace's verdict before a tile is evaluated.
void reset_config(Workspace& ws, TileConfig& cfg) {
  cfg.tile.clear();
  cfg.grid = 0;
  cfg.tile_bytes = cfg.rank_bytes = cfg.sectors = cfg.unique_bytes = cfg.work_elems = 0;
  cfg.smem = cfg.regs = 0;
  cfg.gemm_rows = cfg.gemm_cols = 0;
  cfg.blocks_per_sm = 0;
  cfg.waves = 0;
  cfg.priority = cfg.latency_us = 0;
  cfg.valid = false;
  cfg.why.clear();
  ws.invalid = Invalid::None;
  ws.invalid_op = -1;
}

// Propagates the root tile `tile` (rank `tile_rank`) through the group (each operator's output
// region, each outside input's region, into ws) and checks that every operator covers its output
// with the same grid; sets cfg.tile, grid, work_elems and the largest GEMM's tile. False (ws says
// why) for an invalid tile.
bool propagate_tile(const Prepared& p, const int64_t* tile, size_t tile_rank, Workspace& ws,
                    TileConfig& cfg) {
  const TileGraph& g = *p.g;
  const size_t n = p.ops.size();
  const TileOp& root = g.ops[p.ops[p.root]];
  if (tile_rank != root.space.size()) return fail(ws, Invalid::Rank, p.root);
  cfg.tile.resize(root.space.size());
  for (size_t d = 0; d < root.space.size(); ++d)
    cfg.tile[d] = std::max<int64_t>(1, std::min(tile[d], root.space[d]));
  std::fill(ws.has_region.begin(), ws.has_region.end(), 0);
  std::fill(ws.has_ext.begin(), ws.has_ext.end(), 0);
  ws.region[p.root].assign(cfg.tile.begin(), cfg.tile.end());
  ws.has_region[p.root] = !cfg.tile.empty();
  for (int s : p.sinks) {
    if (s == p.root) continue;
    const TileOp& so = g.ops[p.ops[s]];
    if (so.space != root.space) return fail(ws, Invalid::InconsistentSinks, s);
    ws.region[s].assign(cfg.tile.begin(), cfg.tile.end());
    ws.has_region[s] = !cfg.tile.empty();
  }
  for (int i = static_cast<int>(n) - 1; i >= 0; --i) {
    const TileOp& op = g.ops[p.ops[i]];
    if (!ws.has_region[i]) return fail(ws, Invalid::NoTile, i);
    for (const PreparedInput& in : p.inputs[i]) {
      const int64_t* r = input_region_of(p, ws, i, in, ws.region[i].data(), op.reduce.data());
      const size_t rank = g.tensors[in.tensor].shape.size();
      if (in.producer >= 0)
        merge_max(ws.region[in.producer], ws.has_region[in.producer], r, rank);
      else
        merge_max(ws.ext_region[in.ext], ws.has_ext[in.ext], r, rank);
    }
  }
  // Consistency: every operator of the group covers its output with the same number of tiles
  // (§3.1 multi-output alignment; artifact: "node grid sizes must agree").
  cfg.grid = grid_of(root.space, cfg.tile.data());
  for (size_t i = 0; i < n; ++i) {
    const TileOp& op = g.ops[p.ops[i]];
    if (grid_of(op.space, ws.region[i].data()) != cfg.grid)
      return fail(ws, Invalid::Unaligned, static_cast<int>(i));
  }
  // Elements computed by all operators over the whole grid (recomputation included).
  cfg.work_elems = 0;
  for (size_t i = 0; i < n; ++i)
    cfg.work_elems += static_cast<double>(prod(ws.region[i])) * static_cast<double>(cfg.grid);
  double gemm_flops = 0;
  for (size_t i = 0; i < n; ++i) {
    const TileOp& op = g.ops[p.ops[i]];
    const std::vector<int64_t>& r = ws.region[i];
    if (!p.gemm[i] || r.size() < 2 || !(op.flops > gemm_flops)) continue;
    gemm_flops = op.flops;
    cfg.gemm_rows = r[r.size() - 2];
    cfg.gemm_cols = r.back();
  }
  return true;
}

// The traffic of the tile over the whole grid: the outside inputs' and the group's global
// outputs' bytes, transactions (rank_bytes) and sectors; the unique bytes DRAM serves.
void tile_traffic(const Prepared& p, const WelderArch& arch, const Workspace& ws, TileConfig& cfg) {
  const TileGraph& g = *p.g;
  const size_t n = p.ops.size();
  // Traffic per tile.
  double rank = 0, sectors = 0, unique = 0, raw = 0;
  for (size_t e = 0; e < p.ext_tensors.size(); ++e) {
    const TileTensor& tt = g.tensors[p.ext_tensors[e]];
    const std::vector<int64_t>& r = ws.ext_region[e];
    raw += static_cast<double>(prod(r) * tt.elem_bytes);
    rank += coalesced_bytes(r, tt.shape, tt.elem_bytes, arch.read_transaction);
    const double sec = sector_count(r, tt.shape, tt.elem_bytes, arch.sector_bytes);
    sectors += sec;
    unique += std::min<double>(static_cast<double>(tt.bytes()),
                               sec * arch.sector_bytes * static_cast<double>(cfg.grid));
  }
  for (size_t i = 0; i < n; ++i) {
    if (!p.out_global[i]) continue;
    const TileTensor& tt = g.tensors[g.ops[p.ops[i]].output];
    raw += static_cast<double>(prod(ws.region[i]) * tt.elem_bytes);
    rank += coalesced_bytes(ws.region[i], tt.shape, tt.elem_bytes, arch.write_transaction);
    sectors += sector_count(ws.region[i], tt.shape, tt.elem_bytes, arch.sector_bytes);
    unique += static_cast<double>(tt.bytes());
  }
  const double grid = static_cast<double>(cfg.grid);
  cfg.tile_bytes = raw;
  cfg.rank_bytes = rank * grid;
  cfg.sectors = sectors * grid;
  cfg.unique_bytes = unique;
}

// The tile's shared-memory footprint (cfg.smem) and registers per block (cfg.regs).
void tile_footprint(const Prepared& p, const WelderArch& arch, Workspace& ws, TileConfig& cfg) {
  const TileGraph& g = *p.g;
  const size_t n = p.ops.size();
  // Footprint: intermediates kept in shared memory live from their producer to their last
  // in-group consumer; reduction ops stage their non-shared inputs in rstep-sized buffers.
  std::fill(ws.remaining.begin(), ws.remaining.end(), 0);
  int64_t live = 0, peak = 0, max_reg_elems = 0;
  const int64_t rstep_cap =
      static_cast<int64_t>(kRstepShare * static_cast<double>(arch.smem_per_block));
  for (size_t i = 0; i < n; ++i) {
    const TileOp& op = g.ops[p.ops[i]];
    const std::vector<int64_t>& reg = ws.region[i];
    max_reg_elems =
        std::max(max_reg_elems, prod(reg) * g.tensors[op.output].elem_bytes / kRegBytes);
    int64_t transient = 0;
    if (op.is_reduction()) {
      ws.rstep.assign(op.reduce.begin(), op.reduce.end());
      auto staged = [&]() {
        int64_t b = 0;
        for (const PreparedInput& in : p.inputs[i]) {
          if (!in.staged) continue;
          const int64_t* r =
              input_region_of(p, ws, static_cast<int>(i), in, reg.data(), ws.rstep.data());
          b += align_up(prod_n(r, g.tensors[in.tensor].shape.size()) *
                        g.tensors[in.tensor].elem_bytes);
        }
        return b;
      };
      transient = staged();
      const int64_t avail = arch.smem_per_block - live;
      while (transient > std::min(avail, rstep_cap)) {
        auto it = std::max_element(ws.rstep.begin(), ws.rstep.end());
        if (*it <= 1) break;
        *it = (*it + 1) / 2;
        transient = staged();
      }
    }
    int64_t out_buf = 0;
    if (p.out_shared[i]) {
      out_buf = align_up(prod(reg) * g.tensors[op.output].elem_bytes);
      ws.remaining[i] = p.shared_consumers[i];
    }
    peak = std::max(peak, live + transient + out_buf);
    live += out_buf;
    // Free inputs whose last shared consumer is this op.
    for (const PreparedInput& in : p.inputs[i]) {
      if (in.producer < 0) continue;
      const int li = in.producer;
      if (!p.out_shared[li]) continue;
      if (in.shared_edge && --ws.remaining[li] == 0)
        live -= align_up(prod(ws.region[li]) * g.tensors[g.ops[p.ops[li]].output].elem_bytes);
    }
  }
  cfg.smem = peak;
  cfg.regs = 2 * max_reg_elems;  // artifact estimate: 2 x largest tile in 32-bit words
}

// Propagates the root tile `tile` (rank `tile_rank`) through the group and costs it. Fills every
// field of `cfg` but `why` (see invalid_why; ws.invalid says why it is invalid); the search
// (`traffic_if_too_big` false) skips the traffic fields of a tile whose footprint does not fit,
// which it only drops.
void evaluate_into(const Prepared& p, const WelderArch& arch, const int64_t* tile, size_t tile_rank,
                   Workspace& ws, TileConfig& cfg, bool traffic_if_too_big = true) {
  reset_config(ws, cfg);
  if (!propagate_tile(p, tile, tile_rank, ws, cfg)) return;
  tile_footprint(p, arch, ws, cfg);
  const bool too_big = cfg.smem > arch.smem_per_block || cfg.regs > arch.reg_cap;
  if (!too_big || traffic_if_too_big) tile_traffic(p, arch, ws, cfg);
  if (cfg.smem > arch.smem_per_block) {
    fail(ws, Invalid::Smem, -1);
    return;
  }
  if (cfg.regs > arch.reg_cap) {
    fail(ws, Invalid::Registers, -1);
    return;
  }
  int64_t bps = arch.max_blocks_per_sm;
  if (cfg.smem > 0) bps = std::min<int64_t>(bps, arch.smem_per_sm / cfg.smem);
  if (cfg.regs > 0) bps = std::min<int64_t>(bps, arch.reg_cap / cfg.regs);
  if (bps < 1) {
    fail(ws, Invalid::NoBlock, -1);
    return;
  }
  cfg.blocks_per_sm = static_cast<int>(bps);
  const int64_t slots = bps * arch.sm_count;
  cfg.waves = ceil_div(cfg.grid, slots);
  cfg.priority = (cfg.rank_bytes + 1) * static_cast<double>(cfg.waves);
  // Analytic latency ("profile"): memory or compute bound, with wave quantisation.
  const double grid = static_cast<double>(cfg.grid);
  const double util = grid / static_cast<double>(cfg.waves * slots);
  const double t_dram = cfg.unique_bytes / (arch.eta_dram * arch.dram_gbs * 1e9);
  const double t_l2 = cfg.sectors * arch.sector_bytes / (arch.eta_l2 * arch.l2_gbs * 1e9);
  const double t = std::max({p.t_comp, t_dram, t_l2}) / std::max(util, 1e-9);
  cfg.latency_us = arch.launch_us + t * 1e6;
  cfg.valid = true;
}

TileConfig evaluate(const Prepared& p, const WelderArch& arch, const std::vector<int64_t>& tile,
                    CustomRegionMemo* memo = nullptr) {
  Workspace ws(p, memo);
  TileConfig cfg;
  evaluate_into(p, arch, tile.data(), tile.size(), ws, cfg);
  if (!cfg.valid) cfg.why = invalid_why(p, ws, cfg, tile.size());
  return cfg;
}

// Threads per block for the GPU model: Roller-style register tiles of a few outputs per thread.
// Paper §4.1: at least 128 threads (4 schedulers x 32); assumption: at most 256, 4 outputs each.
constexpr int kMinThreads = 128;
constexpr int kMaxThreads = 256;
constexpr int64_t kOutputsPerThread = 4;
// Registers per thread beyond the tile's own values (addresses, loop counters): assumption.
constexpr int kRegisterOverhead = 24;

// The kernel the GPU model profiles for configuration `cfg` of the prepared group (arch.gpu set).
KernelLaunch profiled_kernel(const Prepared& p, const WelderArch& arch, const TileConfig& cfg) {
  const TileGraph& g = *p.g;
  KernelLaunch k;
  k.name = "welder_group:" + g.ops[p.ops[p.root]].name;
  k.grid_blocks = cfg.grid;
  int64_t threads = kMinThreads;
  while (threads * 2 <= kMaxThreads && threads * 2 * kOutputsPerThread <= prod(cfg.tile))
    threads *= 2;
  k.threads_per_block = static_cast<int>(threads);
  k.registers_per_thread = static_cast<int>(std::min<int64_t>(
      255, std::max<int64_t>(32, ceil_div(cfg.regs, threads) + kRegisterOverhead)));
  k.shared_bytes_per_block = cfg.smem;
  bool tc = false;
  for (int op : p.ops) {
    k.flops += g.ops[op].flops;
    tc = tc || (arch.tensor_cores && uses_tensor_cores(g.ops[op]));
  }
  k.dram_bytes = cfg.unique_bytes;
  k.l2_bytes = std::max(cfg.unique_bytes, cfg.sectors * arch.sector_bytes);
  k.math = tc ? MathUnit::Tensor
              : (arch.peak_tflops > arch.gpu->peak_fp32_tflops ? MathUnit::Fp16 : MathUnit::Fp32);
  // Every variant's kernels are generated code (TVM/Welder class); the class only selects the
  // compute efficiency: "fused" (generated) when the kernel holds a convolution or matrix
  // product, memory-bound otherwise
  // (the same rule for all variants, so they differ only in fusion and tiles).
  bool gemm = false;
  for (int op : p.ops) gemm = gemm || uses_tensor_cores(g.ops[op]);
  k.klass = gemm ? KernelClass::Fused : KernelClass::Memory;
  // The heaviest matrix product's tile sets the operand rule's cap (common/gpumodel/kernel.h).
  if (cfg.gemm_rows > 0 && cfg.gemm_cols > 0)
    k.tile = GemmTile{cfg.gemm_rows, cfg.gemm_cols,
                      static_cast<int>(g.tensors[g.ops[p.ops[p.root]].output].elem_bytes)};
  return k;
}

double profile_latency(const Prepared& p, const WelderArch& arch, const TileConfig& cfg) {
  if (!arch.gpu) return cfg.latency_us;
  return estimate_kernel(*arch.gpu, profiled_kernel(p, arch, cfg)).latency_us;
}

std::vector<int64_t> steps_for(int64_t extent) {
  std::set<int64_t> s;
  for (int64_t d = 1; d * d <= extent; ++d)
    if (extent % d == 0) {
      s.insert(d);
      s.insert(extent / d);
    }
  for (int64_t p2 = 1; p2 <= extent; p2 *= 2) s.insert(p2);
  return {s.begin(), s.end()};
}

}  // namespace

TileConfig evaluate_tile(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                         const std::vector<int64_t>& tile) {
  return evaluate(prepare(g, grp, arch), arch, tile);
}

TileConfig profile_tile(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                        const std::vector<int64_t>& tile) {
  const Prepared p = prepare(g, grp, arch);
  TileConfig c = evaluate(p, arch, tile);
  if (c.valid) c.latency_us = profile_latency(p, arch, c);
  return c;
}

KernelLaunch group_kernel(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                          const TileConfig& cfg) {
  if (!arch.gpu)
    throw Error("welder: group_kernel needs an arch with a GPU config (" + arch.name +
                " has none)");
  KernelLaunch k = profiled_kernel(prepare(g, grp, arch), arch, cfg);
  for (int op : grp.ops)
    if (g.ops[op].graph_op >= 0 &&
        std::find(k.ops.begin(), k.ops.end(), g.ops[op].graph_op) == k.ops.end())
      k.ops.push_back(g.ops[op].graph_op);
  return k;
}

namespace {

// The tiles a search has seen, as index vectors into the per-dimension steps: stored once in
// one flat array and found through an open-addressing hash index (no allocation per tile).
class SeenTiles {
 public:
  explicit SeenTiles(size_t rank) : rank_(rank), slots_(4096, -1) {}
  // Adds `idx` (rank entries); its id, or -1 when it was seen before.
  int insert(const size_t* idx) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (size_t d = 0; d < rank_; ++d) {
      h ^= idx[d];
      h *= 1099511628211ull;
    }
    size_t mask = slots_.size() - 1;
    size_t s = static_cast<size_t>(h) & mask;
    for (; slots_[s] >= 0; s = (s + 1) & mask)
      if (hashes_[static_cast<size_t>(slots_[s])] == h &&
          std::equal(idx, idx + rank_, at(slots_[s])))
        return -1;
    const int id = static_cast<int>(hashes_.size());
    flat_.insert(flat_.end(), idx, idx + rank_);
    hashes_.push_back(h);
    slots_[s] = id;
    if (2 * hashes_.size() > slots_.size()) {  // grow and re-index
      slots_.assign(2 * slots_.size(), -1);
      mask = slots_.size() - 1;
      for (size_t i = 0; i < hashes_.size(); ++i) {
        size_t t = static_cast<size_t>(hashes_[i]) & mask;
        while (slots_[t] >= 0) t = (t + 1) & mask;
        slots_[t] = static_cast<int>(i);
      }
    }
    return id;
  }
  const size_t* at(int id) const { return flat_.data() + static_cast<size_t>(id) * rank_; }

 private:
  size_t rank_;
  std::vector<size_t> flat_;
  std::vector<uint64_t> hashes_;  // per id
  std::vector<int> slots_;        // ids; -1 = empty; a power of two, at most half full
};

}  // namespace

GroupResult schedule_group(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                           const SearchLimits& lim) {
  return schedule_group(g, grp, arch, lim, nullptr);
}

GroupResult schedule_group(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                           const SearchLimits& lim, CustomRegionMemo* memo) {
  GroupResult res;
  const Prepared p = prepare(g, grp, arch);
  bool all_layout = true;
  for (int op : p.ops) all_layout = all_layout && g.ops[op].layout_only;
  for (size_t i = 0; i < p.ops.size(); ++i)
    if (p.out_global[i])
      res.irs_bytes += static_cast<double>(g.tensors[g.ops[p.ops[i]].output].bytes());
  if (all_layout) {
    // A view: no kernel, no traffic, nothing written.
    res.valid = true;
    res.launches = false;
    res.irs_bytes = 0;
    res.best.valid = true;
    return res;
  }
  Workspace ws(p, memo);
  const TileOp& root = g.ops[p.ops[p.root]];
  const size_t rank = root.space.size();
  std::vector<std::vector<int64_t>> steps(rank);
  for (size_t d = 0; d < rank; ++d) steps[d] = steps_for(root.space[d]);
  std::vector<int64_t> tile(rank);
  // Evaluates the tile at step indices `idx` into `cfg`.
  auto eval_at = [&](const size_t* idx, TileConfig& cfg) {
    for (size_t d = 0; d < rank; ++d) tile[d] = steps[d][idx[d]];
    evaluate_into(p, arch, tile.data(), rank, ws, cfg, /*traffic_if_too_big=*/false);
  };
  // Base tile: all ones, except dimensions whose full extent lowers the workload per item (a
  // Softmax row: every partial-row tile recomputes the row's max and sum).
  std::vector<size_t> base(rank, 0);
  // Workload per item: the output element count is the same for both candidates.
  auto workload = [&](const TileConfig& c) { return c.work_elems; };
  TileConfig cfg;  // scratch
  {
    TileConfig one;
    eval_at(base.data(), one);
    std::vector<size_t> idx;
    for (size_t d = 0; d < rank; ++d) {
      idx = base;
      idx[d] = steps[d].size() - 1;
      eval_at(idx.data(), cfg);
      res.visited += 2;
      const bool better =
          (cfg.valid && !one.valid) || (cfg.valid && workload(cfg) < workload(one) * kBaseTileGain);
      if (better) {
        base = idx;
        std::swap(one, cfg);
      }
    }
  }
  // Best-first search on the ranking key. Items hold a tile's id in `seen`; the heap compares
  // the key only.
  using Item = std::pair<double, int>;
  auto cmp = [](const Item& a, const Item& b) { return a.first > b.first; };
  std::priority_queue<Item, std::vector<Item>, decltype(cmp)> frontier(cmp);
  SeenTiles seen(rank);
  std::vector<Item> valid;  // (ranking key, tile id), in the order found
  auto push = [&](const size_t* idx) {
    const int id = seen.insert(idx);
    if (id < 0) return;
    eval_at(idx, cfg);
    ++res.visited;
    if (!cfg.valid) {
      if (res.why.empty()) res.why = invalid_why(p, ws, cfg, rank);
      // A tile that fails only the alignment check may still grow into an aligned one.
      if (cfg.grid == 0 || ws.invalid != Invalid::Unaligned) return;
      frontier.push({std::numeric_limits<double>::max() / 4, id});
      return;
    }
    valid.push_back({cfg.priority, id});
    frontier.push({cfg.priority, id});
  };
  push(base.data());
  std::vector<size_t> cur(rank), nb(rank);
  while (!frontier.empty() && res.visited < lim.max_visits) {
    const size_t* top = seen.at(frontier.top().second);
    cur.assign(top, top + rank);  // `seen` may grow below
    frontier.pop();
    for (size_t d = 0; d < rank; ++d) {
      if (cur[d] + 1 >= steps[d].size()) continue;
      nb = cur;
      ++nb[d];
      push(nb.data());
    }
  }
  if (valid.empty()) {
    res.valid = false;
    if (res.why.empty()) res.why = "no valid tile";
    return res;
  }
  // Same comparison as on the configurations, so the order (ties included) is the same.
  std::sort(valid.begin(), valid.end(),
            [](const Item& a, const Item& b) { return a.first < b.first; });
  const size_t k = std::min<size_t>(valid.size(), static_cast<size_t>(lim.topk));
  res.candidates = static_cast<int>(k);
  for (size_t i = 0; i < k; ++i) {
    eval_at(seen.at(valid[i].second), cfg);
    cfg.latency_us = profile_latency(p, arch, cfg);
    if (i == 0 || cfg.latency_us < res.best.latency_us) res.best = cfg;
  }
  res.valid = true;
  res.why.clear();
  return res;
}

}  // namespace dgs::welder
