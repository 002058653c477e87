#pragma once
// The array level of a matrix op's loop nest on one core or engine: how the PE array is fed from
// the local buffer's port, and what its register files keep (the public loop-nest cost models,
// Timeloop and ZigZag, count the same way; tools/validate_dsa holds ours against ZigZag).
//
// The problem: a region of a convolution or matrix product, as g groups, P output pixels (GEMM
// rows), K output channels (GEMM columns) and C reduction channels per group, and T kernel taps.
// The dataflow unrolls two of its loops over the R x C array (matrix_tile_rows x
// matrix_tile_columns), s = matrix_macs_per_cycle / (R x C) MACs per PE per cycle, and runs the
// rest in time, one step per cycle:
//   kc (weight stationary, NVDLA-like; MAESTRO's KC-Partition, as the atom-based schedulers of
//     reproductions/ use it): the
//     reduction channels over the rows, the output channels over the columns; steps over
//     P / s pixels, K / C output-channel folds, C / R reduction folds and T taps. A step takes
//     one input per row (broadcast along it), uses the weights in the PEs, and gives one partial
//     sum per column (added down it).
//   yx (output stationary, ShiDianNao-like, MAESTRO's YX-Partition): the output pixel grid's
//     rows and columns over the array (a GEMM: its rows down the array and one column, H = rows,
//     W = 1 as for FC layers); steps over the pixel folds, K output
//     channels, C / s reduction channels and T taps. A step broadcasts one weight, takes one
//     input per PE and adds into one partial sum per PE.
// Register files (DsaSpec): under kc a PE keeps pe_weight_registers weights (of as many folds),
// a row pe_input_registers inputs and a column pe_output_registers partial sums; under yx the
// array keeps pe_weight_registers broadcast weights and each PE pe_input_registers inputs and
// pe_output_registers partial sums, and the PEs pass inputs to their neighbours as the fold
// moves over the taps (ShiDianNao), so a fold reads its input window once per channel when the
// array's input registers hold it (else one input per PE per step).
// The loops: the pixels and the output channels each split into an inner part (1, 2, 4, ...
// trips, and for the pixels with the sliding window below also any block of whole output
// columns; the pixels' innermost, together no more than the largest register file holds) and an
// outer part; the outer parts, C and T in any of their 24 orders above them. Each operand keeps in
// its registers the innermost loops whose combinations of its relevant dimensions fit (weights: K,
// C, T; inputs: P, C, T; partial sums: P, K), splitting the first loop that does not fit, and is
// read from the local buffer again each time a loop above that cut changes what it holds, except
// loops irrelevant to it that lie inside every relevant loop above the cut (it stays). Partial
// sums whose reduction loops lie above their cut go to the buffer and come back
// (partial_sum_bytes each); finished outputs are written once. A register is read once per step
// and PE (kc weights, yx inputs) or row (kc inputs), except while consecutive steps use the same
// datum (a loop of one trip does not end that run); a partial sum is read and written every step.
// The sliding input window (kc): a conv's taps are FY kernel rows x FX kernel columns, and an
// output column and a kernel column select one input column together (input column = ox x
// stride + fx x dilation: matrix_shape reads FX, the stride and the dilation from the op's
// iteration space). Where the pixels' inner part is a block of OX_b >= 2 output columns of one
// row of the region's pixel grid (its trips x the pixels a step takes divide the region's
// columns; any such OX_b, not only a power of two: 7 or 14 on a 14-wide region, where the powers
// of two give 2 at most), the mapping may run all FX kernel columns as one more inner loop, above
// the output channels' inner part (the taps' loop above then runs the FY kernel rows): a row's
// input registers hold that block's sliding window, (OX_b - 1) x stride + (FX - 1) x dilation + 1
// inputs where the taps as one loop hold OX_b x FX, and the inputs' fetches from the buffer are
// scaled by window / (OX_b x FX) (each block's window read once per pass; the FX - 1 columns
// that consecutive blocks share are read again, as ZigZag counts a loop block's data). Offered
// only where the window fits a row's input registers; the weights count the FX loop as taps, the
// partial sums as a reduction loop. Left open by the papers (MAESTRO's KC-Partition names the
// spatial loops, not the temporal ones) and by ZigZag (LOMA orders OX and FX freely): ours
// offers FX at this one position only (whole, innermost above the inner parts), no window along
// the kernel rows (OY with FY), and none under yx (its PEs pass a fold's window between them,
// above). A pixels' inner part of other than a power of two trips is offered with the window only:
// with the window the block must divide the row, which on 7-, 14-, 28- and 56-wide rows leaves the
// powers of two 2, 4 or 8 at most; without it a block of other trips would only fill the registers
// more closely (P12 in 12 input registers where P8), a refinement left out to keep those mappings
// and the search's cost as they were.
// The mapping with the least energy x cycles (the MACs', registers' and port's energy; ties: fewer
// cycles; the port's cycles count the task's loads and stores that share it) is the one used: the
// objective of every mapper of the model (and of ZigZag's search in tools/validate_dsa).
//
// Reduction chunks: a buffer level that runs the reduction in n chunks (buffer_nest.h) loads a
// chunk's inputs and weights and runs the array through all of that chunk before the next (its
// reduction loop lies outside every output tile it keeps partial sums for, and a tile's array
// work lies inside it), so the chunks are the array nest's outermost loop, and each chunk count
// has its own nest: the reduction-fold loop at ceil(C folds / n) trips (the chunks fall on
// reduction-fold boundaries), in any order with the others, under the chunk loop of n trips.
// Its fetches, port bytes, register bits and energy are counted on that nest as above, so the
// partial sums' trips between chunks follow from it: the chunk loop is irrelevant to the outputs
// and encloses every loop, so each output crosses the port once per chunk but the last (written
// and read back) unless the partial-sum registers hold every output of the nest (then they stay
// through the chunks); and a chunk's weights or inputs stay in the registers through the
// chunk's loops that do not select them when that chunk's part fits. The mapping is chosen per
// n = 1, 2, 4, ..., 64 (ArrayNest::chunked; a count above the reduction folds, which the buffer
// level never asks for, takes the largest count's that is not).
//
// Register refills (kc): an operand whose registers hold a set of w of their R entries (the
// weights, R = pe_weight_registers a PE; the partial sums, R = a column's) and change sets
// several times (`passes`) can preload the next set while the current one is in use only into
// the R - w registers it leaves free. While w <= R / 2 that is all of it: double-buffered, no
// stall. Above that the other 2w - R of each refill cross the port only after the registers the
// last pass frees: within the last pass of the irrelevant loops at the top of what its registers
// keep (the cycles of the loops inside the cut over the trips of those irrelevant loops), or the
// array waits: per refill ceil(max(0, (2w - R) / w x refill bytes / bandwidth - last-pass cycles)),
// refill bytes the operand's port bytes over its passes (partial sums: written and read back,
// finished outputs written), the port assumed the refill's alone in that window;
// groups x passes - 1 refills a nest (an operand that holds one set per group, passes = 1, is
// charged none, also between groups, though each group brings a new set: a simplification).
// w = R: the whole refill waits (the same rule). No irrelevant loop at the top: no stall (each
// entry is freed as soon as it is used and the refill streams in behind the pass, which the port
// bound covers). R = 1: the weights are left to the per-fold fill and drain below; partial sums
// in fewer than two registers are charged no stall, there or here (the shipped configs have 24 a
// column). A tiled nest (tiled_array_nest) counts each tile's refills and each next tile's first
// set as one more, less one refill of the first tile listed (not necessarily the first to run:
// off by at most the difference of two tiles' refills). ZigZag
// (tools/validate_dsa README (g)) makes the whole refill wait once w > R / 2. The cycles add
// this stall to the steps (`steps` stays the array's steps); the search's floors leave it out
// (it is >= 0, so they stay lower bounds). Not under yx.
//
// Cycles: the steps and the refill stall, bounded below by the port (bytes read and written /
// local bandwidth), plus the array's fill and drain (R + C - 2 cycles) and fold_overhead per fold.
// Fill and drain overlap across folds when the stationary operand's registers hold two folds (kc: 2
// weights per PE, the next fold's weights preloaded; yx: 2 partial sums per PE, the previous fold
// drains while the next starts): once per task; otherwise once per fold.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/hw/dsa_spec.h"

