// Atom tasks and their tilings (see atom_task.h).
#include "reproductions/atomic/atom_task.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <variant>

#include "common/dsamodel/layer_split_plan.h"
#include "common/dsamodel/task_estimate.h"
#include "common/graph/iteration_space.h"
#include "common/graph/sliding_axes.h"
#include "common/util/hash.h"

namespace dgs::atomic {

namespace {

// The contents of op `op` a tiling depends on: its kind and attributes, and per input and output
// its dtype, role, shape and constant values, the order of the op's tensor ids (the model's
// per-tensor maps run in id order; equal ids are one tensor read twice) and, per output, whether
// another op reads it (which decides whether a one-op task writes it). That is all the DSA model
// reads of the graph for a one-op task (dsa_task_tile, dsa_task_estimate): two ops equal in
// these tile alike, in one graph (ResNet-1001's hundreds of equal bottlenecks) or two (ResNet-50's
// and ResNet-152's), so the cache keys a tiling by them, not by the op's index.
std::string op_key(const Graph& g, int op_index) {
  const Op& op = g.op(op_index);
  std::vector<int> ids;
  for (int t : op.inputs)
    if (t >= 0) ids.push_back(t);
  ids.insert(ids.end(), op.outputs.begin(), op.outputs.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::ostringstream s;
  s.precision(17);
  s << "op" << static_cast<int>(op.kind) << '(';
  for (const auto& [name, value] : op.attrs.all()) {
    s << name << '=';
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::vector<int64_t>> ||
                        std::is_same_v<V, std::vector<double>>) {
            for (const auto& x : v) s << x << ',';
          } else {
            s << v;
          }
        },
        value);
    s << ';';
  }
  auto tensor = [&](int id) {
    if (id < 0) {
      s << "[-]";
      return;
    }
    const Tensor& t = g.tensor(id);
    s << '[' << (std::lower_bound(ids.begin(), ids.end(), id) - ids.begin()) << ','
      << static_cast<int>(t.dtype) << ',' << static_cast<int>(t.role) << ',' << t.consumers.empty();
    for (int64_t e : t.shape) s << ',' << e;
    for (int64_t v : t.int_data) s << ';' << v;
    for (float v : t.float_data) s << ';' << v;
    s << ']';
  };
  for (int t : op.inputs) tensor(t);
  s << "->";
  for (int t : op.outputs) tensor(t);
  s << ')';
  return s.str();
}

// Every number of the config a tiling depends on (not its name: two configs with equal numbers
// tile alike).
std::string spec_key(const DsaSpec& spec) {
  std::ostringstream c;
  c.precision(17);
  c << "spec" << static_cast<int>(spec.topology) << ',' << spec.clusters << ','
    << spec.cores_per_cluster << ',' << spec.mesh_columns << ',' << spec.mesh_rows << ','
    << spec.clock_mhz << ',' << spec.datatype << ',' << spec.element_bytes << ','
    << spec.matrix_tile_rows << ',' << spec.matrix_tile_columns << ',' << spec.matrix_macs_per_cycle
    << ',' << static_cast<int>(spec.dataflow) << ',' << spec.fold_overhead_cycles << ','
    << spec.pe_weight_registers << ',' << spec.pe_input_registers << ',' << spec.pe_output_registers
    << ',' << spec.partial_sum_bytes << ',' << spec.register_pj_per_bit << ',' << spec.vector_lanes
    << ',' << spec.task_overhead_cycles << ',' << spec.weights_stay << ','
    << spec.loads_wait_for_releases << ',' << spec.local_level << ',' << spec.local_bytes << ','
    << spec.local_ports << ',' << spec.local_bytes_per_cycle << ',' << spec.local_pj_per_bit << ','
    << spec.global_level << ',' << spec.global_bytes << ',' << spec.global_bytes_per_cycle << ','
    << spec.global_pj_per_bit << ',' << spec.dma_engines << ',' << spec.dma_bytes_per_cycle << ','
    << spec.dram_level << ',' << spec.dram_bytes << ',' << spec.dram_bandwidth_gbs << ','
    << spec.dram_efficiency << ',' << spec.dram_latency_cycles << ',' << spec.dram_pj_per_bit << ','
    << spec.noc_link_bytes_per_cycle << ',' << spec.noc_hop_cycles << ',' << spec.noc_pj_per_bit_hop
    << ',' << spec.mac_pj << ',' << spec.static_mw_per_unit;
  return c.str();
}

}  // namespace

