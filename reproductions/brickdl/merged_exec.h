#pragma once
// Merged execution of a subgraph on the CPU, brick by brick, with threads standing in for thread
// blocks (§3.2): the correctness reference of BrickDL's CUDA kernels and the source of its atomic
// counts.
//
// Padded bricks (§3.2.1): each output brick of the subgraph computes, from the subgraph's inputs,
// every op on the enlarged region it needs (propagate_tile: the halo regions of the shared
// iteration spaces), recomputing the overlaps with its neighbours; no synchronisation.
//
// Memoized bricks (§3.2.2): every brick of every unit (static_model.h: an anchor op and the
// element-wise ops fused into it) has a tag, 0 not started, 1 in progress, 2 complete. A worker
// claims a brick with compare-and-swap 0 -> 1, and before computing it walks its dependencies
// (the bricks of earlier units that overlap the input regions the brick needs): a dependency at 2
// is read as is (a plain acquire load, no atomic counted); at 0 the worker claims it by CAS and
// recurses (memoization); at 1 (another worker has it) it is deferred and, after the other
// dependencies, waited for by CAS(2 -> 2) polls. A finished brick is released by storing 2.
// Atomics: the winning CAS and the release are the two compulsory atomics of a brick; every other
// atomic (a CAS that loses, every poll) is a conflicting atomic. This is the deadlock-free
// reading of the research notes (§2.5): the paper's text stalls on state 1 and revisits state 0
// later; both protocols compute every brick once.
//
// Workers walk the bricks of the subgraph's output units in order (a persistent grid). Values:
// `values` holds the subgraph's inputs (activations and weights); the subgraph's outputs (tensors
// read outside it, or graph outputs) are written into it.
#include <cstdint>
#include <vector>

#include "common/exec/executor.h"
#include "common/graph/graph.h"

namespace dgs::brickdl {

struct MergedRunStats {
  int64_t bricks = 0;                          // bricks in the grid(s) the variant works on
  int64_t bricks_computed = 0;                 // brick computations performed
  int64_t bricks_computed_more_than_once = 0;  // memoized: must be 0
  int64_t compulsory_atomics = 0;              // memoized: 2 per computed brick
  int64_t conflicting_atomics = 0;
  int64_t elements_computed = 0;  // op output elements computed (padded: with the overlaps)
  int64_t elements_needed = 0;    // op output elements of the subgraph (each once)
};

// The tensors a subgraph writes: outputs of its ops read outside it, or graph outputs.
std::vector<int> subgraph_outputs(const Graph& g, const std::vector<int>& ops);

MergedRunStats run_padded_bricks(const Graph& g, const std::vector<int>& ops, int64_t edge,
                                 TensorValues& values, int threads);
MergedRunStats run_memoized_bricks(const Graph& g, const std::vector<int>& ops, int64_t edge,
                                   TensorValues& values, int threads);

}  // namespace dgs::brickdl
