// Atom generation by simulated annealing and the GA comparison (see atom_search.h).
#include "reproductions/atomic/atom_search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <tuple>

#include "common/graph/iteration_space.h"
#include "reproductions/atomic/atom_task.h"

namespace dgs::atomic {

namespace {

// Powers of two from `from` below `extent`, then the whole axis (0).
std::vector<int64_t> sizes_of(int64_t extent, int64_t from) {
  std::vector<int64_t> r;
  for (int64_t s = from; s < extent; s *= 2) r.push_back(s);
  r.push_back(0);
  return r;
}

}  // namespace

double option_utilisation(const ShapeOption& o, const DsaSpec& spec) {
  if (o.compute_cycles <= 0 || spec.matrix_macs_per_cycle <= 0) return 0;
  return o.macs / (o.compute_cycles * spec.matrix_macs_per_cycle);
}

std::vector<ShapeOption> half_performance_options(std::vector<ShapeOption> options,
                                                  const DsaSpec& spec) {
  double best = 0;
  for (const ShapeOption& o : options) best = std::max(best, option_utilisation(o, spec));
  std::vector<ShapeOption> kept;
  for (ShapeOption& o : options) {
    if (2 * option_utilisation(o, spec) >= best) kept.push_back(std::move(o));
  }
  return kept;
}

std::vector<std::vector<ShapeOption>> all_shape_options(const Graph& g,
                                                        const std::vector<Layer>& layers,
                                                        const DsaSpec& spec) {
  const IterationSpaceMemo spaces(g);  // every shape's regions come from its layer's space
  std::vector<std::vector<ShapeOption>> all;
  const int64_t pe_r = spec.matrix_tile_rows > 0 ? spec.matrix_tile_rows : 1;
  const int64_t pe_c = spec.matrix_tile_columns > 0 ? spec.matrix_tile_columns : 1;
  // An atom on its engine alone loads its inputs and stores its output at the narrower of the
  // local port and the engine's equal share of DRAM.
  const double narrowest =
      std::min(spec.local_bandwidth(), spec.dram_bytes_per_cycle() / std::max(1, spec.units()));
  // A layer equal to an earlier one (its op's contents, op_contents_id, and the fields of Layer
  // the options read) has the same options: priced once (ResNet-1001's hundreds of equal
  // bottleneck layers).
  using Same = std::tuple<uint32_t, bool, bool, std::string, int64_t>;
  std::map<Same, size_t> first_of;
  for (const Layer& l : layers) {
    const Same same{op_contents_id(g, l.op), l.splittable, l.matrix, l.reduction_axis,
                    l.reduction_extent};
    const auto [earlier, is_new] = first_of.try_emplace(same, all.size());
    if (!is_new) {
      std::vector<ShapeOption> copy = all[earlier->second];
      all.push_back(std::move(copy));
      continue;
    }
    std::vector<ShapeOption> opts;
    std::vector<AtomShape> shapes;
    if (l.splittable) {
      const bool four = l.shape.size() == 4;
      const std::vector<int64_t> cos = sizes_of(l.shape[1], l.matrix ? pe_c : 16);
      const std::vector<int64_t> cis =
          l.reduction_axis.empty() ? std::vector<int64_t>{0} : sizes_of(l.reduction_extent, pe_r);
      const std::vector<int64_t> hs = four ? sizes_of(l.shape[2], 1) : std::vector<int64_t>{0};
      const std::vector<int64_t> ws = four ? sizes_of(l.shape[3], 1) : std::vector<int64_t>{0};
      for (int64_t co : cos)
        for (int64_t ci : cis)
          for (int64_t h : hs)
            for (int64_t w : ws) shapes.push_back({h, w, co, ci});
    } else {
      shapes.push_back({});
    }
    for (const AtomShape& s : shapes) {
      const AtomRegion first = first_atom_region(l, s);
      ShapeOption o;
      o.shape = s;
      o.atoms = atoms_per_sample(l, s);
      const AtomCost cost = atom_cost(g, l, first, spec);
      o.macs = cost.macs;
      o.working_bytes = atom_working_bytes(g, l, first, spec);
      o.compute_cycles = cost.cycles;
      o.cycles = cost.cycles + static_cast<double>(o.working_bytes) / narrowest;
      opts.push_back(o);
    }
    std::stable_sort(opts.begin(), opts.end(), [](const ShapeOption& a, const ShapeOption& b) {
      return a.cycles < b.cycles;
    });
    all.push_back(std::move(opts));
  }
  return all;
}

std::vector<std::vector<ShapeOption>> admitted_shape_options(
    const std::vector<Layer>& layers, const std::vector<std::vector<ShapeOption>>& all,
    int64_t budget, const DsaSpec& spec) {
  std::vector<std::vector<ShapeOption>> admitted;
  for (size_t l = 0; l < all.size(); ++l) {
    const std::vector<ShapeOption>& opts = all[l];
    std::vector<ShapeOption> fit;
    for (const ShapeOption& o : opts)
      if (o.working_bytes <= budget) fit.push_back(o);
    if (fit.empty()) {
      fit.push_back(*std::min_element(opts.begin(), opts.end(), [](const auto& a, const auto& b) {
        return a.working_bytes < b.working_bytes;
      }));
    }
    if (layers[l].matrix) fit = half_performance_options(std::move(fit), spec);
    admitted.push_back(std::move(fit));
  }
  return admitted;
}

std::vector<std::vector<ShapeOption>> shape_options(const Graph& g,
                                                    const std::vector<Layer>& layers,
                                                    const DsaSpec& spec) {
  return admitted_shape_options(layers, all_shape_options(g, layers, spec), spec.local_bytes / 2,
                                spec);
}

double shape_energy(const std::vector<std::vector<ShapeOption>>& options,
                    const std::vector<int>& choice) {
  double n = 0, sum = 0, sum2 = 0;
  for (size_t l = 0; l < options.size(); ++l) {
    const ShapeOption& o = options[l][static_cast<size_t>(choice[l])];
    const double w = static_cast<double>(o.atoms);
    n += w;
    sum += w * o.cycles;
    sum2 += w * o.cycles * o.cycles;
  }
  if (n <= 0 || sum <= 0) return 0;
  const double mean = sum / n;
  const double var = std::max(0.0, sum2 / n - mean * mean);
  return var / (mean * mean);
}

std::vector<AtomShape> chosen_shapes(const std::vector<std::vector<ShapeOption>>& options,
                                     const std::vector<int>& choice) {
  std::vector<AtomShape> r;
  for (size_t l = 0; l < options.size(); ++l) r.push_back(options[l][choice[l]].shape);
  return r;
}

std::vector<int> shapes_at_target(const std::vector<std::vector<ShapeOption>>& options,
                                  double target) {
  std::vector<int> c(options.size());
  for (size_t l = 0; l < options.size(); ++l) {
    const auto& o = options[l];
    auto it = std::lower_bound(o.begin(), o.end(), target,
                               [](const ShapeOption& s, double t) { return s.cycles < t; });
    size_t i = static_cast<size_t>(it - o.begin());
    if (i == o.size() || (i > 0 && target - o[i - 1].cycles <= o[i].cycles - target)) --i;
    c[l] = static_cast<int>(i);
  }
  return c;
}

AnnealResult anneal_atom_shapes(const std::vector<std::vector<ShapeOption>>& options,
                                const AnnealConstants& k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  AnnealResult r;
  // Line 2: random initial shapes.
  r.choice.resize(options.size());
  for (size_t l = 0; l < options.size(); ++l) {
    r.choice[l] = static_cast<int>(rng() % options[l].size());
  }
  auto closest = [&](double target) { return shapes_at_target(options, target); };
  double n = 0, sum = 0;
  for (size_t l = 0; l < options.size(); ++l) {
    const ShapeOption& o = options[l][static_cast<size_t>(r.choice[l])];
    n += static_cast<double>(o.atoms);
    sum += static_cast<double>(o.atoms) * o.cycles;
  }
  double s = n > 0 ? sum / n : 0;  // line 5
  double e = shape_energy(options, r.choice);
  ++r.evaluations;
  r.target_cycles = s;
  const double len = k.step_fraction * s;
  double temp = std::max(e, 1e-9);
  for (int it = 0; it < k.iterations; ++it) {
    const double s_move = std::max(1.0, s + (2 * unit(rng) - 1) * len);  // line 10
    std::vector<int> c = closest(s_move);                                // lines 11-14
    const double e_move = shape_energy(options, c);
    ++r.evaluations;
    temp *= k.cooling;                                             // line 16
    const double p = std::exp((e - e_move) / (k.cooling * temp));  // line 17, as printed
    if (unit(rng) <= p) {
      s = s_move;
      e = e_move;
      r.choice = std::move(c);
    }
    r.target_cycles = s;
    r.energy.push_back(e);
    if (e <= k.stop_cv * k.stop_cv) break;
  }
  return r;
}

AnnealResult genetic_atom_shapes(const std::vector<std::vector<ShapeOption>>& options,
                                 int evaluations, uint64_t seed) {
  constexpr int kPopulation = 20;
  constexpr double kCrossover = 0.8, kMutation = 0.1;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const size_t layers = options.size();
  auto random_option = [&](size_t l) { return static_cast<int>(rng() % options[l].size()); };
  std::vector<std::vector<int>> pop(kPopulation, std::vector<int>(layers));
  std::vector<double> fit(kPopulation);
  AnnealResult r;
  for (auto& ind : pop)
    for (size_t l = 0; l < layers; ++l) ind[l] = random_option(l);
  for (int i = 0; i < kPopulation; ++i) fit[i] = shape_energy(options, pop[i]);
  r.evaluations = kPopulation;
  auto tournament = [&]() {
    int best = static_cast<int>(rng() % kPopulation);
    for (int t = 0; t < 2; ++t) {
      const int c = static_cast<int>(rng() % kPopulation);
      if (fit[c] < fit[best]) best = c;
    }
    return best;
  };
  while (r.evaluations + kPopulation - 1 <= evaluations) {
    const int elite = static_cast<int>(std::min_element(fit.begin(), fit.end()) - fit.begin());
    std::vector<std::vector<int>> next = {pop[elite]};
    std::vector<double> next_fit = {fit[elite]};
    while (static_cast<int>(next.size()) < kPopulation) {
      std::vector<int> child = pop[tournament()];
      if (unit(rng) < kCrossover) {
        const std::vector<int>& other = pop[tournament()];
        for (size_t l = 0; l < layers; ++l)
          if (unit(rng) < 0.5) child[l] = other[l];
      }
      for (size_t l = 0; l < layers; ++l)
        if (unit(rng) < kMutation) child[l] = random_option(l);
      next_fit.push_back(shape_energy(options, child));
      ++r.evaluations;
      next.push_back(std::move(child));
    }
    pop = std::move(next);
    fit = std::move(next_fit);
    // The generation's best (with elitism it never rises; the mutation's rises show in the
    // population mean, which Fig. 5b's GA curve resembles).
    double mean = 0;
    for (double f : fit) mean += f / kPopulation;
    r.energy.push_back(mean);
  }
  const int best = static_cast<int>(std::min_element(fit.begin(), fit.end()) - fit.begin());
  r.choice = pop[best];
  return r;
}

AtomicDag sa_atomic_dag(const Graph& g, const DsaSpec& spec, uint64_t seed) {
  const auto options = shape_options(g, graph_layers(g), spec);
  const AnnealResult sa = anneal_atom_shapes(options, {}, seed);
  return build_atomic_dag(g, chosen_shapes(options, sa.choice), spec);
}

}  // namespace dgs::atomic
