#pragma once
// The event-driven simulation of thread blocks on the SMs: one kernel alone (estimate_kernel) and
// a stage of concurrent streams (simulate_stage). The rules are stated in gpu_model.h.
#include <cstdint>
#include <string>
#include <vector>

#include "common/gpumodel/kernel.h"
#include "common/gpumodel/occupancy.h"
#include "common/hw/hardware.h"

namespace dgs {

struct KernelEstimate {
  Occupancy occ;
  int64_t waves = 0;                 // ceil(grid_blocks / (blocks_per_sm * sm_count))
  double full_wave_block_us = 0;     // time of one block in a full wave (all SMs at blocks_per_sm)
  double latency_us = 0;             // launch overhead + execution (equals simulate_stage's result)
  double achieved_warps_per_sm = 0;  // time-averaged resident warps per SM over the latency
};

// Appends to `key`, as raw bytes, every field of `k` that the simulation reads (the grid, the
// block's threads, registers and shared memory, FLOPs, DRAM and L2 bytes, math unit, class,
// compute efficiency, tile, block floor, per-warp DRAM cap, saturation warps, exclusive): two
// kernels with equal keys are simulated alike on one config, so a cache of stage latencies keyed
// by its kernels' keys (a stage search's) is exact. Not read: the name and ops.
void append_simulation_key(std::string& key, const KernelLaunch& k);

// One kernel alone on the GPU, computed analytically: full waves in closed form, the last partial
// wave with the same fluid rule as the simulation (equal to simulate_stage({{k}}) to rounding).
KernelEstimate estimate_kernel(const GpuSpec& spec, const KernelLaunch& k);

// ---------------------------------------------------------------------------------------------
// Stages: several streams in flight
// ---------------------------------------------------------------------------------------------
struct KernelTiming {
  int stream = 0;       // index into the `streams` argument
  int index = 0;        // position in its stream
  double ready_us = 0;  // launched (after its launch overhead): its blocks may be dispatched
  double start_us = 0;  // first block dispatched
  double end_us = 0;    // last block finished
};

struct StageResult {
  double latency_us = 0;               // last block's end (no stage synchronisation included)
  std::vector<KernelTiming> kernels;   // one per kernel, streams in order, kernels in stream order
  double avg_active_warps_per_sm = 0;  // time-averaged over [0, latency]
  double avg_busy_sms = 0;             // time-averaged SMs holding at least one block
  int64_t events = 0;                  // simulation events processed (for the microbenchmark)
};

// Simulates one stage: streams[s] is a sequence of kernels on stream s; streams run concurrently.
// Empty streams are allowed; an empty stage has latency 0.
// Each thread keeps the rates of the SM states it has met (block_simulator.cpp's RateMemo, up to
// about 4 MiB, dropped when the GPU's model terms change): a state met again, in this stage or a
// later one, reuses them, with the same bits as recomputing.
StageResult simulate_stage(const GpuSpec& spec,
                           const std::vector<std::vector<KernelLaunch>>& streams);
// The same, with the kernels given by pointer (no copies; for searches that assemble stages
// from cached kernels).
StageResult simulate_stage_refs(const GpuSpec& spec,
                                const std::vector<std::vector<const KernelLaunch*>>& streams);

}  // namespace dgs
