#pragma once
// The buffer level of a tiled task's loop nest on one core or engine: in which order its tiles
// run, whether the reduction of its matrix op is tiled too, and so what the local buffer keeps
// and what it loads again (the counting of the public loop-nest cost models, Timeloop and ZigZag,
// at one buffer level; the array level below it is array_nest.h).
//
// The loops: the task's output tiles along groups of output axes (the plan's `tile`; axes whose
// tiles select the same data of every input form one loop, e.g. a convolution's batch, rows and
// columns against its output channels), and, when the task's one matrix op can split its
// reduction, the reduction in 1, 2, 4, ... chunks (of at least the array's rows): one more loop,
// which selects the operands that shrink with it (NestInput::reduced). An input whose tile a loop
// does not select stays in the buffer while that loop runs if the loop lies inside every loop
// that selects it; otherwise it is loaded again each time. The reduction loop may lie anywhere in
// the order: the partial sums of every output tile of the output loops inside it stay in the
// buffer (at partial_sum_bytes) from its first chunk to its last (those of one tile when it runs
// innermost; of all when outermost, which loads each input chunk once where the innermost order
// loads the input again per output-channel tile: ZigZag's order for ResNet-50's layer4.1.conv1,
// tools/validate_dsa), and the output is written once, after the last chunk. Every order of
// every chunk count is tried (NestProblem::reduction_anywhere; without it the reduction
// innermost only).
//
// The array level below (array_nest.h) runs each tile as its own nest (tiled_array_nest); an
// operand of the array that a tile's registers hold whole (`array_held`) stays in the registers
// across tiles by the same rule as an input in the buffer: read again only when a loop that
// selects it changes it, or a loop that does not lies outside one that does; the reduction loop
// selects the `reduced` ones (the bytes then those the array's mapping for that chunk count holds,
// HeldOperand::chunked). Every output passes through the port as a partial sum between chunks
// (ArrayNest::chunked: the array's mapping for that chunk count); when an output loop runs inside
// the reduction loop, also those the partial-sum registers would keep between chunks
// (ChunkedArray::sums_kept: other tiles use the registers in between).
//
// Working set: per input its tile, twice (double-buffered) when the task loads it more than
// once, once when it stays for the whole task (a resident input: its whole needed bytes); the
// output tile twice when there are several (the store of one overlaps the next), or, with the
// reduction tiled, once plus the partial sums it keeps (above); intermediates kept inside the
// task, twice when tiled. A single-buffered input or output (below) counts its tile once.
//
// The mapping: of those whose working set fits `capacity`, the one with the least energy x
// cycles (the objective of array_nest.h). Cycles: the longest of the array, its port with the
// loads and stores added, and the unit's equal share of the DRAM bandwidth for every byte loaded
// or stored; plus fill and drain, the first tile's loads and the last tile's store at the
// narrower of the port and that share. Energy: the array's, the port's for the other ops, and
// the port's and DRAM's for every byte loaded or stored. Ties: the smaller working set, then
// the fewer bytes. When none fits, the smallest working set: the model refuses the task when that
// is over the unit's whole local buffer (dsa_model.cpp), and runs it otherwise, over a smaller
// `capacity` a plan gave it (Task::buffer_bytes).
//
// Single buffering (a choice of the mapper per loop order and chunking): each input loaded more
// than once, and the output tile when there are several, may be held once instead of twice (the
// second buffer dropped from the working set). The load of its next tile then cannot overlap the
// compute on the current one (the store of the output's tile, the next tile's compute): its
// bytes after the first tile (the output's before the last tile, whose store the edges charge)
// leave the overlapped bounds above (the port's, and DRAM's or, staged, the global level's for
// the re-reads) and are added serially, at the narrower of the port and the DRAM share (re-reads
// staged in the global level: of the port and the bus share), rounded up to a whole cycle:
//   cycles = max(array, port, DRAM, global over the overlapped bytes) + fill and drain + edges
//            + ceil(serial bytes from DRAM / narrowest + serial re-reads / narrowest of bus).
// This is ZigZag's stall (cost_model.py: per period of a memory that is not double-buffered, the
// transfer's cycles beyond its allowed window, added to the ideal cycles) with the window taken
// as zero: a tile's data may be used by the array's nest until its last step, so none of it is
// replaced earlier (ZigZag allows the last iteration of the level's top irrelevant loop, the
// whole period when that loop is relevant: ours stalls at least as long). (Timeloop has no stall:
// every level overlaps.) Each overlapped bound loses no more than the serial term adds (the
// narrowest is no wider than the port, DRAM or the bus, and ceil(a) + ceil(b) >= ceil(a + b)), so
// a single-buffered mapping never has fewer cycles than the same mapping double-buffered, and the
// energy is the same: it is tried only where the double-buffered working set does not fit, and
// then of the subsets of those operands (every subset of up to kSingleCandidates, else all of
// them) the one that fits with the fewest cycles (ties: the smaller working set, the earlier
// subset); none fits: all of them (the smallest working set). The floors below (cycles from
// the double-buffered bounds) stay floors.
//
// A global level (a cluster's LLB, DsaSpec::global_level) between the buffer and DRAM: when a
// mapping loads some input again and every input of the task (all its units' needed bytes)
// fits the global level, the re-reads are staged there, as the timeline stages them
// (dsa_model.cpp, "Staging"): DRAM gives each input's needed bytes once (written into the
// global level on the way), and the global level the re-reads over the cluster bus at the
// unit's equal share of it (global_bytes_per_cycle / cores_per_cluster, a fourth bound on the
// cycles); energy: the port's for every byte, DRAM's for the output and each input once, the
// global level's for each input once and every re-read. (The mapper does not know what other
// tensors the level holds when the task runs; the timeline falls back to DRAM when they leave
// no room.)
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dsamodel/array_nest.h"
#include "common/hw/dsa_spec.h"

