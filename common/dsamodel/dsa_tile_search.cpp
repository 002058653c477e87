// The DSA model's tile search for a task (dsa_task.h: dsa_fitting_tile).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>

#include "common/dsamodel/buffer_nest.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/dsa_task_internal.h"
#include "common/graph/iteration_space.h"

namespace dgs {

namespace {

// The tile extents an axis of `extent` may take: the extent and its halvings (rounded up), down
// to 1.
std::vector<int64_t> halvings(int64_t extent) {
  std::vector<int64_t> v;
  for (int64_t e = std::max<int64_t>(1, extent);; e = (e + 1) / 2) {
    v.push_back(e);
    if (e == 1) break;
  }
  return v;
}

// A floor under a candidate tile's energy x cycles before its regions are asked for:
// nest_edp_floor_tiled (buffer_nest.h) over the loops the tile's trips and the op's index maps
// give (known_axis_selects, dsa_task_internal.h), with every input's tile taken as empty (its
// loads are then its needed bytes times what each loop order loads it again: the tile's own
// problem loads no less) and of the array the whole part's steps, fill and drain and MACs.
// Those are no more than any tiling's when the matrix op's part lies in one group: each tile's
// pixel and output-channel folds are rounded up separately (ceil(a) + ceil(b) >= ceil(a + b)),
// the reduction is the same, and its MACs sum to the part's; with several groups
// (matrix_shape counts a tile's groups rounded up) that need not hold, and no floor is taken.
// Nor is one where an axis of more than one extent is not known from the index maps (a task of
// several ops: its loops come from its tiles' regions).
class LeanFloor {
 public:
  LeanFloor(const NestProblem& whole, const dsa_task_internal::AxisSelects& known,
            const std::vector<int64_t>& part, bool one_group)
      : problem_(whole), selects_(known.selects), part_(part) {
    usable_ = one_group;
    for (size_t a = 0; a < part.size(); ++a)
      usable_ = usable_ && (part[a] <= 1 || (a < known.known.size() && known.known[a]));
    problem_.reduction = 0;
    problem_.kept_tile = problem_.kept_reduced_tile = 0;
    for (NestInput& x : problem_.inputs) {
      x.tile = 0;
      x.reduced = false;
    }
  }
  bool usable() const { return usable_; }
  double operator()(const std::vector<int64_t>& cand, const DsaSpec& spec) {
    std::vector<double>& trips = trips_;  // kept between candidates: no allocation per call
    trips.assign(part_.size(), 1);
    double volume = 1;
    for (size_t a = 0; a < part_.size() && a < cand.size(); ++a) {
      trips[a] = std::ceil(static_cast<double>(part_[a]) /
                           static_cast<double>(std::max<int64_t>(1, cand[a])));
      volume *= static_cast<double>(std::min(part_[a], cand[a]));
    }
    const dsa_task_internal::TileLoops loops =
        dsa_task_internal::tile_loops(trips, selects_, false);
    problem_.trips = loops.trips;
    for (size_t i = 0; i < problem_.inputs.size(); ++i) {
      uint32_t relevant = 0;
      for (size_t l = 0; l < loops.selects.size(); ++l)
        if (loops.selects[l] & (1u << i)) relevant |= 1u << l;
      problem_.inputs[i].relevant = relevant;
    }
    problem_.out_tile = volume * spec.element_bytes;
    return nest_edp_floor_tiled(problem_, spec);
  }

 private:
  NestProblem problem_;
  std::vector<uint32_t> selects_;
  std::vector<int64_t> part_;
  std::vector<double> trips_;
  bool usable_ = false;
};

// An upper bound on the working set of the mappings of a candidate tile (map_buffer_nest,
// buffer_nest.h) with the reduction unchunked or innermost, for a task of one op whose inputs are
// each read through one affine index map (u.one_op; otherwise none is known): per input its
// resident bytes or its tile, or two tiles when it streams; the output tile twice, or once and
// one tile's partial sums; nothing kept (one op). (An order with the reduction further out holds
// more tiles' partial sums and may exceed it; but a candidate is mapped within the budget, so it
// is over the budget only when none of its mappings fits, and a bound on some is enough.)
// An input's tile is at most the box its index map spans over the tile's extents at the worst
// alignment (affine_span, iteration_space.h), within the input's extents. It grows with every
// extent of the tile.
class WorkingSetBound {
 public:
  WorkingSetBound(const Graph& g, const Task& t, const dsa_task_internal::UntiledDemand& u,
                  const NestProblem& whole)
      : space_(u.op_space), needed_(whole.inputs.size()) {
    known_ = u.one_op && u.d.kept.empty() && !t.ops.empty();
    if (!known_) return;
    const Op& o = g.op(t.ops[0]);
    for (size_t i = 0; i < whole.inputs.size() && known_; ++i) {
      needed_[i] = whole.inputs[i].resident ? whole.inputs[i].needed : -1;
      int uses = 0;
      for (size_t k = 0; k < o.inputs.size(); ++k) {
        if (o.inputs[k] != u.d.inputs[i]) continue;
        ++uses;
        if (k >= space_.inputs.size() || space_.inputs[k].kind != InputAccess::Kind::Affine ||
            space_.inputs[k].dims.size() != g.tensor(o.inputs[k]).shape.size())
          break;
        maps_.push_back(&space_.inputs[k]);
        shapes_.push_back(g.tensor(o.inputs[k]).shape);
      }
      known_ = uses == 1 && maps_.size() == i + 1;
    }
  }
  // -1: none known.
  double operator()(const std::vector<int64_t>& cand, const DsaSpec& spec) const {
    if (!known_) return -1;
    double ws = 0, volume = 1;
    for (int64_t x : cand) volume *= static_cast<double>(x);
    for (size_t i = 0; i < maps_.size(); ++i) {
      double tile = spec.element_bytes;
      const InputAccess& m = *maps_[i];
      for (size_t d = 0; d < m.dims.size(); ++d) {
        const int64_t span = affine_span(m.dims[d], [&](const IndexTerm& term) {
          return term.reduction ? space_.reduction_axes.at(static_cast<size_t>(term.axis)).extent
                                : cand.at(static_cast<size_t>(term.axis));
        });
        tile *= static_cast<double>(m.dims[d].full ? shapes_[i][d] : std::min(span, shapes_[i][d]));
      }
      ws += needed_[i] >= 0 ? std::max(needed_[i], tile) : 2 * tile;
    }
    const double out = volume * spec.element_bytes;
    return ws + out * std::max(2.0, 1.0 + static_cast<double>(spec.partial_sum_bytes) /
                                              static_cast<double>(spec.element_bytes));
  }

