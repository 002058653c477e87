// Atoms and the atomic DAG (see atoms.h).
#include "reproductions/atomic/atoms.h"

#include <algorithm>
#include <numeric>

#include "common/dsamodel/unit_cost.h"
#include "common/graph/iteration_space.h"
#include "common/graph/op_cost.h"
#include "common/graph/reduction_slice.h"
#include "common/graph/sliding_axes.h"

namespace dgs::atomic {

int64_t graph_batch(const Graph& g) {
  const std::vector<int> in = g.input_tensors();
  if (in.empty() || g.tensor(in[0]).shape.empty()) return 1;
  return g.tensor(in[0]).shape[0];
}

namespace {

// [0, extent) cut into pieces of `size` (0 or >= extent: one piece).
std::vector<Interval> cuts_of(int64_t extent, int64_t size) {
  if (size <= 0 || size >= extent) return {{0, extent}};
  std::vector<Interval> r;
  for (int64_t lo = 0; lo < extent; lo += size) r.push_back({lo, std::min(extent, lo + size)});
  return r;
}

// The pieces of `cuts` (sorted, contiguous) that overlap [lo, hi): [first, last).
std::pair<size_t, size_t> overlapping(const std::vector<Interval>& cuts, Interval q) {
  auto first = std::partition_point(cuts.begin(), cuts.end(),
                                    [&](const Interval& c) { return c.hi <= q.lo; });
  auto last =
      std::partition_point(first, cuts.end(), [&](const Interval& c) { return c.lo < q.hi; });
  return {static_cast<size_t>(first - cuts.begin()), static_cast<size_t>(last - cuts.begin())};
}

// A layer's atoms as a grid: one list of pieces per output axis (axis 0: the samples), times
// `ci_parts` reduction slices; atom index = first + row-major position (slices innermost).
struct LayerGrid {
  std::vector<std::vector<Interval>> cuts;
  std::vector<Interval> ci;  // reduction slices ({{0,0}} when not sliced)
  int first = 0;
};

LayerGrid layer_grid(const Layer& layer, const AtomShape& s) {
  LayerGrid grid;
  const Shape& sh = layer.shape;
  for (size_t axis = 0; axis < sh.size(); ++axis) grid.cuts.push_back({{0, sh[axis]}});
  if (layer.splittable) {
    grid.cuts[0] = cuts_of(sh[0], 1);
    grid.cuts[1] = cuts_of(sh[1], s.c_out);
    if (sh.size() == 4) {
      grid.cuts[2] = cuts_of(sh[2], s.h);
      grid.cuts[3] = cuts_of(sh[3], s.w);
    }
  }
  grid.ci = {{0, 0}};
  if (!layer.reduction_axis.empty() && s.c_in > 0 && s.c_in < layer.reduction_extent) {
    grid.ci = cuts_of(layer.reduction_extent, s.c_in);
  }
  return grid;
}

}  // namespace

double AtomicDag::total_macs() const {
  double m = 0;
  for (const Atom& a : atoms) m += a.macs;
  return m;
}

std::vector<Layer> graph_layers(const Graph& g) {
  const int64_t batch = graph_batch(g);
  std::vector<int> depth_of_op(static_cast<size_t>(g.num_ops()), 0);
  std::vector<Layer> layers;
  for (int op : g.topo_order()) {
    const Op& o = g.op(op);
    Layer l;
    l.op = op;
    l.output = o.outputs.at(0);
    l.shape = g.tensor(l.output).shape;
    int d = 0;
    for (int p : g.predecessors(op)) d = std::max(d, depth_of_op[static_cast<size_t>(p)] + 1);
    depth_of_op[static_cast<size_t>(op)] = d;
    l.depth = d;
    const ComputeUnit unit = compute_unit_of(g, op);
    l.matrix = unit == ComputeUnit::Matrix;
    const bool per_sample = !l.shape.empty() && l.shape[0] == batch;
    l.splittable =
        per_sample && o.outputs.size() == 1 && (l.shape.size() == 4 || l.shape.size() == 2) &&
        (unit == ComputeUnit::Matrix || unit == ComputeUnit::Vector || unit == ComputeUnit::Move);
    if (l.matrix) {
      for (const ReductionAxis& ax : iteration_space(g, op).reduction_axes) {
        if (ax.name != "c_in" && ax.name != "k") continue;
        if (!reduction_slice_error(g, op, {ax.name, {0, ax.extent}}).empty()) continue;
        l.reduction_axis = ax.name;
        l.reduction_extent = ax.extent;
      }
    }
    l.macs_per_sample = static_cast<double>(op_cost(g, op).macs) / static_cast<double>(batch);
    layers.push_back(std::move(l));
  }
  return layers;
}

std::vector<AtomRegion> layer_atom_regions(const Layer& layer, const AtomShape& shape, int sample) {
  const LayerGrid grid = layer_grid(layer, shape);
  std::vector<AtomRegion> out;
  if (!layer.splittable && sample > 0) return out;
  Region base = full_region(layer.shape);
  if (layer.splittable) base[0] = {sample, sample + 1};
  // Odometer over axes 1.. and the slices.
  const size_t rank = layer.shape.size();
  std::vector<size_t> idx(rank, 0);
  for (;;) {
    Region r = base;
    for (size_t a = 1; a < rank; ++a) r[a] = grid.cuts[a][idx[a]];
    for (const Interval& ci : grid.ci) out.push_back({r, ci});
    size_t a = rank;
    while (a > 1) {
      --a;
      if (++idx[a] < grid.cuts[a].size()) break;
      idx[a] = 0;
      if (a == 1) return out;
    }
    if (rank <= 1) return out;
  }
}

AtomRegion first_atom_region(const Layer& layer, const AtomShape& shape) {
  const LayerGrid grid = layer_grid(layer, shape);
  AtomRegion a;
  a.region = full_region(layer.shape);
  for (size_t ax = layer.splittable ? 0 : layer.shape.size(); ax < layer.shape.size(); ++ax) {
    a.region[ax] = grid.cuts[ax][0];
  }
  a.c_in = grid.ci[0];
  return a;
}

int64_t atoms_per_sample(const Layer& layer, const AtomShape& shape) {
  const LayerGrid grid = layer_grid(layer, shape);
  int64_t n = static_cast<int64_t>(grid.ci.size());
  for (size_t ax = 1; ax < grid.cuts.size(); ++ax) n *= static_cast<int64_t>(grid.cuts[ax].size());
  return n;
}

AtomCost atom_cost(const Graph& g, const Layer& layer, const AtomRegion& a, const DsaSpec& spec) {
  std::string axis;
  double fraction = 1;
  if (a.c_in.hi > a.c_in.lo && layer.reduction_extent > 0) {
    axis = layer.reduction_axis;
    fraction =
        static_cast<double>(a.c_in.hi - a.c_in.lo) / static_cast<double>(layer.reduction_extent);
  }
  const OpCycles c = op_cycles(g, layer.op, a.region, spec, axis, fraction);
  return {c.cycles, c.macs};
}

int64_t atom_working_bytes(const Graph& g, const Layer& layer, const AtomRegion& a,
                           const DsaSpec& spec) {
  // What the atom's loads move (a strided window's touched elements, not its box).
  const std::vector<AccessRegion> ins =
      a.c_in.hi > a.c_in.lo
          ? input_access_regions_for_slice(g, layer.op, a.region, {layer.reduction_axis, a.c_in})
          : input_access_regions(g, layer.op, a.region);
  int64_t elems = region_numel(a.region);
  const Op& o = g.op(layer.op);
  for (size_t i = 0; i < ins.size() && i < o.inputs.size(); ++i) {
    if (o.inputs[i] < 0 || g.tensor(o.inputs[i]).role == TensorRole::Constant) continue;
    elems += access_numel(ins[i]);
  }
  return elems * spec.element_bytes;
}

AtomicDag build_atomic_dag(const Graph& g, const std::vector<AtomShape>& shapes,
                           const DsaSpec& spec) {
  IterationSpaceMemo spaces(g);  // every atom's input regions come from its layer's space
  AtomicDag dag;
  dag.batch = static_cast<int>(graph_batch(g));
  dag.layers = graph_layers(g);
  if (shapes.size() != dag.layers.size()) {
    throw Error("build_atomic_dag: " + std::to_string(shapes.size()) + " atom shapes for " +
                std::to_string(dag.layers.size()) + " layers of " + g.name);
  }
  dag.shapes = shapes;
  std::vector<int> layer_of_op(static_cast<size_t>(g.num_ops()), -1);
  std::vector<LayerGrid> grids;
  for (size_t li = 0; li < dag.layers.size(); ++li) {
    const Layer& layer = dag.layers[li];
    layer_of_op[static_cast<size_t>(layer.op)] = static_cast<int>(li);
    LayerGrid grid = layer_grid(layer, shapes[li]);
    grid.first = static_cast<int>(dag.atoms.size());
    dag.atoms_of_layer.emplace_back();
    int k = 0;
    const int samples = layer.splittable ? dag.batch : 1;
    // A later sample's atom is sample 0's moved along the batch axis (axis 0); where that axis
    // slides (sliding_axes.h: the moved atom reads moved regions of the same shapes, nothing
    // clipped), its cost is the one of sample 0's atom at the same place in the sample, taken
    // instead of priced again (at batch 20, 19 of every 20 atoms).
    const bool batch_slides =
        samples > 1 && (sliding_axes(g, layer.op, spaces.space(layer.op)).output & 1u) != 0;
    const int first_atom = static_cast<int>(dag.atoms.size());
    for (int s = 0; s < samples; ++s) {
      int in_sample = 0;
      for (const AtomRegion& r : layer_atom_regions(layer, shapes[li], s)) {
        Atom a;
        a.layer = static_cast<int>(li);
        a.sample = layer.splittable ? s : 0;
        a.region = r.region;
        a.c_in = r.c_in;
        if (s > 0 && batch_slides) {
          const Atom& same = dag.atoms[static_cast<size_t>(first_atom + in_sample)];
          a.cycles = same.cycles;
          a.macs = same.macs;
        } else {
          const AtomCost c = atom_cost(g, layer, r, spec);
          a.cycles = c.cycles;
          a.macs = c.macs;
        }
        ++in_sample;
        a.out_bytes = r.c_in.hi > r.c_in.lo && r.c_in.lo > 0
                          ? 0  // a later partial sum adds into its home's region
                          : region_numel(r.region) * spec.element_bytes;
        a.index_in_layer = k++;
        dag.atoms_of_layer.back().push_back(static_cast<int>(dag.atoms.size()));
        dag.atoms.push_back(std::move(a));
      }
    }
    grids.push_back(std::move(grid));
  }
  dag.preds.assign(dag.atoms.size(), {});
  dag.succs.assign(dag.atoms.size(), {});
  for (size_t ai = 0; ai < dag.atoms.size(); ++ai) {
    const Atom& a = dag.atoms[ai];
    const Layer& layer = dag.layers[static_cast<size_t>(a.layer)];
    const Op& o = g.op(layer.op);
    std::vector<Region> ins =
        a.c_in.hi > a.c_in.lo
            ? input_regions_for_slice(g, layer.op, a.region, {layer.reduction_axis, a.c_in})
            : input_regions(g, layer.op, a.region);
    std::vector<int>& preds = dag.preds[ai];
    for (size_t i = 0; i < ins.size() && i < o.inputs.size(); ++i) {
      if (o.inputs[i] < 0 || region_empty(ins[i])) continue;
      const int producer = g.tensor(o.inputs[i]).producer;
      if (producer < 0) continue;
      const int pl = layer_of_op[static_cast<size_t>(producer)];
      const LayerGrid& grid = grids[static_cast<size_t>(pl)];
      if (g.op(producer).outputs.at(0) != o.inputs[i]) {
        // Another output of a multi-output op: its one atom.
        preds.push_back(grid.first);
        continue;
      }
      // Rows of the grid overlapping the needed region, axis by axis (axis 0 of a per-sample
      // grid: one piece per sample).
      const size_t rank = grid.cuts.size();
      std::vector<std::pair<size_t, size_t>> ranges(rank);
      bool any = true;
      for (size_t ax = 0; ax < rank; ++ax) {
        ranges[ax] = overlapping(grid.cuts[ax], ins[i][ax]);
        if (ranges[ax].first >= ranges[ax].second) any = false;
      }
      if (!any) continue;
      std::vector<size_t> idx(rank);
      for (size_t ax = 0; ax < rank; ++ax) idx[ax] = ranges[ax].first;
      for (;;) {
        size_t pos = 0;
        for (size_t ax = 0; ax < rank; ++ax) pos = pos * grid.cuts[ax].size() + idx[ax];
        for (size_t c = 0; c < grid.ci.size(); ++c) {
          preds.push_back(grid.first + static_cast<int>(pos * grid.ci.size() + c));
        }
        size_t ax = rank;
        bool done = true;
        while (ax > 0) {
          --ax;
          if (++idx[ax] < ranges[ax].second) {
            done = false;
            break;
          }
          idx[ax] = ranges[ax].first;
        }
        if (done) break;
      }
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (int p : preds) dag.succs[static_cast<size_t>(p)].push_back(static_cast<int>(ai));
  }
  return dag;
}

}  // namespace dgs::atomic
