#pragma once
// Atom generation (Algorithm 1 of the Atomic Dataflow paper): simulated annealing over a unified
// target cycle count S; each step moves S by rand(-1, 1) x Len and gives every layer the atom
// shape whose cycles are closest to S; the energy is the spread of all atoms' cycles. The paper
// gives none of the constants; they are named here (AnnealConstants) and reported.
//
// Deviations (stated in the notes of every item that uses it):
//  - energy: the squared coefficient of variation (Var / Mean^2) of the cycles of every atom (each
//    layer's representative atom weighted by its atom count), not the absolute Var, which drifts
//    toward ever smaller atoms that lose utilisation;
//  - shape choices per layer: powers of two (and the whole axis) for rows, columns, output and
//    input channels, from the PE array's size for the channel axes, keeping atoms whose working
//    set (as the DSA model counts an untiled task's: inputs, weights and output once) fits half
//    the engine buffer (the budget of the atoms' tiles, atom_task.h; the other half holds kept
//    outputs), and for matrix layers with at least half the layer's best utilisation
//    (half_performance_options: target (1));
//  - Cycle(Atom) (the paper's MAESTRO cycles): the modelled cycles of the atom on its engine
//    alone (ShapeOption::cycles: its loads, the array with its port, its store), not the compute
//    cycles alone, so that a shape that loads more per MAC ranks as the slower one it is.
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/atoms.h"

namespace dgs::atomic {

struct ShapeOption {
  AtomShape shape;
  // The modelled cycles of the layer's first (full-size) atom on one engine alone: its loads,
  // its compute (compute_cycles) and its store, the data at the narrower of the local port and
  // the engine's equal share of DRAM. The shapes are ranked and chosen by these.
  double cycles = 0;
  double compute_cycles = 0;  // the array (with its port, array_nest.h) or the vector unit
  double macs = 0;            // of that atom
  int64_t atoms = 1;          // per sample
  int64_t working_bytes = 0;  // its inputs, weights and output (the model's untiled working set)
};

// The fraction of the PE array's peak that an option's atom uses: MACs / (compute cycles x peak
// MACs per cycle); 0 without a matrix unit.
double option_utilisation(const ShapeOption& o, const DsaSpec& spec);

// Target (1) of Sec. IV-A, high PE utilisation of every atom: keeps the options whose utilisation
// is at least half the best of the layer's options (never empty). The paper takes target (1) to
// follow from making the spatially unrolled dimensions multiples of the PE array; in the shared
// unit cost an atom also pays the array's fill and drain and waits on the 64-bit port for
// operands its registers cannot keep, so atoms with few pixels (KC-P) or few reduction steps
// (YX-P) spend most cycles filling the array or feeding it, and divisibility alone does not keep
// it busy. The half is not tuned: it is the half-performance point (Hockney's n_1/2), where an
// atom computes for as many cycles as it spends on that overhead, the standard boundary between
// startup-bound and throughput-bound work on a pipeline. Without it the SA (energy: spread of
// cycles over all atoms) chose 3x3-convolution atoms of a few pixels per fold on ResNet-50
// (matrix-cycle utilisation 25%, the even split's 62%, with the old per-fold fill and drain).
std::vector<ShapeOption> half_performance_options(std::vector<ShapeOption> options,
                                                  const DsaSpec& spec);

// Every layer's shapes, each priced, sorted by cycles, none left out.
std::vector<std::vector<ShapeOption>> all_shape_options(const Graph& g,
                                                        const std::vector<Layer>& layers,
                                                        const DsaSpec& spec);
// Of those, per layer, the ones whose working set fits `budget` (at least one: the smallest) and,
// for matrix layers, those of half_performance_options.
std::vector<std::vector<ShapeOption>> admitted_shape_options(
    const std::vector<Layer>& layers, const std::vector<std::vector<ShapeOption>>& all,
    int64_t budget, const DsaSpec& spec);
// The shape options of every layer under the default budget, half the engine buffer.
std::vector<std::vector<ShapeOption>> shape_options(const Graph& g,
                                                    const std::vector<Layer>& layers,
                                                    const DsaSpec& spec);

struct AnnealConstants {
  int iterations = 1000;        // ite_max
  double step_fraction = 0.25;  // Len = step_fraction x the initial mean cycles
  double cooling = 0.95;        // lambda
  double stop_cv = 0.02;        // eps = stop_cv^2 (energy is a squared CV)
  // Temp0 = the initial energy.
  bool operator==(const AnnealConstants&) const = default;
};

struct AnnealResult {
  std::vector<int> choice;     // option index per layer
  std::vector<double> energy;  // accepted energy after each iteration (Fig. 5b)
  int evaluations = 0;         // energy evaluations
  double target_cycles = 0;    // the state S of the accepted choice (SA only)
};

// Lines 11-14 of Algorithm 1: per layer, the option whose cycles are closest to `target` (ties:
// the smaller).
std::vector<int> shapes_at_target(const std::vector<std::vector<ShapeOption>>& options,
                                  double target);

// The energy of a choice (see the file comment).
double shape_energy(const std::vector<std::vector<ShapeOption>>& options,
                    const std::vector<int>& choice);

AnnealResult anneal_atom_shapes(const std::vector<std::vector<ShapeOption>>& options,
                                const AnnealConstants& k, uint64_t seed);

// The genetic-algorithm comparison of Fig. 5b on the same number of energy evaluations:
// population 20, tournament of 3, uniform crossover per layer (p 0.8), per-layer mutation (p 0.1,
// a random option), one elite; energy[i] = the population mean of generation i.
AnnealResult genetic_atom_shapes(const std::vector<std::vector<ShapeOption>>& options,
                                 int evaluations, uint64_t seed);

std::vector<AtomShape> chosen_shapes(const std::vector<std::vector<ShapeOption>>& options,
                                     const std::vector<int>& choice);

// AD's atoms as every item runs them: the layers' shape options, Algorithm 1 with the default
// AnnealConstants and `seed`, and the atomic DAG of the chosen shapes.
AtomicDag sa_atomic_dag(const Graph& g, const DsaSpec& spec, uint64_t seed);

}  // namespace dgs::atomic
