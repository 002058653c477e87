// run_plan: plans executed region by region on the CPU reference executor (see plan_exec.h).
#include "common/exec/plan_exec.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "common/exec/region_eval.h"

namespace dgs {

namespace {

// A per-element flag over a region of a tensor.
class RegionMask {
 public:
  explicit RegionMask(Region r)
      : r_(std::move(r)), bits_(static_cast<size_t>(region_numel(r_)), 0) {
    st_.assign(r_.size(), 1);
    for (size_t d = r_.size(); d-- > 1;) st_[d - 1] = st_[d] * r_[d].size();
  }
  // Sets the flag of every element of `x` (clipped to the mask's region).
  void set(const Region& x) {
    visit(region_intersect(r_, x), [&](size_t k) { bits_[k] = 1; });
  }
  // The bounding box of the elements of `x` (clipped) whose flag is not set; nullopt when none.
  std::optional<Region> missing_box(const Region& x) const {
    const Region c = region_intersect(r_, x);
    if (region_empty(c)) return std::nullopt;
    std::vector<int64_t> lo(c.size(), std::numeric_limits<int64_t>::max()), hi(c.size(), -1);
    bool any = false;
    std::vector<int64_t> idx(c.size());
    for (size_t d = 0; d < c.size(); ++d) idx[d] = c[d].lo;
    const int64_t n = region_numel(c);
    for (int64_t k = 0; k < n; ++k) {
      if (!bits_[offset(idx)]) {
        any = true;
        for (size_t d = 0; d < c.size(); ++d) {
          lo[d] = std::min(lo[d], idx[d]);
          hi[d] = std::max(hi[d], idx[d] + 1);
        }
      }
      advance(idx, c);
    }
    if (!any) return std::nullopt;
    Region box;
    for (size_t d = 0; d < c.size(); ++d) box.push_back({lo[d], hi[d]});
    return box;
  }
  bool all_set() const {
    return std::all_of(bits_.begin(), bits_.end(), [](uint8_t b) { return b != 0; });
  }
  const Region& region() const { return r_; }

 private:
  size_t offset(const std::vector<int64_t>& idx) const {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += (idx[d] - r_[d].lo) * st_[d];
    return static_cast<size_t>(off);
  }
  static void advance(std::vector<int64_t>& idx, const Region& c) {
    for (size_t d = c.size(); d-- > 0;) {
      if (++idx[d] < c[d].hi) return;
      idx[d] = c[d].lo;
    }
  }
  template <class F>
  void visit(const Region& c, F fn) const {
    if (region_empty(c)) return;
    std::vector<int64_t> idx(c.size());
    for (size_t d = 0; d < c.size(); ++d) idx[d] = c[d].lo;
    const int64_t n = region_numel(c);
    for (int64_t k = 0; k < n; ++k) {
      fn(offset(idx));
      advance(idx, c);
    }
  }
  Region r_;
  std::vector<int64_t> st_;
  std::vector<uint8_t> bits_;
};

TensorData filled(const Shape& s, DType dt, float value) {
  TensorData t = TensorData::zeros(s, dt);
  if (t.is_float()) std::fill(t.f.begin(), t.f.end(), value);
  return t;
}

class TaskRunner {
 public:
  TaskRunner(const Graph& g, const Task& t, std::string where, TensorValues& store,
             PlanRunStats& stats)
      : g_(g), t_(t), where_(std::move(where)), store_(store), stats_(stats) {
    in_task_.insert(t.ops.begin(), t.ops.end());
    for (int w : task_written_tensors(g, t)) {
      written_.emplace(w, task_written_region(g, t, w));
      coverage_.emplace(w, RegionMask(task_written_region(g, t, w)));
    }
  }

  void run() {
    ++stats_.tasks;
    if (t_.reduction.active()) return run_partial_sum();
    if (t_.tile.empty()) {
      std::map<int, Region> seeds(written_.begin(), written_.end());
      run_pass(seeds);
    } else {
      run_tiles();
    }
    // Elements of written tensors that no tile reached.
    for (auto& [w, mask] : coverage_) {
      if (const auto box = mask.missing_box(mask.region())) run_pass({{w, *box}});
      if (!coverage_.at(w).all_set())
        throw Error(where_ + ": could not compute region " + region_str(written_.at(w)) + " of '" +
                    g_.tensor(w).name + "'");
    }
  }

 private:
  bool internal(int tensor) const {
    const int p = g_.tensor(tensor).producer;
    return p >= 0 && in_task_.count(p) != 0;
  }

  TensorPiece stored(int tensor) const {
    auto it = store_.find(tensor);
    if (it == store_.end())
      throw Error(where_ + " reads '" + g_.tensor(tensor).name + "', which has no value");
    return whole_piece(it->second);
  }

