// Rounds, snake mapping, buffering and the plan (see schedule.h).
#include "reproductions/atomic/schedule.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include "common/dsamodel/mesh_noc.h"
#include "common/graph/iteration_space.h"
#include "reproductions/atomic/atom_task.h"

namespace dgs::atomic {

namespace {

MeshPoint point_of(const DsaSpec& spec, int flat) {
  return {flat % spec.mesh_columns, flat / spec.mesh_columns};
}

// Layers of `atoms` in order of first appearance.
std::vector<int> layers_in(const AtomicDag& dag, const std::vector<int>& atoms) {
  std::vector<int> r;
  for (int a : atoms) {
    const int l = dag.atoms[static_cast<size_t>(a)].layer;
    if (std::find(r.begin(), r.end(), l) == r.end()) r.push_back(l);
  }
  return r;
}

// The first slice of the partial-sum group of atom `a` (itself unless it is a later slice).
int first_slice_of(const AtomicDag& dag, int a) {
  while (dag.atoms[static_cast<size_t>(a)].c_in.lo > 0) --a;
  return a;
}

// Per atom, the atom whose engine holds its region: the slice of its partial-sum group that runs
// first (the DSA model's home: the group's first task in plan order), itself when not sliced.
std::vector<int> partial_sum_homes(const AtomicDag& dag, const AtomSchedule& s) {
  const size_t n = dag.atoms.size();
  std::vector<int> position(n, 0);
  for (const Round& r : s.rounds)
    for (size_t i = 0; i < r.atoms.size(); ++i)
      position[static_cast<size_t>(r.atoms[i])] = static_cast<int>(i);
  std::vector<int> home(n);
  for (size_t a = 0; a < n;) {
    size_t end = a + 1;
    while (end < n && dag.atoms[end].c_in.lo > 0) ++end;
    size_t best = a;
    for (size_t b = a + 1; b < end; ++b)
      if (std::make_pair(s.round_of[b], position[b]) <
          std::make_pair(s.round_of[best], position[best]))
        best = b;
    for (size_t b = a; b < end; ++b) home[b] = static_cast<int>(best);
    a = end;
  }
  return home;
}

void apply_buffering(const Graph& g, const AtomicDag& dag, const DsaSpec& spec,
                     int64_t resident_cap, AtomSchedule& s) {
  const size_t n = dag.atoms.size();
  s.on_chip.assign(n, false);
  AtomTilings tilings;
  s.tilings.assign(n, nullptr);
  s.tilings_contents = tilings.contents(spec);
  const std::vector<int> home = partial_sum_homes(dag, s);
  // The bytes a home keeps: its group's output region.
  auto kept_bytes = [&](int a) {
    return dag.atoms[static_cast<size_t>(first_slice_of(dag, a))].out_bytes;
  };
  // Rounds in which each home's region is read, sorted.
  std::vector<std::vector<int>> uses(n);
  for (size_t a = 0; a < n; ++a) {
    for (int c : dag.succs[a]) {
      uses[static_cast<size_t>(home[a])].push_back(s.round_of[static_cast<size_t>(c)]);
    }
  }
  for (auto& u : uses) std::sort(u.begin(), u.end());
  // The DSA model keeps a locally scoped region until the last stage that reads part of it: so
  // do we (each home's region until its last reader's Round).
  std::vector<std::vector<int>> resident(static_cast<size_t>(spec.units()));
  std::vector<int64_t> used(static_cast<size_t>(spec.units()), 0);
  // Algorithm 3 on engine e at Round `now` until `fits` holds.
  auto evict_until = [&](size_t e, int now, auto fits) {
    while (!resident[e].empty() && !fits()) {
      // Occupation starts at -inf (the paper's `occupation <- inf` never selects anything): the
      // largest size x Rounds to next use.
      double worst = -std::numeric_limits<double>::infinity();
      size_t victim = 0;
      for (size_t i = 0; i < resident[e].size(); ++i) {
        const int r = resident[e][i];
        const auto& u = uses[static_cast<size_t>(r)];
        const auto next = std::lower_bound(u.begin(), u.end(), now);
        const double wait = next == u.end() ? 0 : *next - now + 1;
        const double occ = wait * static_cast<double>(kept_bytes(r));
        if (occ >= worst) {
          worst = occ;
          victim = i;
        }
      }
      const int v = resident[e][victim];
      s.on_chip[static_cast<size_t>(v)] = false;
      used[e] -= kept_bytes(v);
      resident[e].erase(resident[e].begin() + static_cast<long>(victim));
      ++s.write_backs;
    }
  };
  for (size_t t = 0; t < s.rounds.size(); ++t) {
    const int now = static_cast<int>(t);
    // Release outputs no later Round reads (Algorithm 3, lines 8-11: no write-back).
    for (size_t e = 0; e < resident.size(); ++e) {
      auto& res = resident[e];
      for (size_t i = 0; i < res.size();) {
        if (uses[static_cast<size_t>(res[i])].back() < now) {
          used[e] -= kept_bytes(res[i]);
          res.erase(res.begin() + static_cast<long>(i));
        } else {
          ++i;
        }
      }
    }
    // The model's check when the atom starts: kept outputs + its working set <= the buffer (a
    // tiled atom whose output stays holds all of it by its end: counted too; a reduction slice
    // that is its group's home, the first to run, holds the group's output region even when it
    // is not the group's first slice, whose out_bytes alone carry the region's bytes).
    for (int a : s.rounds[t].atoms) {
      const size_t e = static_cast<size_t>(s.engine_of[static_cast<size_t>(a)]);
      const AtomTiling& tiling = tilings.of(g, dag, a, spec);
      if (tilings.last_lasting()) s.tilings[static_cast<size_t>(a)] = &tiling;
      const int64_t out = home[static_cast<size_t>(a)] == a
                              ? kept_bytes(a)
                              : dag.atoms[static_cast<size_t>(a)].out_bytes;
      const int64_t ws = tiling.working_bytes + (tiling.tile.empty() ? 0 : out);
      evict_until(e, now, [&] { return used[e] + ws <= spec.local_bytes; });
    }
    for (int a : s.rounds[t].atoms) {
      const int64_t bytes = kept_bytes(a);
      if (home[static_cast<size_t>(a)] != a || bytes == 0 || uses[static_cast<size_t>(a)].empty())
        continue;
      const size_t e = static_cast<size_t>(s.engine_of[static_cast<size_t>(a)]);
      s.on_chip[static_cast<size_t>(a)] = true;
      resident[e].push_back(a);
      used[e] += bytes;
      if (resident_cap > 0) evict_until(e, now + 1, [&] { return used[e] <= resident_cap; });
    }
  }
  // The other partial-sum slices share their home's scope.
  for (size_t a = 0; a < n; ++a) s.on_chip[a] = s.on_chip[static_cast<size_t>(home[a])];
}

// The ready atoms, per sample (an atom's Round key depends on whether its sample is the current
// one, so a Round looks only at the samples it takes from instead of at every ready atom).
struct ReadyAtoms {
  std::vector<std::vector<int>> of_sample;
  size_t count = 0;

