#pragma once
// One atom as a Plan v2 task, and the one accounting of buffer bytes that the buffering
// (schedule.h, Algorithm 3) and the DSA model (common/dsamodel) share: an atom's working set is
// the model's own (dsa_task_estimate's working_set_bytes of the atom's task), so a schedule whose
// buffering keeps `resident + working set <= buffer` on every engine in every Round is one the
// model accepts.
//
// Tiling: an atom runs tile by tile (double-buffered, in the loop order the DSA model's loop
// nest chooses, common/dsamodel/buffer_nest.h) with the tile dsa_task_tile gives for half its
// engine's buffer (the other half holds kept outputs): the least energy x cycles of its loop
// nest among the halvings of its region whose working set fits (a whole region as its one
// tile may still run its reduction in chunks); a tiled atom's task is mapped within that half
// too (Task::buffer_bytes), as the tile was priced.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/sliding_axes.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"
#include "reproductions/atomic/atoms.h"

namespace dgs::atomic {

// The task of one atom: its op, its output region (and input-channel slice as a partial sum),
// placed on flat engine `engine`; no scope and no tile.
Task atom_base_task(const AtomicDag& dag, int atom, const DsaSpec& spec, int engine);

// A number for the contents of op `op` of `g` that the DSA model reads for a one-op task (its kind
// and attributes, and per input and output its dtype, role, shape, constant values, the order of
// the op's tensor ids and whether another op reads an output): equal for two ops (of one graph or
// two) exactly when those contents are equal. Thread-safe.
uint32_t op_contents_id(const Graph& g, int op);

struct AtomTiling {
  std::vector<int64_t> tile;  // empty: the atom runs whole
  int64_t buffer_bytes = 0;   // the task's Task::buffer_bytes: the budget its tile was fitted to
  int64_t working_bytes = 0;  // the DSA model's working set of the atom's task (per engine)
  double loaded_bytes = 0;    // weights once + activations x re-reads, from memory
};

// Tilings cached per (layer's op contents, region shape and the output edges it touches,
// input-channel slice size, and per input the shape of the region it reads and the input's edges
// that region touches, both but along the op's sliding axes, common/graph/sliding_axes.h): atoms
// that agree on these are the same task to the DSA model (the output's edges alone are not
// enough: padding clips the halo of an atom next to an edge too).
// The op enters by its contents (kind, attributes, its tensors' shapes, types, roles and constant
// values), not its index: equal layers of one network or of two share their tilings. The cache
// is shared by the whole process (the search's candidates, the buffering and the plan of one DAG
// ask for the same shapes), keyed also by the numbers of the config the tiling depends on.
class AtomTilings {
 public:
  const AtomTiling& of(const Graph& g, const AtomicDag& dag, int atom, const DsaSpec& spec);
  // Whether the tiling `of` last returned lives as long as the process (an entry of the shared
  // cache, never erased: a schedule may keep a pointer to it; past the shared cache's size limit,
  // a per-thread entry that may be dropped does not).
  bool last_lasting() const { return last_lasting_; }
  // The number of `spec`'s contents that the tilings are keyed by (equal for two configs exactly
  // when they agree on every number a tiling depends on).
  uint32_t contents(const DsaSpec& spec);

 private:
  // The config's part of the cache key (the number of its contents' text) and, per op of the
  // graph, its op's (id -1: not yet asked) with the op's sliding axes, for the graph and config
  // last asked about (both outlive this object: it lives for one schedule or plan).
  struct OpKey {
    int64_t id = -1;
    SlidingAxes sliding;
  };
  const Graph* graph_ = nullptr;
  const DsaSpec* spec_ = nullptr;
  uint32_t contents_ = 0;
  bool last_lasting_ = false;
  std::vector<OpKey> op_keys_;
};

}  // namespace dgs::atomic