Task atom_base_task(const AtomicDag& dag, int atom, const DsaSpec& spec, int engine) {
  const Atom& a = dag.atoms[static_cast<size_t>(atom)];
  const Layer& l = dag.layers[static_cast<size_t>(a.layer)];
  Task t;
  t.ops = {l.op};
  if (a.region != full_region(l.shape)) t.regions[l.output] = a.region;
  if (a.c_in.hi > a.c_in.lo) {
    t.reduction.range = {l.reduction_axis, a.c_in};
    if (t.regions.empty()) t.regions[l.output] = a.region;
  }
  t.placement = dsa_unit_placement(spec, engine);
  return t;
}

namespace {

// The cache key of a tiling: the config's numbers and the layer's op's contents (spec_key and
// op_key, each interned as a number), the atom's shape and the edges it touches, and its
// reduction slice.
struct TilingKey {
  uint32_t contents = 0;
  uint32_t op = 0;
  int64_t c_in = 0;
  std::vector<int64_t> shape_and_edges;
  bool operator==(const TilingKey&) const = default;
};

struct TilingKeyHash {
  size_t operator()(const TilingKey& k) const {
    uint64_t h = 14695981039346656037ull;
    auto mix = [&](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
    mix(k.contents);
    mix(static_cast<uint64_t>(k.op));
    mix(static_cast<uint64_t>(k.c_in));
    for (int64_t x : k.shape_and_edges) mix(static_cast<uint64_t>(x));
    return static_cast<size_t>(h);
  }
};

// The number of a spec_key's or op_key's text (one per distinct text, never reused; the two kinds
// of text start differently).
uint32_t contents_id(const std::string& text) {
  static std::mutex lock;
  static std::unordered_map<std::string, uint32_t> ids;
  const std::lock_guard<std::mutex> hold(lock);
  return ids.emplace(text, static_cast<uint32_t>(ids.size())).first->second;
}

}  // namespace

uint32_t op_contents_id(const Graph& g, int op) {
  return contents_id(op_key(g, op));
}

uint32_t AtomTilings::contents(const DsaSpec& spec) {
  if (spec_ != &spec) {
    contents_ = contents_id(spec_key(spec));
    spec_ = &spec;
  }
  return contents_;
}

const AtomTiling& AtomTilings::of(const Graph& g, const AtomicDag& dag, int atom,
                                  const DsaSpec& spec) {
  const Atom& a = dag.atoms[static_cast<size_t>(atom)];
  const Layer& l = dag.layers[static_cast<size_t>(a.layer)];
  contents(spec);
  if (graph_ != &g) {
    op_keys_.assign(static_cast<size_t>(g.num_ops()), OpKey{});
    graph_ = &g;
  }
  OpKey& op_key = op_keys_[static_cast<size_t>(l.op)];
  if (op_key.id < 0) {
    op_key.id = op_contents_id(g, l.op);
    IterationSpace copy;
    IterationSpaceMemo* memo = IterationSpaceMemo::active(g);
    const IterationSpace& space = memo ? memo->space(l.op) : (copy = iteration_space(g, l.op));
    op_key.sliding = sliding_axes(g, l.op, space);
  }
  // The config's numbers (spec_key) and the layer's op's contents (op_key: two ops that differ
  // in anything the model reads never share an entry), the atom's shape, edges and reduction slice,
  // and per input of its op the shape of the region it reads and which edges of the input that
  // region touches (as the model's own demand cache, dsa_task.cpp demand_key). The output's
  // edges alone do not say how much padding clips an input's halo: a 7x7 convolution of stride 2
  // and padding 3 at output column 1 reads input columns -1..5, 6 of them, at column 88 all 7
  // (ResNet-152's conv1: one shared tiling gave the column-88 atom the smaller working set, and
  // a buffering that fitted it was 266 bytes over for the model). The reduction slice's position
  // changes no region's shape, only which channels: its size is in the key. Nor does a place
  // along a sliding axis (sliding_axes.h: at batch 20 the sample an atom computes), so the edges
  // on such an axis, and on the input dims it drives, are left out (0): the first, middle and
  // last samples' atoms of one shape share a tiling instead of making three. Built in a
  // per-thread key whose vector keeps its room, so a lookup that hits allocates nothing but the
  // regions.
  const auto edges = [](const Interval& r, int64_t extent, bool slides) -> int64_t {
    return slides ? 0 : (r.lo == 0 ? 1 : 0) + (r.hi == extent ? 2 : 0);
  };
  const auto bit = [](uint64_t mask, size_t i) { return i < 64 && ((mask >> i) & 1) != 0; };
  thread_local TilingKey key;
  key.contents = contents_;
  key.op = static_cast<uint32_t>(op_key.id);
  key.c_in = a.c_in.hi - a.c_in.lo;
  key.shape_and_edges.clear();
  for (size_t ax = 0; ax < a.region.size(); ++ax)
    key.shape_and_edges.push_back(a.region[ax].hi - a.region[ax].lo);
  for (size_t ax = 0; ax < a.region.size(); ++ax)
    key.shape_and_edges.push_back(edges(a.region[ax], l.shape[ax], bit(op_key.sliding.output, ax)));
  const Op& op = g.op(l.op);
  const std::vector<Region> ins = input_regions(g, l.op, a.region);
  for (size_t i = 0; i < ins.size() && i < op.inputs.size(); ++i) {
    if (op.inputs[i] < 0) continue;
    const Shape& shape = g.tensor(op.inputs[i]).shape;
    const uint64_t driven = i < op_key.sliding.driven.size() ? op_key.sliding.driven[i] : 0;
    for (size_t ax = 0; ax < ins[i].size() && ax < shape.size(); ++ax) {
      key.shape_and_edges.push_back(ins[i][ax].hi - ins[i][ax].lo);
      key.shape_and_edges.push_back(edges(ins[i][ax], shape[ax], bit(driven, ax)));
    }
  }
  // One cache for the whole process, shared by the threads that price candidates (a tiling
  // depends on its key only; parallel_for's workers live for one call, so a per-thread cache
  // was lost after each). Entries are never erased, so the references handed out stay valid;
  // past its size limit, new tilings go to a per-thread cache that is cleared when full.
  static std::shared_mutex shared_lock;
  static std::unordered_map<TilingKey, AtomTiling, TilingKeyHash> shared;
  constexpr size_t kSharedLimit = size_t{1} << 20;
  last_lasting_ = true;
  {
    const std::shared_lock<std::shared_mutex> read(shared_lock);
    const auto it = shared.find(key);
    if (it != shared.end()) return it->second;
  }
  last_lasting_ = false;
  thread_local std::unordered_map<TilingKey, AtomTiling, TilingKeyHash> cache;
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (cache.size() > (1u << 16)) cache.clear();
  Task t = atom_base_task(dag, atom, spec, 0);
  AtomTiling r;
  if (l.splittable) {
    // The atom's task is placed on engine 0 alone (atom_base_task): the model's units {0}.
    const int64_t budget = spec.local_bytes / 2;
    const std::vector<int64_t> tile = dsa_task_tile(g, t, spec, budget);
    if (!tile.empty()) {  // one whole tile may still run its reduction in chunks
      t.kind = TaskKind::Fused;
      t.tile = tile;
      t.buffer_bytes = budget;
      r.tile = tile;
      r.buffer_bytes = budget;
    }
  }
  const DsaTaskEstimate e = dsa_task_estimate(g, t, spec);
  r.working_bytes = e.working_set_bytes;
  r.loaded_bytes = e.loaded_bytes;
  {
    const std::unique_lock<std::shared_mutex> write(shared_lock);
    last_lasting_ = shared.size() < kSharedLimit;
    if (last_lasting_) return shared.emplace(key, std::move(r)).first->second;
  }
  return cache.emplace(key, std::move(r)).first->second;
}

}  // namespace dgs::atomic