  explicit ReadyAtoms(size_t batch) : of_sample(batch) {}
  void add(const AtomicDag& dag, int a) {
    of_sample[static_cast<size_t>(dag.atoms[static_cast<size_t>(a)].sample)].push_back(a);
    ++count;
  }
  // Appends to `out` the `take` atoms of `list` with the smallest keys (unique: each ends with
  // the atom's index), in key order, and removes them from `list`.
  template <class Key>
  void take_smallest(std::vector<int>& list, size_t take, const Key& key, std::vector<int>& out) {
    if (take == 0) return;
    std::vector<std::pair<decltype(key(0)), int>> keyed;
    keyed.reserve(list.size());
    for (int a : list) keyed.emplace_back(key(a), a);
    std::nth_element(keyed.begin(), keyed.begin() + static_cast<long>(take) - 1, keyed.end());
    std::sort(keyed.begin(), keyed.begin() + static_cast<long>(take));
    for (size_t i = 0; i < take; ++i) out.push_back(keyed[i].second);
    list.clear();
    for (size_t i = take; i < keyed.size(); ++i) list.push_back(keyed[i].second);
    count -= take;
  }
  // The priority rules' Round: up to `engines` atoms with the least keys (level, sample, depth,
  // layer, atom), in key order. Level 1: of `sample` (the first with atoms left, so no earlier
  // sample has a ready atom) in a layer already started; 2: of `sample` at the least depth of
  // its ready atoms; 3: of `sample`, other; 4: of a later sample. A later sample's atoms are
  // looked at only while the Round is not full (their keys do not depend on the Round).
  std::vector<int> take_by_priority(const AtomicDag& dag, int sample,
                                    const std::vector<bool>& started, int engines) {
    std::vector<int> round;
    std::vector<int>& current = of_sample[static_cast<size_t>(sample)];
    int min_depth = std::numeric_limits<int>::max();
    for (int a : current)
      min_depth = std::min(min_depth, dag.layers[dag.atoms[static_cast<size_t>(a)].layer].depth);
    const auto current_key = [&](int a) {
      const Atom& at = dag.atoms[static_cast<size_t>(a)];
      const Layer& l = dag.layers[static_cast<size_t>(at.layer)];
      const int level = started[static_cast<size_t>(at.layer)] ? 1 : l.depth == min_depth ? 2 : 3;
      return std::make_tuple(level, l.depth, at.layer, a);
    };
    const size_t want = static_cast<size_t>(engines);
    take_smallest(current, std::min(current.size(), want), current_key, round);
    const auto later_key = [&](int a) {
      const Atom& at = dag.atoms[static_cast<size_t>(a)];
      return std::make_tuple(dag.layers[static_cast<size_t>(at.layer)].depth, at.layer, a);
    };
    for (size_t s = static_cast<size_t>(sample) + 1; s < of_sample.size() && round.size() < want;
         ++s)
      take_smallest(of_sample[s], std::min(of_sample[s].size(), want - round.size()), later_key,
                    round);
    return round;
  }
  // Without the priority rules: up to `engines` ready atoms of the lowest indices, in order.
  std::vector<int> take_lowest(const AtomicDag& dag, int engines) {
    std::vector<int> all;
    for (std::vector<int>& list : of_sample) {
      all.insert(all.end(), list.begin(), list.end());
      list.clear();
    }
    std::vector<int> round;
    take_smallest(
        all, std::min(all.size(), static_cast<size_t>(engines)), [](int a) { return a; }, round);
    count = 0;
    for (int a : all) add(dag, a);
    return round;
  }
};

}  // namespace

double round_transfer_cost(const AtomicDag& dag, const DsaSpec& spec, const std::vector<int>& atoms,
                           const std::vector<int>& engines, const std::vector<int>& engine_of) {
  double cost = 0;
  for (size_t i = 0; i < atoms.size(); ++i) {
    for (int p : dag.preds[static_cast<size_t>(atoms[i])]) {
      const int src = engine_of[static_cast<size_t>(p)];
      if (src < 0) continue;
      cost += static_cast<double>(dag.atoms[static_cast<size_t>(p)].out_bytes) *
              xy_hops(point_of(spec, src), point_of(spec, engines[i]));
    }
  }
  return cost;
}

std::vector<int> snake_placement(const AtomicDag& dag, const DsaSpec& spec,
                                 const std::vector<int>& atoms, const std::vector<int>& layer_order,
                                 int first_slot) {
  const std::vector<MeshPoint> snake = snake_order(spec.mesh_columns, spec.mesh_rows);
  std::vector<int> engines(atoms.size(), -1);
  size_t slot = static_cast<size_t>(first_slot);
  for (int l : layer_order) {
    for (size_t i = 0; i < atoms.size(); ++i) {
      if (dag.atoms[static_cast<size_t>(atoms[i])].layer != l) continue;
      const MeshPoint p = snake[slot++ % snake.size()];
      engines[i] = p.y * spec.mesh_columns + p.x;
    }
  }
  return engines;
}

AtomSchedule schedule_atoms(const Graph& g, const AtomicDag& dag, const DsaSpec& spec,
                            const ScheduleOptions& o) {
  if (spec.topology != DsaTopology::Mesh) throw Error("atomic dataflow needs a mesh config");
  const size_t n = dag.atoms.size();
  const int engines = spec.units();
  AtomSchedule s;
  s.round_of.assign(n, -1);
  s.engine_of.assign(n, -1);
  std::vector<int> missing(n);
  ReadyAtoms ready(static_cast<size_t>(dag.batch));
  for (size_t a = 0; a < n; ++a) {
    missing[a] = static_cast<int>(dag.preds[a].size());
    if (missing[a] == 0) ready.add(dag, static_cast<int>(a));
  }
  std::vector<int> left_in_layer(dag.layers.size());
  std::vector<bool> started(dag.layers.size(), false);
  for (size_t l = 0; l < dag.layers.size(); ++l) {
    left_in_layer[l] = static_cast<int>(dag.atoms_of_layer[l].size());
  }
  std::vector<int> left_in_sample(static_cast<size_t>(dag.batch), 0);
  for (const Atom& a : dag.atoms) ++left_in_sample[static_cast<size_t>(a.sample)];
  size_t done = 0;
  int first_slot = 0;
  std::vector<int> snake_ids;  // the engines in snake order (snake_placement's slots)
  for (const MeshPoint& p : snake_order(spec.mesh_columns, spec.mesh_rows))
    snake_ids.push_back(p.y * spec.mesh_columns + p.x);
  std::vector<double> cost_on;  // the mapping search's (atom, engine) input costs
  while (done < n) {
    if (ready.count == 0) throw Error("atomic DAG has a cycle");
    int sample = 0;
    while (left_in_sample[static_cast<size_t>(sample)] == 0) ++sample;
    Round r;
    r.atoms = o.priority_rules ? ready.take_by_priority(dag, sample, started, engines)
                               : ready.take_lowest(dag, engines);
    // Mapping: the layer order minimising Eq. 2.
    std::vector<int> order = layers_in(dag, r.atoms);
    r.engines = snake_placement(dag, spec, r.atoms, order, first_slot);
    if (o.mapping_search && order.size() > 1 && order.size() <= 6) {
      // Every layer order's snake placement and Eq. 2 cost (as snake_placement and
      // round_transfer_cost give them), without rebuilding either per order: the Round's atoms
      // grouped by layer, and each (atom, engine)'s input cost computed once, when first needed.
      // The costs are whole numbers of byte-hops far below 2^53, so every sum is exact whatever
      // the order of adding: each order's cost is round_transfer_cost's.
      const size_t m = r.atoms.size();
      std::vector<std::vector<size_t>> group(order.size());
      for (size_t i = 0; i < m; ++i) {
        const int l = dag.atoms[static_cast<size_t>(r.atoms[i])].layer;
        group[static_cast<size_t>(std::find(order.begin(), order.end(), l) - order.begin())]
            .push_back(i);
      }
      cost_on.assign(m * static_cast<size_t>(engines), -1.0);
      auto cost_at = [&](size_t i, int e) {
        double& c = cost_on[i * static_cast<size_t>(engines) + static_cast<size_t>(e)];
        if (c < 0) {
          c = 0;
          const MeshPoint to = point_of(spec, e);
          for (int p : dag.preds[static_cast<size_t>(r.atoms[i])]) {
            const int src = s.engine_of[static_cast<size_t>(p)];
            if (src < 0) continue;
            c += static_cast<double>(dag.atoms[static_cast<size_t>(p)].out_bytes) *
                 xy_hops(point_of(spec, src), to);
          }
        }
        return c;
      };
      // The layer orders as permutations of their groups, in the order of the layers' ids (the
      // orders next_permutation gives over the ids themselves), and the snake's slots counted
      // round without a division per atom.
      const auto by_layer = [&](size_t x, size_t y) { return order[x] < order[y]; };
      std::vector<size_t> perm(order.size());
      std::iota(perm.begin(), perm.end(), size_t{0});
      std::sort(perm.begin(), perm.end(), by_layer);
      std::vector<int> e(m, -1);
      double best = round_transfer_cost(dag, spec, r.atoms, r.engines, s.engine_of);
      do {
        size_t slot = static_cast<size_t>(first_slot) % snake_ids.size();
        double c = 0;
        for (size_t k : perm)
          for (size_t i : group[k]) {
            e[i] = snake_ids[slot];
            if (++slot == snake_ids.size()) slot = 0;
            c += cost_at(i, e[i]);
          }
        if (c < best) {
          best = c;
          r.engines = e;
        }
      } while (std::next_permutation(perm.begin(), perm.end(), by_layer));
    }
    s.transfer_byte_hops += round_transfer_cost(dag, spec, r.atoms, r.engines, s.engine_of);
    first_slot = static_cast<int>((static_cast<size_t>(first_slot) + r.atoms.size()) %
                                  static_cast<size_t>(engines));
    const int t = static_cast<int>(s.rounds.size());
    for (size_t i = 0; i < r.atoms.size(); ++i) {
      const int a = r.atoms[i];
      const Atom& at = dag.atoms[static_cast<size_t>(a)];
      s.round_of[static_cast<size_t>(a)] = t;
      s.engine_of[static_cast<size_t>(a)] = r.engines[i];
      r.cycles = std::max(r.cycles, at.cycles);
      started[static_cast<size_t>(at.layer)] = true;
      --left_in_layer[static_cast<size_t>(at.layer)];
      --left_in_sample[static_cast<size_t>(at.sample)];
      ++done;
      for (int c : dag.succs[static_cast<size_t>(a)]) {
        if (--missing[static_cast<size_t>(c)] == 0) ready.add(dag, c);
      }
    }
    s.rounds.push_back(std::move(r));
  }
  if (o.on_chip_reuse) {
    apply_buffering(g, dag, spec, o.resident_capacity, s);
  } else {
    s.on_chip.assign(n, false);
  }
  return s;
}

Plan atom_plan(const Graph& g, const AtomicDag& dag, const AtomSchedule& s, const DsaSpec& spec,
               const std::string& scheduler) {
  Plan plan;
  plan.scheduler = scheduler;
  plan.graph = g.name;
  // The tilings looked up below ask for their atoms' input regions: each op's iteration space
  // built once for the plan (or the caller's, where one lives), not once per atom.
  std::optional<IterationSpaceMemo> spaces;
  if (!IterationSpaceMemo::active(g)) spaces.emplace(g);
  AtomTilings tilings;
  // The tilings the schedule's buffering found, where it ran on this config's numbers.
  const bool sized_here =
      s.tilings.size() == dag.atoms.size() && s.tilings_contents == tilings.contents(spec);
  for (const Round& r : s.rounds) {
    Stage stage;
    for (size_t i = 0; i < r.atoms.size(); ++i) {
      const int a = r.atoms[i];
      const Layer& l = dag.layers[static_cast<size_t>(dag.atoms[static_cast<size_t>(a)].layer)];
      Task t = atom_base_task(dag, a, spec, r.engines[i]);
      if (s.on_chip[static_cast<size_t>(a)]) t.scope[l.output] = spec.local_level;
      if (!s.pins.empty() && s.pins[static_cast<size_t>(a)])
        for (int x : g.op(l.op).inputs)
          if (x >= 0 && g.tensor(x).role == TensorRole::Weight) t.pinned.push_back(x);
      const AtomTiling* sized = sized_here ? s.tilings[static_cast<size_t>(a)] : nullptr;
      const AtomTiling& tiling = sized ? *sized : tilings.of(g, dag, a, spec);
      if (!tiling.tile.empty()) {
        t.kind = TaskKind::Fused;
        t.tile = tiling.tile;
        t.buffer_bytes = tiling.buffer_bytes;
      }
      stage.tasks.push_back(std::move(t));
    }
    plan.stages.push_back(std::move(stage));
  }
  return plan;
}

}  // namespace dgs::atomic
