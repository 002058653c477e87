#pragma once
// Atomic-DAG scheduling (Algorithm 2), atom-engine mapping (Eq. 2, Fig. 7) and buffering
// (Algorithm 3) of the Atomic Dataflow paper, and the plan they give (Plan v2: one stage per
// Round, one task per atom on its engine).
//
// Scheduling: Rounds of at most N atoms (N engines). Each Round takes the ready atoms (every
// producer atom done) by the four priority rules, in order: (1) atoms of layers already started,
// (2) atoms of layers at the depth of the shallowest unfinished layer, (3) other ready atoms of
// dependent layers, (4) atoms of later samples only when the current sample's ready atoms cannot
// fill the Round. Within a level, shallower layers first, then layer order, then atom order.
// NOT YET the paper's DP: this is the greedy fill (one option per Round, which is what the
// priority rules reduce the DP to when every level but the deciding one is taken whole); the
// memoised search over the deciding level's options is not implemented.
//
// Mapping: the Round's atoms are laid along the mesh's snake order, layer after layer, from the
// slot after the previous Round's last atom (the paper does not say where a Round starts; starting
// every Round at engine [0,0] crowded the small Rounds, and their traffic, into row 0: busiest
// link 31 -> 12 MB, ResNet-50 AD 14.7 -> 13.5 ms at batch 1); the order
// of the M layers of a Round is the permutation minimising Eq. 2 (sum of hops x bytes from the
// engines holding each atom's producer atoms); M! permutations up to M = 6, above that the order
// of first appearance.
//
// Buffering: each engine keeps the outputs it wrote until the last Round that reads part of them
// (as the DSA model keeps a locally scoped region); when an atom is
// about to start on an engine whose kept outputs plus the atom's working set (the model's own,
// atom_task.h: one accounting) exceed the buffer, Algorithm 3 picks the kept output with the
// largest size x Rounds until its next use (the paper prints `occupation <- inf` with `>=`, which
// never selects anything; we start from -inf as intended) and writes it back to DRAM, until the
// atom fits; outputs with no later reader are released without a write-back. A written-back
// output's task gets the DRAM scope in the plan, so the model accepts every plan it gives.
#include <cstdint>
#include <string>
#include <vector>

#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"
#include "reproductions/atomic/atoms.h"

namespace dgs::atomic {

struct AtomTiling;  // atom_task.h

struct Round {
  std::vector<int> atoms;    // atom ids
  std::vector<int> engines;  // snake slot -> flat engine id (y * columns + x), per atom
  double cycles = 0;         // the longest atom's compute cycles
};

struct AtomSchedule {
  std::vector<Round> rounds;
  std::vector<int> round_of;   // per atom
  std::vector<int> engine_of;  // per atom
  std::vector<bool> on_chip;   // per atom: its output stays in its engine's buffer
  // Per atom (empty: none): its task pins the weights it reads on its engine (Task::pinned).
  std::vector<bool> pins;
  double transfer_byte_hops = 0;  // Eq. 2 summed over the Rounds
  int64_t write_backs = 0;        // outputs Algorithm 3 wrote back
  // Per atom (empty: none), the tiling Algorithm 3 sized its working set with, on the config whose
  // contents are numbered tilings_contents (AtomTilings::contents), where that tiling lasts
  // (AtomTilings::last_lasting; nullptr otherwise): atom_plan on that config takes it instead of
  // looking it up again (the same entry of the same cache).
  std::vector<const AtomTiling*> tilings;
  uint32_t tilings_contents = 0;
};

struct ScheduleOptions {
  bool priority_rules =
      true;  // false: ready atoms in atom order (layer by layer, sample by sample)
  bool mapping_search = true;  // false: layers in order of first appearance
  bool on_chip_reuse = true;   // false: every output goes to DRAM
  // An optional cap on the bytes of kept outputs per engine (0: none beyond the buffer).
  int64_t resident_capacity = 0;
};

AtomSchedule schedule_atoms(const Graph& g, const AtomicDag& dag, const DsaSpec& spec,
                            const ScheduleOptions& o);

// Eq. 2 for one Round: sum over its atoms of bytes of each producer atom x hops from the engine
// holding it to the atom's engine (`engine_of` of producers; -1 = not on chip).
double round_transfer_cost(const AtomicDag& dag, const DsaSpec& spec, const std::vector<int>& atoms,
                           const std::vector<int>& engines, const std::vector<int>& engine_of);

// The snake placement of a Round whose atoms are grouped by `layer_order` (each layer's atoms in
// the Round, in atom order), from snake slot `first_slot`: the flat engine of each atom.
std::vector<int> snake_placement(const AtomicDag& dag, const DsaSpec& spec,
                                 const std::vector<int>& atoms, const std::vector<int>& layer_order,
                                 int first_slot = 0);

// The plan: one stage per Round; every atom a task of its op on its engine, writing its region
// (and its input-channel slice as a partial sum), scope local when its output stays on chip,
// tiled as atom_task.h says.
Plan atom_plan(const Graph& g, const AtomicDag& dag, const AtomSchedule& s, const DsaSpec& spec,
               const std::string& scheduler);

}  // namespace dgs::atomic
