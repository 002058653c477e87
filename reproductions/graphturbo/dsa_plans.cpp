// GraphTurbo, TVM-like and AStitch-like plans on the DSA model (see dsa_plans.h).
#include "reproductions/graphturbo/dsa_plans.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/task_estimate.h"
#include "common/evaluate/evaluate.h"
#include "common/graph/iteration_space.h"
#include "common/hw/hardware_spec.h"
#include "common/util/enum_names.h"
#include "common/util/error.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/instances.h"
#include "reproductions/graphturbo/movement_ops.h"

namespace dgs::graphturbo {

constexpr EnumNames<Approach> kApproachNames[] = {
    {Approach::Tvm, "TVM"}, {Approach::AStitch, "AStitch"}, {Approach::V1Llb, "V1"},
    {Approach::V2L1, "V2"}, {Approach::V3Instances, "V3"},  {Approach::GraphTurbo, "GraphTurbo"}};

bool uses_instances(Approach a) {
  return a == Approach::GraphTurbo || a == Approach::V3Instances;
}

std::string_view approach_name(Approach a) {
  return enum_name(kApproachNames, a);
}

GtParams stcp920_gt_params(const DsaSpec& spec) {
  GtParams p;
  p.cores = spec.cores_per_cluster;
  p.element_bytes = spec.element_bytes;
  p.l1_bytes = spec.local_bytes;
  p.llb_bytes = spec.global_bytes;
  p.split_capacity = static_cast<int64_t>(kSplitCapacityFractionOfLlb * double(spec.global_bytes));
  p.recompute_fits = [spec](const Graph& g, const std::vector<int>& ops, int d, int64_t f) {
    return halo_steps_fit(g, ops, d, f, spec);
  };
  return p;
}

namespace {

// The layers of `g` as TVM fuses them (one kernel each): every op that is not element-wise,
// layout-only or an inference BatchNormalization (a per-channel affine) starts a layer; the
// others join the layer of its latest
// activation producer (so a residual Add and the GELU chain join their conv or matmul), or starts
// its own when it reads only graph inputs.
std::vector<std::vector<int>> layers_of(const Graph& g) {
  std::vector<std::vector<int>> out;
  std::vector<int> layer_of(static_cast<size_t>(g.num_ops()), -1);
  for (int op : g.topo_order()) {
    const Op& o = g.op(op);
    int join = -1;
    if (is_elementwise(o.kind) || is_layout_only(o.kind) || o.kind == OpKind::BatchNormalization) {
      for (int x : o.inputs) {
        if (x < 0 || g.tensor(x).is_param() || g.tensor(x).producer < 0) continue;
        join = std::max(join, layer_of[size_t(g.tensor(x).producer)]);
      }
    }
    if (join < 0) {
      join = static_cast<int>(out.size());
      out.emplace_back();
    }
    out[size_t(join)].push_back(op);
    layer_of[size_t(op)] = join;
  }
  return out;
}

bool has_matrix_op(const Graph& g, const std::vector<int>& ops) {
  for (int op : ops)
    if (is_conv_like(g.op(op).kind) || is_matmul_like(g.op(op).kind)) return true;
  return false;
}

// A step: one layer (ops) for a fraction [lo, hi) of each cluster's batch (dim 0), or, for an
// element-wise instance split along `dim` > 0, instance k of f along that axis.
struct Step {
  std::vector<int> ops;
  int dim = 0;
  int64_t k = 0, f = 1;
  int instance = -1;  // GraphTurbo: the instance it belongs to
};

Region step_region(const Shape& s, const Step& st, int cluster, int clusters) {
  Region r = full_region(s);
  const int64_t e0 = s[0];
  int64_t lo = e0 * cluster / clusters, hi = e0 * (cluster + 1) / clusters;
  if (st.dim == 0) {
    const int64_t len = hi - lo;
    hi = lo + len * (st.k + 1) / st.f;
    lo = lo + len * st.k / st.f;
    r[0] = {lo, hi};
  } else {
    r[0] = {lo, hi};
    const int64_t e = s[size_t(st.dim)];
    r[size_t(st.dim)] = {e * st.k / st.f, e * (st.k + 1) / st.f};
  }
  return r;
}

bool divides(const Shape& s, const Step& st, int clusters) {
  if (s.empty() || s[0] % (clusters * (st.dim == 0 ? st.f : 1)) != 0) return false;
  if (st.dim > 0 && (size_t(st.dim) >= s.size() || s[size_t(st.dim)] % st.f != 0)) return false;
  return true;
}

// The share of a core's L1 a tile is fitted to, and its task's loop nest mapped within
// (Task::buffer_bytes): kTileFractionOfL1.
int64_t tile_budget(const DsaSpec& spec) {
  return static_cast<int64_t>(kTileFractionOfL1 * double(spec.local_bytes));
}

// Sets t's tile to fit_tile's and its buffer to the budget that tile was fitted to.
void set_tile(Task& t, const std::vector<int64_t>& tile, const DsaSpec& spec) {
  t.tile = tile;
  t.buffer_bytes = tile.empty() ? 0 : tile_budget(spec);
}

std::vector<int64_t> fit_tile(const Graph& g, Task t, const DsaSpec& spec) {
  // From one unit's part of the primary output (the region divided by the binding).
  std::vector<int64_t> tile = region_shape(task_written_region(g, t, task_primary_tensor(g, t)));
  for (size_t d = 0; d < tile.size() && d < t.placement.binding.size(); ++d)
    tile[d] = (tile[d] + t.placement.binding[d] - 1) / t.placement.binding[d];
  // Each trial's loop nest is mapped within the budget (as the task then runs): the halving
  // stops at the first tile with a mapping that fits it.
  const int64_t budget = tile_budget(spec);
  t.buffer_bytes = budget;
  // Greedy over halvings (§4.1's LB-fitting tile, by the model's cost): while the tile does not
  // fit double-buffered (its best mapping within the budget over it, or holding a tile once and
  // stalling for its loads, buffer_nest.h: the plans tile double-buffered, dsa_plans.h), halve
  // the axis whose result has the lowest estimated time (compute cycles and stalls plus
  // activation re-reads and weights at a quarter of the DRAM bandwidth, one cluster's share)
  // among the halvings (the DSA model's working set need not shrink with one: an input that
  // stays for the whole task is held once, one the tiles reload twice), until it fits or every
  // axis is 1.
  const double bytes_per_cycle = spec.dram_bytes_per_cycle() / spec.clusters;
  auto cost = [&](const DsaTaskEstimate& d) {
    return d.compute_cycles + d.stall_cycles +
           d.loaded_elements * double(spec.element_bytes) / bytes_per_cycle;
  };
  auto fits = [&](const DsaTaskEstimate& d) {
    return d.working_set_bytes <= budget && d.stall_cycles == 0;
  };
  t.tile = tile;
  bool fit = fits(dsa_task_estimate(g, t, spec));
  while (!fit) {
    size_t best_axis = tile.size();
    bool best_fit = false;
    double best_cost = 0;
    for (size_t d = 0; d < tile.size(); ++d) {
      if (tile[d] <= 1) continue;
      std::vector<int64_t> trial = tile;
      trial[d] = (trial[d] + 1) / 2;
      t.tile = trial;
      const DsaTaskEstimate dem = dsa_task_estimate(g, t, spec);
      const double c = cost(dem);
      if (best_axis == tile.size() || c < best_cost) {
        best_axis = d;
        best_cost = c;
        best_fit = fits(dem);
      }
    }
    if (best_axis == tile.size()) break;
    tile[best_axis] = (tile[best_axis] + 1) / 2;
    fit = best_fit;
  }
  return tile;
}

// The steps of instance k of f of a sub-graph split along axis d > 0 with recomputed halos: its
// layers in order, each its own step while it reads, of the tensors the instance's earlier steps
// write, only their instance slices along d; a layer that needs a halo of one (a conv's rows
// beyond the slice, written by the next instance, later) joins the step that writes it and every
// step after, and the merged step is checked again (its halo grows backwards through its first
// layers) until it reads no halo of an earlier step: the halos are recomputed inside it.
std::vector<std::vector<int>> halo_steps(const Graph& g,
                                         const std::vector<std::vector<int>>& layers,
                                         const std::set<int>& sg_ops, int d, int64_t k, int64_t f) {
  std::vector<std::vector<int>> groups;
  std::map<int, size_t> group_of_tensor;
  auto slice_of = [&](int t) {
    Region r = full_region(g.tensor(t).shape);
    if (r.size() <= size_t(d)) return r;  // no axis d: whole
    const int64_t e = g.tensor(t).shape[size_t(d)];
    r[size_t(d)] = {e * k / f, e * (k + 1) / f};
    return r;
  };
  for (const std::vector<int>& layer : layers) {
    std::vector<int> part;
    for (int op : layer)
      if (sg_ops.count(op)) part.push_back(op);
    if (part.empty()) continue;
    groups.push_back(part);
    for (;;) {
      const std::vector<int>& last = groups.back();
      const std::set<int> own(last.begin(), last.end());
      std::map<int, Region> seeds;
      for (int op : last)
        for (int t : g.op(op).outputs) {
          bool outside = g.tensor(t).role == TensorRole::Output;
          for (int c : g.tensor(t).consumers) outside = outside || !own.count(c);
          if (outside) seeds[t] = slice_of(t);
        }
      size_t earliest = groups.size() - 1;
      for (const auto& [t, need] : propagate_regions(g, last, seeds)) {
        const auto it = group_of_tensor.find(t);
        if (it != group_of_tensor.end() && it->second < earliest &&
            !region_contains(slice_of(t), need.region))
          earliest = it->second;
      }
      if (earliest == groups.size() - 1) break;
      std::vector<int> merged;
      for (size_t gi = earliest; gi < groups.size(); ++gi)
        merged.insert(merged.end(), groups[gi].begin(), groups[gi].end());
      groups.resize(earliest);
      groups.push_back(std::move(merged));
    }
    for (int op : groups.back())
      for (int t : g.op(op).outputs) group_of_tensor[t] = groups.size() - 1;
  }
  return groups;
}

}  // namespace

bool halo_steps_fit(const Graph& g, const std::vector<int>& ops, int d, int64_t f,
                    const DsaSpec& spec) {
  const std::set<int> sg_ops(ops.begin(), ops.end());
  const std::vector<std::vector<int>> layers = layers_of(g);
  const int64_t budget = tile_budget(spec);
  std::vector<std::vector<int>> first;
  for (int64_t k = 0; k < f; ++k) {
    const std::vector<std::vector<int>> steps = halo_steps(g, layers, sg_ops, d, k, f);
    // Homogeneous instances (Fig. 6): every instance runs the same steps (an op kept inside a
    // merged step of one instance and written by its own step in another leaves its tensor
    // partly unwritten).
    if (k == 0) first = steps;
    if (steps != first) return false;
    for (const std::vector<int>& step_ops : steps) {
      Task t;
      t.kind = TaskKind::Fused;
      t.ops = step_ops;
      const Step st{step_ops, d, k, f, -1};
      for (int w : task_written_tensors(g, t)) {
        // A step whose outputs do not divide along d runs whole, once (stages_of_steps), and
        // writes what other instances' steps write again.
        if (!divides(g.tensor(w).shape, st, 1)) return false;
        t.regions[w] = step_region(g.tensor(w).shape, st, 0, 1);
      }
      const Shape shape = region_shape(task_written_region(g, t, task_primary_tensor(g, t)));
      t.placement.unit = UnitKind::Core;
      t.placement.index = {0, 0};
      t.placement.binding = plain_binding(shape, spec.cores_per_cluster);
      int64_t cores = 1;
      for (int64_t x : t.placement.binding) cores *= x;
      t.placement.count = static_cast<int>(cores);
      set_tile(t, fit_tile(g, t, spec), spec);
      if (dsa_task_estimate(g, t, spec).working_set_bytes > budget) return false;
    }
  }
  return true;
}

namespace {

// A plan stage built from a step, with the instance it belongs to (-1: none).
struct StageOfStep {
  Stage stage;
  int instance = -1;
};

// One stage per step, one task per cluster (its share of the batch), or one task for a step run
// whole, once (outputs that are not the batch's or do not divide); tiles fitted when `fit`.
std::vector<StageOfStep> stages_of_steps(const Graph& g, const std::vector<Step>& steps,
                                         const std::vector<bool>& batchy, const DsaSpec& spec,
                                         bool fit) {
  // Fitting the tiles asks for the regions of every task's tile candidates: each op's
  // iteration space built once.
  const IterationSpaceMemo spaces(g);
  const int clusters = spec.clusters;
  std::set<std::vector<int>> emitted_whole;
  std::vector<StageOfStep> out;
  for (Step st : steps) {
    const bool whole = st.f == 0;
    if (whole) {
      if (emitted_whole.count(st.ops)) continue;
      emitted_whole.insert(st.ops);
      st.f = 1;
    } else {
      bool ok = true;
      for (int op : st.ops)
        for (int t : g.op(op).outputs)
          ok = ok && batchy[size_t(t)] && divides(g.tensor(t).shape, st, clusters);
      if (!ok) {
        if (emitted_whole.count(st.ops)) continue;
        emitted_whole.insert(st.ops);
        st.f = 0;
      }
    }
    const bool single = st.f == 0 || whole;
    if (st.f == 0) st.f = 1;
    Stage stage;
    std::vector<int64_t> tile;
    for (int c = 0; c < (single ? 1 : clusters); ++c) {
      Task t;
      t.kind = TaskKind::Fused;
      t.ops = st.ops;
      const int primary = task_primary_tensor(g, t);
      for (int w : task_written_tensors(g, t))
        if (!single) t.regions[w] = step_region(g.tensor(w).shape, st, c, clusters);
      const Shape shape = region_shape(task_written_region(g, t, primary));
      const std::vector<int64_t> b = plain_binding(shape, spec.cores_per_cluster);
      int64_t cores = 1;
      for (int64_t x : b) cores *= x;
      t.placement.unit = UnitKind::Core;
      t.placement.index = {c, 0};
      t.placement.count = static_cast<int>(cores);
      t.placement.binding = b;
      if (fit && tile.empty()) tile = fit_tile(g, t, spec);
      set_tile(t, tile, spec);
      stage.tasks.push_back(std::move(t));
    }
    out.push_back({std::move(stage), st.instance});
  }
  return out;
}

// §3.5: puts the Concat op of every crossing read that has one (movement_ops.h) at the front of
// the consumer instance's first task that reads its output x' on that cluster, and re-fits the
// tiles of the stages it changes. x' read by a later step of the instance is written by that
// task: the producer pieces no earlier instance concatenated, each whole; otherwise x' is an
// intermediate of the task (computed where its tiles need it).
void insert_concats(const Graph& g, std::vector<StageOfStep>& built,
                    const std::vector<CrossingRead>& reads,
                    const std::map<std::pair<int, int>, int>& concat_tensor, const DsaSpec& spec,
                    std::vector<MovementPiece>* pieces) {
  const int cores = spec.cores_per_cluster;
  std::set<std::tuple<int, int, int>> concatenated;  // (x', producer stage, task)
  std::set<size_t> changed;
  for (const CrossingRead& r : reads) {
    const auto site = concat_tensor.find({r.tensor, r.subgraph});
    if (site == concat_tensor.end()) continue;
    const int xc = site->second, cop = g.tensor(xc).producer;
    size_t k = size_t(r.first_stage), ti = 0;
    bool found = false;
    for (; k < built.size() && built[k].instance == r.instance && !found; ++k)
      for (ti = 0; ti < built[k].stage.tasks.size() && !found; ++ti) {
        const Task& t = built[k].stage.tasks[ti];
        if (cluster_of(t) != r.cluster) continue;
        for (int op : t.ops)
          found = found || std::count(g.op(op).inputs.begin(), g.op(op).inputs.end(), xc) > 0;
      }
    if (!found)
      throw Error("GraphTurbo §3.5: no task of the consumer instance reads '" + g.tensor(xc).name +
                  "'");
    --k, --ti;
    Task& t = built[k].stage.tasks[ti];
    bool kept = true;
    for (int c : g.tensor(xc).consumers) kept = kept && std::count(t.ops.begin(), t.ops.end(), c);
    std::vector<std::pair<int, int>> from;
    Region whole;
    for (const std::pair<int, int>& w : r.writers) {
      if (!kept && !concatenated.insert({xc, w.first, w.second}).second) continue;
      from.push_back(w);
      const Region piece =
          task_written_region(g, built[size_t(w.first)].stage.tasks[size_t(w.second)], r.tensor);
      whole = whole.empty() ? piece : region_union(whole, piece);
    }
    // Every piece this instance needs was concatenated, whole, by an earlier instance (a
    // producer split along channels read by batch instances): it reads that x', no op of its own.
    if (!kept && from.empty()) continue;
    t.ops.insert(t.ops.begin(), cop);
    if (!kept) {
      int64_t sum = 0;
      for (const auto& [ws, wt] : from)
        sum += region_numel(
            task_written_region(g, built[size_t(ws)].stage.tasks[size_t(wt)], r.tensor));
      if (sum != region_numel(whole))
        throw Error("GraphTurbo §3.5: the pieces of '" + g.tensor(r.tensor).name +
                    "' a consumer instance concatenates are not one box");
      t.regions[xc] = whole;
    }
    const Shape shape = region_shape(whole);
    std::vector<int64_t> inferred = t.placement.binding;  // infer_binding (Algorithm 4)
    bool valid = inferred.size() == shape.size();
    for (size_t d = 0; valid && d < inferred.size(); ++d) valid = shape[d] % inferred[d] == 0;
    if (!valid) inferred = plain_binding(shape, cores);
    for (const std::pair<int, int>& w : from)
      pieces->push_back({int(k),
                         int(ti),
                         r.tensor,
                         xc,
                         r.instance,
                         r.cluster,
                         kept,
                         w,
                         written_binding(g, built[size_t(w.first)].stage.tasks[size_t(w.second)],
                                         r.tensor, cores),
                         inferred,
                         {}});
    changed.insert(k);
  }
  for (size_t k : changed) {
    const std::vector<int64_t> tile = fit_tile(g, built[k].stage.tasks[0], spec);
    for (Task& t : built[k].stage.tasks) set_tile(t, tile, spec);
  }
}

}  // namespace

int64_t tvm_batches_per_cluster(const Graph& g, const DsaSpec& spec) {
  const auto budget = static_cast<int64_t>(kTvmLlbFraction * double(spec.global_bytes));
  int64_t best = int64_t{1} << 20;
  for (const std::vector<int>& layer : layers_of(g)) {
    Task t;
    t.ops = layer;
    int64_t act = 0;
    std::set<int> seen;
    for (int op : layer)
      for (int x : g.op(op).inputs) {
        if (x < 0 || seen.count(x) || g.tensor(x).is_param()) continue;
        const int producer = g.tensor(x).producer;
        if (producer >= 0 && std::count(layer.begin(), layer.end(), producer)) continue;
        seen.insert(x);
        act += g.tensor(x).numel() * spec.element_bytes;
      }
    for (int x : task_written_tensors(g, t)) act += g.tensor(x).numel() * spec.element_bytes;
    int64_t b = 1;
    while (2 * b * act <= budget) b *= 2;
    best = std::min(best, b);
  }
  return best;
}

std::vector<bool> tensors_reached_from(const Graph& g, const std::vector<int>& seeds) {
  std::vector<bool> out(static_cast<size_t>(g.num_tensors()), false);
  for (int x : seeds) out[size_t(x)] = true;
  for (int op : g.topo_order()) {
    bool any = false;
    for (int x : g.op(op).inputs) any = any || (x >= 0 && out[size_t(x)]);
    for (int x : g.op(op).outputs) out[size_t(x)] = out[size_t(x)] || any;
  }
  return out;
}

namespace {

// Whether approach `a` runs GraphTurbo's instances (GraphTurbo and V3).
// The steps of approach `a` on `g` and the kernels they launch: with instances, GraphTurbo's
// schedule of one cluster's share (`per_cluster`), its instances in Algorithm 3's order, each cut
// by layer (a recomputing sub-graph by its halo steps; a step whose outputs the instance's split
// does not divide runs whole, once: factor 0); otherwise one step per layer.
struct PlanSteps {
  std::vector<Step> steps;
  int64_t kernels = 0;
  Schedule schedule;  // with instances
};
PlanSteps plan_steps(const Graph& g, const Graph* per_cluster, Approach a, const DsaSpec& spec,
                     const std::vector<bool>& batchy, DsaRun* counts, const GtParams* params) {
  PlanSteps r;
  if (uses_instances(a)) {
    // Scheduled on one cluster's share (the same builder at the per-cluster batch: same ops).
    if (per_cluster == nullptr) throw Error("dsa_plan: GraphTurbo needs the per-cluster graph");
    r.schedule = schedule_graph(*per_cluster, params ? *params : stcp920_gt_params(spec));
    const Schedule& s = r.schedule;
    r.kernels = static_cast<int64_t>(s.instances.size());
    if (counts) {
      counts->subgraphs = static_cast<int64_t>(s.grouping.subgraphs.size());
      counts->peak_bytes = 0;
      for (const SubGraph& sg : s.grouping.subgraphs)
        counts->peak_bytes = std::max(counts->peak_bytes, sg.peak_bytes);
    }
    const std::vector<std::vector<int>> layers = layers_of(g);
    for (int i : s.order) {
      const Instance& in = s.instances[size_t(i)];
      const SubGraph& sg = s.grouping.subgraphs[size_t(in.subgraph)];
      const std::set<int> sg_ops(sg.ops.begin(), sg.ops.end());
      if (sg.recomputes) {
        for (std::vector<int>& ops :
             halo_steps(g, layers, sg_ops, sg.best.dim, in.index, sg.best.factor))
          r.steps.push_back({std::move(ops), sg.best.dim, in.index, sg.best.factor, i});
        continue;
      }
      for (const std::vector<int>& layer : layers) {
        std::vector<int> part;
        for (int op : layer)
          if (sg_ops.count(op)) part.push_back(op);
        if (part.empty()) continue;
        int64_t f = sg.best.factor;
        bool ok = true;
        for (int op : part)
          for (int t : g.op(op).outputs)
            ok = ok && batchy[size_t(t)] &&
                 divides(g.tensor(t).shape, {{}, sg.best.dim, 0, f}, spec.clusters);
        if (!ok) f = 0;  // marker: whole, once
        r.steps.push_back({part, sg.best.dim, in.index, f, i});
      }
    }
  } else {
    for (const std::vector<int>& layer : layers_of(g)) r.steps.push_back({layer, 0, 0, 1, -1});
    r.kernels = static_cast<int64_t>(r.steps.size());
  }
  return r;
}

// §4.3's on-chip allocation of the plan's written tensors (cluster 0's regions): each one's
// liveness (the last stage reading it), then first-fit into L1 per core, the LLB, or DDR, by
// approach (TVM: DDR; AStitch: not a matrix op's output; V1: the LLB first); the tasks' scopes
// set and the tensors counted per level in `cnt`.
void allocate_scopes(const Graph& gg, Plan& plan, Approach a, const DsaSpec& spec, DsaRun& cnt) {
  // Written tensors per stage (cluster 0's regions) for the scope allocation.
  struct Written {
    int step, tensor;
    int64_t bytes;  // cluster 0's regions
    int units;
    Region region;  // bounding box of cluster 0's regions
    int last = -1;
    std::string scope;
  };
  std::vector<Written> written;
  for (size_t si = 0; si < plan.stages.size(); ++si) {
    std::map<int, Written> of_stage;
    for (const Task& t : plan.stages[si].tasks) {
      if (cluster_of(t) != 0) continue;
      for (int w : task_written_tensors(gg, t)) {
        if (gg.tensor(w).role == TensorRole::Output) continue;
        const Region r = task_written_region(gg, t, w);
        auto [it, fresh] = of_stage.try_emplace(w, Written{int(si), w, 0, 0, r, -1, ""});
        it->second.bytes += region_numel(r) * spec.element_bytes;
        it->second.units = std::max(it->second.units, t.placement.count);
        if (!fresh) it->second.region = region_union(it->second.region, r);
      }
    }
    for (auto& [w, entry] : of_stage) written.push_back(std::move(entry));
  }
  // Liveness: the last stage reading each written region (cluster 0's tasks).
  for (Written& w : written) {
    for (size_t s2 = size_t(w.step) + 1; s2 < plan.stages.size(); ++s2) {
      for (const Task& t : plan.stages[s2].tasks) {
        if (cluster_of(t) != 0) continue;
        bool reads = false;
        for (int op : t.ops)
          for (int in : gg.op(op).inputs) reads = reads || in == w.tensor;
        if (!reads) continue;
        const std::map<int, Region> need = task_needed_regions(gg, t);
        const auto it = need.find(w.tensor);
        if (it != need.end() && !region_empty(region_intersect(it->second, w.region)))
          w.last = int(s2);
      }
    }
  }
  // Scopes: first-fit over the liveness (L1 per core, then the LLB), DDR otherwise.
  std::vector<int64_t> l1(plan.stages.size(), 0), llb(plan.stages.size(), 0);
  const auto l1_cap = static_cast<int64_t>(kResidentFractionOfL1 * double(spec.local_bytes));
  for (Written& w : written) {
    w.scope = "ddr";
    if (a == Approach::Tvm || w.last < 0) continue;
    if (a == Approach::AStitch && has_matrix_op(gg, plan.stages[size_t(w.step)].tasks[0].ops))
      continue;
    const int64_t per_core = (w.bytes + w.units - 1) / w.units;
    bool fits_l1 = true, fits_llb = true;
    for (int st = w.step; st <= w.last; ++st) {
      fits_l1 = fits_l1 && l1[size_t(st)] + per_core <= l1_cap;
      fits_llb = fits_llb && llb[size_t(st)] + w.bytes <= spec.global_bytes;
    }
    if (a == Approach::V1Llb) fits_l1 = false;  // V1: outputs in the LLB as much as possible
    if (fits_l1) {
      w.scope = spec.local_level;
      for (int st = w.step; st <= w.last; ++st) l1[size_t(st)] += per_core;
    } else if (fits_llb) {
      w.scope = spec.global_level;
      for (int st = w.step; st <= w.last; ++st) llb[size_t(st)] += w.bytes;
    }
  }
  cnt.ddr_tensors = cnt.llb_tensors = cnt.l1_tensors = 0;
  for (const Written& w : written) {
    if (w.scope == "ddr") {
      ++cnt.ddr_tensors;
      continue;
    }
    (w.scope == spec.local_level ? cnt.l1_tensors : cnt.llb_tensors) += 1;
    for (Task& t : plan.stages[size_t(w.step)].tasks) {
      const std::vector<int> wr = task_written_tensors(gg, t);
      if (std::count(wr.begin(), wr.end(), w.tensor)) t.scope[w.tensor] = w.scope;
    }
  }
  for (int t : gg.output_tensors()) (void)t, ++cnt.ddr_tensors;
}

}  // namespace

DsaPlan dsa_plan(const Graph& g, const Graph* per_cluster, Approach a, const DsaSpec& spec,
                 DsaRun* counts, const GtParams* params) {
  // Tensors whose axis 0 is the batch: graph inputs, and outputs of ops reading one (a
  // position-embedding lookup from constant ids is not: it runs whole, once).
  std::vector<bool> batchy = tensors_reached_from(g, g.input_tensors());
  const bool instances = uses_instances(a);
  PlanSteps ps = plan_steps(g, per_cluster, a, spec, batchy, counts, params);
  const std::vector<Step>& steps = ps.steps;
  const Schedule& s = ps.schedule;
  DsaPlan out;
  Plan& plan = out.plan;
  plan.scheduler = std::string(approach_name(a)) + "-like on the DSA model";
  plan.graph = g.name;
  // Across-layer instruction scheduling (§4.4) is GraphTurbo's alone (V4): every other approach's
  // loads wait for their layer's stage (no weight promotion hidden behind an earlier layer).
  plan.options.prefetch_across_stages = a == Approach::GraphTurbo;
  if (!instances) {
    out.graph = g;
    for (StageOfStep& st : stages_of_steps(g, steps, batchy, spec, true))
      plan.stages.push_back(std::move(st.stage));
  } else {
    // §3.5: find the crossing reads on a plan without the ops, add a Concat op per (tensor,
    // consumer sub-graph) read in several pieces, and run it first in the consumer instance's
    // first task that reads the tensor; its pieces are that task's transfers (movement_ops.h).
    Plan bare;
    std::vector<int> stage_instance;
    for (StageOfStep& st : stages_of_steps(g, steps, batchy, spec, false)) {
      bare.stages.push_back(std::move(st.stage));
      stage_instance.push_back(st.instance);
    }
    const std::vector<CrossingRead> reads = crossing_reads(g, bare, stage_instance, s);
    std::map<std::pair<int, int>, int> concat_tensor;
    out.graph = with_concat_ops(g, concat_sites(reads), s.grouping, &concat_tensor);
    batchy.resize(size_t(out.graph.num_tensors()), false);
    for (const auto& [site, xc] : concat_tensor) batchy[size_t(xc)] = batchy[size_t(site.first)];
    std::vector<StageOfStep> built = stages_of_steps(out.graph, steps, batchy, spec, true);
    insert_concats(out.graph, built, reads, concat_tensor, spec, &out.movement);
    for (StageOfStep& st : built) plan.stages.push_back(std::move(st.stage));
  }
  const Graph& gg = out.graph;

  DsaRun local;
  DsaRun& cnt = counts ? *counts : local;
  cnt.kernels = ps.kernels;
  allocate_scopes(gg, plan, a, spec, cnt);
  set_piece_bindings(plan, out.movement, spec.local_level);
  cnt.movement = count_movement(plan, out.movement, spec.local_level);
  return out;
}

std::vector<int64_t> autotune_candidates(int64_t share) {
  std::vector<int64_t> out = {std::max<int64_t>(1, share)};
  for (int k = 0; k < kAutotuneHalvings && out.back() % 2 == 0; ++k) out.push_back(out.back() / 2);
  return out;
}

int64_t autotune_batches_per_cluster(int64_t share,
                                     const std::function<double(int64_t)>& throughput_of) {
  int64_t best = 0;
  double best_throughput = 0;
  for (int64_t b : autotune_candidates(share)) {
    const double t = throughput_of(b);
    if (best == 0 || t > best_throughput) best = b, best_throughput = t;
  }
  return best;
}

DsaRun run_on_dsa(const std::string& model, int64_t batch, Approach a, const DsaSpec& spec,
                  int64_t batches_per_cluster, int64_t seq_len) {
  if (a == Approach::GraphTurbo && batches_per_cluster == 0) {
    std::vector<DsaRun> runs;
    std::vector<std::pair<int64_t, double>> tried;
    const int64_t best = autotune_batches_per_cluster(batch / spec.clusters, [&](int64_t b) {
      runs.push_back(run_on_dsa(model, batch, a, spec, b, seq_len));
      tried.emplace_back(b, runs.back().throughput);
      return runs.back().throughput;
    });
    for (DsaRun& r : runs)
      if (r.batches_per_cluster == best) {
        r.autotuned = tried;
        return r;
      }
  }
  DsaRun r;
  r.approach = a;
  r.batch = batch;
  ZooOptions o;
  o.seq_len = seq_len;
  const int64_t clusters = spec.clusters;
  if (batches_per_cluster == 0) {
    batches_per_cluster = std::max<int64_t>(1, batch / clusters);
    if (a == Approach::Tvm) {
      o.batch = 1;
      batches_per_cluster =
          std::min(batches_per_cluster, tvm_batches_per_cluster(build_zoo_model(model, o), spec));
    }
  }
  r.batches_per_cluster = batches_per_cluster;
  r.iterations = std::max<int64_t>(1, batch / (clusters * batches_per_cluster));
  o.batch = batches_per_cluster;
  const Graph one = build_zoo_model(model, o);
  o.batch = batches_per_cluster * clusters;
  const Graph g = build_zoo_model(model, o);
  for (const Op& op : g.ops()) r.model_concats += op.kind == OpKind::Concat;
  const DsaPlan p = dsa_plan(g, &one, a, spec, &r);
  r.result = evaluate(p.graph, p.plan, dsa_hardware_spec(spec));  // checked, then priced
  r.latency_ms = r.result.latency_us * 1e-3 * double(r.iterations);
  r.throughput = double(batch) / (r.latency_ms * 1e-3);
  return r;
}

}  // namespace dgs::graphturbo
