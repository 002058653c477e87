// Tables 1-4 and Figs. 3 and 14 of GraphTurbo on the shared DSA model (STCP920 config).
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

#include "common/report/report.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/dsa_plans.h"
#include "reproductions/graphturbo/experiments/experiments.h"
#include "reproductions/graphturbo/experiments/runs.h"
#include "reproductions/graphturbo/instances.h"

namespace dgs::graphturbo {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A number as text for a claim or a note (shortest of 6 significant digits).
std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? kNaN : std::exp(s / double(v.size()));
}

}  // namespace

void run_fig14(ExperimentContext& ctx) {
  prefetch_runs();  // the configurations one per CPU at a time
  note_constants(ctx);
  const PaperData pd = ctx.paper_data("fig14.csv");
  Table t({"label", "model", "tvm_throughput", "astitch_throughput", "graphturbo_throughput",
           "astitch_speedup", "graphturbo_speedup", "graphturbo_over_astitch",
           "paper_graphturbo_speedup", "graphturbo_kernels", "tvm_kernels"});
  std::vector<double> gt_sp, gt_over_as;
  BarChart chart{.title = "Fig. 14 - throughput speedup over TVM (STCP920 DSA model)",
                 .y_label = "speedup over TVM (x)",
                 .categories = {},
                 .series = {{"AStitch (ours)", {}}, {"GraphTurbo (ours)", {}}},
                 .reference_y = 1.0,
                 .x_label = "model"};
  std::vector<Claim> claims;
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  for (const ModelRow& m : model_rows()) {
    if (m.zoo.empty()) {
      ctx.note(m.label + " " + m.name + ": not reproduced (" + m.note + ")");
      continue;
    }
    const RowRuns& r = runs_of(m);
    const MovementCounts& mv = r.gt.movement;
    ctx.note(m.label + " " + m.name + ": GraphTurbo's §3.5 operators per cluster: " +
             std::to_string(mv.concats) + " concatenations of " + std::to_string(mv.pieces) +
             " instance pieces (" + std::to_string(mv.copies) + " copies between levels, " +
             std::to_string(mv.redistributions) + " redistributions between cores, " +
             std::to_string(mv.in_place) +
             " in place); sub-graphs: " + std::to_string(r.gt.subgraphs) + " (largest peak " +
             std::to_string(r.gt.peak_bytes) + " B), instances: " + std::to_string(r.gt.kernels) +
             "; the model's own Concat ops: " + std::to_string(r.gt.model_concats));
    const double as = r.astitch.throughput / r.tvm.throughput;
    const double gt = r.gt.throughput / r.tvm.throughput;
    // The paper prints no number for a model's bar (§2.1's 7.97x is ResNet-50 at batch 32, Fig.
    // 3; Table 1's BERT-128 ratio is compared there).
    const Cell paper = Missing{};
    t.add_row({m.label, m.name, r.tvm.throughput, r.astitch.throughput, r.gt.throughput, as, gt,
               gt / as, paper, r.gt.kernels, r.tvm.kernels});
    gt_sp.push_back(gt);
    gt_over_as.push_back(gt / as);
    chart.categories.push_back(m.label);
    chart.series[0].values.push_back(as);
    chart.series[1].values.push_back(gt);
    if (m.label == "A" || m.label == "G") {
      const std::string k =
          m.label == "A" ? "astitch_slower_than_tvm_resnet50" : "astitch_slower_than_tvm_mobilenet";
      Claim c{m.name + ": AStitch slower than TVM (1 = yes)",
              src(k),
              q(k),
              as < 1 ? 1.0 : 0.0,
              ClaimKind::Ordering,
              "yes"};
      c.stand_in = kAStitchAndTvmStandIn;
      claims.push_back(c);
    }
  }
  const double mean_gt = std::accumulate(gt_sp.begin(), gt_sp.end(), 0.0) / double(gt_sp.size());
  const double mean_as =
      std::accumulate(gt_over_as.begin(), gt_over_as.end(), 0.0) / double(gt_over_as.size());
  t.add_row({"mean", "arithmetic (" + std::to_string(gt_sp.size()) + " of 10 models)", Missing{},
             Missing{}, Missing{}, Missing{}, mean_gt, mean_as, q("graphturbo_over_tvm_mean"),
             Missing{}, Missing{}});
  t.add_row({"geomean", "geometric", Missing{}, Missing{}, Missing{}, Missing{}, geomean(gt_sp),
             geomean(gt_over_as), Missing{}, Missing{}, Missing{}});
  ctx.note(
      "paper means are over all ten configurations; ours over the " + std::to_string(gt_sp.size()) +
      " of them in the zoo; the paper prints no number for a model's bar (§2.1's 7.97x is "
      "ResNet-50 at batch 32, compared in Fig. 3; BERT-128 at batch 32 is Table 1's 4052 / 512, "
      "compared in Table 1)");
  claims.push_back({"mean GraphTurbo speedup over TVM", src("graphturbo_over_tvm_mean"),
                    q("graphturbo_over_tvm_mean"), mean_gt, ClaimKind::Ratio, "x", kTvmStandIn});
  claims.push_back({"mean GraphTurbo speedup over AStitch", src("graphturbo_over_astitch_mean"),
                    q("graphturbo_over_astitch_mean"), mean_as, ClaimKind::Ratio, "x",
                    kAStitchStandIn});
  ctx.emit_table("Fig. 14 - Speedups of throughput over TVM", t);
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(claims);
}

