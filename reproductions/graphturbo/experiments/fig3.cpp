// Fig. 3 of GraphTurbo: LB utilisation under different scheduling methods on the DSA model.
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
  claims.push_back(against_tvm_stand_in(
      {"ResNet-50 batch 32: the Fig. 3b schedule (8 images per cluster) over TVM",
       src("resnet50_graphturbo_over_tvm_batch32"), q("resnet50_graphturbo_over_tvm_batch32"),
       gt.throughput / tvm.throughput, ClaimKind::Ratio, "x"}));
  ctx.note(
      "the speedup: ResNet-50 at batch 32, GraphTurbo at 8 images per cluster (Fig. 3b, as "
      "given) " +
      num(gt.throughput) + "/s against TVM at " + std::to_string(tvm.batches_per_cluster) +
      " per cluster in " + std::to_string(tvm.iterations) + " iterations " + num(tvm.throughput) +
      "/s");
  ctx.emit_claims(claims);
}

}  // namespace dgs::graphturbo