  void run_partial_sum() {
    const int op = t_.ops.at(0);
    const Op& o = g_.op(op);
    const int out = o.outputs.at(0);
    const Region r = task_written_region(g_, t_, out);
    std::vector<TensorPiece> pieces(o.inputs.size());
    for (size_t i = 0; i < o.inputs.size(); ++i)
      if (o.inputs[i] >= 0 && g_.tensor(o.inputs[i]).role != TensorRole::Constant)
        pieces[i] = stored(o.inputs[i]);
    const TensorData part = compute_op_region(g_, op, r, pieces, 0, &t_.reduction.range,
                                              &stats_.elements_computed[static_cast<size_t>(op)]);
    ++stats_.tiles;
    TensorData& acc = store_.at(out);
    TensorData sum = extract_region(acc, r);
    for (size_t k = 0; k < sum.f.size(); ++k) sum.f[k] += part.f[k];
    insert_region(acc, r, sum);
    coverage_.at(out).set(r);
  }

  void run_tiles() {
    const int primary = task_primary_tensor(g_, t_);
    const Shape& pshape = g_.tensor(primary).shape;
    const auto pit = written_.find(primary);
    const Region rp = pit != written_.end() ? pit->second : full_region(pshape);
    std::vector<int> same_shape;
    for (const auto& [w, r] : written_)
      if (g_.tensor(w).shape == pshape) same_shape.push_back(w);
    const size_t rank = rp.size();
    std::vector<int64_t> origin(rank);
    for (size_t d = 0; d < rank; ++d) origin[d] = rp[d].lo;
    while (true) {
      Region tile(rank);
      for (size_t d = 0; d < rank; ++d)
        tile[d] = {origin[d], std::min(origin[d] + t_.tile[d], rp[d].hi)};
      std::map<int, Region> seeds;
      for (int w : same_shape) {
        const Region r = region_intersect(tile, written_.at(w));
        if (!region_empty(r)) seeds[w] = r;
      }
      if (!seeds.empty()) run_pass(seeds);
      size_t d = rank;
      while (d > 0) {
        --d;
        origin[d] += t_.tile[d];
        if (origin[d] < rp[d].hi) break;
        origin[d] = rp[d].lo;
        if (d == 0) return;
      }
      if (rank == 0) return;
    }
  }

  // One backward propagation from `seeds` and the forward computation of every region it needs.
  void run_pass(const std::map<int, Region>& seeds) {
    ++stats_.tiles;
    const std::map<int, AccessRegion> needed = propagate_regions(g_, t_.ops, seeds);
    std::map<int, std::pair<Region, TensorData>> local;  // HaloMode::Recompute: this pass's regions
    const bool share = t_.halo.mode == HaloMode::Share;
    for (int op : t_.ops) {
      const Op& o = g_.op(op);
      for (size_t k = 0; k < o.outputs.size(); ++k) {
        const int out = o.outputs[k];
        auto nit = needed.find(out);
        if (nit == needed.end() || region_empty(nit->second.region)) {
          // Nothing of this output is needed (e.g. a Concat input outside the region): its
          // consumers in the task read an empty piece of it.
          const Shape& shape = g_.tensor(out).shape;
          const Region none(shape.size(), Interval{0, 0});
          if (share) {
            shared_.try_emplace(out, RegionMask(full_region(shape)));
            shared_values_.try_emplace(
                out, filled(shape, g_.tensor(out).dtype, std::numeric_limits<float>::quiet_NaN()));
          } else {
            local[out] = {none, TensorData::zeros(region_shape(none), g_.tensor(out).dtype)};
          }
          continue;
        }
        Region x = nit->second.region;
        if (share) {
          auto [it, fresh] =
              shared_.try_emplace(out, RegionMask(full_region(g_.tensor(out).shape)));
          (void)fresh;
          const auto missing = it->second.missing_box(x);
          if (!missing) continue;
          x = *missing;
        }
        std::vector<TensorPiece> pieces(o.inputs.size());
        for (size_t i = 0; i < o.inputs.size(); ++i) {
          const int in = o.inputs[i];
          if (in < 0) continue;
          if (internal(in)) {
            const bool have = share ? shared_values_.count(in) != 0 : local.count(in) != 0;
            if (!have)
              throw Error(where_ + ": op '" + o.name + "' reads '" + g_.tensor(in).name +
                          "', which the task has not computed");
            if (share) {
              pieces[i] = whole_piece(shared_values_.at(in));
            } else {
              const auto& [r, v] = local.at(in);
              pieces[i] = {r, &v};
            }
          } else if (g_.tensor(in).role != TensorRole::Constant || store_.count(in)) {
            pieces[i] = stored(in);
          }
        }
        TensorData y = compute_op_region(g_, op, x, pieces, static_cast<int>(k), nullptr,
                                         &stats_.elements_computed[static_cast<size_t>(op)]);
        if (auto wit = written_.find(out); wit != written_.end()) {
          const Region c = region_intersect(x, wit->second);
          if (!region_empty(c)) {
            copy_region(y, region_relative(c, x), store_.at(out), c);
            coverage_.at(out).set(c);
          }
        }
        if (share) {
          auto [vit, fresh] = shared_values_.try_emplace(
              out, filled(g_.tensor(out).shape, y.dtype, std::numeric_limits<float>::quiet_NaN()));
          (void)fresh;
          insert_region(vit->second, x, y);
          shared_.at(out).set(x);
        } else {
          local[out] = {x, std::move(y)};
        }
      }
    }
  }

