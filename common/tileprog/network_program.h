#pragma once
// A whole network as tile programs: one program per launched kernel (tile_program_builder.h), in
// execution order, plus the tensors that are views of other tensors' buffers (outputs of
// layout-only operators such as Reshape, which launch nothing: row-major data in the same order).
// run_network_host runs it on the host interpreter: the CPU check that a schedule's fused kernels
// compute the network, whichever scheduler formed them.
#include <cstdint>
#include <map>
#include <vector>

#include "common/exec/executor.h"
#include "common/graph/graph.h"
#include "common/tileprog/tile_program.h"

namespace dgs {

struct NetworkProgram {
  std::vector<TileProgram> kernels;  // one per launched kernel, in execution order
  std::vector<int> kernel_group;     // the caller's index of the group each kernel comes from
  // Tensors that are views (outputs of layout-only groups): tensor -> the tensor whose buffer
  // holds the data (resolved to a tensor that is not itself a view).
  std::map<int, int> views;
  int layout_groups = 0;  // groups that launch nothing
  // The buffer of tensor t (t itself unless it is a view).
  int buffer_of(int t) const {
    auto it = views.find(t);
    return it == views.end() ? t : it->second;
  }
};

// Records layout-only graph op `op` (is_layout_only: Reshape & co.) as a view: its output shares
// its input's buffer. Throws dgs::Error naming the op for any other operator.
void add_layout_view(NetworkProgram& np, const Graph& g, int op);

// Runs `np` on the host interpreter: inputs, weights and constants from make_graph_feeds(g,
// feeds, seed) (the reference executor's values), every other buffer filled with NaN first (an
// element no kernel writes fails a comparison). Returns the value of every tensor that has a
// buffer or is a view (by graph tensor index, with the graph's shape). Tests run tiles in the
// adversarial order (HostTileOrder).
TensorValues run_network_host(const Graph& g, const NetworkProgram& np, const TensorValues& feeds,
                              uint64_t seed, HostTileOrder order = HostTileOrder::Forward);

}  // namespace dgs
