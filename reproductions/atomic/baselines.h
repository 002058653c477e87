#pragma once
// The layer-sequential baseline (LS, Sec. II-B): one layer at a time, each split evenly over all
// engines (output channels first, in multiples of the PE array's columns, then rows, then
// columns of the output), the samples of a batch mapped side by side (batch mapping); a layer's
// output goes to DRAM. What a "layer" is there is an open choice (LsLayer). Also the per-layer
// PE utilisation of Fig. 2.
#include <cstdint>
#include <utility>
#include <vector>

#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {

// A piece size cutting `extent` into about `parts` pieces (a multiple of `quantum`; 0 = the
// whole extent), and the number of pieces it gives.
std::pair<int64_t, int64_t> even_cut(int64_t extent, int64_t parts, int64_t quantum);

// What LS's "layer" is. The paper is silent: Sec. II-B runs "DNN layers one-at-a-time" and
// "evenly partition[s] each layer across multi-engines" without saying whether a batch norm,
// ReLU, residual add or pooling that follows a convolution is a layer of its own whose input and
// output cross DRAM; Sec. II-A has "element-wise layers such as ReLu, sigmoid, pooling, and
// batch-normalization ... executed by the vector unit" of each engine, beside the array and
// buffer that hold the convolution's output.
enum class LsLayer : uint8_t {
  // Every graph op is a layer: each output goes to DRAM and the next op reads it back (the
  // suite's LS before issue #23).
  Op,
  // A conv/FC with the ops CNN-P and IL-Pipe run with it (matrix_group_of_layers,
  // partition_baselines.h: its batch norm, ReLU, residual add, pooling): still one op per Round,
  // but the group's other ops run on the engines that hold what they read (an op of the output
  // shape of its group's matrix layer is cut as that layer, so its k-th atom reads the k-th
  // atom's output in place), and an output whose readers are all in its group stays in its
  // engine's buffer while the engine's kept outputs fit in half of it (the other half holds the
  // atoms' working sets, atom_task.h); the others go to DRAM. As an accelerator's vector unit
  // applies them to a convolution's output before writing it back (NVDLA, whose dataflow is the
  // paper's KC-P), and as the suite's CNN-P, IL-Pipe and AD keep them on chip.
  MatrixGroup
};
// The choice every LS output of the suite uses (named in the notes of the items that run LS).
inline constexpr LsLayer kLsLayer = LsLayer::MatrixGroup;
// A short text of `k` for notes.
const char* ls_layer_text(LsLayer k);

// Shapes cutting each sample of every layer into ceil(engines / batch) even parts (MatrixGroup:
// an op of its group's matrix layer's output shape cut as that layer).
std::vector<AtomShape> ls_shapes(const Graph& g, const std::vector<Layer>& layers,
                                 const DsaSpec& spec, int batch, LsLayer kind = kLsLayer);

// One Round per layer (op) holding all its atoms, round robin over the engines from engine 0;
// Op: nothing kept on chip; MatrixGroup: outputs kept in their group as LsLayer says
// (keep_domain_outputs_on_chip with the group as the domain).
AtomSchedule ls_schedule(const Graph& g, const AtomicDag& dag, const DsaSpec& spec,
                         LsLayer kind = kLsLayer);

// Marks on chip (s.on_chip) each output whose readers all belong to the writer's domain
// (`domain_of_layer`, per layer; -1: never kept) while its engine's kept bytes, over the Rounds
// from its write to its last read, stay within `budget` with it; first come (Round order, then
// the Round's atom order), first kept; the others go through DRAM. `kept` (per engine, per
// Round: bytes already held there, e.g. pinned weights) is updated.
void keep_domain_outputs_on_chip(const AtomicDag& dag, const std::vector<int>& domain_of_layer,
                                 int64_t budget, std::vector<std::vector<int64_t>>& kept,
                                 AtomSchedule& s);

struct LayerUtilisation {
  int layer = -1;
  double macs = 0;
  double cycles = 0;       // the busiest engine's compute cycles (no communication)
  double utilisation = 0;  // macs / (cycles x engines x MACs per cycle per engine)
};
// For every matrix layer (convolutions and FC): the compute-only utilisation of its Round(s).
std::vector<LayerUtilisation> layer_utilisation(const AtomicDag& dag, const AtomSchedule& s,
                                                const DsaSpec& spec);

// Each Round's compute-only length: the largest of its engines' summed atom cycles (no
// communication), the denominator's Round length of Table II's utilisation and its factors.
std::vector<double> round_lengths(const AtomicDag& dag, const AtomSchedule& s);

// Table II's layer utilisation (layer_utilisation_pct: per matrix layer, MACs / (sum over its
// Rounds of the Round's length x the engines it uses there x MACs per cycle)) as a product of
// three factors per layer, each averaged over the matrix layers as the utilisation is:
//   rounds: the layer's own busiest engine's cycles in each Round / the Round's length (the
//     busiest engine of the Round, whatever it runs): below 1 where another region's work or
//     vector ops sharing the Round set its length (a pipeline's unbalanced regions);
//   engines: the layer's summed atom cycles / (its busiest engine's cycles x its engines) per
//     Round: below 1 where its atoms load its engines unevenly;
//   array: MACs / (summed atom cycles x MACs per cycle): the array's use within an engine's
//     compute cycles (channels short of the PE rows or columns, fill and drain, port stalls).
// (The utilisation counts only the engines a layer's atoms use in a Round, not the others of its
// region.)
struct UtilisationFactors {
  double rounds = 0, engines = 0, array = 0;
};
UtilisationFactors utilisation_factors(const AtomicDag& dag, const AtomSchedule& s,
                                       const DsaSpec& spec);

}  // namespace dgs::atomic
