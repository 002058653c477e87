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

}  // namespace dgs::atomic
