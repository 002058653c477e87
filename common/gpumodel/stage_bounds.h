#pragma once
// Lower bounds on a stage's latency without simulating it.
#include <cstdint>
#include <vector>

#include "common/gpumodel/kernel.h"
#include "common/hw/hardware.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// Lower bounds on a stage's latency (no simulation), for searches that skip stages that cannot win
// ---------------------------------------------------------------------------------------------
// What simulate_stage's rules guarantee about one kernel, or the sum over several kernels (+=):
//  * some SM runs ceil(grid / sm_count) of its blocks, at most at the SM's full rate together;
//  * a block progresses at most at 1/t_min, t_min = max(flops_b / (P_sm * eta_k * share_max),
//    dram_b / (w_b * dram warp cap), l2_b / (w_b * l2 warp cap), block_min_us) with
//    share_max = w_b / max(w_b, Wc) (the block alone on its SM); at most blocks_per_sm * sm_count
//    blocks of a kernel are resident at once, so its blocks take >= ceil(grid / that) * t_min;
//  * the GPU moves at most B_dram (B_l2) bytes per us, and an SM computes at most P_sm * eta_k;
//  * a kernel starts kernel_launch_us after its predecessor on the stream ends;
//  * one host thread issues the launches stream by stream, so a stream's first kernel starts
//    after every launch of the streams before it (stage_latency_lower_bound_us).
struct KernelWorkBound {
  double stream_us = 0;  // launch overhead + the least time the kernel(s) can take, in sequence
  double sm_us = 0;      // flops / (P_sm * eta_k * sm_count): the GPU's compute time at full rate
  double dram_us = 0;    // dram_bytes / B_dram
  double l2_us = 0;      // l2_bytes / B_l2 (0 without an L2 limit)
  int64_t kernels = 0;
  KernelWorkBound& operator+=(const KernelWorkBound& o);
};
KernelWorkBound kernel_work_bound(const GpuSpec& spec, const KernelLaunch& k);

// A lower bound on simulate_stage's latency for streams whose kernels' bounds sum to
// `streams[s]` (one entry per stream, in launch order): the longest stream after the launches of
// the streams before it, and the stage's total compute, DRAM
// and L2 work at the GPU's full rates after the first launch; lowered by a relative margin that
// covers the simulation's rounding, so that it never exceeds the simulated latency.
double stage_latency_lower_bound_us(const GpuSpec& spec,
                                    const std::vector<KernelWorkBound>& streams);

}  // namespace dgs
