// GPU performance model: occupancy, the event-driven block simulation, op -> kernel rules and
// plan evaluation. The rules are stated in gpu_model.h.
#include "common/gpumodel/gpu_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/graph/op_cost.h"
#include "common/util/error.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Named constants of the model (not from a paper; each with its reason)
// ---------------------------------------------------------------------------------------------
namespace {

// Shared memory is allocated to blocks in units of 256 bytes on Volta and later (CUDA occupancy
// calculator, "shared memory allocation unit size").
constexpr int64_t kSharedAllocationUnit = 256;

// Implicit-GEMM output tiles (M x N) of the cuDNN-class convolution/GEMM kernels, 256 threads
// (8 warps): the largest of 128 x 64, 64 x 64, 64 x 32 whose grid has at least one block per SM,
// else the smallest (cuDNN/cuBLAS heuristics switch to smaller tiles for small problems; no
// split-K). Evidence: the IOS thesis (§2.3) reports that a batch-1 conv C_in=375, C_out=750, 3x3
// on 15x15 launches 48 blocks of 256 threads on a 40-SM GPU: M = 225, N = 750 gives 24 tiles of
// 128 x 64 (< 40) and 48 of 64 x 64, which this rule picks.
constexpr std::pair<int64_t, int64_t> kGemmTiles[] = {{128, 64}, {64, 64}, {64, 32}};
constexpr int kGemmThreads = 256;
// Registers per thread of that kernel: the cuDNN convolution kernel quoted in the IOS thesis
// (§2.3: "256 threads per block and 126 registers per thread", 2 resident blocks per SM on V100).
constexpr int kGemmRegisters = 126;
// K-slice staged in shared memory per main-loop iteration (classic SGEMM: 8), double-buffered:
// smem = 2 * (128 + 64) * 8 * element size (12 KiB in FP32).
constexpr int64_t kGemmTileK = 8;
constexpr int64_t kGemmBuffers = 2;

// Memory-bound and direct kernels: 256 threads per block, one output element per thread, or one
// thread per 16 input elements when that gives more threads (reductions: a thread reads four
// 16-byte vectors), 32 registers (simple kernels compile to well under 32).
constexpr int kSimpleThreads = 256;
constexpr int kSimpleRegisters = 32;
constexpr int64_t kInputElementsPerThread = 16;

// A block of a kernel whose work and traffic are ~0 still costs this long (warp launch and one
// DRAM round trip, ~0.5 us on V100-class GPUs); it also keeps the simulation's rates finite.
constexpr double kDefaultBlockMinUs = 0.5;

// Relative tolerance below which a block's remaining work counts as done.
constexpr double kDoneEpsilon = 1e-9;

// Relative margin by which stage_latency_lower_bound_us lowers its bound: far above the
// simulation's rounding (a block ends kDoneEpsilon early; event times accumulate ~1e-16 relative
// error per event), so the bound stays below the simulated latency, yet far below any difference
// between two stages' latencies that a search could act on.
constexpr double kLowerBoundMargin = 1e-6;

struct EfficiencyDefault {
  std::string_view key;
  double value;
  // reason (kept here, printed nowhere): see the comments.
};

// Defaults used when a config has no entry (assumptions from public microbenchmarks):
constexpr EfficiencyDefault kEfficiencyDefaults[] = {
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
    // TVM-generated fused kernels (Welder/Ansor-class): between library GEMM and simple kernels.
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

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t round_up(int64_t a, int64_t unit) {
  return unit <= 0 ? a : ceil_div(a, unit) * unit;
}

}  // namespace

namespace gpu_efficiency {
double default_value(std::string_view key) {
  for (const auto& d : kEfficiencyDefaults)
    if (d.key == key) return d.value;
  throw Error("gpu model: unknown efficiency key '" + std::string(key) + "'");
}
double get(const GpuSpec& spec, std::string_view key) {
  // A scan of the (short) section instead of find(std::string(key)): no string is built on this
  // path, which every stage simulation takes several times.
  for (const auto& [k, v] : spec.efficiency)
    if (k == key) return v;
  return default_value(key);
}
std::vector<std::string_view> all_keys() {
  std::vector<std::string_view> keys;
  for (const auto& d : kEfficiencyDefaults) keys.push_back(d.key);
  return keys;
}
}  // namespace gpu_efficiency

std::string_view math_unit_name(MathUnit u) {
  switch (u) {
    case MathUnit::Fp32:
      return "fp32";
    case MathUnit::Fp16:
      return "fp16";
    case MathUnit::Tensor:
      return "tensor";
  }
  return "?";
}

std::string_view kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::Gemm:
      return "gemm";
    case KernelClass::Direct:
      return "direct";
    case KernelClass::Memory:
      return "memory";
    case KernelClass::Fused:
      return "fused";
  }
  return "?";
}

std::string_view occupancy_limit_name(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::Threads:
      return "threads";
    case OccupancyLimit::Warps:
      return "warps";
    case OccupancyLimit::Registers:
      return "registers";
    case OccupancyLimit::SharedMemory:
      return "shared_memory";
    case OccupancyLimit::Blocks:
      return "blocks";
  }
  return "?";
}

