// Lower bounds on a stage's latency (stated in stage_bounds.h).
#include "common/gpumodel/stage_bounds.h"

#include <algorithm>

#include "common/gpumodel/model_internal.h"
#include "common/gpumodel/occupancy.h"

namespace dgs {

using namespace gpu_model_internal;

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
  const double sat = s.sat_warps > 0 ? s.sat_warps : m.compute_sat_warps;
  const double share = s.warps / std::max(static_cast<double>(s.warps), sat);
  double block_us = s.flops_b > 0 ? s.flops_b / (s.sm_rate * share) : 0.0;
  block_us = std::max({block_us, m.block_min_us, s.floor_us});
  const double dram_wc = s.dram_warp_cap >= 0 ? s.dram_warp_cap : m.dram_warp_cap;
  if (s.dram_b > 0) block_us = std::max(block_us, s.dram_b / (s.warps * dram_wc));
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
    // One host thread issues the stage's launches stream by stream (the simulation's launch
    // rule): this stream's first launch is issued after every launch of the streams before it,
    // so it starts that many launch times late.
    longest =
        std::max(longest, static_cast<double>(total.kernels) * spec.kernel_launch_us + s.stream_us);
    total += s;
  }
  if (total.kernels == 0) return 0.0;
  // Nothing runs before the first launch completes.
  const double work = spec.kernel_launch_us + std::max({total.sm_us, total.dram_us, total.l2_us});
  return std::max(longest, work) * (1.0 - kLowerBoundMargin);
}

}  // namespace dgs
