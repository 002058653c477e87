#pragma once
// Fig. 6 of the Atomic Dataflow paper rebuilt: the atomic DAG of four layers of a PNASNet cell
// (Fig. 6b) scheduled on four engines (Fig. 6c), two samples. The text names what each Round
// shows (Sec. IV-B): Rounds 1, 2, 4 and 6 run atoms of one layer (intra-layer parallelism);
// Round 3 runs the last atom of layer 1 (1-9) beside atoms of layer 2, at the same depth; in
// Round 7 atoms 4-1 and 4-3 run although layer 3 is not finished (dependent layers, implicit
// fusion); Round 8 runs atoms of the next sample (batch-level parallelism).
//
// The figure's image is not in our source, so the DAG is built from the text: layers 1 and 2 at
// depth 0 (two branches reading the cell's inputs), 9 and 7 atoms; layer 3 at depth 1 (the
// branches' sum), 9 atoms on a 3 x 3 grid, atom k reading atom 1-k and every atom of layer 2;
// layer 4 at depth 2 (a 3x3 convolution on layer 3's output), 4 atoms on a 2 x 2 grid, each
// reading the 2 x 2 block of layer-3 atoms its window covers. Every atom takes the same cycles.
#include <string>
#include <vector>

#include "reproductions/atomic/atoms.h"

namespace dgs::atomic {

// The DAG above for `batch` samples (atoms grouped by layer, then sample).
AtomicDag fig6_toy_dag(int batch);

// "X-Y" (sample 0) or "X-Y'" (sample 1), X and Y counted from 1 as in the figure.
std::string fig6_atom_label(const AtomicDag& dag, int atom);

}  // namespace dgs::atomic