void run_table1(ExperimentContext& ctx) {
  note_constants(ctx);
  const PaperData pd = ctx.paper_data("table1.csv");
  Table t({"approach", "batch", "iterations", "paper_iterations", "batches_per_cluster",
           "paper_batches_per_cluster", "throughput", "paper_throughput", "latency_ms",
           "paper_latency_ms", "autotuned"});
  std::vector<Claim> claims;
  struct Row {
    std::string approach;
    int64_t batch;
    Approach a;
    int64_t per_cluster;  // 0 = the approach's choice; else the paper's configuration (an input)
  };
  const std::vector<Row> rows = {{"TVM", 8, Approach::Tvm, 0},
                                 {"TVM", 16, Approach::Tvm, 0},
                                 {"TVM", 32, Approach::Tvm, 0},
                                 {"TVM", 64, Approach::Tvm, 0},
                                 {"GraphTurbo", 8, Approach::GraphTurbo, 0},
                                 {"GraphTurbo", 16, Approach::GraphTurbo, 0},
                                 {"GraphTurbo", 32, Approach::GraphTurbo, 0},
                                 {"GraphTurbo", 64, Approach::GraphTurbo, 16},
                                 {"GraphTurbo-loop", 64, Approach::GraphTurbo, 8}};
  std::map<std::pair<std::string, int64_t>, double> throughput;
  for (const Row& r : rows) {
    const DsaRun run = run_on_dsa("bert_base", r.batch, r.a, stcp920(), r.per_cluster, 128);
    const std::vector<std::pair<std::string, std::string>> key = {
        {"approach", r.approach}, {"batch", std::to_string(r.batch)}};
    std::string tried;
    for (const auto& [b, thr] : run.autotuned) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s%lld: %.4g/s", tried.empty() ? "" : "; ",
                    static_cast<long long>(b), thr);
      tried += buf;
    }
    t.add_row(
        {r.approach, r.batch, run.iterations, pd.cell(key, "iterations"), run.batches_per_cluster,
         pd.cell(key, "batches_per_cluster"), run.throughput, pd.cell(key, "throughput"),
         run.latency_ms, pd.cell(key, "latency_ms"),
         tried.empty() ? std::string(r.per_cluster ? "the paper's configuration" : "-") : tried});
    throughput[{r.approach, r.batch}] = run.throughput;
    Claim c{r.approach + " batch " + std::to_string(r.batch) + ": batches per cluster",
            pd.source(key),
            *pd.value(key, "batches_per_cluster"),
            double(run.batches_per_cluster),
            ClaimKind::Count,
            ""};
    if (r.per_cluster != 0) {
      c.informational = "an input: the paper's configuration of this row, run as given";
    } else if (r.a == Approach::Tvm) {
      c.stand_in = kTvmStandIn;
      if (r.batch == 8)
        c.informational =
            "follows from the calibration: the even share 8 / 4 = 2 is below TVM's LLB rule's 4 "
            "(kTvmLlbFraction's calibration point)";
      else
        c.calibrated = "kTvmLlbFraction = " + num(kTvmLlbFraction) +
                       " (TVM keeps 4 BERT-128 batches per cluster, §5.1)";
    } else if (run.autotuned.size() < 2) {
      c.informational = "one candidate (the even share): nothing was tuned";
    }
    claims.push_back(c);
  }
  // §5.1: at batch 64, allocating 8 batches per cluster with a loop of two iterations beats 16
  // per cluster (the paper: 4052 against 2716 sentences/s).
  const std::vector<std::pair<std::string, std::string>> k64 = {{"approach", "GraphTurbo"},
                                                                {"batch", "64"}};
  const std::vector<std::pair<std::string, std::string>> kloop = {{"approach", "GraphTurbo-loop"},
                                                                  {"batch", "64"}};
  claims.push_back(
      {"batch 64: 8 per cluster x 2 iterations faster than 16 per cluster (1 = yes)",
       "§5.1 (Table 1: 4052 vs 2716 sentences/s)",
       *pd.value(kloop, "throughput") > *pd.value(k64, "throughput") ? 1.0 : 0.0,
       throughput[{"GraphTurbo-loop", 64}] > throughput[{"GraphTurbo", 64}] ? 1.0 : 0.0,
       ClaimKind::Ordering, "yes"});
  // GraphTurbo over TVM at batches 8, 16 (the same, §5.1) and 32 (Table 1's 4052 / 512).
  for (int64_t batch : {8, 16, 32}) {
    const std::vector<std::pair<std::string, std::string>> kg = {{"approach", "GraphTurbo"},
                                                                 {"batch", std::to_string(batch)}};
    const std::vector<std::pair<std::string, std::string>> kt = {{"approach", "TVM"},
                                                                 {"batch", std::to_string(batch)}};
    const double paper = *pd.value(kg, "throughput") / *pd.value(kt, "throughput");
    const std::string b = std::to_string(batch);
    Claim c{"BERT-128 batch " + b + ": GraphTurbo / TVM throughput",
            batch == 32 ? "Table 1 (derived: 4052 / 512)"
                        : "§5.1: 'GraphTurbo performs the same as TVM when the batch size is 8 "
                          "and 16' (Table 1: " +
                              num(*pd.value(kg, "throughput")) + " / " +
                              num(*pd.value(kt, "throughput")) + ")",
            paper,
            throughput[{"GraphTurbo", batch}] / throughput[{"TVM", batch}],
            ClaimKind::Ratio,
            "x"};
    c.stand_in = kTvmStandIn;
    claims.push_back(c);
  }
  ctx.note(
      "GraphTurbo's batches per cluster at batches 8, 16 and 32: the paper's autotuning (§5.1), "
      "the candidates and their throughputs in the autotuned column (kAutotuneHalvings = " +
      std::to_string(kAutotuneHalvings) +
      "); the batch-64 rows run the paper's two configurations (16 per cluster, and 8 per cluster "
      "in two iterations) as given");
  ctx.emit_table("Table 1 - Results of BERT-128 under different batch sizes", t);
  ctx.emit_claims(claims);
}