namespace dgs {

struct ArrayShape {
  double groups = 1;      // groups the region touches
  double pixels = 0;      // output pixels (GEMM rows), all images of the region
  double pixel_rows = 1;  // the pixel grid (images stacked along rows); a GEMM: its rows
  double pixel_columns = 1;
  double k = 0;     // output channels (GEMM columns) per group
  double c = 0;     // reduction channels per group
  double taps = 1;  // kernel taps per output element
  // kc: a conv's kernel columns (FX, of the taps; 1: none, or the region splits them) and the
  // input columns between consecutive output columns and between consecutive kernel columns (the
  // iteration space's stride and dilation): the sliding input window.
  double kernel_columns = 1;
  double column_stride = 1, column_dilation = 1;
  // yx: input elements (per channel) that one fold of the pixel grid reads over all its taps,
  // which its PEs share by passing them to their neighbours (ShiDianNao's FIFOs), the mean over
  // the region's folds (a narrower fold at its edge reads a smaller window); 0: none.
  double input_window = 0;
  // Bytes the task's loads and stores move through the same port while the array computes (a
  // tiled task's): they compete with the operands for it.
  double port_sharing_bytes = 0;
  double macs() const { return groups * pixels * k * c * taps; }
};

// The shape of op `op` (Conv, ConvTranspose, Gemm, MatMul) computing `region` of its output 0 on
// `spec`'s array, with the fraction `fraction` of its reduction axis `axis` ("c_in", "k" or a
// kernel axis; "" = the whole reduction).
ArrayShape matrix_shape(const Graph& g, int op, const Region& region, const DsaSpec& spec,
                        const std::string& axis = "", double fraction = 1.0);

struct ChunkedArray {
  double port_bytes = 0, register_bits = 0, energy_pj = 0;
  double refill_stall = 0;  // cycles the array waits for register refills (kc; above)
  double refill_each = 0;   // of one refill (a tiled nest: its first listed tile's)
  // Of its weight and input bytes, an operand's when its registers hold all of what one chunk
  // selects (read once per chunk: it can stay across buffer tiles that change neither it nor the
  // chunk, buffer_nest.h's rule with the reduction loop selecting it; unchunked, as
  // ArrayNest::weights_held); and the partial-sum bytes its registers keep between the chunks
  // (every output of the nest held: written and read back once per chunk but the last), which
  // cross the port when the buffer level runs other tiles between two chunks (buffer_nest.h).
  double weights_held = 0, inputs_held = 0, sums_kept = 0;
  double pixels_inner = 1, channels_inner = 1, kernel_columns_inner = 1;
  std::array<char, 4> order{'P', 'K', 'C', 'T'};
};

struct ArrayNest {
  double macs = 0;
  double folds = 0;
  double steps = 0;          // cycles the array computes (all folds)
  double refill_stall = 0;   // cycles it waits for its register refills (kc; above)
  double refill_each = 0;    // of one refill (a tiled nest: its first listed tile's)
  double fill_cycles = 0;    // fill and drain (and fold_overhead)
  double weight_bytes = 0;   // read from the local buffer into the registers
  double input_bytes = 0;    // read from the local buffer into the registers
  double output_bytes = 0;   // outputs written, partial sums written and read back
  double register_bits = 0;  // register-file reads and writes
  // Of weight_bytes and input_bytes, an operand's when its registers hold all of it (read once:
  // then it can stay there across buffer tiles that do not change it, buffer_nest.h); else 0.
  double weights_held = 0;
  double inputs_held = 0;
  double energy_pj = 0;  // MACs, registers and port traffic
  // The best mapping when the buffer level runs the reduction in 2^i chunks (above: each count
  // on its own nest; [0]: the mapping above, unchunked): its port bytes, register bits and energy
  // (the partial sums between chunks included) and its loops. A tiled nest sums them over the
  // tiles (the first tile's loops).
  std::array<ChunkedArray, 7> chunked{};
  double pixels_inner = 1;          // the innermost loop: this many of the pixel loop's trips
  double channels_inner = 1;        // the next: this many of the output-channel loop's trips
  double kernel_columns_inner = 1;  // the next (kc): the kernel columns (all of them) or 1
  std::array<char, 4> order{'P', 'K', 'C', 'T'};  // the loops above them, inner to outer
  double port_bytes() const { return weight_bytes + input_bytes + output_bytes; }
  double array_cycles() const { return steps + refill_stall + fill_cycles; }
  // The cycles on the array with `other_port_bytes` more through the same port (DMA fills and
  // stores of the task): the port and the array overlap, the longer one counts.
  double cycles(double port_bandwidth, double other_port_bytes = 0) const;
};

ArrayNest array_nest(const ArrayShape& s, const DsaSpec& spec);

// A tiled task's array level (buffer_nest.h): each buffer tile the array computes is its own
// array nest, of the tile's shape (its folds rounded up per tile: a tile of 1 output channel
// under kc uses 1 of the array's columns, one of 7 x 7 pixels under yx 49 of its PEs), with its
// own best mapping; the tiles' steps, folds, port bytes, register bits and energy are summed
// (`tiles`: each distinct tile shape, the interior one first, and how many tiles have it, edge
// tiles included), and their refill stalls, each next tile's first set counted as a refill (it
// comes in as the tile before runs its last pass). Fill and drain: once for all the tiles when they
// overlap across folds (the next tile's first fold is preloaded as a next fold is), else per fold;
// fold_overhead per fold. The mapping reported (pixels_inner, channels_inner, order) is the first
// shape's. What each tile reads into its registers is counted per tile here; an operand a tile's
// registers hold whole stays there across the tiles that do not change it (the buffer level's loop
// order decides which: map_buffer_nest, buffer_nest.h).
struct ArrayTile {
  ArrayShape shape;
  double count = 1;
};
ArrayNest tiled_array_nest(const std::vector<ArrayTile>& tiles, const DsaSpec& spec);

}  // namespace dgs
