// Fig. 5: (a) the distribution of atom cycles after SA atom generation; (b) SA vs GA convergence
// on the same number of energy evaluations.
#include <algorithm>
#include <cmath>

#include "models/zoo.h"
#include "reproductions/atomic/atom_search.h"
#include "reproductions/atomic/experiments/experiments.h"

namespace dgs::atomic {

namespace {

// "tested on each of the four DNN workloads" (Sec. IV-A): Fig. 2's four.
const std::vector<std::string> kFig5Networks = {"resnet50", "inception_v3", "nasnet_large",
                                                "efficientnet_b0"};
constexpr int kHistogramBins = 20;

// Coefficient of variation of the atoms' cycles (every atom of one sample).
double atom_cycle_cv(const AtomicDag& dag) {
  double n = 0, sum = 0, sum2 = 0;
  for (const Atom& a : dag.atoms) {
    n += 1;
    sum += a.cycles;
    sum2 += a.cycles * a.cycles;
  }
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, sum2 / n - mean * mean)) / mean;
}

}  // namespace

void run_fig5(ExperimentContext& ctx) {
  const DsaSpec& spec = ctx.hardware().dsa.value();
  const AnnealConstants k;
  Table hist({"dnn", "bin_lo_cycles", "bin_hi_cycles", "atoms"});
  Table summary({"dnn", "layers", "atoms", "mean_cycles", "cv_random_shapes", "cv_sa_atoms",
                 "sa_iterations"});
  std::vector<Claim> claims;
  std::vector<std::string> panels;
  for (const std::string& net : kFig5Networks) {
    ctx.progress(net);
    const Graph g = build_zoo_model(net, {.batch = 1});
    const std::vector<Layer> layers = graph_layers(g);
    const auto options = shape_options(g, layers, spec);
    const AnnealResult sa = anneal_atom_shapes(options, k, ctx.options().seed);
    const AtomicDag dag = build_atomic_dag(g, chosen_shapes(options, sa.choice), spec);
    // The SA's starting point (the same seed's random shapes): its spread from the layers'
    // representative atoms (building its DAG would take millions of tiny atoms).
    AnnealConstants none = k;
    none.iterations = 0;
    const AnnealResult start = anneal_atom_shapes(options, none, ctx.options().seed);
    double hi = 0, sum = 0;
    for (const Atom& a : dag.atoms) {
      hi = std::max(hi, a.cycles);
      sum += a.cycles;
    }
    std::vector<int64_t> counts(kHistogramBins, 0);
    for (const Atom& a : dag.atoms) {
      const int b = std::min(kHistogramBins - 1, static_cast<int>(a.cycles / hi * kHistogramBins));
      ++counts[static_cast<size_t>(b)];
    }
    BarChart chart;
    chart.title = "Fig. 5a: atom cycles after SA, " + net;
    chart.y_label = "atoms";
    chart.x_label = "cycles (bin upper edge)";
    Series s{"atoms", {}};
    for (int b = 0; b < kHistogramBins; ++b) {
      const double lo = hi * b / kHistogramBins, up = hi * (b + 1) / kHistogramBins;
      hist.add_row({net, lo, up, counts[static_cast<size_t>(b)]});
      chart.categories.push_back(format_cell(up, 3));
      s.values.push_back(static_cast<double>(counts[static_cast<size_t>(b)]));
    }
    chart.series = {s};
    panels.push_back(bar_chart_svg(chart, 480, 320));
    const double cv_sa = atom_cycle_cv(dag);
    const double cv_random = std::sqrt(shape_energy(options, start.choice));
    summary.add_row({net, static_cast<int64_t>(layers.size()),
                     static_cast<int64_t>(dag.atoms.size()),
                     sum / static_cast<double>(dag.atoms.size()), cv_random, cv_sa,
                     static_cast<int64_t>(sa.energy.size())});
    claims.push_back(yes_no_claim(net + ": atom cycles concentrate (CV after SA below the random "
                                        "shapes' CV; 1 = yes)",
                                  "Sec. IV-A, Fig. 5a ('most of the computing cycles are "
                                  "concentrated to a same region')",
                                  cv_sa < cv_random));
  }
  // (b) on ResNet-50: SA's accepted energy and the GA's population mean per evaluation.
  const Graph g = build_zoo_model("resnet50", {.batch = 1});
  const auto options = shape_options(g, graph_layers(g), spec);
  const AnnealResult sa = anneal_atom_shapes(options, k, ctx.options().seed);
  const AnnealResult ga = genetic_atom_shapes(options, sa.evaluations, ctx.options().seed);
  Table conv({"evaluations", "sa_energy", "ga_energy"});
  LineChart line;
  line.title = "Fig. 5b: SA vs GA on ResNet-50 (energy = CV^2 of atom cycles)";
  line.x_label = "energy evaluations";
  line.y_label = "CV^2 of atom cycles";
  line.log_y = true;
  Series sa_s{"SA", {}}, ga_s{"GA (population mean)", {}};
  const int ga_step = static_cast<int>(std::max<size_t>(
      1, static_cast<size_t>(sa.evaluations) / std::max<size_t>(1, ga.energy.size())));
  for (int e = ga_step; e <= sa.evaluations; e += ga_step) {
    const size_t si = std::min(sa.energy.size() - 1, static_cast<size_t>(e - 1));
    const size_t gi = std::min(ga.energy.size() - 1, static_cast<size_t>(e / ga_step - 1));
    conv.add_row({static_cast<int64_t>(e), sa.energy[si], ga.energy[gi]});
    line.x.push_back(e);
    sa_s.values.push_back(sa.energy[si]);
    ga_s.values.push_back(ga.energy[gi]);
  }
  line.series = {sa_s, ga_s};
  const double ga_best = shape_energy(options, ga.choice);
  claims.push_back(
      yes_no_claim("SA stops at a lower spread than GA on the same evaluations "
                   "(ResNet-50; 1 = yes)",
                   "Sec. IV-A, Fig. 5b ('SA converges more quickly and stops at "
                   "lower Var')",
                   sa.energy.back() < ga_best));
  ctx.note("SA constants (not in the paper): iterations " + std::to_string(k.iterations) +
           ", Len = " + format_cell(k.step_fraction, 3) + " x initial mean cycles, lambda " +
           format_cell(k.cooling, 3) + ", Temp0 = initial energy, stop at CV " +
           format_cell(k.stop_cv, 3) + "; seed " + std::to_string(ctx.options().seed));
  ctx.note(
      "energy = CV^2 (Var / Mean^2) of every atom's cycles, not the absolute Var (which "
      "drifts to tiny atoms); line 17's lambda x Temp is kept as printed; each matrix layer's "
      "shapes: those at least half as well utilised as its best (target (1), "
      "half_performance_options in atom_search.h)");
  ctx.note(
      "GA (not in the paper): population 20, tournament 3, uniform crossover 0.8, mutation "
      "0.1 per layer, one elite, on the SA's number of evaluations; its curve is the "
      "population mean (the best never rises with elitism); GA best " +
      format_cell(ga_best, 4) + ", SA final " + format_cell(sa.energy.back(), 4));
  ctx.note("histograms: every atom of one sample, 20 equal bins from 0 to the longest atom");
  ctx.note(
      "cv_random_shapes: the spread of the seed's random initial shapes, from each layer's "
      "full-size atom weighted by its atom count (the SA's energy); cv_sa_atoms: the spread "
      "of every atom of the SA's shapes, edge atoms included (so it can exceed sqrt(eps))");
  ctx.emit_table("Fig. 5a: atom cycle histograms", hist, "_histogram");
  ctx.emit_table("Fig. 5a: atom cycle spread", summary);
  ctx.emit_table("Fig. 5b: SA vs GA convergence", conv, "_convergence");
  panels.push_back(line_chart_svg(line, 480, 320));
  ctx.emit_svg(panels_svg(panels, 2));
  ctx.emit_claims(claims);
}

}  // namespace dgs::atomic
