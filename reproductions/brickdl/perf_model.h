#pragma once
// Model-mode pricing of BrickDL's variants on the suite's GPU model (common/gpumodel), with the
// paper's time breakdown (§4.2-§4.4): total, DRAM and idle (the memory bar), compute, compulsory
// and conflicting atomics and other (the compute bar), plus the L1/L2/DRAM traffic of Fig. 9.
//
// cuDNN baseline (one library kernel per brick unit, layer by layer): the unit's anchor op as the
// GPU model's kernel rules price it (kernels_for_op: implicit GEMM for convolutions, memory
// kernels for pooling), with the unit's element-wise ops (bias, BN, ReLU, the residual add) in
// its epilogue, as cudnnConvolutionBiasActivationForward does (its z operand is the residual
// input; inference BN folds into the weights); a residual operand adds its read.
//
// Merged bricks (one persistent kernel per subgraph, one thread block per brick):
//   FLOPs   memoized: every op output element once; padded: the enlarged regions (the analysis'
//           padded element counts), i.e. the redundant halo compute;
//   DRAM    the subgraph's inputs read once, its outputs and weights once, and, for memoized, the
//           intermediates written back when they do not fit in L2 (L2 is write-back; read back
//           from L2 by the bricks that need them);
//   L1/L2   (global accesses; no L1 reuse between blocks, so L2 = L1): per brick, its input
//           regions (padded: the enlarged regions; memoized: each unit's brick with its one-layer
//           halo), the subgraph's weights (every brick reads them: small bricks re-read weights
//           more), its outputs; memoized adds the intermediates' writes;
//   kernel  grid = bricks, 256 threads x 126 registers (the cuDNN-class block of the kernel rules),
//           gemm class: estimate_kernel gives its latency (waves, tails, roofline on DRAM and L2);
//   atomics (memoized) 2 per brick compulsory + the conflicting ones (conflict_sim.h), each
//           T_atomic, serialised after the kernel (they sit on each brick's critical path).
// Breakdown: dram = DRAM bytes / (bandwidth x dram efficiency); compute = FLOPs / (FP32 peak x the
// class efficiency) (the paper's N_bricks x T_brick, T_brick being a throughput measurement);
// idle = total - dram; other = total - compute - atomics (>= 0).
#include <cstdint>
#include <string>
#include <vector>

#include "common/gpumodel/kernel.h"
#include "common/graph/graph.h"
#include "common/hw/hardware.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {

// T_atomic, the model's cost of one atomic: an ASSUMPTION, derived from the hardware config. The
// GPU model has no atomic mechanism and the suite has not measured one on a GPU (the §4.3.1
// microbenchmark, bench_brickdl_atomics in microbench/brickdl_constants.cpp, does where a GPU is
// present): one serialised global-memory atomic is taken as a round trip to L2 (the point of
// synchronisation, §3.2.2), kAtomicRoundTripCycles SM cycles at the config's core clock (A100,
// 1410 MHz: 141.8 ns). Not fitted to anything; the paper's own A100 value (87.45 ns, §4.3.1) sits
// only in Fig. 10's claims, beside this one, and is never used by the model.
inline constexpr double kAtomicRoundTripCycles = 200;
double atomic_ns(const GpuSpec& spec);
// One line naming the assumption and its value on `spec` (every output that uses it notes it).
std::string atomic_cost_note(const GpuSpec& spec);

struct TimeBreakdown {
  double total_us = 0, dram_us = 0, idle_us = 0, compute_us = 0;
  double atomic_compulsory_us = 0, atomic_conflict_us = 0, other_us = 0;
  double flops = 0, dram_bytes = 0, l2_bytes = 0, l1_bytes = 0;
  int64_t bricks = 0, atomics_compulsory = 0, atomics_conflict = 0, kernels = 0;
  TimeBreakdown& operator+=(const TimeBreakdown& o);
  void finish(const GpuSpec& spec);  // fills idle and other from the rest
};

// The library kernel(s) of one brick unit in the cuDNN baseline: the anchor's kernels_for_op,
// the last one carrying the unit's residual operand reads (empty for a layout-only anchor).
std::vector<KernelLaunch> cudnn_unit_kernels(const Graph& g, const BrickUnit& u,
                                             const GpuSpec& spec);
// The cuDNN layer-by-layer baseline of `ops`: cudnn_unit_kernels of each of their brick units,
// each priced alone (estimate_kernel, launch included) and summed.
TimeBreakdown price_cudnn(const Graph& g, const std::vector<int>& ops, const GpuSpec& spec);

// The persistent brick kernel of the analysed subgraph with variant `v` (grid, FLOPs, traffic as
// stated above; its atomics are not in it).
KernelLaunch merged_kernel(const Graph& g, const SubgraphAnalysis& a, MergeVariant v,
                           const GpuSpec& spec);
// The atomics of merged execution with variant `v` (none for padded bricks).
struct BrickAtomics {
  int64_t compulsory = 0, conflicting = 0;
  int64_t total() const { return compulsory + conflicting; }
};
BrickAtomics merged_atomics(const Graph& g, const SubgraphAnalysis& a, MergeVariant v,
                            const GpuSpec& spec);
// Merged execution of the analysed subgraph with variant `v`: merged_kernel priced alone, plus,
// memoized, merged_atomics x T_atomic serialised after it. Memoized: the conflicting atomics
// come from the deterministic simulation of the protocol (conflict_sim.h) with one worker per
// resident block of the brick kernel.
TimeBreakdown price_merged(const Graph& g, const SubgraphAnalysis& a, MergeVariant v,
                           const GpuSpec& spec);
// Resident thread blocks of the brick kernel on `spec` (occupancy x SMs).
int brick_kernel_resident_blocks(const GpuSpec& spec);
// Converting a tensor to or from bricks: one read and one write of it through DRAM (a memory
// kernel of one thread per element).
KernelLaunch brick_conversion_kernel(const Graph& g, int tensor);
TimeBreakdown price_brick_conversion(const Graph& g, int tensor, const GpuSpec& spec);

}  // namespace dgs::brickdl
