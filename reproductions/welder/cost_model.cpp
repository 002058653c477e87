#include "reproductions/welder/cost_model.h"

#include "common/gpumodel/gpu_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <set>
#include <sstream>
#include <type_traits>
#include <variant>

namespace dgs::welder {

std::string conn_name(Conn c) {
  switch (c) {
    case Conn::Host:
      return "host";
    case Conn::Dram:
      return "dram";
    case Conn::Shared:
      return "shared";
    case Conn::Register:
      return "register";
  }
  return "?";
}

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

int group_root(const TileGraph& g, const KernelGroup& grp) {
  int root = -1;
  for (int op : grp.ops) {
    bool inner_consumer = false;
    for (int c : g.consumers_of(op))
      if (std::find(grp.ops.begin(), grp.ops.end(), c) != grp.ops.end()) inner_consumer = true;
    if (!inner_consumer) root = std::max(root, op);
  }
  return root;
}

namespace {

struct Prepared {
  const TileGraph* g = nullptr;
  std::vector<int> ops;                                            // topological
  std::vector<int> local;                                          // tile op -> local index or -1
  std::vector<std::vector<std::pair<int, Conn>>> inner_consumers;  // local -> (local, level)
  std::vector<bool> out_global;  // output written to global memory
  std::vector<bool> out_shared;  // output kept in shared memory
  std::vector<int> sinks;        // local indices
  int root = -1;                 // local index
  std::vector<int> ext_tensors;  // tensors read from global memory
};

Prepared prepare(const TileGraph& g, const KernelGroup& grp) {
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
  std::set<int> ext;
  for (size_t i = 0; i < n; ++i) {
    const TileOp& op = g.ops[p.ops[i]];
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
      if (lvl != Conn::Register) p.out_shared[i] = true;
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
  return p;
}

void merge_max(std::vector<int64_t>& into, const std::vector<int64_t>& r) {
  if (into.empty()) {
    into = r;
    return;
  }
  for (size_t d = 0; d < into.size(); ++d) into[d] = std::max(into[d], r[d]);
}

int64_t grid_of(const std::vector<int64_t>& space, const std::vector<int64_t>& region) {
  int64_t gsz = 1;
  for (size_t d = 0; d < space.size(); ++d) gsz *= ceil_div(space[d], region[d]);
  return gsz;
}

bool uses_tensor_cores(const TileOp& op) {
  return op.type == "Conv" || op.type == "MatMul" || op.type == "Gemm" ||
         op.type == "ConvTranspose";
}

TileConfig evaluate(const Prepared& p, const WelderArch& arch, const std::vector<int64_t>& tile) {
  const TileGraph& g = *p.g;
  TileConfig cfg;
  const size_t n = p.ops.size();
  const TileOp& root = g.ops[p.ops[p.root]];
  if (tile.size() != root.space.size()) {
    cfg.why = "tile rank " + std::to_string(tile.size()) + " differs from output rank of '" +
              root.name + "'";
    return cfg;
  }
  cfg.tile.resize(root.space.size());
  for (size_t d = 0; d < root.space.size(); ++d)
    cfg.tile[d] = std::max<int64_t>(1, std::min(tile[d], root.space[d]));
  std::vector<std::vector<int64_t>> region(n);
  region[p.root] = cfg.tile;
  for (int s : p.sinks) {
    if (s == p.root) continue;
    const TileOp& so = g.ops[p.ops[s]];
    if (so.space != root.space) {
      cfg.why = "outputs '" + so.name + "' and '" + root.name + "' have inconsistent tiles";
      return cfg;
    }
    region[s] = cfg.tile;
  }
  // Input regions per (local op, input k), for the footprint pass.
  std::vector<std::vector<std::vector<int64_t>>> in_regions(n);
  std::map<int, std::vector<int64_t>> ext_region;
  for (int i = static_cast<int>(n) - 1; i >= 0; --i) {
    const TileOp& op = g.ops[p.ops[i]];
    if (region[i].empty()) {
      cfg.why = "op '" + op.name + "' gets no tile";
      return cfg;
    }
    in_regions[i].resize(op.inputs.size());
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      auto r = input_region(g, op, static_cast<int>(k), region[i], op.reduce);
      const int t = op.inputs[k].tensor;
      const int pr = g.tensors[t].producer;
      if (pr >= 0 && p.local[pr] >= 0) {
        merge_max(region[p.local[pr]], r);
      } else {
        merge_max(ext_region[t], r);
      }
      in_regions[i][k] = std::move(r);
    }
  }
  // Consistency: every operator of the group covers its output with the same number of tiles
  // (§3.1 multi-output alignment; artifact: "node grid sizes must agree").
  cfg.grid = grid_of(root.space, cfg.tile);
  for (size_t i = 0; i < n; ++i) {
    const TileOp& op = g.ops[p.ops[i]];
    if (grid_of(op.space, region[i]) != cfg.grid) {
      cfg.why = "tile of '" + op.name + "' is not aligned with the group's output tile";
      return cfg;
    }
  }
  // Elements computed by all operators over the whole grid (recomputation included).
  cfg.work_elems = 0;
  for (size_t i = 0; i < n; ++i)
    cfg.work_elems += static_cast<double>(prod(region[i])) * static_cast<double>(cfg.grid);
  // Traffic per tile.
  double rank = 0, sectors = 0, unique = 0, raw = 0;
  for (const auto& [t, r] : ext_region) {
    const TileTensor& tt = g.tensors[t];
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
    raw += static_cast<double>(prod(region[i]) * tt.elem_bytes);
    rank += coalesced_bytes(region[i], tt.shape, tt.elem_bytes, arch.write_transaction);
    sectors += sector_count(region[i], tt.shape, tt.elem_bytes, arch.sector_bytes);
    unique += static_cast<double>(tt.bytes());
  }
  const double grid = static_cast<double>(cfg.grid);
  cfg.tile_bytes = raw;
  cfg.rank_bytes = rank * grid;
  cfg.sectors = sectors * grid;
  cfg.unique_bytes = unique;
  // Footprint: intermediates kept in shared memory live from their producer to their last
  // in-group consumer; reduction ops stage their non-shared inputs in rstep-sized buffers.
  std::vector<int> remaining(n, 0);
  int64_t live = 0, peak = 0, max_reg_elems = 0;
  const int64_t rstep_cap =
      static_cast<int64_t>(kRstepShare * static_cast<double>(arch.smem_per_block));
  for (size_t i = 0; i < n; ++i) {
    const TileOp& op = g.ops[p.ops[i]];
    max_reg_elems =
        std::max(max_reg_elems, prod(region[i]) * g.tensors[op.output].elem_bytes / kRegBytes);
    int64_t transient = 0;
    if (op.is_reduction()) {
      std::vector<int64_t> rstep = op.reduce;
      auto staged = [&]() {
        int64_t b = 0;
        for (size_t k = 0; k < op.inputs.size(); ++k) {
          const int t = op.inputs[k].tensor;
          const int pr = g.tensors[t].producer;
          if (pr >= 0 && p.local[pr] >= 0 && p.out_shared[p.local[pr]]) continue;
          auto r = input_region(g, op, static_cast<int>(k), region[i], rstep);
          b += align_up(prod(r) * g.tensors[t].elem_bytes);
        }
        return b;
      };
      transient = staged();
      const int64_t avail = arch.smem_per_block - live;
      while (transient > std::min(avail, rstep_cap)) {
        auto it = std::max_element(rstep.begin(), rstep.end());
        if (*it <= 1) break;
        *it = (*it + 1) / 2;
        transient = staged();
      }
    }
    int64_t out_buf = 0;
    if (p.out_shared[i]) {
      out_buf = align_up(prod(region[i]) * g.tensors[op.output].elem_bytes);
      remaining[i] = 0;
      for (const auto& [c, lvl] : p.inner_consumers[i])
        if (lvl != Conn::Register) ++remaining[i];
    }
    peak = std::max(peak, live + transient + out_buf);
    live += out_buf;
    // Free inputs whose last shared consumer is this op.
    for (const auto& in : op.inputs) {
      const int pr = g.tensors[in.tensor].producer;
      if (pr < 0 || p.local[pr] < 0) continue;
      const int li = p.local[pr];
      if (!p.out_shared[li]) continue;
      bool is_shared_edge = false;
      for (const auto& [c, lvl] : p.inner_consumers[li])
        if (c == static_cast<int>(i) && lvl != Conn::Register) is_shared_edge = true;
      if (is_shared_edge && --remaining[li] == 0)
        live -= align_up(prod(region[li]) * g.tensors[g.ops[p.ops[li]].output].elem_bytes);
    }
  }
  cfg.smem = peak;
  cfg.regs = 2 * max_reg_elems;  // artifact estimate: 2 x largest tile in 32-bit words
  if (cfg.smem > arch.smem_per_block) {
    cfg.why = "footprint " + std::to_string(cfg.smem) + " B exceeds shared memory";
    return cfg;
  }
  if (cfg.regs > arch.reg_cap) {
    cfg.why = "tile needs too many registers";
    return cfg;
  }
  int64_t bps = arch.max_blocks_per_sm;
  if (cfg.smem > 0) bps = std::min<int64_t>(bps, arch.smem_per_sm / cfg.smem);
  if (cfg.regs > 0) bps = std::min<int64_t>(bps, arch.reg_cap / cfg.regs);
  if (bps < 1) {
    cfg.why = "no block fits on an SM";
    return cfg;
  }
  cfg.blocks_per_sm = static_cast<int>(bps);
  const int64_t slots = bps * arch.sm_count;
  cfg.waves = ceil_div(cfg.grid, slots);
  cfg.priority = (cfg.rank_bytes + 1) * static_cast<double>(cfg.waves);
  // Analytic latency ("profile"): memory or compute bound, with wave quantisation.
  const double util = grid / static_cast<double>(cfg.waves * slots);
  double t_comp = 0;
  for (int op : p.ops) {
    const TileOp& o = g.ops[op];
    const double peak_t = arch.tensor_cores && uses_tensor_cores(o) && arch.peak_tensor_tflops > 0
                              ? arch.peak_tensor_tflops
                              : arch.peak_tflops;
    t_comp += o.flops / (arch.eta_compute * peak_t * 1e12);
  }
  const double t_dram = cfg.unique_bytes / (arch.eta_dram * arch.dram_gbs * 1e9);
  const double t_l2 = cfg.sectors * arch.sector_bytes / (arch.eta_l2 * arch.l2_gbs * 1e9);
  const double t = std::max({t_comp, t_dram, t_l2}) / std::max(util, 1e-9);
  cfg.latency_us = arch.launch_us + t * 1e6;
  cfg.valid = true;
  return cfg;
}

// Threads per block for the GPU model: Roller-style register tiles of a few outputs per thread.
// Paper §4.1: at least 128 threads (4 schedulers x 32); assumption: at most 256, 4 outputs each.
constexpr int kMinThreads = 128;
constexpr int kMaxThreads = 256;
constexpr int64_t kOutputsPerThread = 4;
// Registers per thread beyond the tile's own values (addresses, loop counters): assumption.
constexpr int kRegisterOverhead = 24;

double profile_latency(const Prepared& p, const WelderArch& arch, const TileConfig& cfg) {
  if (!arch.gpu) return cfg.latency_us;
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
  return estimate_kernel(*arch.gpu, k).latency_us;
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
  return evaluate(prepare(g, grp), arch, tile);
}

TileConfig profile_tile(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                        const std::vector<int64_t>& tile) {
  const Prepared p = prepare(g, grp);
  TileConfig c = evaluate(p, arch, tile);
  if (c.valid) c.latency_us = profile_latency(p, arch, c);
  return c;
}

GroupResult schedule_group(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                           const SearchLimits& lim) {
  GroupResult res;
  const Prepared p = prepare(g, grp);
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
  const TileOp& root = g.ops[p.ops[p.root]];
  const size_t rank = root.space.size();
  std::vector<std::vector<int64_t>> steps(rank);
  for (size_t d = 0; d < rank; ++d) steps[d] = steps_for(root.space[d]);
  // Base tile: all ones, except dimensions whose full extent lowers the workload per item (a
  // Softmax row: every partial-row tile recomputes the row's max and sum).
  std::vector<size_t> base(rank, 0);
  auto tile_of = [&](const std::vector<size_t>& idx) {
    std::vector<int64_t> t(rank);
    for (size_t d = 0; d < rank; ++d) t[d] = steps[d][idx[d]];
    return t;
  };
  // Workload per item: the output element count is the same for both candidates.
  auto workload = [&](const TileConfig& c) { return c.work_elems; };
  {
    TileConfig one = evaluate(p, arch, tile_of(base));
    for (size_t d = 0; d < rank; ++d) {
      auto idx = base;
      idx[d] = steps[d].size() - 1;
      TileConfig full = evaluate(p, arch, tile_of(idx));
      res.visited += 2;
      const bool better = (full.valid && !one.valid) ||
                          (full.valid && workload(full) < workload(one) * kBaseTileGain);
      if (better) {
        base = idx;
        one = full;
      }
    }
  }
  // Best-first search on the ranking key.
  using Item = std::pair<double, std::vector<size_t>>;
  auto cmp = [](const Item& a, const Item& b) { return a.first > b.first; };
  std::priority_queue<Item, std::vector<Item>, decltype(cmp)> frontier(cmp);
  std::set<std::vector<size_t>> seen;
  std::vector<TileConfig> valid;
  auto push = [&](const std::vector<size_t>& idx) {
    if (!seen.insert(idx).second) return;
    TileConfig c = evaluate(p, arch, tile_of(idx));
    ++res.visited;
    if (!c.valid) {
      if (res.why.empty()) res.why = c.why;
      // A tile that fails only the alignment check may still grow into an aligned one.
      if (c.grid == 0 || c.why.find("aligned") == std::string::npos) return;
      frontier.push({std::numeric_limits<double>::max() / 4, idx});
      return;
    }
    valid.push_back(c);
    frontier.push({c.priority, idx});
  };
  push(base);
  while (!frontier.empty() && res.visited < lim.max_visits) {
    const auto idx = frontier.top().second;
    frontier.pop();
    for (size_t d = 0; d < rank; ++d) {
      if (idx[d] + 1 >= steps[d].size()) continue;
      auto nb = idx;
      ++nb[d];
      push(nb);
    }
  }
  if (valid.empty()) {
    res.valid = false;
    if (res.why.empty()) res.why = "no valid tile";
    return res;
  }
  std::sort(valid.begin(), valid.end(),
            [](const TileConfig& a, const TileConfig& b) { return a.priority < b.priority; });
  const size_t k = std::min<size_t>(valid.size(), static_cast<size_t>(lim.topk));
  res.candidates = static_cast<int>(k);
  for (size_t i = 0; i < k; ++i) valid[i].latency_us = profile_latency(p, arch, valid[i]);
  res.best = valid[0];
  for (size_t i = 1; i < k; ++i)
    if (valid[i].latency_us < res.best.latency_us) res.best = valid[i];
  res.valid = true;
  res.why.clear();
  return res;
}

std::string group_signature(const TileGraph& g, const KernelGroup& grp) {
  std::vector<int> ops = grp.ops;
  std::sort(ops.begin(), ops.end());
  std::ostringstream os;
  auto local = [&](int op) {
    auto it = std::lower_bound(ops.begin(), ops.end(), op);
    return (it != ops.end() && *it == op) ? static_cast<int>(it - ops.begin()) : -1;
  };
  for (int op : ops) {
    const TileOp& o = g.ops[op];
    os << o.type << (o.layout_only ? "v" : "") << '(' << o.flops << ')';
    for (auto s : o.space) os << ',' << s;
    os << '|';
    for (auto r : o.reduce) os << ',' << r;
    for (const auto& in : o.inputs) {
      const TileTensor& t = g.tensors[in.tensor];
      const int l = t.producer >= 0 ? local(t.producer) : -1;
      os << "<" << l << ':' << t.elem_bytes;
      if (l < 0)
        for (auto s : t.shape) os << ',' << s;
      if (in.custom) {  // answered from the source op: its input shape and attributes count
        os << 'C' << in.graph_input;
        for (auto d : t.shape) os << ',' << d;
        if (g.source && o.graph_op >= 0)
          for (const auto& [name, v] : g.source->op(o.graph_op).attrs.all()) {
            os << name << '=';
            std::visit(
                [&](const auto& x) {
                  using X = std::decay_t<decltype(x)>;
                  if constexpr (std::is_same_v<X, std::vector<int64_t>> ||
                                std::is_same_v<X, std::vector<double>>) {
                    for (auto e : x) os << e << ':';
                  } else {
                    os << x;
                  }
                },
                v);
          }
      }
      for (const auto& d : in.dims) {
        os << '[' << d.offset << '/' << d.divisor << '+' << d.extra << (d.full ? "F" : "");
        for (const auto& t2 : d.terms) os << t2.axis << '*' << t2.coef << ';';
        os << ']';
      }
      if (l >= 0) {
        auto it = grp.edges.find({t.producer, op});
        os << '@' << static_cast<int>(it == grp.edges.end() ? Conn::Shared : it->second);
      }
    }
    const TileTensor& out = g.tensors[o.output];
    bool outside = out.graph_output || out.consumers.empty();
    for (int c : out.consumers) outside = outside || local(c) < 0;
    os << (outside ? "G" : "") << out.elem_bytes << '#';
  }
  return os.str();
}

}  // namespace dgs::welder
