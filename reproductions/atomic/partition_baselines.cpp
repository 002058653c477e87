// CNN-P and IL-Pipe layouts and their pipeline schedule (see partition_baselines.h).
#include "reproductions/atomic/partition_baselines.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "common/dsamodel/mesh_noc.h"
#include "common/util/arith.h"
#include "common/util/error.h"
#include "reproductions/atomic/baselines.h"

namespace dgs::atomic {

namespace {

// Bytes the atoms of one sample of `l` cut by `s` load: each atom its output channels' weights
// and its rows' and columns' activations (halos ignored): (channel pieces) x activations +
// (row x column pieces) x weights.
double loaded_bytes(const Graph& g, const Layer& l, const AtomShape& s) {
  double act = 0, weights = 0;
  for (int in : g.op(l.op).inputs) {
    if (in < 0) continue;
    const Tensor& t = g.tensor(in);
    if (t.is_param())
      weights += static_cast<double>(t.numel());
    else
      act += static_cast<double>(t.numel()) / static_cast<double>(l.shape[0]);
  }
  auto pieces = [](int64_t extent, int64_t size) {
    return size > 0 ? static_cast<double>(ceil_div(extent, size)) : 1.0;
  };
  const double co = pieces(l.shape[1], s.c_out);
  const double hw = l.shape.size() == 4 ? pieces(l.shape[2], s.h) * pieces(l.shape[3], s.w) : 1.0;
  return co * act + hw * weights;
}

// The distinct even cuts of `extent` (in multiples of `quantum`) into at most `most` pieces:
// (piece size, 0 = whole; pieces), fewest pieces first.
std::vector<std::pair<int64_t, int64_t>> even_cuts(int64_t extent, int64_t most, int64_t quantum) {
  std::vector<std::pair<int64_t, int64_t>> cuts;
  for (int64_t n = 1; n <= most; ++n) {
    const auto cut = even_cut(extent, n, quantum);  // at most n pieces
    if (cuts.empty() || cuts.back() != cut) cuts.push_back(cut);
    if (cut.first == 0 && n > 1) break;  // cannot be cut further
  }
  return cuts;
}

}  // namespace

std::pair<AtomShape, int64_t> split_over_region(const Graph& g, const Layer& l, int64_t parts,
                                                int64_t row_blocks, const DsaSpec& spec) {
  if (!l.splittable) return {AtomShape{}, 0};
  const bool rank4 = l.shape.size() == 4;
  const int64_t quantum = l.matrix ? spec.matrix_tile_columns : 1;
  int64_t block = 0;
  if (rank4 && row_blocks > 1) block = even_cut(l.shape[2], row_blocks, 1).first;
  const int64_t rows = block > 0 ? block : (rank4 ? l.shape[2] : 1);
  const int64_t columns = rank4 ? l.shape[3] : 1;
  AtomShape best;
  double best_cycles = 0, best_bytes = 0;
  int64_t best_pieces = 0;
  for (const auto& [co, n_co] : even_cuts(l.shape[1], parts, quantum)) {
    for (const auto& [h, n_h] : even_cuts(rows, parts / n_co, 1)) {
      for (const auto& [w, n_w] : even_cuts(columns, parts / (n_co * n_h), 1)) {
        AtomShape s;
        s.c_out = co;
        if (rank4) {
          s.h = h > 0 ? h : block;
          s.w = w;
        }
        const int64_t pieces = n_co * n_h * n_w;
        const double cycles = atom_cost(g, l, first_atom_region(l, s), spec).cycles;
        const double bytes = loaded_bytes(g, l, s);
        const bool better = best_pieces == 0 || cycles < best_cycles ||
                            (cycles == best_cycles &&
                             (bytes < best_bytes || (bytes == best_bytes && pieces < best_pieces)));
        if (better) {
          best = s;
          best_cycles = cycles;
          best_bytes = bytes;
          best_pieces = pieces;
        }
      }
    }
  }
  return {best, block};
}

namespace {

// Runs of consecutive engines, of sizes `counts`, along the mesh's column-major snake order
// (column by column, alternately down and up), so a region is a band of whole columns (and part
// of one more) spanning every row. The DSA model brings DRAM into the mesh at the west and east
// edges of every row; a band of columns reaches it through every row, as an LS layer over all
// engines does, where a band of rows would be limited to its own rows' edge links.
std::vector<std::vector<int>> column_band_runs(const DsaSpec& spec,
                                               const std::vector<int>& counts) {
  std::vector<int> order;
  for (const MeshPoint& p : snake_order(spec.mesh_rows, spec.mesh_columns))
    order.push_back(p.x * spec.mesh_columns + p.y);  // p.x: the row, p.y: the column
  std::vector<std::vector<int>> runs;
  size_t slot = 0;
  for (int c : counts) {
    runs.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(slot),
                      order.begin() + static_cast<std::ptrdiff_t>(slot + static_cast<size_t>(c)));
    slot += static_cast<size_t>(c);
  }
  return runs;
}

std::vector<int> matrix_layers(const std::vector<Layer>& layers) {
  std::vector<int> m;
  for (size_t l = 0; l < layers.size(); ++l)
    if (layers[l].matrix) m.push_back(static_cast<int>(l));
  if (m.empty()) throw Error("partition baselines: the network has no convolution or FC layer");
  return m;
}

// The shapes and block rows of every layer, each cut over its region's engines by
// split_over_region.
void cut_layers(const Graph& g, const std::vector<Layer>& layers, const DsaSpec& spec,
                int64_t row_blocks, RegionLayout& out) {
  for (size_t l = 0; l < layers.size(); ++l) {
    const int64_t parts =
        static_cast<int64_t>(out.regions[static_cast<size_t>(out.region_of_layer[l])].size());
    const auto [shape, block] = split_over_region(g, layers[l], parts, row_blocks, spec);
    out.shapes.push_back(shape);
    out.block_rows.push_back(block);
  }
}

}  // namespace

