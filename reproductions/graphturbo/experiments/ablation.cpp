// Fig. 15 (the ablation variants V1-V4), Fig. 16 (VME/MME usage against the batch) and Fig. 17
// (utilisation per ResNet-50 stage) on the STCP920 DSA model.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "common/dsamodel/dsa_model.h"
#include "common/report/report.h"
#include "common/util/parallel_for.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/runs.h"

namespace dgs::graphturbo {

namespace {

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

// MME and VME utilisation (%) of a run: busy time over (units x latency).
std::pair<double, double> usage(const DsaRun& r, const DsaSpec& spec) {
  const double span = r.result.latency_us * double(spec.units());
  return {100 * value_of(r.result.busy_us_by_unit, "matrix") / span,
          100 * value_of(r.result.busy_us_by_unit, "vector") / span};
}

}  // namespace

void run_fig15(ExperimentContext& ctx) {
  note_constants(ctx);
  ctx.note(
      "V1/V2: TVM's layers at GraphTurbo's per-cluster batch, outputs kept in the LLB (V1) or L1 "
      "first (V2) while they fit over their liveness, else DDR; V3 = instances + order (the "
      "GraphTurbo plan without across-layer instruction scheduling); V4 = GraphTurbo: V3 with "
      "the plan option prefetch_across_stages (the DSA model loads a layer's weights and inputs "
      "while earlier layers compute; TVM, AStitch and V1-V3 wait for each layer's stage)");
  const PaperData pd = ctx.paper_data("fig15.csv");
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  Table t({"label", "model", "v1_llb", "v2_l1", "v3_instances", "v4_all"});
  BarChart chart{
      .title = "Fig. 15 - speedup over TVM of V1-V4 (STCP920 DSA model)",
      .y_label = "speedup over TVM (x)",
      .categories = {},
      .series = {{"V1 (LLB)", {}}, {"V2 (L1)", {}}, {"V3 (instances)", {}}, {"V4 (all)", {}}},
      .reference_y = 1.0,
      .x_label = "model"};
  std::vector<double> v1s, v2s, v3v2, v4v3;
  // The variants at GraphTurbo's batches per cluster (its autotuned choice), one configuration
  // per CPU at a time, each into its own slot.
  ctx.progress("the configurations' runs, one per CPU at a time");
  prefetch_runs();
  std::vector<const ModelRow*> rows;
  for (const ModelRow& m : model_rows())
    if (!m.zoo.empty()) rows.push_back(&m);
  std::vector<std::array<DsaRun, 3>> variants(rows.size());
  parallel_for(static_cast<int64_t>(rows.size()), available_cpus(), [&](int64_t i) {
    const ModelRow& m = *rows[static_cast<size_t>(i)];
    const int64_t b = runs_of(m).gt.batches_per_cluster;
    const Approach approaches[] = {Approach::V1Llb, Approach::V2L1, Approach::V3Instances};
    for (size_t k = 0; k < 3; ++k)
      variants[static_cast<size_t>(i)][k] =
          run_on_dsa(m.zoo, m.batch, approaches[k], stcp920(), b, m.seq_len);
  });
  for (size_t row = 0; row < rows.size(); ++row) {
    const ModelRow& m = *rows[row];
    ctx.progress(m.label + " (" + m.name + ")");
    const RowRuns& r = runs_of(m);
    const DsaRun& v1 = variants[row][0];
    const DsaRun& v2 = variants[row][1];
    const double s1 = v1.throughput / r.tvm.throughput, s2 = v2.throughput / r.tvm.throughput;
    const DsaRun& v3 = variants[row][2];
    const double s3 = v3.throughput / r.tvm.throughput, s4 = r.gt.throughput / r.tvm.throughput;
    t.add_row({m.label, m.name, s1, s2, s3, s4});
    if (m.zoo == "dlrm")
      ctx.note(m.label + " " + m.name +
               ": §5.3 says DLRM introduces more concatenation ops than the other models and gains "
               "little from V3; ours holds the model's " +
               std::to_string(r.gt.model_concats) +
               " Concat ops (the feature interaction of the 27 vectors, and its output with the "
               "bottom MLP's) but no §3.5 concatenation: its largest activation at " +
               std::to_string(r.gt.batches_per_cluster) + " per cluster (" +
               std::to_string(r.gt.peak_bytes) + " B) fits Algorithm 1's capacity (" +
               std::to_string(stcp920_gt_params(stcp920()).split_capacity) + " B), so it runs as " +
               std::to_string(r.gt.subgraphs) + " sub-graph(s) in " + std::to_string(r.gt.kernels) +
               " instance(s); V3/V2 = " + std::to_string(s3 / s2));
    chart.categories.push_back(m.label);
    const std::array<double, 4> speedups = {s1, s2, s3, s4};
    for (size_t k = 0; k < 4; ++k) chart.series[k].values.push_back(speedups[k]);
    v1s.push_back(s1);
    v2s.push_back(s2);
    v3v2.push_back(s3 / s2);
    v4v3.push_back(s4 / s3);
  }
  t.add_row({"mean", "arithmetic", mean(v1s), mean(v2s), Missing{}, Missing{}});
  Table ratios({"quantity", "ours", "paper"});
  ratios.add_row({"V2 over TVM (mean)", mean(v2s), q("v2_over_tvm_mean")});
  ratios.add_row({"V3 over V2 (mean)", mean(v3v2), q("v3_over_v2_mean")});
  ratios.add_row({"V4 over V3 (mean)", mean(v4v3), q("v4_over_v3_mean")});
  ctx.emit_table("Fig. 15 - Individual contributions of each optimization (speedup over TVM)", t);
  ctx.emit_table("Fig. 15 - mean ratios", ratios, "_means");
  ctx.emit_svg(bar_chart_svg(chart));
  const bool v1_below = std::any_of(v1s.begin(), v1s.end(), [](double x) { return x < 1; });
  ctx.emit_claims({{"mean V2 speedup over TVM", src("v2_over_tvm_mean"), q("v2_over_tvm_mean"),
                    mean(v2s), ClaimKind::Ratio, "x", kTvmStandIn},
                   {"mean V3 over V2 (instances and ordering)", src("v3_over_v2_mean"),
                    q("v3_over_v2_mean"), mean(v3v2), ClaimKind::Ratio, "x"},
                   {"mean V4 over V3 (across-layer instruction scheduling)", src("v4_over_v3_mean"),
                    q("v4_over_v3_mean"), mean(v4v3), ClaimKind::Ratio, "x"},
                   {"V1 is slower than TVM for some model (1 = yes)",
                    src("v1_sometimes_slower_than_tvm"), q("v1_sometimes_slower_than_tvm"),
                    v1_below ? 1.0 : 0.0, ClaimKind::Ordering, "yes", kTvmStandIn}});
}

void run_fig16(ExperimentContext& ctx) {
  note_constants(ctx);
  ctx.note(
      "x axis: batches per cluster (the chip's batch is 4x), GraphTurbo plans; usage = busy time "
      "of the matrix (MME) or vector (VME) units over 32 cores x latency; the quantized ResNet-50 "
      "runs on " +
      stcp920_int8().name +
      " (every tensor stored and computed in INT8, the MME at "
      "its INT8 rate of " +
      std::to_string(int64_t(stcp920_int8().matrix_macs_per_cycle)) +
      " MAC/cycle; GraphTurbo's split capacity and tiles at 1 byte per element)");
  const PaperData pd = ctx.paper_data("fig16.csv");
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  Table t({"model", "batches_per_cluster", "mme_usage_pct", "vme_usage_pct"});
  std::vector<std::string> panels;
  std::map<std::string, std::vector<double>> mme;
  struct Panel {
    std::string label, zoo;
    int64_t seq;
    const DsaSpec* spec;
  };
  for (const auto& [label, zoo, seq, spec] :
       std::vector<Panel>{{"ResNet-50", "resnet50", 0, &stcp920()},
                          {"ResNet-50 (quantized, INT8)", "resnet50", 0, &stcp920_int8()},
                          {"BERT-128", "bert_base", 128, &stcp920()}}) {
    LineChart c{.title = "Fig. 16 - " + label + ": VME/MME usage",
                .x_label = "batches per cluster",
                .y_label = "usage (%)",
                .x = {},
                .series = {{"MME (ours)", {}}, {"VME (ours)", {}}},
                .log_x = true};
    for (int64_t b : {1, 2, 4, 8, 16}) {
      const DsaRun r = run_on_dsa(zoo, b * spec->clusters, Approach::GraphTurbo, *spec, b, seq);
      const auto [m, v] = usage(r, *spec);
      t.add_row({label, b, m, v});
      c.x.push_back(double(b));
      c.series[0].values.push_back(m);
      c.series[1].values.push_back(v);
      mme[label].push_back(m);
    }
    panels.push_back(line_chart_svg(c));
  }
  ctx.emit_table("Fig. 16 - Usage of VME/MME against the batch (GraphTurbo)", t);
  ctx.emit_svg(panels_svg(panels, 3));
  const std::vector<double>& r = mme["ResNet-50"];
  const std::vector<double>& r8 = mme["ResNet-50 (quantized, INT8)"];
  const std::vector<double>& b = mme["BERT-128"];
  ctx.emit_claims(
      {{"ResNet-50: MME usage grows with the batch (1 = yes)",
        src("resnet50_usage_grows_with_batch"), q("resnet50_usage_grows_with_batch"),
        r.back() > r.front() ? 1.0 : 0.0, ClaimKind::Ordering, "yes"},
       {"quantized ResNet-50: MME usage grows with the batch (1 = yes)",
        src("resnet50_int8_usage_grows_with_batch"), q("resnet50_int8_usage_grows_with_batch"),
        r8.back() > r8.front() ? 1.0 : 0.0, ClaimKind::Ordering, "yes"},
       {"BERT-128: MME usage drops from 8 to 16 batches per cluster (1 = yes)",
        src("bert128_degrades_8_to_16"), q("bert128_degrades_8_to_16"), b[4] < b[3] ? 1.0 : 0.0,
        ClaimKind::Ordering, "yes"}});
}

}  // namespace dgs::graphturbo

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

