#pragma once
// The layer-sequential baseline (LS, Sec. II-B): one layer at a time, each split evenly over all
// engines (output channels first, in multiples of the PE array's columns, then rows, then
// columns of the output), the samples of a batch mapped side by side (batch mapping); every
// output goes to DRAM. Also the per-layer PE utilisation of Fig. 2.
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

// Shapes cutting each sample of every layer into ceil(engines / batch) even parts.
std::vector<AtomShape> ls_shapes(const std::vector<Layer>& layers, const DsaSpec& spec, int batch);

// One Round per layer holding all its atoms, round robin over the engines; nothing kept on chip.
AtomSchedule ls_schedule(const AtomicDag& dag, const DsaSpec& spec);

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
