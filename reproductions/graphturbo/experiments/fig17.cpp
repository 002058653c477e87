// Fig. 17 of GraphTurbo: VME and MME utilisation per ResNet-50 stage on the STCP920 DSA model.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/evaluate/evaluate_prefix.h"
#include "common/report/report.h"
#include "common/util/parallel_for.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/runs.h"

namespace dgs::graphturbo {

namespace {

// The ResNet-50 stage (1-4) of an op by its name ("layerK..."); the stem counts in stage 1 and
// the head in stage 4.
int resnet_stage(const Graph& g, int op) {
  const std::string& n = g.op(op).name;
  if (n.rfind("layer", 0) == 0 && n.size() > 5) return n[5] - '0';
  return n.rfind("conv1", 0) == 0 || n.rfind("bn1", 0) == 0 || n == "relu" || n == "maxpool" ? 1
                                                                                             : 4;
}

struct StageUsage {
  std::vector<std::pair<double, double>> pct;  // per ResNet stage: (MME %, VME %)
  int prefixes = 0;                            // plan prefixes priced (each checked)
};

// Per ResNet stage: (MME %, VME %) of `plan`, from the model's totals over plan prefixes that end
// where the stage of the next plan stage changes (differences of latency and busy time).
StageUsage stage_usage(const Graph& g, const Plan& plan, const DsaSpec& spec) {
  std::vector<size_t> cuts;
  for (size_t s = 1; s <= plan.stages.size(); ++s)
    if (s == plan.stages.size() || resnet_stage(g, plan.stages[s].tasks[0].ops[0]) !=
                                       resnet_stage(g, plan.stages[s - 1].tasks[0].ops[0]))
      cuts.push_back(s);
  const HardwareSpec hw = dsa_hardware_spec(spec);
  StageUsage out;
  std::vector<double> lat(5, 0), mme(5, 0), vme(5, 0);
  double prev_lat = 0, prev_m = 0, prev_v = 0;
  size_t begin = 0;
  for (size_t cut : cuts) {
    // The first `cut` stages on the whole graph, checked as a prefix (every region they read
    // written by earlier stages; a cut may end inside the instances of an op, as GraphTurbo
    // splits a sub-graph's batch into instances) and priced by the DSA model.
    const EvaluationResult r = evaluate_prefix(g, plan, cut, hw);
    ++out.prefixes;
    const int st = resnet_stage(g, plan.stages[begin].tasks[0].ops[0]);
    const double m = value_of(r.busy_us_by_unit, "matrix"),
                 v = value_of(r.busy_us_by_unit, "vector");
    lat[size_t(st)] += r.latency_us - prev_lat;
    mme[size_t(st)] += m - prev_m;
    vme[size_t(st)] += v - prev_v;
    prev_lat = r.latency_us;
    prev_m = m;
    prev_v = v;
    begin = cut;
  }
  for (int st = 1; st <= 4; ++st) {
    const double span = lat[size_t(st)] * double(spec.units());
    out.pct.push_back({100 * mme[size_t(st)] / span, 100 * vme[size_t(st)] / span});
  }
  return out;
}

}  // namespace

void run_fig17(ExperimentContext& ctx) {
  note_constants(ctx);
  const RowRuns& runs = runs_of(model_rows()[0]);  // ResNet-50 at batch 64
  ctx.note(
      "ResNet-50 at batch 64 (TVM: " + std::to_string(runs.tvm.batches_per_cluster) +
      " images per cluster, one of its " + std::to_string(runs.tvm.iterations) + " iterations" +
      "; GraphTurbo: " + std::to_string(runs.gt.batches_per_cluster) +
      ", its autotuned choice); "
      "each stage's usage = its share of the matrix/vector busy time over 32 cores x its share "
      "of the latency, from the model's totals over plan prefixes cut where the stage changes "
      "(GraphTurbo interleaves stages in Algorithm 3's order: every cut is attributed to the "
      "stage of its first plan stage)");
  const DsaSpec& spec = stcp920();
  const PaperData pd = ctx.paper_data("fig17.csv");
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  std::vector<std::vector<std::pair<double, double>>> usage_of;
  std::string prefixes;
  for (const auto& [a, per_cluster] : std::vector<std::pair<Approach, int64_t>>{
           {Approach::Tvm, runs.tvm.batches_per_cluster},
           {Approach::GraphTurbo, runs.gt.batches_per_cluster}}) {
    ZooOptions o;
    o.batch = per_cluster;
    const Graph one = build_zoo_model("resnet50", o);
    o.batch = per_cluster * spec.clusters;
    const Graph g = build_zoo_model("resnet50", o);
    const DsaPlan p = dsa_plan(g, &one, a, spec);
    const StageUsage u = stage_usage(p.graph, p.plan, spec);
    usage_of.push_back(u.pct);
    prefixes += std::string(prefixes.empty() ? "" : "; ") + std::string(approach_name(a)) + ": " +
                std::to_string(u.prefixes);
  }
  ctx.note("prefixes checked and priced by evaluate_prefix() on the whole graph (" + prefixes +
           "; 0 unchecked): each is checked by Plan::check's rules except that an op "
           "may be computed in part (a cut may end inside the instances of an op, whose outputs "
           "it then writes in part), every region it reads written by earlier stages, then "
           "priced by the DSA model");
  Table t({"stage", "tvm_vme_pct", "graphturbo_vme_pct", "tvm_mme_pct", "graphturbo_mme_pct"});
  BarChart vme{.title = "Fig. 17 - VME utilisation per stage (ResNet-50)",
               .y_label = "utilisation (%)",
               .categories = {"stage1", "stage2", "stage3", "stage4"},
               .series = {{"TVM (ours)", {}}, {"GraphTurbo (ours)", {}}},
               .x_label = "stage"};
  BarChart mme = vme;
  mme.title = "Fig. 17 - MME utilisation per stage (ResNet-50)";
  bool higher = true;
  for (size_t s = 0; s < 4; ++s) {
    const auto [tm, tv] = usage_of[0][s];
    const auto [gm, gv] = usage_of[1][s];
    t.add_row({"stage" + std::to_string(s + 1), tv, gv, tm, gm});
    vme.series[0].values.push_back(tv);
    vme.series[1].values.push_back(gv);
    mme.series[0].values.push_back(tm);
    mme.series[1].values.push_back(gm);
    if (s > 0 && !(gm > tm && gv > tv)) higher = false;
  }
  ctx.emit_table("Fig. 17 - Utilization of VME and MME per stage", t);
  ctx.emit_svg(panels_svg({bar_chart_svg(vme), bar_chart_svg(mme)}, 2));
  const double t1 = usage_of[0][0].first, g1 = usage_of[1][0].first;
  ctx.emit_claims({{"stage 1: MME utilisation of GraphTurbo and TVM similar (difference, %)",
                    src("stage1_similar"), q("stage1_similar"), 100 * std::abs(g1 - t1) / t1,
                    ClaimKind::Percentage, "%", kTvmStandIn},
                   {"stages 2-4: GraphTurbo's VME and MME utilisation higher (1 = yes)",
                    src("graphturbo_higher_stages_2_to_4"), q("graphturbo_higher_stages_2_to_4"),
                    higher ? 1.0 : 0.0, ClaimKind::Ordering, "yes", kTvmStandIn}});
}

}  // namespace dgs::graphturbo
