#pragma once
// Welder schedules as tile programs (common/cuda/tile_program.h): each launched kernel group of a
// Schedule becomes one program (one kernel launch), with the per-tile regions of every operator
// from the suite's shared region propagation (propagate_regions, common/graph/iteration_space.h),
// the same tiling run_plan (common/exec/plan_exec.h) checks on the CPU reference. Layout-only groups (Reshape & co.,
// which the scheduler counts as no kernel) launch nothing: their output is a view of their input's
// buffer (row-major data, same order).
//
// run_network_host runs a whole compiled schedule on the host interpreter: the CPU check that a
// schedule's fused kernels compute the network (tests/welder/test_welder_tile_program.cpp).
#include <map>
#include <vector>

#include "common/cuda/tile_program.h"
#include "common/exec/executor.h"
#include "reproductions/welder/scheduler.h"

namespace dgs::welder {

// Compiles launched kernel `grp` of `tg` (built from a graph: tg.source) with root output tile
// `tile` into a tile program; its global ids are dgs::Graph tensor indices. Throws dgs::Error (one
// line naming the op) for an operator or attribute the interpreter does not support.
gpu::TileProgram compile_group(const TileGraph& tg, const KernelGroup& grp,
                               const std::vector<int64_t>& tile);

struct NetworkProgram {
  std::vector<gpu::TileProgram> kernels;  // one per launched group, in the schedule's order
  std::vector<int> kernel_group;          // the schedule group each kernel comes from
  // Tensors that are views (outputs of layout-only groups): tensor -> the tensor whose buffer
  // holds the data (resolved to a tensor that is not itself a view).
  std::map<int, int> views;
  int layout_groups = 0;  // groups that launch nothing
  // The buffer of tensor t (t itself unless it is a view).
  int buffer_of(int t) const {
    auto it = views.find(t);
    return it == views.end() ? t : it->second;
  }
};

// Every group of `s` (scheduled on tg): launched ones compiled at their chosen tile.
NetworkProgram compile_schedule(const TileGraph& tg, const Schedule& s);

// Runs `np` on the host interpreter: inputs, weights and constants from make_graph_feeds(g,
// feeds, seed) (the reference executor's values), every other buffer filled with NaN first (an
// element no kernel writes fails a comparison). Returns the value of every tensor that has a
// buffer or is a view (by graph tensor index, with the graph's shape). The tests run tiles in the
// adversarial order (gpu::HostTileOrder).
TensorValues run_network_host(const Graph& g, const NetworkProgram& np, const TensorValues& feeds,
                              uint64_t seed,
                              gpu::HostTileOrder order = gpu::HostTileOrder::Forward);

}  // namespace dgs::welder