// Per ResNet stage: (MME %, VME %) of `plan`, from the model's totals over plan prefixes that end
// where the stage of the next plan stage changes (differences of latency and busy time).
std::vector<std::pair<double, double>> stage_usage(const Graph& g, const Plan& plan,
                                                   const DsaSpec& spec) {
  std::vector<size_t> cuts;
  for (size_t s = 1; s <= plan.stages.size(); ++s)
    if (s == plan.stages.size() || resnet_stage(g, plan.stages[s].tasks[0].ops[0]) !=
                                       resnet_stage(g, plan.stages[s - 1].tasks[0].ops[0]))
      cuts.push_back(s);
  std::vector<double> lat(5, 0), mme(5, 0), vme(5, 0);
  double prev_lat = 0, prev_m = 0, prev_v = 0;
  size_t begin = 0;
  for (size_t cut : cuts) {
    Plan prefix = plan;
    prefix.stages.resize(cut);
    // A prefix schedules only some ops, so it is not a plan of `g` and evaluate() (Plan::check:
    // every op in a task) refuses it; the DSA model prices it directly, unchecked (the model
    // reports no per-stage busy time from which a whole plan's evaluation could be cut).
    const EvaluationResult r = evaluate_dsa_plan(g, prefix, spec);
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
  std::vector<std::pair<double, double>> out;
  for (int st = 1; st <= 4; ++st) {
    const double span = lat[size_t(st)] * double(spec.units());
    out.push_back({100 * mme[size_t(st)] / span, 100 * vme[size_t(st)] / span});
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
  for (const auto& [a, per_cluster] : std::vector<std::pair<Approach, int64_t>>{
           {Approach::Tvm, runs.tvm.batches_per_cluster},
           {Approach::GraphTurbo, runs.gt.batches_per_cluster}}) {
    ZooOptions o;
    o.batch = per_cluster;
    const Graph one = build_zoo_model("resnet50", o);
    o.batch = per_cluster * spec.clusters;
    const Graph g = build_zoo_model("resnet50", o);
    const DsaPlan p = dsa_plan(g, &one, a, spec);
    usage_of.push_back(stage_usage(p.graph, p.plan, spec));
  }
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