namespace dgs {

struct NestInput {
  double needed = 0;      // bytes the unit's part needs
  double tile = 0;        // bytes one tile needs (whole reduction)
  uint32_t relevant = 0;  // bit l: loop l selects its tile
  bool reduced = false;   // an operand of the matrix op: its tile shrinks with the reduction
  // Held whole for the whole task (a weight the task pins, Task::pinned): loaded once, charged
  // in the working set at its needed bytes, whatever the loop order.
  bool resident = false;
};

// An operand of the array level that a tile's registers hold whole (ArrayNest::weights_held,
// inputs_held): its bytes read into the registers, summed over the tiles, and the loops that
// select it (as NestInput::relevant).
struct HeldOperand {
  double bytes = 0;
  uint32_t relevant = 0;
  bool reduced = false;  // the reduction chunks select it too (NestInput::reduced)
  // Its bytes held whole under 2^i reduction chunks (ChunkedArray::weights_held, inputs_held):
  // what the reduction loop's rule applies to when the chunks select it.
  std::array<double, 7> chunked{};
};

struct NestProblem {
  std::vector<double> trips;  // per output loop (> 1 each)
  std::vector<NestInput> inputs;
  double out_tile = 0;           // bytes of one output tile (all written tensors)
  double out_bytes = 0;          // bytes the unit's part writes
  double kept_tile = 0;          // intermediates of one tile (whole reduction)
  double kept_reduced_tile = 0;  // and those that shrink with the reduction chunks
  double reduction = 0;  // channels of the matrix op's reduction that may be tiled (0: none)
  // The reduction loop at any position of the order (else innermost only). On in the model: an
  // order that holds the partial sums of several tiles fills whatever room a smaller tile frees,
  // so a plan that sized its tile by the working set of the mapping at the whole buffer (halving
  // a tile while it is over a budget below that) would halve on to tiny tiles; the model maps a
  // task within the capacity its plan gives it (Task::buffer_bytes, dsa_task_capacity), the
  // budget its tile was sized against, so the halving stops at the first tile with a mapping
  // that fits (issue #23). false: the reduction innermost only (tests compare the two).
  bool reduction_anywhere = true;
  ArrayNest array;  // the unit's matrix work (empty without a matrix op)
  std::vector<HeldOperand> array_held;
  double other_cycles = 0;  // vector and data-movement cycles of the task's other ops
  double other_port_bytes = 0;
  double units = 1;  // units the task runs on (staging through a global level holds all theirs)
};

struct NestMapping {
  std::vector<int> order;  // loops, inner to outer (index trips.size() = the reduction)
  double reduction_chunks = 1;
  std::vector<double> loaded;  // per input: bytes loaded over the task (>= its needed bytes)
  std::vector<bool> once;      // per input: loaded once and kept for the whole task
  std::vector<double> held;    // per input: what the working set counts for it
  // Per input: held once though loaded more than once (single-buffered, above); and the output.
  std::vector<bool> single;
  bool single_output = false;
  double working_set = 0;
  double second_buffers = 0;  // of the working set, the second buffers of what is double-buffered
  // Bytes of single-buffered loads and stores serial to the compute (through the port), and the
  // cycles they add (the serial term above).
  double serial_bytes = 0;
  double stall_cycles = 0;
  double cycles = 0;
  double energy_pj = 0;  // the array's, the other ops' port traffic, every byte loaded or stored
  double tiles = 1;      // output tiles x reduction chunks
  // Of the array's port bytes (and so register writes), what stays in its registers across
  // tiles (array_held) and is not read again.
  double array_saved = 0;
  // Partial-sum bytes the array's registers would keep between chunks that cross its port
  // because the order runs other output tiles between them (ChunkedArray::sums_kept).
  double array_sums = 0;
  // The array's mapping under the reduction chunks: index into ArrayNest::chunked (its port bytes
  // and register bits before array_saved).
  size_t array_chunks = 0;
};

NestMapping map_buffer_nest(const NestProblem& p, const DsaSpec& spec, double capacity);

// A floor under the energy x cycles of every mapping of `p`'s task, whatever its tiling, whose
// output tile is `out_tile` bytes: every input loaded once, the output stored once, and only that
// output tile before the first compute or after the last (`p`'s own trips and tiles unused); of
// the array (`p.array`, the whole part as one tile, tiled_array_nest) its steps and fill and
// drain and its MACs' energy.
double nest_edp_floor(const NestProblem& p, const DsaSpec& spec, double out_tile);

// A floor under the energy x cycles of every mapping of `p` with its own loops (every order of
// its output loops, every reduction chunking, and the reduction loop at every position of the
// order, as map_buffer_nest tries them). Why each part is no more than a mapping's:
//  - loads: per order of the output loops, each input's bytes as map_buffer_nest counts them
//    with one chunk (its needed bytes if resident, else max(needed, tile x selecting trips) x the
//    trips of the loops that do not select it outside its innermost selecting one). The
//    reduction loop, wherever it lies, only adds to that: for an input it selects (a reduced
//    one) it may become the innermost selecting loop, which puts more non-selecting loops
//    outside it; for one it does not select, its chunks multiply the loads when it lies outside
//    the input's innermost selecting loop and leave them alone inside it. The partial sums it
//    holds stay in the buffer (no load or store), and the output is stored once whatever the
//    order. The least over the orders of the output loops is `least`.
//  - port: the array's port bytes less what its registers keep are not negative (what they keep
//    is an operand the registers hold whole, read once: no mapping reads it less), and the
//    partial sums an order sends through the port between chunks (NestMapping::array_sums) only
//    add, so the port carries at least the other ops' bytes and `least`.
//  - DRAM: `least` (or, when the inputs fit the global level that stages re-reads, the output
//    and every input once, which staging moves whatever the order).
//  - cycles: the longest of the array's steps (with the other ops'), the port and DRAM, plus fill
//    and drain and the edges: the output tile and every input's tile (a reduced one's divided by
//    the most chunks) at the narrower of the port and DRAM.
//  - energy: the array's MACs (its register and port energy less what the registers keep is not
//    negative; the partial sums between chunks only add), the other ops' port bytes, `least`
//    through the port and DRAM's bytes as above.
// (The working set, which an order holding several tiles' partial sums raises, is no part of
// the floor: a floor under the mappings that fit any capacity is one under those that fit.)
// Its array part is `p.array`'s (the tiles' own steps, fill and drain, MACs); the tile search
// also takes it with the whole part's in their place (dsa_tile_search.cpp, LeanFloor).
double nest_edp_floor_tiled(const NestProblem& p, const DsaSpec& spec);

// "K>P>C" style: the loops inner to outer, with `names` per output loop and 'R' the reduction.
std::string nest_order_name(const NestMapping& m, const std::vector<std::string>& names);

}  // namespace dgs
