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
//    set fits half the engine buffer (double buffering).
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"
#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/atoms.h"

namespace dgs::atomic {

struct ShapeOption {
  AtomShape shape;
  double cycles = 0;  // of the layer's first (full-size) atom
  int64_t atoms = 1;  // per sample
  int64_t working_bytes = 0;
};

// Every layer's shape options, sorted by cycles (at least one each).
std::vector<std::vector<ShapeOption>> shape_options(const Graph& g,
                                                    const std::vector<Layer>& layers,
                                                    const DsaSpec& spec);

struct AnnealConstants {
  int iterations = 1000;        // ite_max
  double step_fraction = 0.25;  // Len = step_fraction x the initial mean cycles
  double cooling = 0.95;        // lambda
  double stop_cv = 0.02;        // eps = stop_cv^2 (energy is a squared CV)
  // Temp0 = the initial energy.
};

struct AnnealResult {
  std::vector<int> choice;     // option index per layer
  std::vector<double> energy;  // accepted energy after each iteration (Fig. 5b)
  int evaluations = 0;         // energy evaluations
};

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

}  // namespace dgs::atomic
