// Table 5: scheduling time and candidates.
#include <chrono>

#include "common/report/report.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

void run_table5(ExperimentContext& ctx) {
  const WelderArch arch = noted_experiment_arch(ctx, false);
  ctx.note(
      "ours: wall-clock of the Fig. 7 scheduler with the analytic cost model on this "
      "machine (one core); 'candidates' = top-k configurations profiled, summed over the "
      "distinct sub-graphs (repeated layers are cached by signature, as the artifact does). "
      "The paper's times include TVM code generation and profiling on the GPU; Ansor is not "
      "run here");
  const PaperData pd = ctx.paper_data("table5.csv");
  Table t({"model", "ours_cpu_time_s", "ours_welder_trials", "ours_subgraphs", "ours_tiles_visited",
           "paper_welder_time_s", "paper_welder_trials", "paper_ansor_time_s",
           "paper_ansor_trials"});
  for (const std::string m : {"bert_base", "mobilenet_v2"}) {
    const TileGraph tg = model_tile_graph(m, ZooOptions{});
    ScheduleOptions o;
    const auto t0 = std::chrono::steady_clock::now();
    const Schedule s = schedule_graph(tg, arch, o);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.add_row(
        {m, sec, s.candidates_costed, int64_t{s.subgraphs_tuned}, s.tiles_visited,
         *pd.value({{"model", m}}, "welder_time_s"), *pd.value({{"model", m}}, "welder_trials"),
         *pd.value({{"model", m}}, "ansor_time_s"), *pd.value({{"model", m}}, "ansor_trials")});
  }
  ctx.emit_table("Table 5 - scheduling time and candidates (batch 1, FP32)", t);
  std::vector<Claim> claims;
  for (const auto& row : t.rows()) {
    const std::string m = std::get<std::string>(row[0]);
    const double paper = *pd.value({{"model", m}}, "welder_trials");
    claims.push_back({m + ": Welder trials (top-k configurations profiled over all sub-graphs)",
                      pd.source({{"model", m}}), paper,
                      static_cast<double>(std::get<int64_t>(row[2])), ClaimKind::Count, "trials"});
  }
  ctx.emit_claims(claims);
}

}  // namespace dgs::welder
