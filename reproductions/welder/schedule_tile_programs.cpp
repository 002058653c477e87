// Welder's groups and schedules to the generic tile-program builder (see
// schedule_tile_programs.h).
#include "reproductions/welder/schedule_tile_programs.h"

#include <algorithm>

#include "common/util/error.h"

namespace dgs::welder {

namespace {

const Graph& source_graph(const TileGraph& tg) {
  if (!tg.source) throw Error("tile program: the tile-graph was not built from a graph");
  return *tg.source;
}

}  // namespace

TileProgramGroup tile_program_group(const TileGraph& tg, const KernelGroup& grp,
                                    const std::vector<int64_t>& tile) {
  source_graph(tg);
  std::vector<int> ops = grp.ops;
  std::sort(ops.begin(), ops.end());
  TileProgramGroup out;
  for (int o : ops) {
    const int go = tg.ops[o].graph_op;
    if (std::find(out.ops.begin(), out.ops.end(), go) == out.ops.end()) out.ops.push_back(go);
    const TileTensor& t = tg.tensors[tg.ops[o].output];
    bool outside = t.graph_output || t.consumers.empty();
    for (int c : t.consumers) outside = outside || !std::binary_search(ops.begin(), ops.end(), c);
    if (outside) out.written.push_back(t.graph_tensor);
  }
  out.root = tg.ops[group_root(tg, grp)].graph_op;
  out.root_tile = tile;
  return out;
}

TileProgram compile_group(const TileGraph& tg, const KernelGroup& grp,
                          const std::vector<int64_t>& tile) {
  return build_tile_program(source_graph(tg), tile_program_group(tg, grp, tile));
}

NetworkProgram compile_schedule(const TileGraph& tg, const Schedule& s) {
  const Graph& g = source_graph(tg);
  NetworkProgram np;
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    const ScheduledGroup& sg = s.groups[gi];
    if (sg.result.launches) {
      np.kernels.push_back(compile_group(tg, sg.group, sg.result.best.tile));
      np.kernel_group.push_back(static_cast<int>(gi));
      continue;
    }
    ++np.layout_groups;
    std::vector<int> ops = sg.group.ops;
    std::sort(ops.begin(), ops.end());
    for (int o : ops) add_layout_view(np, g, tg.ops[o].graph_op);
  }
  return np;
}

}  // namespace dgs::welder
