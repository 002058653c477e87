#include "reproductions/brickdl/perf_model.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "common/gpumodel/gpu_model.h"
#include "common/graph/op_cost.h"
#include "common/util/error.h"
#include "reproductions/brickdl/conflict_sim.h"

namespace dgs::brickdl {

namespace {

// The cuDNN-class block of the kernel rules (kernel_rules.h, ImplicitGemm).
constexpr int kBlockThreads = 256;
constexpr int kBlockRegisters = 126;
constexpr int64_t kBlockSharedBytes = 12 * 1024;

double compute_rate(const GpuSpec& spec, KernelClass c) {
  std::string_view key = gpu_efficiency::kGemmFp32;
  if (c == KernelClass::Direct) key = gpu_efficiency::kDirect;
  if (c == KernelClass::Memory) key = gpu_efficiency::kMemory;
  if (c == KernelClass::Fused) key = gpu_efficiency::kFused;
  return spec.peak_fp32_tflops * 1e12 * gpu_efficiency::get(spec, key);  // FLOP/s
}

double dram_rate(const GpuSpec& spec) {
  return spec.dram_bandwidth_gbs * 1e9 * gpu_efficiency::get(spec, gpu_efficiency::kDram);
}

TimeBreakdown price_kernel(const GpuSpec& spec, const KernelLaunch& k) {
  TimeBreakdown t;
  t.total_us = estimate_kernel(spec, k).latency_us;
  t.flops = k.flops;
  t.dram_bytes = k.dram_bytes;
  t.l2_bytes = k.l2_bytes;
  t.l1_bytes = k.l2_bytes;
  t.dram_us = k.dram_bytes / dram_rate(spec) * 1e6;
  t.compute_us = k.flops / compute_rate(spec, k.klass) * 1e6;
  t.kernels = 1;
  return t;
}

double tensor_bytes(const Graph& g, int t) {
  return static_cast<double>(g.tensor(t).bytes());
}

}  // namespace

TimeBreakdown& TimeBreakdown::operator+=(const TimeBreakdown& o) {
  total_us += o.total_us;
  dram_us += o.dram_us;
  compute_us += o.compute_us;
  atomic_compulsory_us += o.atomic_compulsory_us;
  atomic_conflict_us += o.atomic_conflict_us;
  flops += o.flops;
  dram_bytes += o.dram_bytes;
  l2_bytes += o.l2_bytes;
  l1_bytes += o.l1_bytes;
  bricks += o.bricks;
  atomics_compulsory += o.atomics_compulsory;
  atomics_conflict += o.atomics_conflict;
  kernels += o.kernels;
  idle_us = std::max(0.0, total_us - dram_us);
  other_us = std::max(0.0, total_us - compute_us - atomic_compulsory_us - atomic_conflict_us);
  return *this;
}

void TimeBreakdown::finish(const GpuSpec&) {
  idle_us = std::max(0.0, total_us - dram_us);
  other_us = std::max(0.0, total_us - compute_us - atomic_compulsory_us - atomic_conflict_us);
}

std::vector<KernelLaunch> cudnn_unit_kernels(const Graph& g, const BrickUnit& u,
                                             const GpuSpec& spec) {
  const int anchor = u.ops.front();
  std::vector<KernelLaunch> ks = kernels_for_op(g, anchor, spec);
  if (ks.empty()) return ks;  // layout-only
  // Epilogue operands: the other input of a residual add in the unit.
  for (size_t i = 1; i < u.ops.size(); ++i) {
    const Op& op = g.op(u.ops[i]);
    if (op.kind != OpKind::Add && op.kind != OpKind::Mul) continue;
    for (int t : op.inputs) {
      if (t < 0 || g.tensor(t).is_param()) continue;
      if (g.tensor(t).producer == u.ops[i - 1]) continue;  // the chain's own value
      ks.back().dram_bytes += tensor_bytes(g, t);
      ks.back().l2_bytes += tensor_bytes(g, t);
    }
  }
  return ks;
}

TimeBreakdown price_cudnn(const Graph& g, const std::vector<int>& ops, const GpuSpec& spec) {
  TimeBreakdown sum;
  for (const BrickUnit& u : brick_units(g, ops))
    for (const KernelLaunch& k : cudnn_unit_kernels(g, u, spec)) sum += price_kernel(spec, k);
  sum.finish(spec);
  return sum;
}

int brick_kernel_resident_blocks(const GpuSpec& spec) {
  KernelLaunch k;
  k.threads_per_block = kBlockThreads;
  k.registers_per_thread = kBlockRegisters;
  k.shared_bytes_per_block = kBlockSharedBytes;
  return occupancy(spec, k).blocks_per_sm * spec.sm_count;
}

double atomic_ns(const GpuSpec& spec) {
  if (spec.core_clock_mhz <= 0)
    throw Error("BrickDL atomic cost: GPU config '" + spec.name + "' has no core_clock_mhz");
  return kAtomicRoundTripCycles / spec.core_clock_mhz * 1e3;
}

std::string atomic_cost_note(const GpuSpec& spec) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.1f ns per atomic on %s", atomic_ns(spec), spec.name.c_str());
  return std::string("atomics: T_atomic = ") + buf +
         ", an ASSUMPTION (perf_model.h kAtomicRoundTripCycles = " +
         std::to_string(static_cast<int>(kAtomicRoundTripCycles)) +
         " SM cycles, one round trip to L2, at the config's core clock), not measured and not "
         "the paper's 87.45 ns (compared in Fig. 10's claims); the GPU model has no atomic "
         "mechanism";
}

