// The generic tile-program builder (see tile_program_builder.h): each op lowered to the
// interpreter's op block (tile_program_lowering.h), operands bound to scratch or global tensors,
// then per-tile regions from the shared region propagation.
#include "common/tileprog/tile_program_builder.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "common/graph/iteration_space.h"
#include "common/tileprog/tile_program_lowering.h"
#include "common/util/error.h"

namespace dgs {

namespace {

// Box t of `parts` disjoint boxes that cover a tensor of shape `s` (empty past the last): the
// leading dims d < k with s[0] x ... x s[k-1] <= parts are split into single indices (U boxes),
// dim k into parts / U ranges, the dims after k are whole. No box spans two indices of a
// leading dim, so each is about numel / parts elements when the extents divide evenly.
Region grid_share(const Shape& s, int64_t t, int64_t parts) {
  const size_t rank = s.size();
  size_t k = 0;
  int64_t units = 1;
  while (k < rank && units * s[k] <= parts) units *= s[k++];
  Region r(rank);
  for (auto& iv : r) iv = {0, 0};
  const int64_t pieces = k < rank ? std::max<int64_t>(1, parts / units) : 1;
  const int64_t u = t / pieces, j = t % pieces;
  if (u >= units) return r;
  int64_t rest = u;
  for (size_t d = k; d-- > 0;) {
    r[d] = {rest % s[d], rest % s[d] + 1};
    rest /= s[d];
  }
  if (k < rank) {
    const int64_t step = (s[k] + pieces - 1) / pieces;
    const int64_t lo = std::min(s[k], j * step), hi = std::min(s[k], (j + 1) * step);
    if (lo >= hi) {
      for (auto& iv : r) iv = {0, 0};
      return r;
    }
    r[k] = {lo, hi};
    for (size_t e = k + 1; e < rank; ++e) r[e] = {0, s[e]};
  }
  return r;
}

// Whether op i's regions over all tiles of `p` cover every element of its output (shape s).
bool regions_cover(const TileProgram& p, size_t i, const Shape& s) {
  std::vector<uint8_t> hit(static_cast<size_t>(numel(s)), 0);
  const size_t nops = p.ops.size();
  const int rank = static_cast<int>(s.size());
  for (int64_t t = 0; t < p.tiles; ++t) {
    const int64_t* row = p.regions.data() + (static_cast<size_t>(t) * nops + i) * p.region_stride();
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= row[kTpMaxRank + d];
    for (int64_t e = 0; e < n; ++e) {
      int64_t r = e, off = 0, mul = 1;
      for (int d = rank - 1; d >= 0; --d) {
        off += (row[d] + r % row[kTpMaxRank + d]) * mul;
        r /= row[kTpMaxRank + d];
        mul *= s[d];
      }
      hit[static_cast<size_t>(off)] = 1;
    }
  }
  return std::all_of(hit.begin(), hit.end(), [](uint8_t h) { return h != 0; });
}

void copy_shape(const Shape& s, int32_t& rank, int64_t* dst) {
  rank = static_cast<int32_t>(s.size());
  for (size_t d = 0; d < s.size(); ++d) dst[d] = s[d];
}

}  // namespace

namespace {

// The group's ops, each once, in the graph's topological order (each with one output).
std::vector<int> ordered_group_ops(const Graph& g, const TileProgramGroup& group) {
  std::vector<int> position(static_cast<size_t>(g.num_ops()), -1);
  {
    const std::vector<int> topo = g.topo_order();
    for (size_t k = 0; k < topo.size(); ++k)
      position[static_cast<size_t>(topo[k])] = static_cast<int>(k);
  }
  std::vector<int> gops;
  for (int op : group.ops) {
    if (op < 0 || op >= g.num_ops())
      throw Error("tile program: op index " + std::to_string(op) + " out of range");
    if (std::find(gops.begin(), gops.end(), op) == gops.end()) gops.push_back(op);
  }
  std::sort(gops.begin(), gops.end(), [&](int a, int b) {
    return position[static_cast<size_t>(a)] < position[static_cast<size_t>(b)];
  });
  for (int op : gops)
    if (g.op(op).outputs.size() != 1)
      fail_tile_program_op(g, op, "operators with several outputs are not supported");
  return gops;
}

// Which graph tensors the group produces, which it writes, which it keeps, and the seeds of the
// region propagation (the outputs that leave the kernel).
struct GroupRoles {
  std::map<int, int> producer_index;  // graph tensor -> index in gops
  std::vector<bool> written, inner;   // by index in gops
  std::map<int, Region> seeds;
};

GroupRoles group_roles(const Graph& g, const TileProgramGroup& group, const std::vector<int>& gops,
                       const Shape& root_shape) {
  const std::set<int> in_group(gops.begin(), gops.end());
  GroupRoles r;
  for (size_t i = 0; i < gops.size(); ++i)
    r.producer_index[g.op(gops[i]).outputs[0]] = static_cast<int>(i);
  r.written.assign(gops.size(), false);
  r.inner.assign(gops.size(), false);
  for (int t : group.written) {
    auto it = r.producer_index.find(t);
    if (it == r.producer_index.end())
      throw Error(
          "tile program: written tensor " +
          (t >= 0 && t < g.num_tensors() ? "'" + g.tensor(t).name + "'" : std::to_string(t)) +
          " is not an output of the group");
    r.written[static_cast<size_t>(it->second)] = true;
  }
  for (size_t i = 0; i < gops.size(); ++i) {
    const int t = g.op(gops[i]).outputs[0];
    for (int c : g.tensor(t).consumers) r.inner[i] = r.inner[i] || in_group.count(c) > 0;
    if (r.inner[i]) continue;
    if (gops[i] != group.root && g.tensor(t).shape != root_shape)
      throw Error("tile program: kernel outputs '" + g.op(gops[i]).name + "' and '" +
                  g.op(group.root).name + "' have different shapes and cannot share one tile");
    if (!r.written[i])
      fail_tile_program_op(g, gops[i], "its output is neither written nor read inside the kernel");
    r.seeds[t] = {};
  }
  if (r.inner[static_cast<size_t>(r.producer_index.at(g.op(group.root).outputs[0]))])
    throw Error("tile program: the root op '" + g.op(group.root).name +
                "' has a consumer inside the group");
  return r;
}

// The interpreter's op block of every op of the group (p.ops), with the global tensors it reads
// (produced outside) or writes.
void lower_group_ops(const Graph& g, const std::vector<int>& gops, const GroupRoles& roles,
                     TileProgram& p) {
  std::map<int, int> global_slot;
  auto global_of = [&](int t, bool write) {
    auto it = global_slot.find(t);
    if (it != global_slot.end()) {
      if (write) p.global_written[it->second] = true;
      return it->second;
    }
    const Tensor& tt = g.tensor(t);
    if (tt.dtype != DType::F32)
      throw Error("tile program: tensor '" + tt.name + "' of dtype " +
                  std::string(dtype_name(tt.dtype)) + " (the interpreter reads float32 only)");
    const int slot = static_cast<int>(p.global_ids.size());
    p.global_ids.push_back(t);
    p.global_shapes.push_back(tt.shape);
    p.global_written.push_back(write);
    global_slot[t] = slot;
    return slot;
  };
  for (size_t i = 0; i < gops.size(); ++i) {
    const int op = gops[i];
    const Op& o = g.op(op);
    TpOp t;
    t.kind = tile_program_kind(g, op);
    const Shape& out = g.tensor(o.outputs[0]).shape;
    check_tile_program_rank(g, op, out);
    copy_shape(out, t.rank, t.shape);
    const auto din = tile_program_data_inputs(g, op, t.kind);
    if (static_cast<int>(din.size()) > kTpMaxInputs)
      fail_tile_program_op(g, op,
                           std::to_string(din.size()) + " inputs exceed the interpreter's " +
                               std::to_string(kTpMaxInputs));
    for (size_t k : din) {
      if (k >= o.inputs.size() || o.inputs[k] < 0)
        fail_tile_program_op(g, op, "input " + std::to_string(k) + " is missing");
      const int tin = o.inputs[k];
      const Shape& s = g.tensor(tin).shape;
      check_tile_program_rank(g, op, s);
      TpOperand& x = t.in[t.num_inputs++];
      copy_shape(s, x.rank, x.shape);
      auto pi = roles.producer_index.find(tin);
      if (pi != roles.producer_index.end() && pi->second < static_cast<int>(i)) {
        x.local = 1;
        x.index = pi->second;
      } else {
        x.local = 0;
        x.index = global_of(tin, false);
      }
    }
    fill_tile_program_attrs(g, op, t, p.int_pool);
    if (roles.written[i]) t.out_global = global_of(o.outputs[0], true);
    p.ops.push_back(t);
  }
}

// The tiles of the root output (row-major order of their origins) and the region of every op in
// each (p.regions), and per op its largest region (max_numel).
struct TileRegions {
  const Graph& g;
  const std::vector<int>& gops;
  const std::map<int, Region>& seeds;
  const Shape& root_shape;
  std::vector<int64_t> step;

