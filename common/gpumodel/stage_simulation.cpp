// Simulating a stage of streams, and one kernel alone (estimate_kernel), on the block simulation.
#include "common/gpumodel/block_simulation.h"

#include <vector>

#include "common/gpumodel/model_internal.h"

namespace dgs {

using namespace gpu_model_internal;

namespace {
const KernelLaunch& deref(const KernelLaunch& k) {
  return k;
}
const KernelLaunch& deref(const KernelLaunch* k) {
  return *k;
}

// The prepared kernels and their ids per stream, kept per thread between simulations so that a
// search that simulates many stages does not reallocate them each time (contents never carry
// over).
struct StageInput {
  std::vector<SimKernel> kernels;
  std::vector<std::vector<int>> ids;
};

StageInput& thread_stage_input() {
  thread_local StageInput input;
  return input;
}

template <typename GetKernel>
StageResult simulate_streams(const GpuSpec& spec, size_t num_streams, GetKernel&& kernels_of) {
  const Model m = make_model(spec);
  StageInput& input = thread_stage_input();
  std::vector<SimKernel>& ks = input.kernels;
  std::vector<std::vector<int>>& ids = input.ids;
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
  StageResult res = run_simulation(m, ks, ids);
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
    const StageResult r = run_simulation(m0, ks, one_stream);
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
    const StageResult r = run_simulation(m0, ks, one_stream);
    t_tail = r.latency_us;
    warps_tail = r.avg_active_warps_per_sm * r.latency_us;
  }
  e.latency_us = m.launch_us + static_cast<double>(full_waves) * t_full + t_tail;
  if (e.latency_us > 0)
    e.achieved_warps_per_sm =
        (static_cast<double>(full_waves) * warps_full + warps_tail) / e.latency_us;
  return e;
}

}  // namespace dgs