KernelLaunch merged_kernel(const Graph& g, const SubgraphAnalysis& a, MergeVariant v,
                           const GpuSpec& spec) {
  const bool padded = v == MergeVariant::Padded;
  const std::set<int> in_group(a.ops.begin(), a.ops.end());
  auto is_output = [&](int t) {
    if (g.tensor(t).role == TensorRole::Output) return true;
    for (int c : g.tensor(t).consumers)
      if (!in_group.count(c)) return true;
    return false;
  };
  KernelLaunch k;
  k.name = std::string("bricks_") + variant_name(v);
  k.threads_per_block = kBlockThreads;
  k.registers_per_thread = kBlockRegisters;
  k.shared_bytes_per_block = kBlockSharedBytes;
  k.math = MathUnit::Fp32;
  k.klass = KernelClass::Gemm;
  k.ops = a.ops;
  const int64_t bricks = padded ? a.root_bricks : a.memo_bricks;
  k.grid_blocks = std::max<int64_t>(1, bricks);

  double flops = 0;
  for (int op : a.ops) {
    const double f = static_cast<double>(op_cost(g, op).flops);
    const int out = g.op(op).outputs[0];
    double scale = 1;
    if (padded) {
      const auto e = a.elements.find(out);
      const auto p = a.padded_elements.find(out);
      if (e != a.elements.end() && p != a.padded_elements.end() && e->second > 0)
        scale = p->second / e->second;
    }
    flops += f * scale;
  }
  k.flops = flops;

  double in_bytes = 0, out_bytes = 0, inter_bytes = 0;
  for (int t : a.input_tensors) in_bytes += tensor_bytes(g, t);
  for (const BrickUnit& u : a.units)
    (is_output(u.output) ? out_bytes : inter_bytes) += tensor_bytes(g, u.output);
  const bool write_back = inter_bytes > static_cast<double>(spec.l2_bytes);
  k.dram_bytes = in_bytes + out_bytes + a.weight_bytes + (!padded && write_back ? inter_bytes : 0);

  // Global accesses per brick: input regions, weights, outputs (and memoized intermediates).
  double l1 = 0;
  if (padded) {
    for (int t : a.input_tensors) {
      const auto p = a.padded_elements.find(t);
      l1 += (p != a.padded_elements.end() ? p->second : 0.0) * dtype_size(g.tensor(t).dtype);
    }
    l1 += a.weight_bytes * static_cast<double>(a.root_bricks) + out_bytes;
  } else {
    for (size_t u = 0; u < a.units.size(); ++u) {
      const SubgraphAnalysis one = analyze_subgraph(g, a.units[u].ops, a.edge);
      for (int t : one.input_tensors) {
        const auto p = one.padded_elements.find(t);
        l1 += (p != one.padded_elements.end() ? p->second : 0.0) * dtype_size(g.tensor(t).dtype);
      }
      l1 += one.weight_bytes * static_cast<double>(a.unit_bricks[u]) +
            tensor_bytes(g, a.units[u].output);
    }
  }
  k.l2_bytes = std::max(l1, k.dram_bytes);
  return k;
}

BrickAtomics merged_atomics(const Graph& g, const SubgraphAnalysis& a, MergeVariant v,
                            const GpuSpec& spec) {
  BrickAtomics r;
  if (v == MergeVariant::Padded) return r;
  const ConflictEstimate sim = simulate_memoized(g, a, brick_kernel_resident_blocks(spec));
  r.compulsory = 2 * a.memo_bricks;
  r.conflicting = sim.conflicting;
  return r;
}

TimeBreakdown price_merged(const Graph& g, const SubgraphAnalysis& a, MergeVariant v,
                           const GpuSpec& spec) {
  const bool padded = v == MergeVariant::Padded;
  TimeBreakdown t = price_kernel(spec, merged_kernel(g, a, v, spec));
  t.bricks = padded ? a.root_bricks : a.memo_bricks;
  if (!padded) {
    const BrickAtomics atomics = merged_atomics(g, a, v, spec);
    t.atomics_compulsory = atomics.compulsory;
    t.atomics_conflict = atomics.conflicting;
    t.atomic_compulsory_us = static_cast<double>(t.atomics_compulsory) * atomic_ns(spec) * 1e-3;
    t.atomic_conflict_us = static_cast<double>(t.atomics_conflict) * atomic_ns(spec) * 1e-3;
    t.total_us += t.atomic_compulsory_us + t.atomic_conflict_us;
  }
  t.finish(spec);
  return t;
}

KernelLaunch brick_conversion_kernel(const Graph& g, int tensor) {
  KernelLaunch k;
  k.name = "to_bricks";
  const int64_t n = g.tensor(tensor).numel();
  k.grid_blocks = std::max<int64_t>(1, (n + kBlockThreads - 1) / kBlockThreads);
  k.threads_per_block = kBlockThreads;
  k.registers_per_thread = 32;
  k.klass = KernelClass::Memory;
  k.dram_bytes = 2 * tensor_bytes(g, tensor);
  k.l2_bytes = k.dram_bytes;
  return k;
}

TimeBreakdown price_brick_conversion(const Graph& g, int tensor, const GpuSpec& spec) {
  TimeBreakdown t = price_kernel(spec, brick_conversion_kernel(g, tensor));
  t.finish(spec);
  return t;
}

}  // namespace dgs::brickdl
