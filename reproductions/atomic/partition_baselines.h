#pragma once
// The two resource-partitioning baselines of the Atomic Dataflow paper (Sec. II-B, Fig. 3,
// Sec. V-A), on the same atoms, plans and DSA model as LS and AD:
//
// CNN-P (CNN-Partition, Shen et al. ISCA'17 [51]): the engines are clustered into
// kCnnpClusters convolutional layer processors (CLPs), each a run of consecutive engines along
// the mesh's column-major snake order (a band of columns spanning every row, so that it reaches
// DRAM, which enters the mesh at the edges of every row, through every row). The matrix layers
// (convolutions, FC) are taken in segments of kCnnpClusters consecutive layers; inside a segment
// the i-th largest layer (by engine cycles, group_cycles) goes to the i-th CLP, so the CLPs'
// sizes, proportional to the engine cycles of the layers they run, match the layers (Shen et al.
// size their CLPs by the cycles their layers take on them). Every other op runs on the CLP of the
// matrix layer whose output it reads. Each layer of one sample is split over its CLP's engines,
// at most one piece per engine (split_over_region); the samples of a
// batch are pipelined at layer granularity: a CLP runs one sample's layer per step, all CLPs in
// parallel (Fig. 3a); every layer's input and output goes through DRAM (Sec. II-B: "each CLP reads
// inputs and weights from off-chip memory and write the outputs back to it"), a layer being a
// matrix layer with the other ops that read it (batch norm, ReLU, residual add, pooling): its
// intermediates stay in the CLP's buffers while they fit in half of them.
//
// IL-Pipe (inter-layer pipelining, Tangram [19], with its fine-grained ALLO pipelining): the
// matrix layers are taken in segments of kIlPipeSegmentLayers consecutive layers; each matrix
// layer of a segment gets a region of consecutive engines (column-major snake order, as the CLPs)
// proportional to its engine cycles (group_cycles; Tangram: "in proportion to the computation
// cost of each layer"; at least one engine; the regions of a segment partition all engines);
// every other op runs on the region of the matrix layer whose output it reads. Each sample's
// output rows are cut into kIlPipeRowBlocks blocks (the pipeline granularity), each block split
// over the region's engines, at most one piece per engine (split_over_region); a region runs one
// block per step, and a consumer starts on a block as soon as the producer blocks it reads are done
// (fine-grained pipelining). Outputs whose readers are all in the same segment stay on chip
// (forwarded over the mesh) while they fit in half the engine's buffer; the others go through DRAM.
//
// Both give an AtomSchedule whose Rounds are the pipeline steps (the model's stages: a barrier
// between steps, so a step lasts as long as its slowest region), turned into a plan by
// atom_plan like LS and AD.
#include <cstdint>
#include <vector>

#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {

// Choices the paper leaves open (stated in every output that uses them).
inline constexpr int kCnnpClusters = 4;         // Fig. 3a draws 3 CLPs; Shen et al. use 2-6
inline constexpr int kIlPipeSegmentLayers = 8;  // matrix layers pipelined together
inline constexpr int kIlPipeRowBlocks = 4;      // pipeline granularity: row blocks per sample

// Where every layer runs and how it is cut.
struct RegionLayout {
  std::vector<std::vector<int>> regions;  // flat engine ids of each region
  std::vector<int> region_of_layer;       // per layer (graph_layers order)
  std::vector<int> segment_of_layer;      // per layer
  std::vector<AtomShape> shapes;          // per layer
  // Per layer: rows of one pipeline block (0: a whole sample is one block).
  std::vector<int64_t> block_rows;
  // Per layer: outputs whose readers are all in the writer's domain may stay on chip (-1: never).
  std::vector<int> on_chip_domain;
  // Each engine keeps (pins, Task::pinned) the weights of a layer it runs across that layer's
  // blocks and samples, where they fit (IL-Pipe: a region holds its layer's weights while the
  // pipeline streams samples through it; CNN-P's CLPs read them from DRAM, Sec. II-B).
  bool pin_weights = false;
};

