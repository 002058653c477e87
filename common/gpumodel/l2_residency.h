#pragma once
// L2 residency of a tensor between consecutive kernels of a stream.
#include <vector>

#include "common/gpumodel/kernel.h"
#include "common/graph/graph.h"
#include "common/hw/hardware.h"

namespace dgs {

// THE L2 RESIDENCY RULE. Within one stream of a stage, a kernel reads from L2, not DRAM, every
// tensor it reads that the kernel just before it on the stream wrote, when the tensor fits in the
// stream's share of the L2: l2_bytes / S, S = the stage's streams that launch kernels (concurrent
// streams split the L2 evenly; one stream has all of it). The reading kernel's dram_bytes drop by
// the tensor's bytes (never below 0); its l2_bytes stay (the bytes still pass through L2); the
// writer still writes the tensor to DRAM (the L2 writes back, and later readers may need it).
// Tensors are matched through layout-only ops (a Reshape's output is its input's bytes). Kernels
// are matched to graph tensors through KernelLaunch::ops (a kernel without ops neither gives nor
// gets anything). Not across stages (a stage's cost stays a property of the stage alone, as
// stage-wise searches need) and not between streams.

// The L2 share of each stream of a stage with `streams` streams that launch kernels (0 when the
// config has no L2 size).
double l2_share_per_stream(const GpuSpec& spec, size_t streams);

// The bytes `consumer` reads from L2 instead of DRAM because `producer` ran just before it on its
// stream, with `share` bytes of L2 for that stream.
double l2_resident_bytes(const Graph& g, const KernelLaunch& producer, const KernelLaunch& consumer,
                         double share);

// The most bytes `k` could ever read from L2 under the rule: its inputs written by another op
// that fit in the whole L2 (for lower bounds on a stage's latency).
double l2_resident_bytes_at_most(const Graph& g, const GpuSpec& spec, const KernelLaunch& k);

// Applies the rule to the kernels of one stage (streams[s]: stream s's kernels in order).
void apply_l2_residency(const Graph& g, const GpuSpec& spec,
                        std::vector<std::vector<KernelLaunch>>& streams);

}  // namespace dgs