  // One pass over the tiles: each seeded with the root's tile and, for each tensor in `spread`
  // (index in gops), its own share of that tensor (grid_share).
  void fill(const std::vector<size_t>& spread, TileProgram& p,
            std::vector<int64_t>& max_numel) const {
    const size_t rank = root_shape.size();
    const int64_t stride = p.region_stride();
    const size_t nops = gops.size();
    p.regions.assign(static_cast<size_t>(p.tiles) * nops * static_cast<size_t>(stride), 0);
    std::fill(max_numel.begin(), max_numel.end(), 0);
    std::vector<int64_t> origin(rank, 0);
    for (int64_t tix = 0; tix < p.tiles; ++tix) {
      Region tr(rank);
      for (size_t d = 0; d < rank; ++d)
        tr[d] = {origin[d], std::min(origin[d] + step[d], root_shape[d])};
      std::map<int, Region> tile_seeds = seeds;
      for (auto& [t, r] : tile_seeds) r = tr;
      for (size_t i : spread) {
        const Region share = grid_share(g.tensor(g.op(gops[i]).outputs[0]).shape, tix, p.tiles);
        if (!region_empty(share)) tile_seeds[g.op(gops[i]).outputs[0]] = share;
      }
      const auto regs = propagate_regions(g, gops, tile_seeds);
      for (size_t i = 0; i < nops; ++i) {
        int64_t* row = p.regions.data() + (static_cast<size_t>(tix) * nops + i) * stride;
        for (int d = 0; d < kTpMaxRank; ++d) row[kTpMaxRank + d] = 1;
        const int out_t = g.op(gops[i]).outputs[0];
        auto it = regs.find(out_t);
        const int r = p.ops[i].rank;
        if (it == regs.end() || region_empty(it->second.region)) {
          row[kTpMaxRank] = 0;  // nothing to compute for this tile
          continue;
        }
        const Region& reg = it->second.region;
        int64_t n = 1;
        for (int d = 0; d < r; ++d) {
          row[d] = reg[d].lo;
          row[kTpMaxRank + d] = reg[d].size();
          n *= reg[d].size();
        }
        max_numel[i] = std::max(max_numel[i], n);
      }
      for (size_t d = rank; d-- > 0;) {
        origin[d] += step[d];
        if (origin[d] < root_shape[d]) break;
        origin[d] = 0;
      }
    }
  }
};

// The ops of `split` (index in gops) get a second copy at the end of the program that computes
// just each tile's share of the output (grid_share) and writes it; the first copy then writes
// nothing to global memory.
void add_split_shares(const Graph& g, const std::vector<int>& gops,
                      const std::vector<size_t>& split, TileProgram& p) {
  const int64_t stride = p.region_stride();
  const size_t nops = gops.size();
  const size_t n1 = nops + split.size();
  std::vector<int64_t> regions(static_cast<size_t>(p.tiles) * n1 * static_cast<size_t>(stride), 0);
  for (int64_t tix = 0; tix < p.tiles; ++tix) {
    const auto old_row = p.regions.begin() + static_cast<ptrdiff_t>(tix * nops * stride);
    auto row = regions.begin() + static_cast<ptrdiff_t>(tix * n1 * stride);
    std::copy(old_row, old_row + static_cast<ptrdiff_t>(nops * stride), row);
    for (size_t c = 0; c < split.size(); ++c) {
      int64_t* share_row = regions.data() + (tix * n1 + nops + c) * stride;
      const Region share =
          grid_share(g.tensor(g.op(gops[split[c]]).outputs[0]).shape, tix, p.tiles);
      for (int d = 0; d < kTpMaxRank; ++d) share_row[kTpMaxRank + d] = 1;
      if (region_empty(share)) {
        share_row[kTpMaxRank] = 0;
        continue;
      }
      for (size_t d = 0; d < share.size(); ++d) {
        share_row[d] = share[d].lo;
        share_row[kTpMaxRank + d] = share[d].size();
      }
    }
  }
  p.regions = std::move(regions);
  for (size_t i : split) {
    TpOp copy = p.ops[i];
    copy.scratch_offset = -1;
    p.ops.push_back(copy);
    p.ops[i].out_global = -1;
  }
}

}  // namespace

TileProgram build_tile_program(const Graph& g, const TileProgramGroup& group) {
  if (group.ops.empty()) throw Error("tile program: a group without operators");
  const std::vector<int> gops = ordered_group_ops(g, group);
  const std::set<int> in_group(gops.begin(), gops.end());
  if (!in_group.count(group.root))
    throw Error("tile program: the root op is not one of the group's operators");
  const Shape& root_shape = g.tensor(g.op(group.root).outputs[0]).shape;
  const std::vector<int64_t>& tile = group.root_tile;
  if (tile.size() != root_shape.size())
    throw Error("tile program: tile of rank " + std::to_string(tile.size()) + " for root '" +
                g.op(group.root).name + "' of rank " + std::to_string(root_shape.size()));
  TileProgram p;
  p.name = g.op(gops.front()).name + ".." + g.op(gops.back()).name;
  const GroupRoles roles = group_roles(g, group, gops, root_shape);
  lower_group_ops(g, gops, roles, p);
  // Tiles of the root output, in row-major order of their origins; the regions of every op.
  const size_t rank = root_shape.size();
  TileRegions tiles{g, gops, roles.seeds, root_shape, std::vector<int64_t>(rank)};
  p.tiles = 1;
  for (size_t d = 0; d < rank; ++d) {
    tiles.step[d] = std::max<int64_t>(1, tile[d]);
    p.tiles *= (root_shape[d] + tiles.step[d] - 1) / tiles.step[d];
  }
  const size_t nops = gops.size();
  std::vector<int64_t> max_numel(nops, 0);
  tiles.fill({}, p, max_numel);
  // A tensor the kernel writes to global memory AND consumes inside (e.g. a Concat whose one
  // consumer is in the kernel and another outside) must be written whole, but the root's tiles
  // may need only part of it (a Slice after it). Where the regions miss elements of such a
  // tensor, every tile also computes a share of it (box t of grid_share; recomputation that a
  // scheduler's cost model may not count). An op that reads only global tensors gets a second copy
  // at the end of the program that computes just the share and writes it (the first copy computes
  // what the kernel's consumers need, into scratch only); any other op's share is seeded into the
  // region propagation, so its inputs' regions grow with it.
  std::vector<size_t> spread, split;
  for (size_t i = 0; i < nops; ++i) {
    if (!roles.written[i] || !roles.inner[i]) continue;
    const Shape& s = g.tensor(g.op(gops[i]).outputs[0]).shape;
    if (regions_cover(p, i, s)) continue;
    bool reads_globals_only = true;
    for (int k = 0; k < p.ops[i].num_inputs; ++k)
      reads_globals_only = reads_globals_only && !p.ops[i].in[k].local;
    (reads_globals_only ? split : spread).push_back(i);
  }
  if (!spread.empty()) tiles.fill(spread, p, max_numel);
  if (!split.empty()) add_split_shares(g, gops, split, p);
  // Scratch: one buffer per op output consumed inside the kernel, as large as its largest region.
  for (size_t i = 0; i < nops; ++i) {
    if (!roles.inner[i]) continue;
    p.ops[i].scratch_offset = p.scratch_floats;
    p.scratch_floats += max_numel[i];
  }
  return p;
}

std::vector<int> tensors_leaving_group(const Graph& g, const std::vector<int>& ops) {
  const std::set<int> in_group(ops.begin(), ops.end());
  std::set<int> out;
  for (int op : in_group) {
    for (int t : g.op(op).outputs) {
      if (t < 0) continue;
      const Tensor& tt = g.tensor(t);
      bool leaves = tt.role == TensorRole::Output || tt.consumers.empty();
      for (int c : tt.consumers) leaves = leaves || !in_group.count(c);
      if (leaves) out.insert(t);
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace dgs
