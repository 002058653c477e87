// Table 4 of GraphTurbo: compilation overhead in seconds.
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "common/report/report.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/runs.h"
#include "reproductions/graphturbo/instances.h"

namespace dgs::graphturbo {

void run_table4(ExperimentContext& ctx) {
  prefetch_runs(ctx.progress_fn());  // the configurations one per CPU at a time
  note_constants(ctx);
  ctx.note(
      "ours: wall-clock seconds to build each approach's plan on this machine (GraphTurbo: "
      "Algorithms 1-4, instances, tiles, scopes) and evaluate it on the DSA model; the paper's "
      "times are whole compilations (TVM v0.8 code generation, LLVM)");
  const PaperData pd = ctx.paper_data("table4.csv");
  // Ours are CPU seconds on this machine (cpu_*), not compile times: they sit beside the paper's
  // but are not paired with them (summary.csv's relative errors) and vary run to run.
  Table t({"label", "model", "cpu_tvm_s", "paper_tvm_s", "cpu_astitch_s", "paper_astitch_s",
           "cpu_graphturbo_s", "paper_graphturbo_s", "cpu_graphturbo_schedule_only_s", "subgraphs",
           "instances", "order"});
  for (const ModelRow& m : model_rows()) {
    if (m.zoo.empty()) continue;
    const RowRuns& r = runs_of(m);
    const std::vector<std::pair<std::string, std::string>> key = {{"label", m.label}};
    ZooOptions o;
    o.batch = r.gt.batches_per_cluster;
    o.seq_len = m.seq_len;
    const Graph g = build_zoo_model(m.zoo, o);
    const auto t0 = std::chrono::steady_clock::now();
    const Schedule s = schedule_graph(g, stcp920_gt_params(stcp920()));
    const double sched =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.add_row({m.label, m.name, r.schedule_s[0], pd.cell(key, "tvm_s"), r.schedule_s[1],
               pd.cell(key, "astitch_s"), r.schedule_s[2], pd.cell(key, "graphturbo_s"), sched,
               int64_t(s.grouping.subgraphs.size()), int64_t(s.instances.size()),
               std::string(s.dfs_chosen ? "Algorithm 3" : "BFS")});
  }
  // No claim on our times: a yes/no "under 1 s" flips with the machine and the build (a sanitizer
  // build crossed it), and the same seed must give the same files. Our speed target is measured
  // by Google Benchmark (microbench/graphturbo_schedule.cpp).
  ctx.note(
      "our scheduling times are wall-clock (the cpu_* columns; GraphTurbo's includes its "
      "autotuning's candidate runs); the speed target is measured by bench_graphturbo_schedule "
      "(microbench/graphturbo_schedule.cpp), not claimed here");
  ctx.emit_table("Table 4 - Compilation overhead in seconds (ours: plan construction)", t);
  // The paper's 30 values, stated as not compared: no tolerance rule applies to a wall-clock time
  // of plan construction on a CPU against a whole TVM compilation (code generation, LLVM).
  std::vector<Claim> claims;
  for (const auto& [column, name] : std::vector<std::pair<std::string, std::string>>{
           {"tvm_s", "TVM"}, {"astitch_s", "AStitch"}, {"graphturbo_s", "GraphTurbo"}}) {
    double sum = 0;
    int n = 0;
    for (const ModelRow& m : model_rows())
      if (const auto v = pd.value({{"label", m.label}}, column)) sum += *v, ++n;
    Claim c{name + " compilation seconds, mean of the paper's " + std::to_string(n) + " models",
            "Table 4",
            sum / n,
            std::numeric_limits<double>::quiet_NaN(),
            ClaimKind::Time,
            "s"};
    c.informational =
        "not compared: ours is wall-clock plan construction on this CPU (the cpu_* columns, "
        "varying run to run), the paper's whole TVM v0.8 compilations with code generation";
    claims.push_back(c);
  }
  ctx.emit_claims(claims);
}

}  // namespace dgs::graphturbo
