#pragma once
// Tile-by-tile execution of one fused kernel on the CPU reference executor: the correctness
// check of Welder's fusion. Each tile of the kernel's root output is computed from the regions
// of the kernel's global inputs only; intermediates live in per-tile buffers (the "reuse tiles")
// and never come from the whole-tensor run.
#include <map>
#include <vector>

#include "common/exec/executor.h"
#include "reproductions/welder/cost_model.h"

namespace dgs::welder {

// Runs kernel `grp` of `tg` (built from a graph, tg.source) tile by tile with output tile `tile`
// of its root, reading global inputs from `values` (whole tensors, e.g. from run_graph). Returns
// the values of every tensor the kernel writes to global memory, by graph tensor index.
std::map<int, TensorData> run_group_tiled(const TileGraph& tg, const KernelGroup& grp,
                                          const std::vector<int64_t>& tile,
                                          const TensorValues& values);

}  // namespace dgs::welder
