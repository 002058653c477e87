// Table 4: fusion patterns found.
#include <algorithm>
#include <set>
#include <sstream>

#include "common/report/report.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

namespace {

std::string join_types(const TileGraph& tg, const std::vector<int>& ops) {
  std::ostringstream os;
  for (size_t i = 0; i < ops.size(); ++i) os << (i ? " " : "") << tg.ops[ops[i]].type;
  return os.str();
}

}  // namespace

void run_table4(ExperimentContext& ctx) {
  const WelderArch arch = noted_experiment_arch(ctx, false);
  ctx.note(
      "patterns are counted as distinct operator-type sequences of kernels with >= 2 ops, "
      "over the zoo's Table 2 models at batch 1 and 64, FP32");
  Table t({"model", "batch", "largest_kernel_ops", "largest_kernel_types"});
  std::set<std::string> patterns, multi_red;
  int64_t largest = 0, nerf_ops = 0, nerf_kernels = 0;
  for (const auto& m : kTable2) {
    if (m.zoo.empty()) continue;
    for (int64_t batch : {int64_t{1}, int64_t{64}}) {
      if (batch == 64 && !m.batch64) continue;
      ZooOptions zo;
      zo.batch = batch;
      const TileGraph& tg = zoo_tile_graph(m.zoo, zo);
      const Schedule& s = zoo_schedule(m.zoo, zo, arch, ScheduleOptions{});
      const ScheduledGroup* big = nullptr;
      for (const auto& g : s.groups) {
        if (!g.result.launches) continue;
        if (!big || g.group.ops.size() > big->group.ops.size()) big = &g;
        if (g.group.ops.size() >= 2) {
          const std::string p = join_types(tg, g.group.ops);
          patterns.insert(p);
          int reds = 0;
          for (int op : g.group.ops) reds += tg.ops[op].is_reduction() ? 1 : 0;
          if (reds >= 2) multi_red.insert(p);
        }
      }
      if (!big) continue;
      largest = std::max<int64_t>(largest, static_cast<int64_t>(big->group.ops.size()));
      if (m.zoo == "nerf_mlp") {
        nerf_ops = static_cast<int64_t>(big->group.ops.size());
        nerf_kernels = s.metrics.kernels;
      }
      t.add_row({m.label, batch, static_cast<int64_t>(big->group.ops.size()),
                 join_types(tg, big->group.ops)});
    }
  }
  ctx.emit_table("Table 4 - largest fused kernels found (model mode)", t);
  Table st({"statistic", "ours", "paper"});
  const PaperData pd = ctx.paper_data("table4.csv");
  st.add_row({"distinct fused patterns (>= 2 ops)", static_cast<int64_t>(patterns.size()),
              *pd.value({{"pattern", "fused_subgraphs"}}, "ops")});
  st.add_row({"patterns with >= 2 reductions", static_cast<int64_t>(multi_red.size()),
              *pd.value({{"pattern", "multi_reduction_patterns"}}, "ops")});
  st.add_row({"largest kernel (ops)", largest, *pd.value({{"pattern", "largest"}}, "ops")});
  ctx.emit_table("Table 4 - pattern statistics", st, "_stats");
  ctx.emit_claims(
      {{"NeRF MLP fused into one kernel of 13 ops (7 Dot + 6 Relu)",
        pd.source({{"pattern", "nerf_mlp"}}), *pd.value({{"pattern", "nerf_mlp"}}, "ops"),
        static_cast<double>(nerf_ops), ClaimKind::Count, "ops"},
       {"NeRF MLP kernel count", pd.source({{"pattern", "nerf_mlp"}}), 1,
        static_cast<double>(nerf_kernels), ClaimKind::Count, "kernels"},
       {"largest fused kernel over the Table 2 models (ops)", pd.source({{"pattern", "largest"}}),
        *pd.value({{"pattern", "largest"}}, "ops"), static_cast<double>(largest), ClaimKind::Count,
        "ops"}});
}

}  // namespace dgs::welder
