#pragma once
// Conflicting atomics of memoized bricks in model mode: a deterministic event simulation of the
// memoized protocol (merged_exec.h, and the CUDA kernel's) at the level of the tags.
//
// `workers` resident thread blocks take the subgraph's output bricks grid-stride (worker w: roots
// w, w + W, ...). A worker walks a brick's dependencies in order: a complete one is read (no
// atomic); a not-started one is claimed (compulsory) and computed first (recursion); one in
// progress costs a failed CAS, and the worker waits until it completes, then one successful CAS
// poll (2 conflicting atomics per wait; further polls depend on the spin interval and are not
// counted). Every brick's computation takes one time unit, tag operations none; ties go to the
// lower worker. Dependencies come from the shared iteration spaces (input_regions), per dim.
#include <cstdint>

#include "common/graph/graph.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {

struct ConflictEstimate {
  int64_t bricks = 0;       // computed (each once)
  int64_t compulsory = 0;   // 2 per brick
  int64_t conflicting = 0;  // failed CAS + the successful poll of each wait (+ lost root claims)
  int64_t time_units = 0;   // makespan in brick computations
};

ConflictEstimate simulate_memoized(const Graph& g, const SubgraphAnalysis& a, int workers);

}  // namespace dgs::brickdl