// `total` engines over items of `weights` (each at least one, summing to `total`):
// 1 + floor(w_i / W x (total - n)), the rest by the largest remainders (ties: lower index).
// Requires 1 <= n <= total.
std::vector<int> proportional_engine_counts(const std::vector<double>& weights, int total);

// Per layer: the index (in `layers`) of the matrix layer it belongs to: a matrix layer itself;
// another op the group of the op producing its first input that is a layer output; an op reading
// only graph inputs the first matrix layer's. -1 for every layer when there is no matrix layer.
std::vector<int> matrix_group_of_layers(const Graph& g, const std::vector<Layer>& layers);

// One layer cut into `row_blocks` blocks of output rows (rank-4 outputs), each block (or the
// whole sample) split over a region of `parts` engines: into output-channel pieces (multiples of
// the PE columns for matrix layers, as LS splits a layer), row pieces (within a block: its rows)
// and column pieces, even cuts (baselines.h even_cut), at most `parts` of them, so that every
// engine of the region runs at most one piece of a block. A CLP splits a layer over its engines;
// it does not hand some of them two pieces while the others wait, as a cut into more pieces than
// engines dealt round the region does (256 channels of 14 x 14 on 24 engines as 16 channel x 2
// row pieces: 8 engines run two, the region's step lasts twice a piece). Of these cuts the one
// whose largest piece (the first) takes the fewest engine cycles (atom_cost: its array's or
// vector unit's cycles, so a slice too thin for the array loses to a thicker one); ties: the
// fewer loaded bytes (each piece its output channels' weights and its rows' and columns'
// activations), then the fewer pieces. Also gives the block rows (0: not blocked).
std::pair<AtomShape, int64_t> split_over_region(const Graph& g, const Layer& l, int64_t parts,
                                                int64_t row_blocks, const DsaSpec& spec);

// Per matrix layer: the cycles one engine takes for one sample of it and of the other ops of its
// group (matrix_group_of_layers; an op without the batch on axis 0: its whole cost / the batch),
// atom_cost of their whole outputs: the computation a region running the group has per sample.
// 0 for the other layers. The regions are sized by it, not by MACs: a depthwise convolution,
// which KC-P runs on one PE of 256 (unit_cost.h), or a one-pixel FC (a squeeze-and-excitation
// layer, fill and drain per fold) needs far more engine cycles per MAC than a dense convolution,
// and a region sized by its MACs would hold up every step of the pipeline while the others wait.
std::vector<double> group_cycles(const Graph& g, const std::vector<Layer>& layers,
                                 const DsaSpec& spec);

RegionLayout cnnp_layout(const Graph& g, const std::vector<Layer>& layers, const DsaSpec& spec,
                         int clusters = kCnnpClusters);
RegionLayout ilpipe_layout(const Graph& g, const std::vector<Layer>& layers, const DsaSpec& spec,
                           int segment_layers = kIlPipeSegmentLayers,
                           int row_blocks = kIlPipeRowBlocks);

// The pipeline steps as Rounds: the atoms of each layer grouped by (sample, row block), each
// group at the earliest step after its producers' steps (and after the layer's previous group)
// at which every engine of its region is free of other matrix layers' work; within a group, the
// k-th atom on the k-th engine of the region (modulo its size). An output whose readers are all
// in its writer's on-chip domain stays on chip while its engine's kept outputs, over the
// steps from its write to its last read, fit in half the buffer (the other half holds the atoms'
// working sets, atom_task.h); the others go through DRAM. With `pin_weights`, first each
// engine's first atom of a layer pins the weights it reads while the engine's pinned weights over
// the steps from that atom to the layer's last atom there fit in that half (first come, first
// pinned); the kept outputs share what is left of it.
AtomSchedule region_pipeline_schedule(const Graph& g, const AtomicDag& dag,
                                      const RegionLayout& layout, const DsaSpec& spec);

}  // namespace dgs::atomic
