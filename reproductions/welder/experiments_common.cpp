#include <sstream>

#include "reproductions/welder/experiments.h"

namespace dgs::welder {

WelderArch experiment_arch(const ExperimentContext& ctx, bool fp16_tc) {
  return arch_from_gpu(ctx.gpu(), fp16_tc);
}

TileGraph model_tile_graph(const std::string& name, const ZooOptions& opts) {
  return build_tile_graph(load_model_at_batch(name, opts));
}

std::vector<Schedule> run_variants(const TileGraph& tg, const WelderArch& arch,
                                   const std::vector<Variant>& variants) {
  std::vector<Schedule> out;
  CustomRegionMemo regions;  // the variants share the tile-graph's custom regions
  for (Variant v : variants) {
    ScheduleOptions o;
    o.variant = v;
    o.regions = &regions;
    out.push_back(schedule_graph(tg, arch, o));
  }
  return out;
}

Table group_table() {
  return Table({"model", "variant", "kernel", "ops", "first_op", "last_op", "types", "tile", "grid",
                "smem_B", "latency_us", "transactions", "writes_MiB"});
}

void add_group_rows(Table& t, const std::string& model, const TileGraph& tg, const Schedule& s) {
  int64_t k = 0;
  for (const auto& sg : s.groups) {
    if (!sg.result.launches) continue;
    std::ostringstream tile, types;
    for (size_t i = 0; i < sg.result.best.tile.size(); ++i)
      tile << (i ? "x" : "") << sg.result.best.tile[i];
    for (size_t i = 0; i < sg.group.ops.size(); ++i)
      types << (i ? " " : "") << tg.ops[sg.group.ops[i]].type;
    t.add_row({model, variant_name(s.variant), k++, static_cast<int64_t>(sg.group.ops.size()),
               tg.ops[sg.group.ops.front()].name, tg.ops[sg.group.ops.back()].name, types.str(),
               tile.str(), sg.result.best.grid, sg.result.best.smem, sg.result.best.latency_us,
               sg.result.best.sectors, sg.result.irs_bytes / (1024.0 * 1024.0)});
  }
}

void note_common_choices(ExperimentContext& ctx, const WelderArch& arch) {
  std::ostringstream hw;
  hw << "hardware: " << arch.name << " (" << arch.sm_count << " SMs, shared memory "
     << arch.smem_per_block << " B/block, " << arch.smem_per_sm << " B/SM, DRAM " << arch.dram_gbs
     << " GB/s); latency from "
     << (arch.gpu ? "the suite's GPU model (common/gpumodel) on the top-k configs"
                  : "the cost model's roofline");
  ctx.note(hw.str());
  ctx.note(
      "graph connecting: the paper's Fig. 7 loop (per edge, per level), not the artifact's "
      "greedy group growth; a level's 'profile' is the analytic latency of the kernels the "
      "edge touches (best of the top-k tiles of each)");
  ctx.note(
      "tile search: base tile (full extent where it cuts the workload per item, i.e. "
      "recomputation), divisor "
      "and power-of-two steps, best-first on (traffic+1) x waves, cap 2000 visited tiles, "
      "top-k = 20 (paper §5.2, artifact policy/default.py)");
  ctx.note(
      "traffic: 128-B read and 32-B write transactions for ranking (paper §4.1, artifact); "
      "reported transactions are 32-B sectors summed over all tiles (weights re-read per "
      "tile, as nvprof's gld/gst counts); IRS = bytes kernels write to global memory / 2^20");
  ctx.note(
      "alignment: every operator of a kernel must cover its output with the same number of "
      "tiles (artifact rule); so halos (overlapping tiles) are never fused on the GPU levels");
  ctx.note(
      "footprint: live shared-memory tiles + rstep staging buffers (32-B aligned, peak of the "
      "live set in topological order, i.e. a best-fit allocator without fragmentation)");
}

}  // namespace dgs::welder