  const Graph& g_;
  const Task& t_;
  std::string where_;
  TensorValues& store_;
  PlanRunStats& stats_;
  std::set<int> in_task_;
  std::map<int, Region> written_;
  std::map<int, RegionMask> coverage_;
  std::map<int, RegionMask> shared_;  // HaloMode::Share: which elements are computed
  std::map<int, TensorData> shared_values_;
};

}  // namespace

TensorValues run_plan(const Graph& g, const Plan& plan, const TensorValues& inputs,
                      PlanRunStats* stats) {
  // Every tile of every task asks for its ops' iteration spaces: built once per op here.
  std::optional<IterationSpaceMemo> spaces;
  if (!IterationSpaceMemo::active(g)) spaces.emplace(g);
  plan.check(g);
  PlanRunStats local_stats;
  PlanRunStats& st = stats ? *stats : local_stats;
  st = PlanRunStats{};
  st.elements_computed.assign(static_cast<size_t>(g.num_ops()), 0);
  TensorValues store;
  for (int t = 0; t < g.num_tensors(); ++t) {
    const Tensor& ten = g.tensor(t);
    if (ten.producer >= 0) continue;
    auto it = inputs.find(t);
    if (it != inputs.end()) {
      if (it->second.shape != ten.shape)
        throw Error("run_plan: input '" + ten.name + "' has shape " + shape_str(it->second.shape) +
                    "; the graph says " + shape_str(ten.shape));
      store[t] = it->second;
    } else if (ten.role == TensorRole::Constant) {
      store[t] = constant_value(ten);
    } else if (!ten.consumers.empty()) {
      throw Error("run_plan: no value for " + std::string(role_name(ten.role)) + " '" + ten.name +
                  "'");
    }
  }
  // Written tensors start unknown (NaN); partial sums start at 0.
  std::set<int> partial;
  for (const Stage& s : plan.stages)
    for (const Task& t : s.tasks)
      if (t.reduction.active()) partial.insert(g.op(t.ops[0]).outputs[0]);
  for (const Stage& s : plan.stages) {
    for (const Task& t : s.tasks) {
      for (int w : task_written_tensors(g, t)) {
        if (store.count(w)) continue;
        const Tensor& ten = g.tensor(w);
        store[w] = filled(ten.shape, ten.dtype,
                          partial.count(w) ? 0.0f : std::numeric_limits<float>::quiet_NaN());
      }
    }
  }
  for (size_t si = 0; si < plan.stages.size(); ++si) {
    const auto& tasks = plan.stages[si].tasks;
    for (size_t ti = tasks.size(); ti-- > 0;) {
      const std::string where = "run_plan: plan '" + plan.scheduler + "' stage " +
                                std::to_string(si) + " task " + std::to_string(ti);
      TaskRunner(g, tasks[ti], where, store, st).run();
    }
  }
  TensorValues outputs;
  for (int out : g.output_tensors()) outputs[out] = store.at(out);
  return outputs;
}

std::string PlanComparison::str() const {
  if (passed) return std::to_string(outputs) + " outputs equal to the reference";
  std::string s;
  for (const std::string& f : failures) s += (s.empty() ? "" : "\n") + f;
  return s;
}

PlanComparison compare_plan_with_reference(const Graph& g, const Plan& plan, uint64_t seed,
                                           Tolerance tol) {
  const TensorValues feeds = make_graph_feeds(g, {}, seed);
  const TensorValues ref = run_graph(g, feeds, seed);
  PlanComparison c;
  const TensorValues got = run_plan(g, plan, feeds, &c.stats);
  for (int out : g.output_tensors()) {
    ++c.outputs;
    const Comparison cmp = compare_tensors(got.at(out), ref.at(out), tol);
    if (!cmp.passed) {
      c.passed = false;
      c.failures.push_back("output '" + g.tensor(out).name + "': " + cmp.str());
    }
  }
  return c;
}

}  // namespace dgs