 private:
  const IterationSpace& space_;
  std::vector<double> needed_;  // per input: its needed bytes if resident, else -1
  std::vector<const InputAccess*> maps_;
  std::vector<Shape> shapes_;
  bool known_ = false;
};

double volume_of(const std::vector<int64_t>& c) {
  double v = 1;
  for (int64_t x : c) v *= static_cast<double>(x);
  return v;
}

// The candidate tiles of a part of extents `whole`: every combination of the axes' halvings, by
// output-tile volume (smallest first), the whole part first of all (a good bound early). Each
// combination is its number in the mixed radix of the axes' halvings (the first axis the most
// significant: the order they are listed in before the sort), made into extents only when the
// search reaches it (most searches stop after a few of the thousands); `order`: the numbers
// after the whole part, stably sorted by volume (the stable sort of the extents themselves).
class TileCandidates {
 public:
  explicit TileCandidates(const std::vector<int64_t>& whole) : whole_(whole) {
    size_t count = 1;
    for (int64_t e : whole) {
      halvings_.push_back(halvings(e));
      count *= halvings_.back().size();
    }
    std::vector<double> volume(count);
    std::vector<int64_t> cand;
    for (size_t i = 0; i < count; ++i) {
      extents(i, cand);
      volume[i] = volume_of(cand);
    }
    order_.resize(count);
    std::iota(order_.begin(), order_.end(), uint32_t{0});
    std::stable_sort(order_.begin(), order_.end(),
                     [&](uint32_t x, uint32_t y) { return volume[x] < volume[y]; });
  }
  size_t size() const { return order_.size() + 1; }
  // The i-th candidate, into `cand`: 0 the whole part, then by volume.
  void at(size_t i, std::vector<int64_t>& cand) const {
    if (i == 0)
      cand = whole_;
    else
      extents(order_[i - 1], cand);
  }