std::vector<int> proportional_engine_counts(const std::vector<double>& weights, int total) {
  const int n = static_cast<int>(weights.size());
  if (n < 1 || n > total)
    throw Error("proportional_engine_counts: " + std::to_string(n) + " regions for " +
                std::to_string(total) + " engines");
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  const int spare = total - n;
  std::vector<double> exact(static_cast<size_t>(n));
  std::vector<int> counts(static_cast<size_t>(n));
  int given = 0;
  for (size_t i = 0; i < exact.size(); ++i) {
    exact[i] = sum > 0 ? weights[i] / sum * spare : static_cast<double>(spare) / n;
    counts[i] = 1 + static_cast<int>(std::floor(exact[i]));
    given += counts[i];
  }
  std::vector<size_t> order(exact.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return exact[a] - std::floor(exact[a]) > exact[b] - std::floor(exact[b]);
  });
  for (size_t k = 0; given < total; ++k, ++given) ++counts[order[k % order.size()]];
  return counts;
}

std::vector<int> matrix_group_of_layers(const Graph& g, const std::vector<Layer>& layers) {
  std::vector<int> layer_of_op(static_cast<size_t>(g.num_ops()), -1);
  for (size_t l = 0; l < layers.size(); ++l)
    layer_of_op[static_cast<size_t>(layers[l].op)] = static_cast<int>(l);
  int first_matrix = -1;
  for (size_t l = 0; l < layers.size() && first_matrix < 0; ++l)
    if (layers[l].matrix) first_matrix = static_cast<int>(l);
  std::vector<int> group(layers.size(), -1);
  if (first_matrix < 0) return group;
  for (size_t l = 0; l < layers.size(); ++l) {
    if (layers[l].matrix) {
      group[l] = static_cast<int>(l);
      continue;
    }
    group[l] = first_matrix;
    for (int in : g.op(layers[l].op).inputs) {
      const int producer = in < 0 ? -1 : g.tensor(in).producer;
      const int pl = producer < 0 ? -1 : layer_of_op[static_cast<size_t>(producer)];
      if (pl < 0) continue;
      group[l] = group[static_cast<size_t>(pl)];
      break;
    }
  }
  return group;
}

std::vector<double> group_cycles(const Graph& g, const std::vector<Layer>& layers,
                                 const DsaSpec& spec) {
  const std::vector<int> group = matrix_group_of_layers(g, layers);
  const double batch = static_cast<double>(graph_batch(g));
  std::vector<double> cycles(layers.size(), 0);
  for (size_t l = 0; l < layers.size(); ++l) {
    if (group[l] < 0) continue;
    const Layer& layer = layers[l];
    // A splittable layer's first atom of the whole shape is one sample; another is the batch.
    const double c = atom_cost(g, layer, first_atom_region(layer, AtomShape{}), spec).cycles;
    cycles[static_cast<size_t>(group[l])] += layer.splittable ? c : c / batch;
  }
  return cycles;
}