std::string_view kernel_rule_name(KernelRule r) {
  switch (r) {
    case KernelRule::ImplicitGemm:
      return "implicit_gemm_128x64";
    case KernelRule::DepthwiseDirect:
      return "depthwise_direct";
    case KernelRule::ElementwiseMemory:
      return "memory_bound_256";
    case KernelRule::LayoutOnly:
      return "layout_only";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Occupancy
// ---------------------------------------------------------------------------------------------
namespace {
void check_spec(const GpuSpec& s) {
  if (s.sm_count <= 0 || s.max_threads_per_sm <= 0 || s.max_warps_per_sm <= 0 ||
      s.max_blocks_per_sm <= 0 || s.registers_per_sm <= 0 || s.warp_size <= 0 ||
      s.max_threads_per_block <= 0 || s.dram_bandwidth_gbs <= 0 || s.peak_fp32_tflops <= 0)
    throw Error("gpu model: GPU config '" + s.name + "' (" + s.file +
                ") lacks SM limits, peak FP32 or DRAM bandwidth; expected positive values");
}
}  // namespace

Occupancy occupancy(const GpuSpec& spec, const KernelLaunch& k) {
  check_spec(spec);
  auto fail = [&](const std::string& what, const std::string& expected) {
    throw Error("gpu model: kernel '" + k.name + "' on " + spec.name + ": " + what + "; expected " +
                expected);
  };
  if (k.grid_blocks < 1) fail("grid of " + std::to_string(k.grid_blocks) + " blocks", ">= 1");
  if (k.threads_per_block < 1 || k.threads_per_block > spec.max_threads_per_block)
    fail(std::to_string(k.threads_per_block) + " threads per block",
         "1.." + std::to_string(spec.max_threads_per_block));
  if (k.registers_per_thread < 0 ||
      (spec.max_registers_per_thread > 0 && k.registers_per_thread > spec.max_registers_per_thread))
    fail(std::to_string(k.registers_per_thread) + " registers per thread",
         "0.." + std::to_string(spec.max_registers_per_thread));
  if (k.shared_bytes_per_block < 0 ||
      (spec.shared_mem_per_block > 0 && k.shared_bytes_per_block > spec.shared_mem_per_block))
    fail(std::to_string(k.shared_bytes_per_block) + " shared bytes per block",
         "0.." + std::to_string(spec.shared_mem_per_block));

  Occupancy o;
  o.warps_per_block = static_cast<int>(ceil_div(k.threads_per_block, spec.warp_size));
  const int64_t regs_per_warp =
      round_up(int64_t{k.registers_per_thread} * spec.warp_size, spec.register_allocation_unit);
  o.registers_per_block = static_cast<int>(regs_per_warp * o.warps_per_block);
  o.shared_per_block = round_up(k.shared_bytes_per_block, kSharedAllocationUnit);

  const int64_t big = std::numeric_limits<int>::max();
  const int64_t by_threads = spec.max_threads_per_sm / k.threads_per_block;
  const int64_t by_warps = spec.max_warps_per_sm / o.warps_per_block;
  const int64_t by_regs =
      regs_per_warp == 0 ? big : (spec.registers_per_sm / regs_per_warp) / o.warps_per_block;
  const int64_t by_smem = o.shared_per_block == 0 || spec.shared_mem_per_sm <= 0
                              ? big
                              : spec.shared_mem_per_sm / o.shared_per_block;
  const int64_t by_blocks = spec.max_blocks_per_sm;
  // Smallest limit wins; ties resolved in the order threads, warps, registers, shared, blocks.
  const std::pair<int64_t, OccupancyLimit> limits[] = {{by_threads, OccupancyLimit::Threads},
                                                       {by_warps, OccupancyLimit::Warps},
                                                       {by_regs, OccupancyLimit::Registers},
                                                       {by_smem, OccupancyLimit::SharedMemory},
                                                       {by_blocks, OccupancyLimit::Blocks}};
  int64_t best = big;
  for (const auto& [n, why] : limits)
    if (n < best) best = n, o.limited_by = why;
  if (best < 1) {
    fail("a block needs " + std::to_string(o.registers_per_block) + " registers and " +
             std::to_string(o.shared_per_block) + " shared bytes, more than one SM has",
         "a block that fits on one SM");
  }
  o.blocks_per_sm = static_cast<int>(best);
  o.active_warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.occupancy = static_cast<double>(o.active_warps_per_sm) / spec.max_warps_per_sm;
  return o;
}

// ---------------------------------------------------------------------------------------------
// The block simulation
// ---------------------------------------------------------------------------------------------
namespace {

// A kernel prepared for the simulation: per-block work and resources, in us-based units.
struct SimKernel {
  int64_t grid = 0;
  int threads = 0, warps = 0, regs = 0;
  int64_t smem = 0;
  double flops_b = 0, dram_b = 0, l2_b = 0;  // per block
  double sm_rate = 0;                        // achievable FLOP/us of one SM for this kernel
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

Model make_model(const GpuSpec& spec) {
  check_spec(spec);
  Model m;
  m.sms = spec.sm_count;
  m.dram_bw = spec.dram_bandwidth_gbs * 1e3 * gpu_efficiency::get(spec, gpu_efficiency::kDram);
  m.l2_bw = spec.l2_bandwidth_gbs > 0
                ? spec.l2_bandwidth_gbs * 1e3 * gpu_efficiency::get(spec, gpu_efficiency::kL2)
                : 0;
  if (!(m.dram_bw > 0) || m.l2_bw < 0)
    throw Error("gpu model: GPU config '" + spec.name + "' (" + spec.file +
                "): efficiency.dram_bandwidth / l2_bandwidth give no bandwidth; expected > 0");
  m.compute_sat_warps = gpu_efficiency::get(spec, gpu_efficiency::kComputeSaturationWarps);
  const double dram_sat = gpu_efficiency::get(spec, gpu_efficiency::kDramSaturationWarps);
  m.dram_warp_cap = m.dram_bw / (dram_sat * spec.sm_count);
  const double l2_sat = gpu_efficiency::get(spec, gpu_efficiency::kL2SaturationWarps);
  m.l2_warp_cap = m.l2_bw / (l2_sat * spec.sm_count);
  // Kept positive so that every block's rate stays finite.
  m.block_min_us = std::max(gpu_efficiency::get(spec, gpu_efficiency::kBlockMinUs), 1e-6);
  m.launch_us = spec.kernel_launch_us;
  m.max_threads = spec.max_threads_per_sm;
  m.max_warps = spec.max_warps_per_sm;
  m.max_blocks = spec.max_blocks_per_sm;
  m.max_regs = spec.registers_per_sm;
  m.max_smem = spec.shared_mem_per_sm;
  return m;
}

double peak_tflops(const GpuSpec& spec, MathUnit u) {
  switch (u) {
    case MathUnit::Fp32:
      return spec.peak_fp32_tflops;
    case MathUnit::Fp16:
      return spec.peak_fp16_tflops > 0 ? spec.peak_fp16_tflops : spec.peak_fp32_tflops;
    case MathUnit::Tensor:
      if (spec.peak_tensor_tflops > 0) return spec.peak_tensor_tflops;
      return spec.peak_fp16_tflops > 0 ? spec.peak_fp16_tflops : spec.peak_fp32_tflops;
  }
  return spec.peak_fp32_tflops;
}

double class_efficiency(const GpuSpec& spec, const KernelLaunch& k) {
  if (k.compute_efficiency > 0) return k.compute_efficiency;
  switch (k.klass) {
    case KernelClass::Gemm:
      return gpu_efficiency::get(spec, k.math == MathUnit::Tensor ? gpu_efficiency::kGemmTensor
                                       : k.math == MathUnit::Fp16 ? gpu_efficiency::kGemmFp16
                                                                  : gpu_efficiency::kGemmFp32);
    case KernelClass::Direct:
      return gpu_efficiency::get(spec, gpu_efficiency::kDirect);
    case KernelClass::Memory:
      return gpu_efficiency::get(spec, gpu_efficiency::kMemory);
    case KernelClass::Fused:
      return gpu_efficiency::get(spec, gpu_efficiency::kFused);
  }
  return 1.0;
}

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

SimKernel prepare(const GpuSpec& spec, const KernelLaunch& k, int stream, int index,
                  EfficiencyCache* efficiency = nullptr) {
  const Occupancy o = occupancy(spec, k);
  SimKernel s;
  s.grid = k.grid_blocks;
  s.threads = k.threads_per_block;
  s.warps = o.warps_per_block;
  s.regs = o.registers_per_block;
  s.smem = o.shared_per_block;
  const double g = static_cast<double>(k.grid_blocks);
  s.flops_b = std::max(0.0, k.flops) / g;
  s.dram_b = std::max(0.0, k.dram_bytes) / g;
  s.l2_b = std::max(0.0, k.l2_bytes) / g;
  s.sm_rate = peak_tflops(spec, k.math) * 1e6 / spec.sm_count *
              (efficiency ? efficiency->get(spec, k) : class_efficiency(spec, k));
  if (!(s.sm_rate > 0))
    throw Error("gpu model: kernel '" + k.name + "' on " + spec.name + ": compute efficiency of " +
                std::string(kernel_class_name(k.klass)) + " kernels is 0; expected > 0");
  s.stream = stream;
  s.index = index;
  return s;
}

// Blocks of one kernel resident on every SM of a group, all dispatched at the same instant.
struct Resident {
  int kernel = 0;
  int blocks = 0;          // per SM
  double remaining = 1.0;  // fraction of one block's work left
  double rate = 0;         // fraction per us
  int64_t stamp = 0;       // dispatch event
  // Cache of the terms of the rate rule that depend only on the kernel and on its SM's resident
  // warps (valid while cached_sm_warps equals the group's warps; -1: not computed): the
  // compute-limited block time and the per-block DRAM / L2 demand caps. Recomputing them gives
  // the same bits, so the cache changes no result.
  int cached_sm_warps = -1;
  double tc = 0;           // compute-limited block time (>= block_min_us)
  double dram_cap_pb = 0;  // min(dram_b / tc, warps * dram_warp_cap); 0 if no DRAM bytes
  double l2_cap_pb = 0;    // likewise for L2
  // Cache of the rate when neither DRAM nor L2 is saturated (every block then gets its cap, so
  // the rate depends only on the kernel, the SM's warps, the resident's blocks and the group's
  // SM count); valid while those equal the key (-1: not computed).
  int unsat_sm_warps = -1, unsat_blocks = -1, unsat_count = -1;
  double unsat_rate = 0;
  bool operator==(const Resident& o) const {
    return kernel == o.kernel && blocks == o.blocks && remaining == o.remaining;
  }
};

// SMs in identical state.
struct SmGroup {
  int count = 0;
  int threads = 0, warps = 0, blocks = 0, regs = 0;
  int64_t smem = 0;
  std::vector<Resident> residents;
  bool same_state(const SmGroup& o) const {
    return threads == o.threads && warps == o.warps && blocks == o.blocks && regs == o.regs &&
           smem == o.smem && residents == o.residents;
  }
};

// Water-filling: share `total` among items with weights w[i] and caps cap[i] (both summed over
// the item's blocks). Returns the allocation per item.
void water_fill(double total, const std::vector<double>& w, const std::vector<double>& cap,
                std::vector<double>& alloc, std::vector<size_t>& order) {
  const size_t n = w.size();
  alloc.assign(n, 0.0);
  double cap_sum = 0;
  for (size_t i = 0; i < n; ++i) cap_sum += cap[i];
  if (cap_sum <= total) {
    alloc = cap;
    return;
  }
  // Items without weight or demand get nothing; the others by ascending cap per weight (a strict
  // weak order once zero weights are out).
  order.clear();
  for (size_t i = 0; i < n; ++i)
    if (w[i] > 0 && cap[i] > 0) order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return cap[a] * w[b] < cap[b] * w[a]; });
  double left = total, wsum = 0;
  for (size_t i : order) wsum += w[i];
  for (size_t i : order) {
    const double fair = wsum > 0 ? left * w[i] / wsum : 0;
    if (cap[i] <= fair) {
      alloc[i] = cap[i];
    } else {
      alloc[i] = fair;
    }
    left -= alloc[i];
    wsum -= w[i];
  }
}

// std::stable_sort for the short lists of the event loop, without its temporary buffer (an
// allocation per call): insertion sort, which is stable (an element moves only past strictly
// greater ones), so the order is exactly stable_sort's.
template <typename T, typename Less>
void small_stable_sort(std::vector<T>& v, Less less) {
  for (size_t i = 1; i < v.size(); ++i) {
    const T x = v[i];
    size_t j = i;
    for (; j > 0 && less(x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

// The simulator's working vectors, kept per thread between simulations so that a search that
// simulates many stages does not reallocate them each time (contents never carry over).
struct SimScratch {
  std::vector<int> next_in_stream;
  std::vector<SmGroup> groups;
  std::vector<int> pending;
  std::vector<size_t> room;
  std::vector<Resident*> items;
  std::vector<double> tc, td, tl, w, alloc, blocks, dram_cap, l2_cap;
  std::vector<size_t> order;
  std::vector<SimKernel> kernels;
  std::vector<std::vector<int>> ids;
};

SimScratch& thread_scratch() {
  thread_local SimScratch scratch;
  return scratch;
}

class Simulator {
 public:
  Simulator(const Model& m, std::vector<SimKernel>& ks,
            const std::vector<std::vector<int>>& streams, SimScratch& scratch)
      : m_(m),
        ks_(ks),
        streams_(streams),
        next_in_stream_(scratch.next_in_stream),
        groups_(scratch.groups),
        pending_(scratch.pending),
        room_(scratch.room),
        items_(scratch.items),
        tc_(scratch.tc),
        td_(scratch.td),
        tl_(scratch.tl),
        w_(scratch.w),
        alloc_(scratch.alloc),
        blocks_(scratch.blocks),
        dram_cap_(scratch.dram_cap),
        l2_cap_(scratch.l2_cap),
        order_(scratch.order) {}

  StageResult run() {
    StageResult res;
    // One group of all SMs, empty (the first group's resident list keeps its capacity from the
    // previous simulation on this thread).
    groups_.resize(1);
    SmGroup& all = groups_[0];
    all.count = m_.sms;
    all.threads = all.warps = all.blocks = all.regs = 0;
    all.smem = 0;
    all.residents.clear();
    next_in_stream_.assign(streams_.size(), 0);
    for (size_t s = 0; s < streams_.size(); ++s)
      if (!streams_[s].empty()) ks_[static_cast<size_t>(streams_[s][0])].ready = m_.launch_us;
    double t = 0, warp_integral = 0, busy_integral = 0;
    int64_t events = 0;
    // Event-loop invariants: between two events every resident progresses at a constant rate;
    // rates are a function of the SM groups (their counts and resident lists' kernels and block
    // counts) only, so they are recomputed only after an event that changed a group
    // (state_changed_: a dispatch, a completion, a split or a merge). Skipping the recomputation
    // otherwise gives bit-identical rates.
    state_changed_ = true;
    while (true) {
      // Kernels whose launch has completed and whose blocks are not all dispatched, FIFO.
      dispatch(t, events);
      if (state_changed_) compute_rates();
      state_changed_ = false;
      // Next event: a resident group finishing, or a kernel becoming ready.
      double dt = std::numeric_limits<double>::infinity();
      for (const auto& g : groups_)
        for (const auto& r : g.residents) dt = std::min(dt, r.remaining / r.rate);
      for (size_t s = 0; s < streams_.size(); ++s) {
        const int i = next_in_stream_[s];
        if (i < static_cast<int>(streams_[s].size())) {
          const SimKernel& k = ks_[static_cast<size_t>(streams_[s][static_cast<size_t>(i)])];
          if (k.ready > t && k.dispatched == 0) dt = std::min(dt, k.ready - t);
        }
      }
      if (!std::isfinite(dt)) break;  // nothing resident, nothing to come
      // Advance.
      int64_t warps_now = 0, busy_now = 0;
      bool any_done = false;  // complete() changes nothing otherwise (an event of a launch)
      for (auto& g : groups_) {
        warps_now += int64_t{g.count} * g.warps;
        if (g.blocks > 0) busy_now += g.count;
        for (auto& r : g.residents) {
          r.remaining -= r.rate * dt;
          if (r.remaining <= kDoneEpsilon) {
            r.remaining = 0;
            any_done = true;
          }
        }
      }
      warp_integral += static_cast<double>(warps_now) * dt;
      busy_integral += static_cast<double>(busy_now) * dt;
      t += dt;
      ++events;
      if (any_done) complete(t);
      merge_groups();
    }
    res.latency_us = t;
    res.events = events;
    if (t > 0) {
      res.avg_active_warps_per_sm = warp_integral / (t * m_.sms);
      res.avg_busy_sms = busy_integral / t;
    }
    return res;
  }

 private:
  bool fits(const SmGroup& g, const SimKernel& k) const {
    return g.threads + k.threads <= m_.max_threads && g.warps + k.warps <= m_.max_warps &&
           g.blocks + 1 <= m_.max_blocks && g.regs + k.regs <= m_.max_regs &&
           (m_.max_smem <= 0 || g.smem + k.smem <= m_.max_smem);
  }

  // How many more blocks of k fit on each SM of g (>= 1 when fits(g, k)).
  int64_t room_for(const SmGroup& g, const SimKernel& k) const {
    int n = m_.max_blocks - g.blocks;  // per-SM counts fit in int
    if (k.threads > 0) n = std::min(n, (m_.max_threads - g.threads) / k.threads);
    if (k.warps > 0) n = std::min(n, (m_.max_warps - g.warps) / k.warps);
    if (k.regs > 0) n = std::min(n, (m_.max_regs - g.regs) / k.regs);
    if (m_.max_smem > 0 && k.smem > 0)
      n = static_cast<int>(std::min<int64_t>(n, (m_.max_smem - g.smem) / k.smem));
    return n;
  }

  void add_block(SmGroup& g, const SimKernel& k, int kernel, int64_t stamp) {
    add_blocks(g, k, kernel, stamp, 1);
  }

  // `blocks` blocks of k on every SM of g, dispatched at event `stamp`.
  void add_blocks(SmGroup& g, const SimKernel& k, int kernel, int64_t stamp, int blocks) {
    state_changed_ = true;
    g.threads += k.threads * blocks;
    g.warps += k.warps * blocks;
    g.blocks += blocks;
    g.regs += k.regs * blocks;
    g.smem += k.smem * blocks;
    // Residents are in dispatch order: this event's are at the end.
    for (auto r = g.residents.rbegin(); r != g.residents.rend() && r->stamp == stamp; ++r)
      if (r->kernel == kernel) {
        r->blocks += blocks;
        return;
      }
    Resident r;
    r.kernel = kernel;
    r.blocks = blocks;
    r.stamp = stamp;
    g.residents.push_back(r);
  }

  // The kernels that may dispatch at time t, in FIFO order of readiness (ties: stream order).
  void dispatch(double t, int64_t stamp) {
    pending_.clear();
    for (size_t s = 0; s < streams_.size(); ++s) {
      const int i = next_in_stream_[s];
      if (i >= static_cast<int>(streams_[s].size())) continue;
      const int kid = streams_[s][static_cast<size_t>(i)];
      const SimKernel& k = ks_[static_cast<size_t>(kid)];
      if (k.ready <= t && k.dispatched < k.grid) pending_.push_back(kid);
    }
    small_stable_sort(pending_, [&](int a, int b) {
      return ks_[static_cast<size_t>(a)].ready < ks_[static_cast<size_t>(b)].ready;
    });
    for (int kid : pending_) {
      SimKernel& k = ks_[static_cast<size_t>(kid)];
      if (k.blocked && !freed_) continue;
      k.blocked = false;
      while (k.dispatched < k.grid) {
        // SM groups with room for one more block, least loaded first.
        room_.clear();
        int64_t sms_with_room = 0;
        for (size_t gi = 0; gi < groups_.size(); ++gi)
          if (fits(groups_[gi], k)) {
            room_.push_back(gi);
            sms_with_room += groups_[gi].count;
          }
        if (room_.empty()) {
          k.blocked = true;
          break;
        }
        small_stable_sort(room_,
                          [&](size_t a, size_t b) { return groups_[a].warps < groups_[b].warps; });
        if (k.start < 0) k.start = t;
        int64_t n = k.grid - k.dispatched;
        if (n >= sms_with_room) {
          // Full passes: every group with room gets one more block per SM, which keeps their
          // order by warps (all grow alike), so the next passes see the same groups in the same
          // order for as long as each still has room: as many passes as all of them and the
          // remaining blocks allow are done at once (the same blocks, residents and counts).
          int64_t passes = n / sms_with_room;
          for (size_t gi : room_) {
            if (passes <= 1) break;
            passes = std::min(passes, room_for(groups_[gi], k));
          }
          for (size_t gi : room_) add_blocks(groups_[gi], k, kid, stamp, static_cast<int>(passes));
          k.dispatched += sms_with_room * passes;
          continue;
        }
        // Partial pass: the first n SMs (least loaded first) get one block each.
        for (size_t gi : room_) {
          if (n == 0) break;
          SmGroup& g = groups_[gi];
          if (g.count <= n) {
            add_block(g, k, kid, stamp);
            n -= g.count;
            k.dispatched += g.count;
          } else {
            SmGroup rest = g;  // the SMs that get no block
            rest.count = g.count - static_cast<int>(n);
            g.count = static_cast<int>(n);
            add_block(g, k, kid, stamp);
            k.dispatched += n;
            n = 0;
            groups_.push_back(std::move(rest));  // invalidates g (not used below)
            break;
          }
        }
      }
    }
    freed_ = false;
  }

  // The rate rule (see the header) for every resident. Items are the residents of all groups,
  // groups in order, residents in order (the order fixes the water-filling's arithmetic).
  void compute_rates() {
    size_t n = 0;
    for (const SmGroup& g : groups_) n += g.residents.size();
    items_.resize(n);
    tc_.resize(n);
    w_.resize(n);
    blocks_.resize(n);
    dram_cap_.resize(n);
    l2_cap_.resize(n);
    td_.assign(n, 0.0);
    tl_.assign(n, 0.0);
    size_t i = 0;
    for (SmGroup& g : groups_) {
      for (Resident& r : g.residents) {
        const SimKernel& k = ks_[static_cast<size_t>(r.kernel)];
        if (r.cached_sm_warps != g.warps) {
          // Compute-limited block time, then what the block can use of DRAM / L2 at that speed
          // (capped by Little's law).
          const double share =
              k.warps / std::max(static_cast<double>(g.warps), m_.compute_sat_warps);
          r.tc = k.flops_b > 0 ? k.flops_b / (k.sm_rate * share) : 0.0;
          r.tc = std::max(r.tc, m_.block_min_us);
          r.dram_cap_pb = k.dram_b > 0 ? std::min(k.dram_b / r.tc, k.warps * m_.dram_warp_cap) : 0;
          r.l2_cap_pb = k.l2_b > 0 ? std::min(k.l2_b / r.tc, k.warps * m_.l2_warp_cap) : 0;
          r.cached_sm_warps = g.warps;
        }
        items_[i] = &r;
        tc_[i] = r.tc;
        w_[i] = static_cast<double>(k.warps) * r.blocks * g.count;
        const double blocks = static_cast<double>(r.blocks) * g.count;
        blocks_[i] = blocks;
        // Items that move no bytes of a kind get cap 0 there (water_fill skips them).
        dram_cap_[i] = r.dram_cap_pb * blocks;
        l2_cap_[i] = r.l2_cap_pb * blocks;
        ++i;
      }
    }
    // Neither bandwidth saturated (the sums as water_fill forms them): every item gets its caps,
    // and an item's rate is a function of its own state only, cached in the resident. The
    // arithmetic is water_fill's and share_bytes's for that case, so the bits are the same.
    double dram_sum = 0, l2_sum = 0;
    for (i = 0; i < n; ++i) dram_sum += dram_cap_[i];
    for (i = 0; i < n; ++i) l2_sum += l2_cap_[i];
    if (dram_sum <= m_.dram_bw && (m_.l2_bw <= 0 || l2_sum <= m_.l2_bw)) {
      i = 0;
      for (SmGroup& g : groups_) {
        for (Resident& r : g.residents) {
          if (r.unsat_sm_warps != g.warps || r.unsat_blocks != r.blocks ||
              r.unsat_count != g.count) {
            const SimKernel& k = ks_[static_cast<size_t>(r.kernel)];
            const double td = dram_cap_[i] > 0 ? k.dram_b / (dram_cap_[i] / blocks_[i]) : 0.0;
            const double tl =
                m_.l2_bw > 0 && l2_cap_[i] > 0 ? k.l2_b / (l2_cap_[i] / blocks_[i]) : 0.0;
            r.unsat_rate = 1.0 / std::max({tc_[i], td, tl});
            r.unsat_sm_warps = g.warps;
            r.unsat_blocks = r.blocks;
            r.unsat_count = g.count;
          }
          r.rate = r.unsat_rate;
          ++i;
        }
      }
      return;
    }
    share_bytes(m_.dram_bw, dram_cap_, dram_sum, &SimKernel::dram_b, td_);
    if (m_.l2_bw > 0) share_bytes(m_.l2_bw, l2_cap_, l2_sum, &SimKernel::l2_b, tl_);
    for (i = 0; i < n; ++i) items_[i]->rate = 1.0 / std::max({tc_[i], td_[i], tl_[i]});
  }

  // Water-fills bandwidth `bw` among the items (weights w_, caps `cap`) and sets t[i] to the
  // item's per-block transfer time at its allocation (0 if it moves no bytes).
  // cap_sum: the caps summed in item order (as water_fill sums them). When it fits in `bw`, every
  // item gets its cap (water_fill's first case, without the copy).
  void share_bytes(double bw, const std::vector<double>& cap, double cap_sum,
                   double SimKernel::*bytes, std::vector<double>& t) {
    const size_t n = items_.size();
    if (cap_sum <= bw) {
      for (size_t i = 0; i < n; ++i) {
        if (cap[i] <= 0) continue;
        const double per_block = cap[i] / blocks_[i];
        t[i] = (ks_[static_cast<size_t>(items_[i]->kernel)].*bytes) / per_block;
      }
      return;
    }
    water_fill(bw, w_, cap, alloc_, order_);
    for (size_t i = 0; i < n; ++i) {
      if (alloc_[i] <= 0) continue;
      const double per_block = alloc_[i] / blocks_[i];
      t[i] = (ks_[static_cast<size_t>(items_[i]->kernel)].*bytes) / per_block;
    }
  }

  void complete(double t) {
    for (auto& g : groups_) {
      for (size_t ri = 0; ri < g.residents.size();) {
        Resident& r = g.residents[ri];
        if (r.remaining > 0) {
          ++ri;
          continue;
        }
        SimKernel& k = ks_[static_cast<size_t>(r.kernel)];
        state_changed_ = true;
        freed_ = true;
        g.threads -= k.threads * r.blocks;
        g.warps -= k.warps * r.blocks;
        g.blocks -= r.blocks;
        g.regs -= k.regs * r.blocks;
        g.smem -= k.smem * r.blocks;
        k.finished += int64_t{r.blocks} * g.count;
        if (k.finished == k.grid) {
          k.end = t;
          const size_t s = static_cast<size_t>(k.stream);
          ++next_in_stream_[s];
          const int i = next_in_stream_[s];
          if (i < static_cast<int>(streams_[s].size()))
            ks_[static_cast<size_t>(streams_[s][static_cast<size_t>(i)])].ready = t + m_.launch_us;
        }
        g.residents.erase(g.residents.begin() + static_cast<std::ptrdiff_t>(ri));
      }
    }
  }

  void merge_groups() {
    for (size_t a = 0; a < groups_.size(); ++a)
      for (size_t b = a + 1; b < groups_.size();) {
        if (groups_[a].same_state(groups_[b])) {
          groups_[a].count += groups_[b].count;
          state_changed_ = true;
          groups_.erase(groups_.begin() + static_cast<std::ptrdiff_t>(b));
        } else {
          ++b;
        }
      }
  }

  bool state_changed_ = true;  // a group changed since the rates were last computed
  bool freed_ = true;          // a block ended since the last dispatch
  const Model& m_;
  std::vector<SimKernel>& ks_;
  const std::vector<std::vector<int>>& streams_;
  std::vector<int>& next_in_stream_;
  std::vector<SmGroup>& groups_;
  std::vector<int>& pending_;
  std::vector<size_t>& room_;
  std::vector<Resident*>& items_;
  std::vector<double>&tc_, &td_, &tl_, &w_, &alloc_, &blocks_, &dram_cap_, &l2_cap_;
  std::vector<size_t>& order_;
};

}  // namespace

namespace {
const KernelLaunch& deref(const KernelLaunch& k) {
  return k;
}
const KernelLaunch& deref(const KernelLaunch* k) {
  return *k;
}

template <typename GetKernel>
StageResult simulate_streams(const GpuSpec& spec, size_t num_streams, GetKernel&& kernels_of) {
  const Model m = make_model(spec);
  SimScratch& scratch = thread_scratch();
  std::vector<SimKernel>& ks = scratch.kernels;
  std::vector<std::vector<int>>& ids = scratch.ids;
  ks.clear();
  ids.resize(num_streams);
  EfficiencyCache efficiency;
  for (size_t s = 0; s < num_streams; ++s) {
    ids[s].clear();
    const auto& stream = kernels_of(s);
    for (size_t i = 0; i < stream.size(); ++i) {
      ids[s].push_back(static_cast<int>(ks.size()));
      ks.push_back(
          prepare(spec, deref(stream[i]), static_cast<int>(s), static_cast<int>(i), &efficiency));
    }
  }
  Simulator sim(m, ks, ids, scratch);
  StageResult res = sim.run();
  res.kernels.reserve(ks.size());
  for (const SimKernel& k : ks)
    res.kernels.push_back(KernelTiming{k.stream, k.index, k.ready, k.start, k.end});
  return res;
}
}  // namespace

StageResult simulate_stage(const GpuSpec& spec,
                           const std::vector<std::vector<KernelLaunch>>& streams) {
  return simulate_streams(spec, streams.size(),
                          [&](size_t s) -> const std::vector<KernelLaunch>& { return streams[s]; });
}

StageResult simulate_stage_refs(const GpuSpec& spec,
                                const std::vector<std::vector<const KernelLaunch*>>& streams) {
  return simulate_streams(
      spec, streams.size(),
      [&](size_t s) -> const std::vector<const KernelLaunch*>& { return streams[s]; });
}

KernelEstimate estimate_kernel(const GpuSpec& spec, const KernelLaunch& k) {
  KernelEstimate e;
  e.occ = occupancy(spec, k);
  const int64_t per_wave = int64_t{e.occ.blocks_per_sm} * spec.sm_count;
  e.waves = ceil_div(k.grid_blocks, per_wave);
  const Model m = make_model(spec);
  const int64_t full_waves = k.grid_blocks / per_wave;
  const int64_t tail_blocks = k.grid_blocks % per_wave;
  // One full wave: every SM holds blocks_per_sm blocks of this kernel, all dispatched together,
  // so they share compute and bandwidth equally and finish together.
  double t_full = 0, warps_full = 0;
  if (full_waves > 0) {
    std::vector<SimKernel> ks{prepare(spec, k, 0, 0)};
    ks[0].grid = per_wave;
    Model m0 = m;
    m0.launch_us = 0;
    const std::vector<std::vector<int>> one_stream{{0}};
    Simulator sim(m0, ks, one_stream, thread_scratch());
    const StageResult r = sim.run();
    t_full = r.latency_us;
    warps_full = r.avg_active_warps_per_sm * r.latency_us;
    e.full_wave_block_us = t_full;
  }
  // The partial last wave, with the same fluid rule.
  double t_tail = 0, warps_tail = 0;
  if (tail_blocks > 0) {
    std::vector<SimKernel> ks{prepare(spec, k, 0, 0)};
    ks[0].grid = tail_blocks;
    Model m0 = m;
    m0.launch_us = 0;
    const std::vector<std::vector<int>> one_stream{{0}};
    Simulator sim(m0, ks, one_stream, thread_scratch());
    const StageResult r = sim.run();
    t_tail = r.latency_us;
    warps_tail = r.avg_active_warps_per_sm * r.latency_us;
  }
  e.latency_us = m.launch_us + static_cast<double>(full_waves) * t_full + t_tail;
  if (e.latency_us > 0)
    e.achieved_warps_per_sm =
        (static_cast<double>(full_waves) * warps_full + warps_tail) / e.latency_us;
  return e;
}

// ---------------------------------------------------------------------------------------------
// Lower bounds
// ---------------------------------------------------------------------------------------------
KernelWorkBound& KernelWorkBound::operator+=(const KernelWorkBound& o) {
  stream_us += o.stream_us;
  sm_us += o.sm_us;
  dram_us += o.dram_us;
  l2_us += o.l2_us;
  kernels += o.kernels;
  return *this;
}

KernelWorkBound kernel_work_bound(const GpuSpec& spec, const KernelLaunch& k) {
  const Model m = make_model(spec);
  const SimKernel s = prepare(spec, k, 0, 0);
  const Occupancy o = occupancy(spec, k);
  // The least time of one block: the rate rule with the block alone on its SM (the largest
  // compute share, the same arithmetic as compute_rates) and its Little's-law bandwidth caps
  // (a block never gets more than its caps, saturated or not).
  const double share = s.warps / std::max(static_cast<double>(s.warps), m.compute_sat_warps);
  double block_us = s.flops_b > 0 ? s.flops_b / (s.sm_rate * share) : 0.0;
  block_us = std::max(block_us, m.block_min_us);
  if (s.dram_b > 0) block_us = std::max(block_us, s.dram_b / (s.warps * m.dram_warp_cap));
  if (m.l2_bw > 0 && s.l2_b > 0) block_us = std::max(block_us, s.l2_b / (s.warps * m.l2_warp_cap));
  const int64_t resident = int64_t{o.blocks_per_sm} * m.sms;
  const double waves = static_cast<double>(ceil_div(s.grid, resident));
  KernelWorkBound b;
  const double g = static_cast<double>(s.grid);
  b.sm_us = s.flops_b * g / (s.sm_rate * m.sms);
  b.dram_us = s.dram_b * g / m.dram_bw;
  b.l2_us = m.l2_bw > 0 ? s.l2_b * g / m.l2_bw : 0.0;
  // Some SM runs ceil(grid / sm_count) of the blocks; an SM's resident blocks share at most its
  // full rate (their compute shares sum to <= 1), so it needs their FLOPs at that rate.
  const double per_sm = static_cast<double>(ceil_div(s.grid, m.sms)) * (s.flops_b / s.sm_rate);
  b.stream_us = m.launch_us + std::max({waves * block_us, per_sm, b.sm_us, b.dram_us, b.l2_us});
  b.kernels = 1;
  return b;
}

double stage_latency_lower_bound_us(const GpuSpec& spec,
                                    const std::vector<KernelWorkBound>& streams) {
  KernelWorkBound total;
  double longest = 0;
  for (const KernelWorkBound& s : streams) {
    total += s;
    longest = std::max(longest, s.stream_us);
  }
  if (total.kernels == 0) return 0.0;
  // Nothing runs before the first launch completes.
  const double work = spec.kernel_launch_us + std::max({total.sm_us, total.dram_us, total.l2_us});
  return std::max(longest, work) * (1.0 - kLowerBoundMargin);
}

// ---------------------------------------------------------------------------------------------
// Operators -> kernels
// ---------------------------------------------------------------------------------------------
namespace {

[[noreturn]] void op_fail(const Graph& g, int op, const std::string& what,
                          const std::string& expected) {
  const Op& o = g.op(op);
  throw Error("gpu model: op '" + o.name + "' (" + std::string(op_kind_name(o.kind)) +
              ") in graph '" + g.name + "': " + what + "; expected " + expected);
}

int64_t out_elements(const Graph& g, int op) {
  int64_t n = 0;
  for (int t : g.op(op).outputs)
    if (t >= 0) n += g.tensor(t).numel();
  return n;
}

int64_t in_elements(const Graph& g, int op) {
  int64_t n = 0;
  for (int t : g.op(op).inputs)
    if (t >= 0 && g.tensor(t).role != TensorRole::Constant) n += g.tensor(t).numel();
  return n;
}

MathUnit math_for(DType dt, const GpuSpec& spec, const KernelOptions& opts, bool gemm) {
  if (dt != DType::F16) return MathUnit::Fp32;
  if (gemm && opts.tensor_cores && spec.peak_tensor_tflops > 0) return MathUnit::Tensor;
  return MathUnit::Fp16;
}

// An implicit-GEMM kernel (the 128x64 rule) for `batch` independent GEMMs of M x N x K.
KernelLaunch gemm_kernel(const std::string& name, int64_t batch, int64_t M, int64_t N, int64_t K,
                         double flops, double dram_bytes, DType dt, MathUnit math, int sm_count) {
  KernelLaunch k;
  M = std::max<int64_t>(M, 1);
  N = std::max<int64_t>(N, 1);
  int64_t tile_m = 0, tile_n = 0;
  for (const auto& [tm, tn] : kGemmTiles) {
    tile_m = tm;
    tile_n = tn;
    if (batch * ceil_div(M, tile_m) * ceil_div(N, tile_n) >= sm_count) break;
  }
  const int64_t tiles_m = ceil_div(M, tile_m);
  const int64_t tiles_n = ceil_div(N, tile_n);
  k.name = name + ":implicit_gemm_" + std::to_string(tile_m) + "x" + std::to_string(tile_n);
  k.grid_blocks = std::max<int64_t>(1, batch * tiles_m * tiles_n);
  k.threads_per_block = kGemmThreads;
  k.registers_per_thread = kGemmRegisters;
  const int64_t es = dtype_size(dt);
  k.shared_bytes_per_block = kGemmBuffers * (tile_m + tile_n) * kGemmTileK * es;
  k.flops = flops;
  k.dram_bytes = dram_bytes;
  // Every tile reads its 128 x K panel of A and K x 64 panel of B through L2.
  const double rereads = static_cast<double>(k.grid_blocks) * static_cast<double>(tile_m + tile_n) *
                         static_cast<double>(K) * static_cast<double>(es);
  k.l2_bytes = dram_bytes + rereads;
  k.math = math;
  k.klass = KernelClass::Gemm;
  return k;
}

KernelLaunch simple_kernel(const std::string& name, KernelRule rule, int64_t threads_needed,
                           double flops, double dram_bytes, MathUnit math, KernelClass klass) {
  KernelLaunch k;
  k.name = name + ":" + std::string(kernel_rule_name(rule));
  k.grid_blocks = std::max<int64_t>(1, ceil_div(threads_needed, kSimpleThreads));
  k.threads_per_block = kSimpleThreads;
  k.registers_per_thread = kSimpleRegisters;
  k.shared_bytes_per_block = 0;
  k.flops = flops;
  k.dram_bytes = dram_bytes;
  k.l2_bytes = dram_bytes;
  k.math = math;
  k.klass = klass;
  return k;
}

struct ConvDims {
  int64_t n = 0, cin = 0, cout = 0, group = 1;
  int64_t kernel_area = 1;  // product of the kernel's spatial dims
  int64_t out_spatial = 1;  // product of the output's spatial dims
};

ConvDims conv_dims(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.inputs.size() < 2 || o.outputs.empty() || o.inputs[0] < 0 || o.inputs[1] < 0)
    op_fail(g, op, "missing input or weight", "X and W");
  const Shape& x = g.tensor(o.inputs[0]).shape;
  const Shape& w = g.tensor(o.inputs[1]).shape;
  const Shape& y = g.tensor(o.outputs[0]).shape;
  if (x.size() < 3 || w.size() != x.size() || y.size() != x.size())
    op_fail(g, op, "input of rank " + std::to_string(x.size()), "NC + spatial dims, rank >= 3");
  ConvDims d;
  d.n = x[0];
  d.cin = x[1];
  d.cout = y[1];
  d.group = o.attrs.get_int("group", 1);
  for (size_t i = 2; i < w.size(); ++i) d.kernel_area *= w[i];
  for (size_t i = 2; i < y.size(); ++i) d.out_spatial *= y[i];
  return d;
}

}  // namespace

bool is_folded_activation(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (o.inputs.empty() || o.outputs.empty()) return false;
  // The epilogue ops a cuDNN-class conv/GEMM applies before writing its output.
  int data = -1;  // the input that carries the activation
  if (is_activation(o.kind) || o.kind == OpKind::BatchNormalization) {
    data = o.inputs[0];
  } else {
    switch (o.kind) {
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Div: {
        if (o.inputs.size() != 2 || o.inputs[0] < 0 || o.inputs[1] < 0) return false;
        const bool p0 = g.tensor(o.inputs[0]).is_param(), p1 = g.tensor(o.inputs[1]).is_param();
        if (p0 == p1) return false;  // needs exactly one bias/scale operand
        data = p0 ? o.inputs[1] : o.inputs[0];
        break;
      }
      default:
        return false;
    }
  }
  if (data < 0) return false;
  const Tensor& x = g.tensor(data);
  if (x.producer < 0 || x.consumers.size() != 1 || x.role == TensorRole::Output) return false;
  const OpKind pk = g.op(x.producer).kind;
  if (is_conv_like(pk) || is_matmul_like(pk)) return true;
  return is_folded_activation(g, x.producer);  // a chain of epilogue ops
}

KernelRule kernel_rule_for(const Graph& g, int op) {
  const Op& o = g.op(op);
  if (is_layout_only(o.kind)) return KernelRule::LayoutOnly;
  switch (o.kind) {
    case OpKind::Conv: {
      const ConvDims d = conv_dims(g, op);
      if (d.group > 1 && d.group == d.cin && d.cout % d.cin == 0)
        return KernelRule::DepthwiseDirect;
      return KernelRule::ImplicitGemm;
    }
    case OpKind::ConvTranspose:
    case OpKind::Gemm:
    case OpKind::MatMul:
      return KernelRule::ImplicitGemm;
    default:
      return KernelRule::ElementwiseMemory;
  }
}

std::vector<KernelLaunch> kernels_for_op(const Graph& g, int op, const GpuSpec& spec,
                                         const KernelOptions& opts) {
  if (op < 0 || op >= g.num_ops())
    throw Error("gpu model: op index " + std::to_string(op) + " out of range for graph '" + g.name +
                "' with " + std::to_string(g.num_ops()) + " ops");
  const Op& o = g.op(op);
  if (o.outputs.empty() || o.outputs[0] < 0) op_fail(g, op, "no output", "at least one output");
  const DType dt = g.tensor(o.outputs[0]).dtype;
  const KernelRule rule = kernel_rule_for(g, op);
  std::vector<KernelLaunch> out;
  if (rule == KernelRule::LayoutOnly) return out;
  if (opts.fold_activation && is_folded_activation(g, op)) return out;
  // FLOPs and bytes (inputs incl. weights + outputs, each once) from the shared graph analysis.
  const OpCost cost = op_cost(g, op);
  const double bytes = static_cast<double>(cost.bytes_read + cost.bytes_written);
  const double op_flops = static_cast<double>(cost.flops);
  switch (rule) {
    case KernelRule::LayoutOnly:
      return out;
    case KernelRule::ImplicitGemm: {
      const MathUnit math = math_for(dt, spec, opts, true);
      if (o.kind == OpKind::Conv || o.kind == OpKind::ConvTranspose) {
        const ConvDims d = conv_dims(g, op);  // cin = X channels, cout = Y channels
        const int64_t M = d.n * d.out_spatial;
        const int64_t N = d.cout / d.group;
        // Conv: K = C_in/g * kernel. ConvTranspose (computed output-stationary): the reduction
        // length per output that gives its FLOPs, FLOPs / (2 * M * C_out).
        int64_t K = d.cin / d.group * d.kernel_area;
        if (o.kind == OpKind::ConvTranspose)
          K = std::max<int64_t>(1, cost.macs / std::max<int64_t>(1, M * d.cout));
        out.push_back(
            gemm_kernel(o.name, d.group, M, N, K, op_flops, bytes, dt, math, spec.sm_count));
      } else {  // Gemm, MatMul
        const Shape& a = g.tensor(o.inputs[0]).shape;
        const Shape& y = g.tensor(o.outputs[0]).shape;
        int64_t K = a.empty() ? 1 : a.back();
        if (o.kind == OpKind::Gemm && o.attrs.get_int("transA", 0) != 0 && a.size() == 2) K = a[0];
        const int64_t N = y.empty() ? 1 : y.back();
        const int64_t M = y.size() >= 2 ? y[y.size() - 2] : 1;
        const int64_t batch = std::max<int64_t>(1, numel(y) / std::max<int64_t>(1, M * N));
        out.push_back(
            gemm_kernel(o.name, batch, M, N, K, op_flops, bytes, dt, math, spec.sm_count));
      }
      return out;
    }
    case KernelRule::DepthwiseDirect: {
      const int64_t outs = out_elements(g, op);
      out.push_back(simple_kernel(o.name, rule, outs, op_flops, bytes,
                                  math_for(dt, spec, opts, false), KernelClass::Direct));
      return out;
    }
    case KernelRule::ElementwiseMemory: {
      const int64_t outs = out_elements(g, op);
      const int64_t ins = in_elements(g, op);
      const int64_t threads = std::max(outs, ceil_div(ins, kInputElementsPerThread));
      out.push_back(simple_kernel(o.name, rule, threads, op_flops, bytes,
                                  math_for(dt, spec, opts, false), KernelClass::Memory));
      return out;
    }
  }
  return out;
}

std::vector<KernelLaunch> kernels_for_merged_conv(const Graph& g, const std::vector<int>& ops,
                                                  const GpuSpec& spec, const KernelOptions& opts) {
  if (ops.empty()) throw Error("gpu model: kernels_for_merged_conv of an empty op list");
  if (ops.size() == 1) return kernels_for_op(g, ops[0], spec, opts);
  const int first = ops[0];
  if (first < 0 || first >= g.num_ops())
    throw Error("gpu model: merged conv op index " + std::to_string(first) + " out of range");
  const Op& o0 = g.op(first);
  if (o0.kind != OpKind::Conv) op_fail(g, first, "cannot be merged", "a Conv");
  const ConvDims d0 = conv_dims(g, first);
  const Shape& x = g.tensor(o0.inputs[0]).shape;
  const Shape& y0 = g.tensor(o0.outputs[0]).shape;
  int64_t kh_max = 1, kw_max = 1, cout_total = 0;
  double out_bytes = 0, bias_bytes = 0;
  for (int op : ops) {
    if (op < 0 || op >= g.num_ops())
      throw Error("gpu model: merged conv op index " + std::to_string(op) + " out of range");
    const Op& o = g.op(op);
    if (o.kind != OpKind::Conv) op_fail(g, op, "cannot be merged", "a Conv");
    const ConvDims d = conv_dims(g, op);
    if (o.inputs[0] != o0.inputs[0])
      op_fail(g, op, "reads a different input than '" + o0.name + "'", "the same input tensor");
    if (d.group != 1) op_fail(g, op, "group " + std::to_string(d.group), "group 1 to merge");
    if (o.attrs.get_ints("strides", {}) != o0.attrs.get_ints("strides", {}) ||
        o.attrs.get_ints("dilations", {}) != o0.attrs.get_ints("dilations", {}))
      op_fail(g, op, "strides/dilations differ from '" + o0.name + "'",
              "equal strides and dilations");
    const Shape& y = g.tensor(o.outputs[0]).shape;
    if (y.size() != y0.size() || !std::equal(y.begin() + 2, y.end(), y0.begin() + 2) ||
        y[0] != y0[0])
      op_fail(
          g, op,
          "output " + shape_str(y) + " differs spatially from '" + o0.name + "' " + shape_str(y0),
          "the same output spatial size");
    const Shape& w = g.tensor(o.inputs[1]).shape;
    kh_max = std::max(kh_max, w.size() > 2 ? w[2] : 1);
    kw_max = std::max(kw_max, w.size() > 3 ? w[3] : 1);
    cout_total += d.cout;
    out_bytes += static_cast<double>(g.tensor(o.outputs[0]).bytes());
    if (o.inputs.size() > 2 && o.inputs[2] >= 0)
      bias_bytes += static_cast<double>(g.tensor(o.inputs[2]).bytes());
  }
  const DType dt = g.tensor(o0.outputs[0]).dtype;
  const int64_t es = dtype_size(dt);
  const int64_t M = d0.n * d0.out_spatial;
  const int64_t K = d0.cin * kh_max * kw_max;
  // Multiply-adds of the zero-padded kernels count (IOS Fig. 4.7: merging adds FLOPs); the bias
  // add counts one per output, as op_cost counts it.
  const double flops = 2.0 * static_cast<double>(M) * static_cast<double>(cout_total) * K +
                       (bias_bytes > 0 ? static_cast<double>(M) * cout_total : 0.0);
  const double weight_bytes = static_cast<double>(cout_total) * static_cast<double>(K) * es;
  const double in_bytes = static_cast<double>(numel(x)) * es;
  const double bytes = in_bytes + weight_bytes + bias_bytes + out_bytes;
  std::string name = "merged";
  for (int op : ops) name += "+" + g.op(op).name;
  // The split back into the original outputs is a channel-range view (no kernel).
  return {gemm_kernel(name, 1, M, cout_total, K, flops, bytes, dt, math_for(dt, spec, opts, true),
                      spec.sm_count)};
}

std::vector<KernelLaunch> kernels_for_merged_task(const Graph& g, const std::vector<int>& ops,
                                                  const GpuSpec& spec, const KernelOptions& opts) {
  std::vector<int> convs;
  for (int op : ops) {
    if (op < 0 || op >= g.num_ops())
      throw Error("gpu model: merged task op index " + std::to_string(op) + " out of range");
    if (g.op(op).kind == OpKind::Conv) convs.push_back(op);
  }
  if (convs.empty()) throw Error("gpu model: merged task holds no Conv; expected >= 1 Conv");
  // Every other op must run in the epilogue of one of the task's convolutions.
  for (int op : ops) {
    if (g.op(op).kind == OpKind::Conv) continue;
    if (!opts.fold_activation)
      op_fail(g, op, "is in a merged task but KernelOptions::fold_activation is off",
              "only Convs, or element-wise ops folded into their epilogues with fold_activation");
    if (!is_folded_activation(g, op))
      op_fail(g, op, "is in a merged task but is not an epilogue op of a Conv",
              "an element-wise op whose input is produced only for it by a Conv of the task");
    int x = g.op(op).inputs[0];
    if (g.tensor(x).is_param() && g.op(op).inputs.size() > 1) x = g.op(op).inputs[1];
    int producer = g.tensor(x).producer;
    while (producer >= 0 && g.op(producer).kind != OpKind::Conv) {  // walk up an epilogue chain
      const Op& p = g.op(producer);
      int in = p.inputs[0];
      if (g.tensor(in).is_param() && p.inputs.size() > 1) in = p.inputs[1];
      producer = g.tensor(in).producer;
    }
    if (std::find(convs.begin(), convs.end(), producer) == convs.end())
      op_fail(g, op, "is in a merged task but its convolution is not in the task",
              "the epilogue op of one of the task's Convs");
  }
  std::vector<KernelLaunch> ks = kernels_for_merged_conv(g, convs, spec, opts);
  for (auto& k : ks) k.ops = ops;
  return ks;
}

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------
std::vector<std::vector<KernelLaunch>> stage_streams(const Graph& g, const Stage& stage,
                                                     const GpuSpec& spec,
                                                     const FusedKernelFn& fused,
                                                     const KernelOptions& opts) {
  std::vector<std::vector<KernelLaunch>> streams;
  streams.reserve(stage.tasks.size());
  for (const Task& t : stage.tasks) {
    std::vector<KernelLaunch> ks;
    switch (t.kind) {
      case TaskKind::Sequential:
        for (int op : t.ops) {
          auto v = kernels_for_op(g, op, spec, opts);
          for (auto& k : v) {
            k.ops = {op};
            ks.push_back(std::move(k));
          }
        }
        break;
      case TaskKind::Merged:
        ks = kernels_for_merged_task(g, t.ops, spec, opts);
        break;
      case TaskKind::Fused:
        if (!fused)
          throw Error("gpu model: plan has a fused task (first op '" +
                      (t.ops.empty() ? std::string("?") : g.op(t.ops[0]).name) +
                      "') but no fused-kernel function was given; expected a FusedKernelFn");
        ks = fused(g, t, spec);
        break;
    }
    streams.push_back(std::move(ks));
  }
  return streams;
}

StageResult simulate_plan_stage(const Graph& g, const Stage& stage, const GpuSpec& spec,
                                const FusedKernelFn& fused, const KernelOptions& opts) {
  return simulate_stage(spec, stage_streams(g, stage, spec, fused, opts));
}

bool stage_ends_with_sync(size_t num_tasks) {
  return num_tasks > 1;
}

double stage_sync_cost_us(const GpuSpec& spec, size_t num_tasks) {
  return stage_ends_with_sync(num_tasks) ? spec.stage_sync_us : 0.0;
}

bool needs_stage_sync(const Plan& plan, size_t i) {
  return i < plan.stages.size() && stage_ends_with_sync(plan.stages[i].tasks.size());
}

PlanEvaluation evaluate_plan(const Graph& g, const Plan& plan, const GpuSpec& spec,
                             const FusedKernelFn& fused, const KernelOptions& opts) {
  PlanEvaluation e;
  double warp_time = 0;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const auto streams = stage_streams(g, plan.stages[i], spec, fused, opts);
    for (const auto& s : streams)
      for (const auto& k : s) {
        ++e.kernels;
        e.flops += k.flops;
        e.dram_bytes += k.dram_bytes;
        e.l2_bytes += k.l2_bytes;
      }
    const StageResult r = simulate_stage(spec, streams);
    e.stage_latency_us.push_back(r.latency_us);
    e.latency_us += r.latency_us;
    warp_time += r.avg_active_warps_per_sm * r.latency_us;
    if (needs_stage_sync(plan, i)) {
      e.sync_us += spec.stage_sync_us;
      e.latency_us += spec.stage_sync_us;
    }
  }
  if (e.latency_us > 0) e.avg_active_warps_per_sm = warp_time / e.latency_us;
  return e;
}

double plan_latency(const Graph& g, const Plan& plan, const GpuSpec& spec,
                    const FusedKernelFn& fused, const KernelOptions& opts) {
  return evaluate_plan(g, plan, spec, fused, opts).latency_us;
}

}  // namespace dgs