 private:
  void extents(size_t number, std::vector<int64_t>& cand) const {
    cand.resize(halvings_.size());
    for (size_t a = halvings_.size(); a-- > 0;) {
      cand[a] = halvings_[a][number % halvings_[a].size()];
      number /= halvings_[a].size();
    }
  }
  std::vector<int64_t> whole_;
  std::vector<std::vector<int64_t>> halvings_;
  std::vector<uint32_t> order_;
};

// A priced candidate.
struct Priced {
  double edp = 0;
  int64_t ws = 0;
  int64_t tiles = 1;
};

}  // namespace

std::vector<std::vector<int64_t>> dsa_task_internal::tile_candidates(
    const std::vector<int64_t>& whole) {
  const TileCandidates cands(whole);
  std::vector<std::vector<int64_t>> all(cands.size());
  for (size_t i = 0; i < all.size(); ++i) cands.at(i, all[i]);
  return all;
}

std::vector<int64_t> dsa_fitting_tile(const Graph& g, Task t, const DsaSpec& spec,
                                      const std::vector<int>& units, int64_t budget) {
  using namespace dsa_task_internal;
  if (task_written_tensors(g, t).size() != 1) return {};
  // Every candidate asks for its tile's regions again: spaces built once (or the caller's memo).
  std::optional<IterationSpaceMemo> spaces;
  if (!IterationSpaceMemo::active(g)) spaces.emplace(g);
  t.tile.clear();
  std::set<int> produced;
  DsaTaskDemand regions = task_regions(g, t, produced);
  const UntiledDemand u =
      untiled_demand(g, t, spec, units, std::move(regions), std::move(produced), true);
  const int64_t n = static_cast<int64_t>(units.size());
  const std::vector<int64_t> whole = region_shape(unit_part(u.primary_region, u.split, n));

  const TileCandidates cands(whole);
  // Each candidate mapped within the budget (the task then runs with Task::buffer_bytes at it,
  // dsa_task_capacity), so a candidate is over the budget only when none of its mappings fits.
  const double capacity = static_cast<double>(std::min(budget, spec.local_bytes));

  // Each candidate: its buffer nest's best mapping within the budget (map_buffer_nest: every
  // loop order and reduction chunking) and so its working set and energy x cycles.
  double floor_energy_cycles = -1;  // nest_edp_floor's parts, from the whole part's problem
  NestProblem whole_problem;
  const AxisSelects known = known_axis_selects(g, t, u);  // the same for every candidate
  auto price = [&](const std::vector<int64_t>& cand) {
    t.tile = cand;
    const TileProblem tp = tile_problem(g, t, spec, u, &known, false);
    Priced q;
    q.tiles = tp.tiles;
    q.edp = u.d.nest_cycles * u.d.nest_energy_pj;
    q.ws = static_cast<int64_t>(std::ceil(fallback_working_set(u, tp.tiles)));
    if (tp.nest) {
      const NestMapping m = map_buffer_nest(tp.prob, spec, capacity);
      q.edp = m.cycles * m.energy_pj;
      q.ws = static_cast<int64_t>(std::ceil(m.working_set));
      q.tiles = static_cast<int64_t>(m.tiles);
      if (floor_energy_cycles < 0) {
        whole_problem = tp.prob;
        floor_energy_cycles = 0;
      }
    }
    return q;
  };
  // Skipped without pricing: a candidate at least as large on every axis as one over the budget
  // (its working set is no smaller, except where a whole axis keeps an operand once: whole
  // extents are compared only with whole extents), and, once one fits, every candidate whose
  // floor (nest_edp_floor: every operand loaded once, only its output tile before the first
  // compute and after the last) is above the best (the floor grows with the volume: the search
  // ends there).
  auto dominates = [&](const std::vector<int64_t>& c, const std::vector<int64_t>& o) {
    for (size_t a = 0; a < c.size(); ++a)
      if (c[a] < o[a] || (c[a] == whole[a] && o[a] != whole[a])) return false;
    return true;
  };
  std::vector<std::vector<int64_t>> over;
  std::vector<int64_t> best_tile, smallest_tile;
  Priced best, smallest;
  // Also skipped, once one fits: a candidate whose own floor (LeanFloor: its loops' loads) is
  // above the best; it cannot be chosen, but it may be over the budget, and so skip the larger
  // ones above: it waits (`waiting`) until a candidate that the floor does not skip is at least
  // as large as it, and is priced then (the working set of a larger tile is not always larger:
  // the mapping with the least energy x cycles within the buffer is the one whose working set
  // counts), so that the same candidates are skipped as if it had been priced.
  std::optional<LeanFloor> lean;
  std::optional<WorkingSetBound> bound;  // a candidate within the budget by it need not wait
  std::vector<std::vector<int64_t>> waiting;
  std::vector<int64_t> cand;
  for (size_t i = 0; i < cands.size(); ++i) {
    cands.at(i, cand);
    if (i > 0 && cand == whole) continue;  // priced first
    if (!best_tile.empty() && floor_energy_cycles >= 0 &&
        nest_edp_floor(whole_problem, spec, volume_of(cand) * spec.element_bytes) > best.edp)
      break;
    if (std::any_of(over.begin(), over.end(), [&](const auto& o) { return dominates(cand, o); }))
      continue;
    if (!best_tile.empty() && floor_energy_cycles >= 0) {
      if (!lean) lean.emplace(whole_problem, known, whole, u.matrix < 0 || u.shape.groups <= 1);
      // (Margins of 1e-9 against the rounding of sums taken in another order.)
      if (lean->usable() && (*lean)(cand, spec) > best.edp * (1 + 1e-9)) {
        if (!bound) bound.emplace(g, t, u, whole_problem);
        const double most = (*bound)(cand, spec);
        if (most < 0 || most * (1 + 1e-9) + 1 > static_cast<double>(budget))
          waiting.push_back(cand);
        continue;
      }
    }
    bool skip = false;
    for (size_t w = 0; w < waiting.size() && !skip;) {
      if (!dominates(cand, waiting[w])) {
        ++w;
        continue;
      }
      skip = price(waiting[w]).ws > budget;
      if (skip) over.push_back(waiting[w]);
      waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(w));
    }
    if (skip) continue;
    const Priced q = price(cand);
    if (smallest_tile.empty() || q.ws < smallest.ws) {
      smallest_tile = cand;
      smallest = q;
    }
    if (q.ws > budget) {
      over.push_back(cand);
      continue;
    }
    // Ties: the fewer tiles, then the smaller working set.
    if (best_tile.empty() || q.edp < best.edp ||
        (q.edp == best.edp &&
         (q.tiles < best.tiles || (q.tiles == best.tiles && q.ws < best.ws)))) {
      best_tile = cand;
      best = q;
    }
  }
  return best_tile.empty() ? smallest_tile : best_tile;
}

}  // namespace dgs