void run_table2(ExperimentContext& ctx) {
  prefetch_runs();  // the configurations one per CPU at a time
  note_constants(ctx);
  const PaperData pd = ctx.paper_data("table2.csv");
  Table t({"label", "model", "batch", "tvm_batches_per_cluster", "paper_tvm_batches_per_cluster",
           "graphturbo_batches_per_cluster", "paper_graphturbo_batches_per_cluster",
           "graphturbo_candidates", "tvm_throughput", "paper_tvm_throughput", "unit"});
  std::vector<Claim> claims;
  for (const ModelRow& m : model_rows()) {
    const std::vector<std::pair<std::string, std::string>> key = {{"label", m.label}};
    ctx.progress(m.label + " (" + m.name + ")");
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
    Claim thr{m.name + ": TVM throughput (" + unit + ")",
              pd.source(key),
              std::get<double>(pthr),
              r.tvm.throughput,
              ClaimKind::Time,
              unit};
    thr.stand_in = kTvmStandIn;
    claims.push_back(thr);
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

void run_table3(ExperimentContext& ctx) {
  prefetch_runs();  // the configurations one per CPU at a time
  note_constants(ctx);
  ctx.note(
      "counts: written tensors (per cluster, per instance slice) at each level; the paper's "
      "counting unit is not stated");
  const PaperData pd = ctx.paper_data("table3.csv");
  Table t({"label", "model", "ddr_tvm", "paper_ddr_tvm", "ddr_graphturbo", "paper_ddr_graphturbo",
           "llb_tvm", "paper_llb_tvm", "llb_graphturbo", "paper_llb_graphturbo", "l1_tvm",
           "paper_l1_tvm", "l1_graphturbo", "paper_l1_graphturbo"});
  std::vector<Claim> claims;
  for (const ModelRow& m : model_rows()) {
    if (m.zoo.empty()) continue;
    const RowRuns& r = runs_of(m);
    const std::vector<std::pair<std::string, std::string>> key = {{"label", m.label}};
    t.add_row({m.label, m.name, r.tvm.ddr_tensors, pd.cell(key, "ddr_tvm"), r.gt.ddr_tensors,
               pd.cell(key, "ddr_graphturbo"), r.tvm.llb_tensors, pd.cell(key, "llb_tvm"),
               r.gt.llb_tensors, pd.cell(key, "llb_graphturbo"), r.tvm.l1_tensors,
               pd.cell(key, "l1_tvm"), r.gt.l1_tensors, pd.cell(key, "l1_graphturbo")});
    Claim only_ddr{m.name + ": TVM declares tensors only in DDR (1 = yes)",
                   pd.source(key),
                   *pd.value(key, "llb_tvm") + *pd.value(key, "l1_tvm") == 0 ? 1.0 : 0.0,
                   r.tvm.llb_tensors + r.tvm.l1_tensors == 0 ? 1.0 : 0.0,
                   ClaimKind::Ordering,
                   "yes"};
    only_ddr.informational =
        "the TVM-like plan writes every output to DDR by construction (the paper's description "
        "of TVM, §5.4)";
    claims.push_back(only_ddr);
    Claim tvm_ddr{m.name + ": TVM DDR tensors (one per kernel)",
                  pd.source(key),
                  *pd.value(key, "ddr_tvm"),
                  double(r.tvm.ddr_tensors),
                  ClaimKind::Count,
                  ""};
    tvm_ddr.stand_in = kTvmStandIn;
    claims.push_back(tvm_ddr);
    for (const auto& [level, ours] : std::vector<std::pair<std::string, int64_t>>{
             {"ddr", r.gt.ddr_tensors}, {"llb", r.gt.llb_tensors}, {"l1", r.gt.l1_tensors}})
      claims.push_back({m.name + ": GraphTurbo tensors in " +
                            (level == "l1"    ? std::string("L1")
                             : level == "llb" ? "the LLB"
                                              : "DDR"),
                        pd.source(key), *pd.value(key, level + "_graphturbo"), double(ours),
                        ClaimKind::Count, ""});
  }
  ctx.emit_table("Table 3 - Comparison of buffer scopes", t);
  ctx.emit_claims(claims);
}

void run_table4(ExperimentContext& ctx) {
  prefetch_runs();  // the configurations one per CPU at a time
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

void run_fig3(ExperimentContext& ctx) {
  note_constants(ctx);
  // ResNet-50 with 8 images per cluster: TVM-like stage-level schedule (each core one image)
  // against GraphTurbo's instances in Algorithm 3's order.
  ZooOptions o;
  o.batch = 8;
  const Graph g = build_zoo_model("resnet50", o);
  const GtParams p = stcp920_gt_params(stcp920());
  const Schedule s = schedule_graph(g, p);
  Table t(
      {"time_step", "instance", "stage", "images", "output_bytes", "live_bytes", "capacity_bytes"});
  std::vector<int> pos(s.order.size());
  for (size_t k = 0; k < s.order.size(); ++k) pos[size_t(s.order[k])] = int(k);
  for (size_t step = 0; step < s.order.size(); ++step) {
    const int i = s.order[step];
    int64_t live = 0;
    for (size_t j = 0; j < s.order.size(); ++j) {
      int last = pos[j];
      for (size_t c = 0; c < s.dag.producers.size(); ++c)
        for (int q : s.dag.producers[c])
          if (q == int(j)) last = std::max(last, pos[c]);
      if (pos[j] <= int(step) && last >= int(step)) live += s.dag.output_bytes[j];
    }
    const Instance& in = s.instances[size_t(i)];
    const int64_t f = s.grouping.subgraphs[size_t(in.subgraph)].best.factor;
    t.add_row({int64_t(step + 1), s.dag.labels[size_t(i)],
               "stage" + std::to_string(in.subgraph + 1), 8 / f, s.dag.output_bytes[size_t(i)],
               live, p.split_capacity});
  }
  ctx.emit_table("Fig. 3b - GraphTurbo: instances per time step (ResNet-50, 8 images/cluster)", t,
                 "_graphturbo");
  // TVM-like (Fig. 3a): stage by stage, each core one image; the LB bytes one core needs for its
  // image's largest activation in each stage, against the 64 KiB L1.
  Table a({"stage", "bytes_per_core", "l1_bytes"});
  LineChart chart{
      .title = "Fig. 3 - live instance outputs per time step (ResNet-50, 8 images/cluster)",
      .x_label = "time step",
      .y_label = "MiB",
      .x = {},
      .series = {{"GraphTurbo live outputs (ours)", {}}, {"Algorithm 1 capacity", {}}}};
  for (size_t step = 0; step < t.rows().size(); ++step) {
    chart.x.push_back(double(step + 1));
    chart.series[0].values.push_back(double(std::get<int64_t>(t.rows()[step][5])) / (1 << 20));
    chart.series[1].values.push_back(double(p.split_capacity) / (1 << 20));
  }
  for (size_t k = 0; k < s.grouping.subgraphs.size(); ++k) {
    const SubGraph& sg = s.grouping.subgraphs[k];
    a.add_row({"stage" + std::to_string(k + 1), sg.peak_bytes / 8, p.l1_bytes});
  }
  ctx.emit_table("Fig. 3a - TVM-like: one image per core, largest activation per stage", a, "_tvm");
  ctx.emit_svg(line_chart_svg(chart));
  // The 8/4/2/1 split is the calibration point of kSplitCapacityFractionOfLlb (Fig. 6's split of
  // this network), not a result; the speedup is §2.1's batch-32 case (N = 32, 8 images per
  // cluster): GraphTurbo's Fig. 3b schedule at 8 per cluster against TVM at batch 32.
  const PaperData pd = ctx.paper_data("fig3.csv");
  const auto q = [&](const std::string& k) { return *pd.value({{"quantity", k}}, "value"); };
  const auto src = [&](const std::string& k) { return pd.source({{"quantity", k}}); };
  std::vector<Claim> claims;
  for (size_t k = 0; k < 4; ++k) {
    const std::string key = "stage" + std::to_string(k + 1) + "_instances";
    Claim c{"ResNet-50 at 8 images per cluster: instances of stage " + std::to_string(k + 1),
            src(key),
            q(key),
            k < s.grouping.subgraphs.size() ? double(s.grouping.subgraphs[k].best.factor)
                                            : std::numeric_limits<double>::quiet_NaN(),
            ClaimKind::Count,
            "instances"};
    c.calibrated = "kSplitCapacityFractionOfLlb = " + num(kSplitCapacityFractionOfLlb) +
                   " (Algorithm 1's capacity, chosen on this split)";
    claims.push_back(c);
  }
  const DsaRun tvm = run_on_dsa("resnet50", 32, Approach::Tvm, stcp920(), 0);
  const DsaRun gt = run_on_dsa("resnet50", 32, Approach::GraphTurbo, stcp920(), 8);
  Claim c{"ResNet-50 batch 32: the Fig. 3b schedule (8 images per cluster) over TVM",
          src("resnet50_graphturbo_over_tvm_batch32"),
          q("resnet50_graphturbo_over_tvm_batch32"),
          gt.throughput / tvm.throughput,
          ClaimKind::Ratio,
          "x"};
  c.stand_in = kTvmStandIn;
  claims.push_back(c);
  ctx.note(
      "the speedup: ResNet-50 at batch 32, GraphTurbo at 8 images per cluster (Fig. 3b, as "
      "given) " +
      num(gt.throughput) + "/s against TVM at " + std::to_string(tvm.batches_per_cluster) +
      " per cluster in " + std::to_string(tvm.iterations) + " iterations " + num(tvm.throughput) +
      "/s");
  ctx.emit_claims(claims);
}

}  // namespace dgs::graphturbo
