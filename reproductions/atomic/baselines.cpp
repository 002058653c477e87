// The LS baseline and per-layer utilisation (see baselines.h).
#include "reproductions/atomic/baselines.h"

#include <algorithm>
#include <map>

#include "common/util/arith.h"
#include "reproductions/atomic/partition_baselines.h"

namespace dgs::atomic {

std::pair<int64_t, int64_t> even_cut(int64_t extent, int64_t parts, int64_t quantum) {
  parts = std::max<int64_t>(1, std::min(parts, ceil_div(extent, quantum)));
  const int64_t size = ceil_div(ceil_div(extent, parts), quantum) * quantum;
  return {size >= extent ? 0 : size, ceil_div(extent, size)};
}

const char* ls_layer_text(LsLayer k) {
  return k == LsLayer::Op
             ? "every graph op (batch norm, ReLU, add, pooling included) is a layer of its own, "
               "its output written to DRAM and read back by the next"
             : "a conv/FC with the ops CNN-P and IL-Pipe group with it (its batch norm, ReLU, "
               "residual add, pooling), one op per Round on the engines holding what it reads, "
               "the group's intermediates kept on chip while they fit in half the buffer; only "
               "what other groups read goes to DRAM";
}

std::vector<AtomShape> ls_shapes(const Graph& g, const std::vector<Layer>& layers,
                                 const DsaSpec& spec, int batch, LsLayer kind) {
  const int64_t parts = ceil_div(spec.units(), batch);
  std::vector<AtomShape> shapes;
  for (const Layer& l : layers) {
    AtomShape s;
    if (l.splittable) {
      const auto [co, n_co] = even_cut(l.shape[1], parts, l.matrix ? spec.matrix_tile_columns : 1);
      s.c_out = co;
      int64_t left = ceil_div(parts, n_co);
      if (l.shape.size() == 4 && left > 1) {
        const auto [h, n_h] = even_cut(l.shape[2], left, 1);
        s.h = h;
        left = ceil_div(left, n_h);
        if (left > 1) s.w = even_cut(l.shape[3], left, 1).first;
      }
    }
    shapes.push_back(s);
  }
  if (kind == LsLayer::MatrixGroup) {
    // Cut as the group's matrix layer, so that with the same round robin each atom lands on the
    // engine holding the region it reads (a vector op's own cut, in channels of 1 rather than of
    // the PE columns, would read across engines over the mesh).
    const std::vector<int> group = matrix_group_of_layers(g, layers);
    for (size_t l = 0; l < layers.size(); ++l) {
      const int m = group[l];
      if (m < 0 || layers[l].matrix || !layers[l].splittable) continue;
      const Layer& head = layers[static_cast<size_t>(m)];
      if (head.splittable && head.shape == layers[l].shape)
        shapes[l] = shapes[static_cast<size_t>(m)];
    }
  }
  return shapes;
}

AtomSchedule ls_schedule(const Graph& g, const AtomicDag& dag, const DsaSpec& spec, LsLayer kind) {
  AtomSchedule s;
  s.round_of.assign(dag.atoms.size(), -1);
  s.engine_of.assign(dag.atoms.size(), -1);
  s.on_chip.assign(dag.atoms.size(), false);
  for (const std::vector<int>& atoms : dag.atoms_of_layer) {
    Round r;
    int e = 0;
    for (int a : atoms) {
      r.atoms.push_back(a);
      r.engines.push_back(e);
      s.round_of[static_cast<size_t>(a)] = static_cast<int>(s.rounds.size());
      s.engine_of[static_cast<size_t>(a)] = e;
      r.cycles = std::max(r.cycles, dag.atoms[static_cast<size_t>(a)].cycles);
      e = (e + 1) % spec.units();
    }
    s.rounds.push_back(std::move(r));
  }
  if (kind == LsLayer::MatrixGroup) {
    std::vector<std::vector<int64_t>> kept(static_cast<size_t>(spec.units()),
                                           std::vector<int64_t>(s.rounds.size(), 0));
    keep_domain_outputs_on_chip(dag, matrix_group_of_layers(g, dag.layers), spec.local_bytes / 2,
                                kept, s);
  }
  return s;
}

void keep_domain_outputs_on_chip(const AtomicDag& dag, const std::vector<int>& domain_of_layer,
                                 int64_t budget, std::vector<std::vector<int64_t>>& kept,
                                 AtomSchedule& s) {
  auto domain_of = [&](int atom) {
    return domain_of_layer.at(static_cast<size_t>(dag.atoms[static_cast<size_t>(atom)].layer));
  };
  for (const Round& r : s.rounds) {
    for (int ai : r.atoms) {
      const size_t a = static_cast<size_t>(ai);
      const int domain = domain_of(ai);
      bool inside = domain >= 0 && !dag.succs[a].empty();
      int last_read = s.round_of[a];
      for (int c : dag.succs[a]) {
        inside = inside && domain_of(c) == domain;
        last_read = std::max(last_read, s.round_of[static_cast<size_t>(c)]);
      }
      if (!inside) continue;
      std::vector<int64_t>& k = kept.at(static_cast<size_t>(s.engine_of[a]));
      const int64_t bytes = dag.atoms[a].out_bytes;
      const auto from = k.begin() + s.round_of[a], to = k.begin() + last_read + 1;
      if (*std::max_element(from, to) + bytes > budget) continue;
      for (auto it = from; it != to; ++it) *it += bytes;
      s.on_chip[a] = true;
    }
  }
}

std::vector<LayerUtilisation> layer_utilisation(const AtomicDag& dag, const AtomSchedule& s,
                                                const DsaSpec& spec) {
  // Per layer: per (round, engine) compute cycles; a layer's cycles = the sum over its Rounds of
  // the busiest engine's cycles in that Round.
  std::vector<std::map<int, std::map<int, double>>> busy(dag.layers.size());
  for (size_t a = 0; a < dag.atoms.size(); ++a) {
    const Atom& at = dag.atoms[a];
    busy[static_cast<size_t>(at.layer)][s.round_of[a]][s.engine_of[a]] += at.cycles;
  }
  std::vector<LayerUtilisation> out;
  for (size_t l = 0; l < dag.layers.size(); ++l) {
    if (!dag.layers[l].matrix) continue;
    LayerUtilisation u;
    u.layer = static_cast<int>(l);
    for (int a : dag.atoms_of_layer[l]) u.macs += dag.atoms[static_cast<size_t>(a)].macs;
    for (const auto& [round, engines] : busy[l]) {
      double m = 0;
      for (const auto& [e, c] : engines) m = std::max(m, c);
      u.cycles += m;
    }
    u.utilisation =
        u.cycles > 0 ? u.macs / (u.cycles * spec.units() * spec.matrix_macs_per_cycle) : 0;
    out.push_back(u);
  }
  return out;
}

std::vector<double> round_lengths(const AtomicDag& dag, const AtomSchedule& s) {
  std::vector<std::map<int, double>> per_engine(s.rounds.size());
  for (size_t a = 0; a < dag.atoms.size(); ++a)
    per_engine[static_cast<size_t>(s.round_of[a])][s.engine_of[a]] += dag.atoms[a].cycles;
  std::vector<double> length(s.rounds.size(), 0);
  for (size_t r = 0; r < s.rounds.size(); ++r)
    for (const auto& [e, c] : per_engine[r]) length[r] = std::max(length[r], c);
  return length;
}

UtilisationFactors utilisation_factors(const AtomicDag& dag, const AtomSchedule& s,
                                       const DsaSpec& spec) {
  const std::vector<double> length = round_lengths(dag, s);
  UtilisationFactors f;
  int layers = 0;
  for (size_t l = 0; l < dag.layers.size(); ++l) {
    if (!dag.layers[l].matrix) continue;
    std::map<int, std::map<int, double>> own;  // Round -> engine -> this layer's cycles
    double macs = 0, cycles = 0;
    for (int a : dag.atoms_of_layer[l]) {
      const size_t ai = static_cast<size_t>(a);
      own[s.round_of[ai]][s.engine_of[ai]] += dag.atoms[ai].cycles;
      macs += dag.atoms[ai].macs;
      cycles += dag.atoms[ai].cycles;
    }
    double capacity = 0, busiest = 0;
    for (const auto& [r, engines] : own) {
      double b = 0;
      for (const auto& [e, c] : engines) b = std::max(b, c);
      const double n = static_cast<double>(engines.size());
      capacity += length[static_cast<size_t>(r)] * n;
      busiest += b * n;
    }
    if (capacity <= 0 || cycles <= 0) continue;
    f.rounds += busiest / capacity;
    f.engines += cycles / busiest;
    f.array += macs / (cycles * spec.matrix_macs_per_cycle);
    ++layers;
  }
  if (layers > 0) {
    f.rounds /= layers;
    f.engines /= layers;
    f.array /= layers;
  }
  return f;
}

}  // namespace dgs::atomic
