// Table 2 of GraphTurbo: the models, and the three approaches on each, on the DSA model.
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

void run_table2(ExperimentContext& ctx) {
  prefetch_runs(ctx.progress_fn());  // the configurations one per CPU at a time
  note_constants(ctx);
  const PaperData pd = ctx.paper_data("table2.csv");
  Table t({"label", "model", "batch", "tvm_batches_per_cluster", "paper_tvm_batches_per_cluster",
           "graphturbo_batches_per_cluster", "paper_graphturbo_batches_per_cluster",
           "graphturbo_candidates", "tvm_throughput", "paper_tvm_throughput", "unit"});
  std::vector<Claim> claims;
  for (const ModelRow& m : model_rows()) {
    const std::vector<std::pair<std::string, std::string>> key = {{"label", m.label}};
    const Cell ptvm = pd.cell(key, "tvm_batches_per_cluster");
    const Cell pgt = pd.cell(key, "graphturbo_batches_per_cluster");
    const Cell pthr = pd.cell(key, "tvm_throughput");
    (void)pd.value(key, "batch");
    const std::string unit = pd.text(key, "unit").value_or("");
    if (m.zoo.empty()) {
      ctx.note(m.label + " " + m.name + ": not reproduced (" + m.note + ")");
      t.add_row({m.label, m.name, m.batch, Missing{}, ptvm, Missing{}, pgt, Missing{}, Missing{},
                 pthr, unit});
      continue;
    }
    if (!m.note.empty()) ctx.note(m.label + " " + m.name + ": " + m.note);
    const RowRuns& r = runs_of(m);
    std::string tried;
    for (const auto& [b, thr] : r.gt.autotuned) {
      (void)thr;
      if (!tried.empty()) tried += ' ';
      tried += std::to_string(b);
    }
    t.add_row({m.label, m.name, m.batch, r.tvm.batches_per_cluster, ptvm, r.gt.batches_per_cluster,
               pgt, tried, r.tvm.throughput, pthr, unit});
    Claim c{m.name + ": TVM batches per cluster", pd.source(key),   std::get<double>(ptvm),
            double(r.tvm.batches_per_cluster),    ClaimKind::Count, ""};
    c.stand_in = kTvmStandIn;
    if (m.label == "A" || m.label == "B")
      c.calibrated = "kTvmLlbFraction = " + num(kTvmLlbFraction);
    claims.push_back(c);
    Claim g{m.name + ": GraphTurbo batches per cluster (autotuned, §5.1)",
            pd.source(key),
            std::get<double>(pgt),
            double(r.gt.batches_per_cluster),
            ClaimKind::Count,
            ""};
    if (r.gt.autotuned.size() < 2)
      g.informational = "one candidate (the even share " + std::to_string(m.batch) +
                        " / 4 clusters): nothing was tuned";
    claims.push_back(g);
    claims.push_back(
        against_tvm_stand_in({m.name + ": TVM throughput (" + unit + ")", pd.source(key),
                              std::get<double>(pthr), r.tvm.throughput, ClaimKind::Time, unit}));
  }
  ctx.note(
      "GraphTurbo's batches per cluster: the paper's autotuning (§5.1) over the candidates listed "
      "(the even share batch / 4 and its halvings, kAutotuneHalvings = " +
      std::to_string(kAutotuneHalvings) +
      "), the fastest kept; TVM's: the TVM-like LLB rule (kTvmLlbFraction), at most the even "
      "share; TVM's throughput is compared by the time rule as an absolute rate, on the model's "
      "scale (hw_configs/stcp920.json's clock and rates are assumptions)");
  ctx.emit_table("Table 2 - Summary of the models (STCP920 DSA model)", t);
  ctx.emit_claims(claims);
}

}  // namespace dgs::graphturbo