RegionLayout cnnp_layout(const Graph& g, const std::vector<Layer>& layers, const DsaSpec& spec,
                         int clusters) {
  const std::vector<int> matrix = matrix_layers(layers);
  const std::vector<double> cost = group_cycles(g, layers, spec);
  const int k = std::max(1, std::min({clusters, static_cast<int>(matrix.size()), spec.units()}));
  // Segments of k consecutive matrix layers; the i-th largest of a segment on CLP i.
  std::vector<int> clp_of_layer(layers.size(), -1), segment(layers.size(), -1);
  std::vector<double> weight(static_cast<size_t>(k), 0);
  for (size_t first = 0; first < matrix.size(); first += static_cast<size_t>(k)) {
    std::vector<int> seg(matrix.begin() + static_cast<std::ptrdiff_t>(first),
                         matrix.begin() + static_cast<std::ptrdiff_t>(std::min(
                                              matrix.size(), first + static_cast<size_t>(k))));
    std::stable_sort(seg.begin(), seg.end(), [&](int a, int b) {
      return cost[static_cast<size_t>(a)] > cost[static_cast<size_t>(b)];
    });
    for (size_t r = 0; r < seg.size(); ++r) {
      clp_of_layer[static_cast<size_t>(seg[r])] = static_cast<int>(r);
      segment[static_cast<size_t>(seg[r])] = static_cast<int>(first / static_cast<size_t>(k));
      weight[r] += cost[static_cast<size_t>(seg[r])];
    }
  }
  RegionLayout out;
  out.regions = column_band_runs(spec, proportional_engine_counts(weight, spec.units()));
  const std::vector<int> group = matrix_group_of_layers(g, layers);
  for (size_t l = 0; l < layers.size(); ++l) {
    out.region_of_layer.push_back(clp_of_layer[static_cast<size_t>(group[l])]);
    out.segment_of_layer.push_back(segment[static_cast<size_t>(group[l])]);
    out.on_chip_domain.push_back(group[l]);
  }
  cut_layers(g, layers, spec, 1, out);
  return out;
}

RegionLayout ilpipe_layout(const Graph& g, const std::vector<Layer>& layers, const DsaSpec& spec,
                           int segment_layers, int row_blocks) {
  const std::vector<int> matrix = matrix_layers(layers);
  const size_t per = static_cast<size_t>(std::max(1, std::min(segment_layers, spec.units())));
  const std::vector<double> cost = group_cycles(g, layers, spec);
  RegionLayout out;
  std::vector<int> region_of_matrix(layers.size(), -1), segment(layers.size(), -1);
  for (size_t first = 0; first < matrix.size(); first += per) {
    const size_t last = std::min(matrix.size(), first + per);
    std::vector<double> weight;
    for (size_t i = first; i < last; ++i) {
      region_of_matrix[static_cast<size_t>(matrix[i])] =
          static_cast<int>(out.regions.size() + (i - first));
      segment[static_cast<size_t>(matrix[i])] = static_cast<int>(first / per);
      weight.push_back(cost[static_cast<size_t>(matrix[i])]);
    }
    for (std::vector<int>& r :
         column_band_runs(spec, proportional_engine_counts(weight, spec.units())))
      out.regions.push_back(std::move(r));
  }
  const std::vector<int> group = matrix_group_of_layers(g, layers);
  for (size_t l = 0; l < layers.size(); ++l) {
    out.region_of_layer.push_back(region_of_matrix[static_cast<size_t>(group[l])]);
    out.segment_of_layer.push_back(segment[static_cast<size_t>(group[l])]);
    out.on_chip_domain.push_back(segment[static_cast<size_t>(group[l])]);
  }
  out.pin_weights = true;
  cut_layers(g, layers, spec, row_blocks, out);
  return out;
}

