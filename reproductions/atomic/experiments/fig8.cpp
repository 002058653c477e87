// Fig. 8: latency at batch 1, LS, IL-Pipe and AD (and Ideal), KC-P and YX-P, on the shared DSA
// model (CNN-P equals LS at batch 1, as the paper says).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "common/util/error.h"
#include "common/util/parallel_for.h"
#include "models/zoo.h"
#include "reproductions/atomic/atom_search.h"
#include "reproductions/atomic/baselines.h"
#include "reproductions/atomic/experiments/experiments.h"
#include "reproductions/atomic/experiments/ls_ad_runs.h"
#include "reproductions/atomic/experiments/note_number.h"
#include "reproductions/atomic/experiments/partition_runs.h"
#include "reproductions/atomic/iterative_search.h"
#include "reproductions/atomic/paper_networks.h"

namespace dgs::atomic {

namespace {

// Per network, its LS and AD (ls_ad_run: cached, for the later items) and IL-Pipe.
struct Fig8NetRuns {
  const LsAdRun* run = nullptr;
  double ilpipe_us = NAN;
  std::string refused;  // the DSA model's refusal of a plan, if any
};

Fig8NetRuns fig8_net_run(ExperimentContext& ctx, const std::string& net, const DsaSpec& spec) {
  Fig8NetRuns r;
  const Graph g = build_zoo_model(net, {.batch = 1});
  const std::string dfn(dsa_dataflow_name(spec.dataflow));
  try {
    r.run = &ls_ad_run(net, 1, spec, ctx.options().seed);
    ctx.progress(dfn + " " + net + ": LS, AD");
    r.ilpipe_us = partition_run(g, ilpipe_layout(g, graph_layers(g), spec), spec, "IL-Pipe")
                      .result.latency_us;
  } catch (const Error& e) {
    r.refused = e.what();
    ctx.progress(dfn + " " + net + ": refused");
    return r;
  }
  ctx.progress(dfn + " " + net + ": IL-Pipe");
  return r;
}

// The runs of every dataflow's networks (`nets[d]` on `specs[d]`), in one pool of one network
// per CPU at a time, handed out the most MACs first (macs_at_batch_1), each into its own slot:
// one pool rather than one per dataflow and step (LS and AD, then IL-Pipe), so that no CPU waits
// at a step's end while another runs the step's last network.
std::vector<std::vector<Fig8NetRuns>> fig8_net_runs(
    ExperimentContext& ctx, const std::vector<DsaSpec>& specs,
    const std::vector<std::vector<std::string>>& nets) {
  std::vector<std::vector<Fig8NetRuns>> runs;
  std::vector<std::pair<size_t, size_t>> jobs;  // (dataflow, network)
  std::vector<std::string> all;
  for (size_t d = 0; d < specs.size(); ++d) {
    runs.emplace_back(nets[d].size());
    for (size_t n = 0; n < nets[d].size(); ++n) {
      jobs.push_back({d, n});
      all.push_back(nets[d][n]);
    }
  }
  parallel_for_largest_first(macs_at_batch_1(all), available_cpus(), [&](int64_t j) {
    const auto [d, n] = jobs[static_cast<size_t>(j)];
    runs[d][n] = fig8_net_run(ctx, nets[d][n], specs[d]);
  });
  return runs;
}

// The notes that say how each column was made.
void note_fig8_method(ExperimentContext& ctx, const DsaSpec& base) {
  const std::string engines = std::to_string(base.units());
  ctx.note(
      "AD: the iterative search (iterative_search.h; Fig. 4b) over Algorithm 1's atom sets "
      "(the SA with seed " +
      std::to_string(ctx.options().seed) + " and the atoms at up to " +
      std::to_string(kTargetDoublings) +
      " doublings of its target cycle S) and LS's even split (kEvenSplitCandidate, an open "
      "choice: the paper says AD's search space covers the previous allocation schemes), each "
      "with Rounds filled greedily by the four "
      "priority rules (the DP of dp_schedule.h runs only on small atomic DAGs, not on "
      "networks), snake mapping with the Eq. 2 permutation search and Algorithm 3 "
      "buffering, priced by the DSA model; the fastest is kept (the search lines above); "
      "ad_sa_only_*: the SA's atoms alone (the first candidate); LS: each layer split over "
      "the " +
      engines +
      " engines, a layer's output through DRAM (what a layer is: the LS line below); both priced "
      "by the shared DSA model "
      "(common/dsamodel) on " +
      base.name + "; fold_overhead_cycles not calibrated (" +
      note_number(base.fold_overhead_cycles) + ")");
  ctx.note("Ideal = total MACs / (" + engines + " engines x " +
           note_number(base.matrix_macs_per_cycle) + " MACs/cycle x " +
           note_number(base.clock_mhz) + " MHz)");
  ctx.note(
      "ad_even_atoms_*: AD's priority-rule Rounds, mapping and buffering on LS's even atoms "
      "(each layer split over the " +
      engines +
      " engines): the search's last candidate (kEvenSplitCandidate, its latency as the search "
      "priced it; nan where the model refuses its plan), so ad_us is at most it");
  ctx.note(
      "where the time goes: the _breakdown table (DRAM bytes, the busiest mesh link's bytes and "
      "time at " +
      note_number(base.noc_link_bytes_per_cycle) +
      " B/cycle, and the PE utilisation of the matrix cycles alone) for LS and the kept AD "
      "plan");
  ctx.note(
      "claims: per network of the paper's set (Table II's eight), ours against the paper's "
      "range over its networks; YX-P has no numbers in the text ('the situation is similar'), "
      "shown only; CNN-P equals LS at batch 1 (the paper omits it from Fig. 8 for that reason)");
  ctx.note(ls_layer_note());
  ctx.note(partition_baselines_note());
}

}  // namespace

void run_fig8(ExperimentContext& ctx) {
  const DsaSpec& base = ctx.hardware().dsa.value();
  const PaperData paper = ctx.paper_data("fig8.csv");
  Table t({"dataflow", "dnn", "ls_us", "ad_us", "ideal_us", "ad_over_ls", "ad_rounds", "ad_atoms",
           "ad_target_cycles", "ad_candidates", "ad_sa_only_us", "ad_sa_only_over_ls",
           "ad_even_atoms_us", "ad_even_atoms_over_ls", "ilpipe_us", "ad_over_ilpipe"});
  // Where the time goes: DRAM bytes, the busiest mesh link's bytes (8 B/cycle), and the PE
  // utilisation of the matrix cycles alone (MACs / (summed matrix cycles x 256)).
  Table where({"dataflow", "dnn", "strategy", "latency_us", "hbm_mb", "busiest_link_mb",
               "busiest_link_us", "matrix_busy_util_pct"});
  auto add_where = [&](const std::string& df, const std::string& net, const std::string& name,
                       const EvaluationResult& r, const DsaSpec& spec) {
    const double link = value_of(r.details, "noc_max_link_bytes");
    const double matrix_cycles = value_of(r.busy_us_by_unit, "matrix") * spec.clock_mhz;
    where.add_row({df, net, name, r.latency_us, value_of(r.bytes_by_level, "hbm") / 1e6, link / 1e6,
                   link / spec.noc_link_bytes_per_cycle / spec.clock_mhz,
                   matrix_cycles > 0
                       ? 100 * r.flops / 2 / (matrix_cycles * spec.matrix_macs_per_cycle)
                       : 0.0});
  };
  BarChart chart;
  chart.title = "Fig. 8: AD speedup over LS at batch 1";
  chart.y_label = "speedup (x)";
  chart.x_label = "network";
  chart.reference_y = 1;
  const std::vector<std::pair<std::string, std::string>> ls_key = {{"quantity", "ad_over_ls_kc"}};
  const std::vector<std::pair<std::string, std::string>> il_key = {
      {"quantity", "ad_over_ilpipe_kc"}};
  // Per network of the paper's set: ours against the paper's range over its networks (each of
  // them lies in it), so any network of the set is a fair case; one not run is a row that says so.
  auto range_claim =
      [&](const std::string& net, const std::vector<std::pair<std::string, std::string>>& key,
          const std::string& over, double ours, std::string stand_in, std::string not_run) {
        Claim c{.text = paper_name_of(net) + ": AD over " + over + " at batch 1, KC-P",
                .source = paper.source(key),
                .paper = paper.value(key, "low").value_or(NAN),
                .ours = ours,
                .kind = ClaimKind::Ratio,
                .unit = "x",
                .stand_in = std::move(stand_in),
                .informational = not_run.empty() ? "" : "not run: " + not_run,
                .paper_high = paper.value(key, "high")};
        return c;
      };
  std::vector<Claim> claims;
  chart.categories = networks_run(1, DsaDataflow::KC);
  const std::vector<DsaDataflow> dataflows = {DsaDataflow::KC, DsaDataflow::YX};
  std::vector<DsaSpec> specs;
  std::vector<std::vector<std::string>> nets_of;
  for (const DsaDataflow df : dataflows) {
    specs.push_back(item_spec(base, df));
    nets_of.push_back(networks_run(1, df));
  }
  ctx.progress("both dataflows' networks: LS, AD and IL-Pipe, one per CPU at a time");
  const std::vector<std::vector<Fig8NetRuns>> runs_of = fig8_net_runs(ctx, specs, nets_of);
  for (size_t d = 0; d < dataflows.size(); ++d) {
    const DsaDataflow df = dataflows[d];
    const DsaSpec& spec = specs[d];
    const std::string dfn(dsa_dataflow_name(df));
    std::map<std::string, double> speedup;  // per network run (the chart's bars)
    const std::vector<std::string>& nets = nets_of[d];
    const std::vector<Fig8NetRuns>& net_runs = runs_of[d];
    for (size_t n = 0; n < nets.size(); ++n) {
      const std::string& net = nets[n];
      const LsAdRun* run = net_runs[n].run;
      const double ilpipe_us = net_runs[n].ilpipe_us;
      if (!net_runs[n].refused.empty()) {
        const std::string why = "the DSA model refuses a plan (" + net_runs[n].refused + ")";
        ctx.note(dfn + " " + net + ": not run, " + why);
        if (df == DsaDataflow::KC) {
          claims.push_back(range_claim(net, ls_key, "LS", NAN, kDpStandIn, why));
          claims.push_back(range_claim(net, il_key, "IL-Pipe", NAN, kIlPipeStandIn, why));
        }
        continue;
      }
      const double ls_us = run->ls.result.latency_us;
      const double ad_us = run->ad.result.latency_us;
      ctx.note(dfn + " " + net + ": " + run->ad_search);
      const double even_us = run->ad_even_split_us;
      add_where(dfn, net, "LS", run->ls.result, spec);
      add_where(dfn, net, "AD", run->ad.result, spec);
      t.add_row({dfn, net, ls_us, ad_us, run->ideal_us, ls_us / ad_us,
                 static_cast<int64_t>(run->ad.schedule.rounds.size()),
                 static_cast<int64_t>(run->ad.dag.atoms.size()), run->ad_target_cycles,
                 run->ad_candidates, run->ad_sa_only_us, ls_us / run->ad_sa_only_us, even_us,
                 ls_us / even_us, ilpipe_us, ilpipe_us / ad_us});
      speedup[net] = ls_us / ad_us;
      if (df != DsaDataflow::KC) continue;
      claims.push_back(range_claim(net, ls_key, "LS", ls_us / ad_us, kDpStandIn, ""));
      claims.push_back(range_claim(net, il_key, "IL-Pipe", ilpipe_us / ad_us,
                                   stand_ins({kDpStandIn, kIlPipeStandIn}), ""));
    }
    Series s{dfn, {}};
    for (const std::string& net : chart.categories)
      s.values.push_back(speedup.count(net) ? speedup[net] : NAN);
    chart.series.push_back(s);
  }
  for (const LeftOut& l : networks_left_out(1, DsaDataflow::YX))
    ctx.note("YX-P " + l.zoo + ": not run (" + l.why + ")");
  for (const LeftOut& l : networks_left_out(1, DsaDataflow::KC)) {
    claims.push_back(range_claim(l.zoo, ls_key, "LS", NAN, kDpStandIn, l.why));
    claims.push_back(range_claim(l.zoo, il_key, "IL-Pipe", NAN, kIlPipeStandIn, l.why));
    ctx.note(l.zoo + ": not run (" + l.why + ")");
  }
  note_fig8_method(ctx, base);
  ctx.emit_table("Fig. 8: latency at batch 1", t);
  ctx.emit_table("Fig. 8: where the time goes", where, "_breakdown");
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(claims);
}

}  // namespace dgs::atomic
