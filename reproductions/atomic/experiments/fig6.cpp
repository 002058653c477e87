// Fig. 6: the four sources of parallelism of atomic-DAG scheduling, on the toy DAG of a PNASNet
// cell (fig6_toy.h) scheduled by our priority-rule Rounds on four engines, two samples. Each
// Round is listed with its atoms ("X-Y" = atom Y of layer X, primed for sample 1) and the kind of
// parallelism it shows; the claims are the four the paper reads off its figure (Sec. IV-B).
#include <algorithm>
#include <set>

#include "reproductions/atomic/experiments/experiments.h"
#include "reproductions/atomic/experiments/fig6_toy.h"
#include "reproductions/atomic/paper_networks.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {

namespace {

// What a Round shows: one layer; layers at one depth; a layer beside its unfinished producer;
// several samples.
std::string parallelism_of(const AtomicDag& dag, const AtomSchedule& s, size_t t) {
  std::set<int> layers, samples, depths;
  for (int a : s.rounds[t].atoms) {
    const Atom& at = dag.atoms[static_cast<size_t>(a)];
    layers.insert(at.layer);
    samples.insert(at.sample);
    depths.insert(dag.layers[static_cast<size_t>(at.layer)].depth);
  }
  if (samples.size() > 1) return "batch level";
  if (layers.size() == 1) return "intra-layer";
  if (depths.size() == 1) return "same depth";
  return "dependent layers";
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

void run_fig6(ExperimentContext& ctx) {
  const DsaSpec spec = dsa_with_mesh(ctx.hardware().dsa.value(), 2, 2, 16, 16);
  const AtomicDag dag = fig6_toy_dag(2);
  const AtomSchedule s = schedule_atoms(
      Graph(), dag, spec, {.on_chip_reuse = false});  // Rounds only: the toy has no graph to buffer
  Table t({"round", "atoms", "parallelism"});
  BarChart chart;
  chart.title = "Fig. 6(c): atoms per Round by layer (4 engines, 2 samples)";
  chart.y_label = "atoms in the Round";
  chart.x_label = "Round";
  std::vector<Series> per_layer;
  for (size_t l = 0; l < dag.layers.size(); ++l)
    per_layer.push_back({"layer " + std::to_string(l + 1), {}});
  std::vector<std::vector<std::string>> labels;
  std::vector<std::string> kinds;
  for (size_t r = 0; r < s.rounds.size(); ++r) {
    std::vector<std::string> l;
    std::string joined;
    for (int a : s.rounds[r].atoms) {
      l.push_back(fig6_atom_label(dag, a));
      joined += (joined.empty() ? "" : " ") + l.back();
    }
    labels.push_back(l);
    kinds.push_back(parallelism_of(dag, s, r));
    t.add_row({static_cast<int64_t>(r + 1), joined, kinds.back()});
    chart.categories.push_back(std::to_string(r + 1));
    for (Series& ser : per_layer) ser.values.push_back(0);
    for (int a : s.rounds[r].atoms)
      per_layer[static_cast<size_t>(dag.atoms[static_cast<size_t>(a)].layer)].values.back() += 1;
  }
  const bool intra = labels.size() >= 8 && kinds[0] == "intra-layer" && kinds[1] == "intra-layer" &&
                     kinds[3] == "intra-layer" && kinds[5] == "intra-layer";
  const bool round3 = labels.size() >= 3 && has(labels[2], "1-9") && kinds[2] == "same depth";
  bool layer3_unfinished = false;
  for (size_t r = 6; r < labels.size(); ++r) {
    for (const std::string& l : labels[r])
      layer3_unfinished |= l.rfind("3-", 0) == 0 && l.back() != '\'';
  }
  const bool round7 =
      labels.size() >= 7 && has(labels[6], "4-1") && has(labels[6], "4-3") && layer3_unfinished;
  const bool round8 = labels.size() >= 8 && kinds[7] == "batch level";
  const std::string src = "Sec. IV-B, Fig. 6(c)";
  std::vector<Claim> claims = {
      yes_no_claim("Rounds 1, 2, 4 and 6 run atoms of one layer (intra-layer) (1 = yes)", src,
                   intra, kDpStandIn),
      yes_no_claim("Round 3 runs atom 1-9 beside atoms of layer 2, at the same depth (1 = yes)",
                   src, round3, kDpStandIn),
      yes_no_claim("Round 7 runs atoms 4-1 and 4-3 while layer 3 is unfinished (1 = yes)", src,
                   round7, kDpStandIn),
      yes_no_claim("Round 8 runs atoms of the next sample (batch level) (1 = yes)", src, round8,
                   kDpStandIn)};
  ctx.note(
      "the figure's image is not in our source: the DAG is built from the text (fig6_toy.h): "
      "layers 1 and 2 at depth 0 with 9 and 7 atoms, layer 3 (their sum, 9 atoms on a 3 x 3 "
      "grid) reading atom 1-k and all of layer 2, layer 4 (a 3x3 convolution, 4 atoms on a 2 x 2 "
      "grid) reading the 2 x 2 block of layer-3 atoms under its window; equal atom cycles; "
      "2 samples on 2 x 2 engines");
  ctx.note(
      "Rounds: our priority-rule fill (schedule.h), the same code as every network's AD run; "
      "the atom counts were chosen so that the text's Rounds 1-8 can occur, the Rounds "
      "themselves are what the scheduler picks (tests/atomic/fig6_schedule_test.cpp asserts them)");
  chart.series = per_layer;
  ctx.emit_table("Fig. 6(c): the toy cell's Rounds on four engines", t);
  ctx.emit_svg(bar_chart_svg(chart));
  ctx.emit_claims(claims);
}

}  // namespace dgs::atomic