AtomSchedule region_pipeline_schedule(const Graph& g, const AtomicDag& dag,
                                      const RegionLayout& layout, const DsaSpec& spec) {
  const size_t n = dag.atoms.size();
  std::vector<int> step(n, -1), engine(n, -1);
  std::vector<std::vector<char>> busy;  // per engine, per step: a matrix layer's block runs
  auto busy_at = [&](int e, int s) {
    const std::vector<char>& b = busy[static_cast<size_t>(e)];
    return static_cast<size_t>(s) < b.size() && b[static_cast<size_t>(s)] != 0;
  };
  int engines = 0;
  for (const std::vector<int>& r : layout.regions)
    for (int e : r) engines = std::max(engines, e + 1);
  busy.resize(static_cast<size_t>(engines));
  for (size_t l = 0; l < dag.layers.size(); ++l) {
    const Layer& layer = dag.layers[l];
    const std::vector<int>& region =
        layout.regions.at(static_cast<size_t>(layout.region_of_layer.at(l)));
    const int64_t rows = layout.block_rows.at(l);
    const int64_t blocks = rows > 0 ? ceil_div(layer.shape[2], rows) : 1;
    std::map<int64_t, std::vector<int>> units;  // (sample, block) -> atoms, in atom order
    for (int a : dag.atoms_of_layer[l]) {
      const Atom& at = dag.atoms[static_cast<size_t>(a)];
      units[at.sample * blocks + (rows > 0 ? at.region[2].lo / rows : 0)].push_back(a);
    }
    int last = -1;
    for (const auto& [u, atoms] : units) {
      int s = last + 1;
      for (int a : atoms)
        for (int p : dag.preds[static_cast<size_t>(a)])
          s = std::max(s, step[static_cast<size_t>(p)] + 1);
      if (layer.matrix) {
        while (std::any_of(region.begin(), region.end(), [&](int e) { return busy_at(e, s); })) ++s;
        for (int e : region) {
          std::vector<char>& b = busy[static_cast<size_t>(e)];
          if (b.size() <= static_cast<size_t>(s)) b.resize(static_cast<size_t>(s) + 1, 0);
          b[static_cast<size_t>(s)] = 1;
        }
      }
      for (size_t k = 0; k < atoms.size(); ++k) {
        step[static_cast<size_t>(atoms[k])] = s;
        engine[static_cast<size_t>(atoms[k])] = region[k % region.size()];
      }
      last = s;
    }
  }
  // Steps as Rounds (no empty ones), atoms in layer then atom order.
  const int steps = n == 0 ? 0 : *std::max_element(step.begin(), step.end()) + 1;
  std::vector<Round> by_step(static_cast<size_t>(steps));
  for (size_t a = 0; a < n; ++a) {
    Round& r = by_step[static_cast<size_t>(step[a])];
    r.atoms.push_back(static_cast<int>(a));
    r.engines.push_back(engine[a]);
    r.cycles = std::max(r.cycles, dag.atoms[a].cycles);
  }
  AtomSchedule s;
  s.round_of.assign(n, -1);
  s.engine_of = engine;
  s.on_chip.assign(n, false);
  for (Round& r : by_step) {
    if (r.atoms.empty()) continue;
    for (int a : r.atoms) s.round_of[static_cast<size_t>(a)] = static_cast<int>(s.rounds.size());
    s.rounds.push_back(std::move(r));
  }
  // On chip: outputs whose readers are all in the writer's on-chip domain, while the engine's kept
  // outputs over the steps from the write to the last read stay within half its buffer (the
  // other half is the atoms' working sets, atom_task.h); first come (step, then atom order),
  // first kept, the rest written back (keep_domain_outputs_on_chip, baselines.h, after the pins).
  const int64_t budget = spec.local_bytes / 2;
  std::vector<std::vector<int64_t>> kept(static_cast<size_t>(engines),
                                         std::vector<int64_t>(s.rounds.size(), 0));
  s.pins.assign(n, false);
  if (layout.pin_weights) {
    // (engine, layer) -> its atoms there, in step order.
    std::map<std::pair<int, int>, std::vector<int>> runs;
    for (const Round& r : s.rounds)
      for (int ai : r.atoms)
        runs[{engine[static_cast<size_t>(ai)], dag.atoms[static_cast<size_t>(ai)].layer}].push_back(
            ai);
    std::vector<std::pair<int, int>> order;  // (first step, engine/layer key index)
    std::vector<std::pair<int, int>> keys;
    for (const auto& [key, atoms] : runs) {
      if (atoms.size() < 2) continue;  // no later atom reads them there
      order.push_back(
          {s.round_of[static_cast<size_t>(atoms.front())], static_cast<int>(keys.size())});
      keys.push_back(key);
    }
    std::sort(order.begin(), order.end());
    for (const auto& [first, k] : order) {
      const auto& [e, l] = keys[static_cast<size_t>(k)];
      const std::vector<int>& atoms = runs.at(keys[static_cast<size_t>(k)]);
      const Atom& a = dag.atoms[static_cast<size_t>(atoms.front())];
      const Layer& layer = dag.layers[static_cast<size_t>(l)];
      const std::vector<AccessRegion> ins =
          a.c_in.hi > a.c_in.lo ? input_access_regions_for_slice(g, layer.op, a.region,
                                                                 {layer.reduction_axis, a.c_in})
                                : input_access_regions(g, layer.op, a.region);
      const Op& o = g.op(layer.op);
      int64_t bytes = 0;
      for (size_t i = 0; i < ins.size() && i < o.inputs.size(); ++i)
        if (o.inputs[i] >= 0 && g.tensor(o.inputs[i]).role == TensorRole::Weight)
          bytes += access_numel(ins[i]) * spec.element_bytes;
      if (bytes == 0) continue;
      std::vector<int64_t>& kk = kept[static_cast<size_t>(e)];
      const auto from = kk.begin() + first;
      const auto to = kk.begin() + s.round_of[static_cast<size_t>(atoms.back())] + 1;
      if (*std::max_element(from, to) + bytes > budget) continue;
      for (auto it = from; it != to; ++it) *it += bytes;
      s.pins[static_cast<size_t>(atoms.front())] = true;
    }
  }
  keep_domain_outputs_on_chip(dag, layout.on_chip_domain, budget, kept, s);
  return s;
}

}  // namespace dgs::atomic
