#pragma once
// Welder schedules as tile programs: a thin adapter from Welder's tile-graph, kernel groups and
// schedules to the generic builder (common/tileprog/tile_program_builder.h). Each launched kernel
// group of a Schedule becomes one program (one kernel launch) at the tile the scheduler chose,
// with the per-tile regions of every operator from the suite's shared region propagation, the
// same tiling run_plan (common/exec/plan_exec.h) checks on the CPU reference. Layout-only groups
// (Reshape & co., which the scheduler counts as no kernel) launch nothing: their output is a view
// of their input's buffer (common/tileprog/network_program.h).
//
// run_network_host (network_program.h) runs a whole compiled schedule on the host interpreter:
// the CPU check that a schedule's fused kernels compute the network
// (tests/welder/test_welder_tile_program.cpp).
#include <vector>

#include "common/tileprog/network_program.h"
#include "common/tileprog/tile_program.h"
#include "common/tileprog/tile_program_builder.h"
#include "reproductions/welder/scheduler.h"

namespace dgs::welder {

// The generic description of launched kernel `grp` of `tg` (built from a graph: tg.source) with
// root output tile `tile`: its graph ops, its root (group_root), and the tensors it writes to
// global memory (those of its outputs that are graph outputs, have no consumer in the tile-graph,
// or are consumed by an op outside the group).
TileProgramGroup tile_program_group(const TileGraph& tg, const KernelGroup& grp,
                                    const std::vector<int64_t>& tile);

// Compiles launched kernel `grp` of `tg` with root output tile `tile` into a tile program; its
// global ids are dgs::Graph tensor indices. Throws dgs::Error (one line naming the op) for an
// operator or attribute the interpreter does not support.
TileProgram compile_group(const TileGraph& tg, const KernelGroup& grp,
                          const std::vector<int64_t>& tile);

// Every group of `s` (scheduled on tg): launched ones compiled at their chosen tile, the others
// recorded as views; NetworkProgram::kernel_group holds the schedule group of each kernel.
NetworkProgram compile_schedule(const TileGraph& tg, const Schedule& s);

}  // namespace dgs::welder
