// The buffer level of a tiled task's loop nest (see buffer_nest.h).
#include "common/dsamodel/buffer_nest.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dgs {

namespace {

// Reduction chunk counts worth trying: 1, 2, 4, ... while a chunk keeps at least the array's
// rows of channels (at most 64 chunks).
std::vector<double> chunk_counts(double reduction, const DsaSpec& spec) {
  std::vector<double> r = {1};
  const double quantum = std::max(1, spec.matrix_tile_rows);
  for (double n = 2; n <= 64 && reduction / n >= quantum; n *= 2) r.push_back(n);
  return r;
}

}  // namespace

NestMapping map_buffer_nest(const NestProblem& p, const DsaSpec& spec, double capacity) {
  const size_t loops = p.trips.size();
  const double eb = spec.element_bytes, pb = spec.partial_sum_bytes;
  const double bw = spec.local_bandwidth();
  const double share = spec.dram_bytes_per_cycle() / std::max(1, spec.units());
  // Energy of a byte through the port, and of a byte loaded or stored (DRAM and the port).
  const double port_pj = 8 * spec.local_pj_per_bit;
  const double moved_pj = 8 * (spec.local_pj_per_bit + spec.dram_pj_per_bit);
  // The global level that stages re-reads (buffer_nest.h): whether this task's inputs fit it,
  // the unit's share of the cluster bus, and the energy of a byte through it.
  double once = 0;  // per unit: every input's needed bytes, loaded once
  for (const NestInput& x : p.inputs) once += x.needed;
  const bool stageable = !spec.global_level.empty() && spec.global_bytes_per_cycle > 0 &&
                         once * p.units <= static_cast<double>(spec.global_bytes);
  const double bus = spec.global_bytes_per_cycle / std::max(1, spec.cores_per_cluster);
  double out_tiles = 1;
  for (double t : p.trips) out_tiles *= t;
  std::vector<int> order(loops);
  std::iota(order.begin(), order.end(), 0);
  const std::vector<double> chunks =
      p.reduction > 0 ? chunk_counts(p.reduction, spec) : std::vector<double>{1};

  NestMapping best;
  bool have = false, best_fits = false;
  double best_moved = 0;
  NestMapping m;
  m.loaded.resize(p.inputs.size());
  m.once.resize(p.inputs.size());
  m.held.resize(p.inputs.size());
  do {
    // What the array's registers keep across tiles in this order (buffer_nest.h); of it, what
    // the reduction chunks do not change (saved_split).
    double saved = 0, saved_split = 0;
    for (const HeldOperand& h : p.array_held) {
      double unselected = 1, again = 1;
      bool inside = false;
      for (int l : order) {
        const double trips = p.trips[static_cast<size_t>(l)];
        if (h.relevant & (1u << l)) {
          inside = true;
          continue;
        }
        unselected *= trips;
        if (inside) again *= trips;
      }
      saved += h.bytes * (1 - again / unselected);
      if (!h.reduced) saved_split += h.bytes * (1 - again / unselected);
    }
    for (double ch : chunks) {
      const bool split = ch > 1;
      // The array's port bytes: less what its registers keep across tiles, plus the partial sums
      // between reduction chunks (array_nest.h).
      const size_t ci =
          std::min(p.array.chunked.size() - 1, static_cast<size_t>(std::lround(std::log2(ch))));
      const ChunkedArray& a = p.array.chunked[ci];
      const double kept = split ? saved_split : saved;
      const double array_port = a.port_bytes - kept;
      const double array_pj = a.energy_pj - kept * (port_pj + 8 * spec.register_pj_per_bit);
      double ws = 0, moved = p.out_bytes, second = 0;
      for (size_t i = 0; i < p.inputs.size(); ++i) {
        const NestInput& x = p.inputs[i];
        const bool by_reduction = split && x.reduced;
        double selecting = 1;  // tiles of the loops that select it
        for (size_t l = 0; l < loops; ++l)
          if (x.relevant & (1u << l)) selecting *= p.trips[l];
        // The loops outside its innermost selecting loop that do not select it load it again.
        double again = 1;
        bool inside = by_reduction;  // the reduction loop is innermost
        for (int l : order) {
          if (x.relevant & (1u << l)) {
            inside = true;
            continue;
          }
          if (inside) again *= p.trips[static_cast<size_t>(l)];
        }
        const double sweep = std::max(x.needed, x.tile * selecting);
        m.loaded[i] = x.resident ? x.needed : sweep * again;
        m.once[i] = x.resident || (selecting <= 1 && !by_reduction);
        const double tile = by_reduction ? x.tile / ch : x.tile;
        m.held[i] = x.resident ? std::max(x.needed, tile) : tile * (m.once[i] ? 1 : 2);
        ws += m.held[i];
        second += m.once[i] ? 0 : tile;
        moved += m.loaded[i];
      }
      if (split)
        ws += p.out_tile * pb / eb + (out_tiles > 1 ? p.out_tile : 0);
      else
        ws += p.out_tile * (out_tiles > 1 ? 2 : 1);
      second += out_tiles > 1 ? p.out_tile : 0;
      const double kept_bytes = p.kept_tile + p.kept_reduced_tile / ch;
      ws += kept_bytes * (out_tiles * ch > 1 ? 2 : 1);
      second += out_tiles * ch > 1 ? kept_bytes : 0;
      const double port = bw > 0 ? std::ceil((array_port + p.other_port_bytes + moved) / bw) : 0;
      // Staged: DRAM moves the output and each input once, the global level the re-reads.
      const double again = moved - p.out_bytes - once;
      const bool staged = stageable && again > 0;
      const double dram_moved = staged ? p.out_bytes + once : moved;
      const double dram = share > 0 ? dram_moved / share : 0;
      const double global = staged ? again / bus : 0;
      // The first tile's loads come before any compute and the last tile's store after it.
      double edges = p.out_tile;
      for (size_t i = 0; i < p.inputs.size(); ++i)
        edges += split && p.inputs[i].reduced ? p.inputs[i].tile / ch : p.inputs[i].tile;
      const double narrowest = std::min(bw > 0 ? bw : share, share > 0 ? share : bw);
      const double cycles = std::max({p.array.steps + p.other_cycles, port, dram, global}) +
                            p.array.fill_cycles + (narrowest > 0 ? edges / narrowest : 0);
      const double energy = array_pj + p.other_port_bytes * port_pj +
                            (staged ? moved * port_pj + dram_moved * 8 * spec.dram_pj_per_bit +
                                          (once + again) * 8 * spec.global_pj_per_bit
                                    : moved * moved_pj);
      const bool fits = ws <= capacity;
      bool better = !have;
      if (have) {
        const double edp = cycles * energy, best_edp = best.cycles * best.energy_pj;
        if (fits != best_fits)
          better = fits;
        else if (!fits)
          better = ws < best.working_set;
        else
          better = edp < best_edp ||
                   (edp == best_edp &&
                    (ws < best.working_set || (ws == best.working_set && moved < best_moved)));
      }
      if (!better) continue;
      have = true;
      best_fits = fits;
      best_moved = moved;
      best.order.clear();
      if (split) best.order.push_back(static_cast<int>(loops));
      best.order.insert(best.order.end(), order.begin(), order.end());
      best.reduction_chunks = ch;
      best.loaded = m.loaded;
      best.once = m.once;
      best.held = m.held;
      best.working_set = ws;
      best.second_buffers = second;
      best.cycles = cycles;
      best.energy_pj = energy;
      best.tiles = out_tiles * ch;
      best.array_saved = kept;
      best.array_chunks = ci;
    }
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

double nest_edp_floor(const NestProblem& p, const DsaSpec& spec, double out_tile) {
  const double bw = spec.local_bandwidth();
  const double share = spec.dram_bytes_per_cycle() / std::max(1, spec.units());
  double moved = p.out_bytes;
  for (const NestInput& x : p.inputs) moved += x.needed;
  // The array's part (`p.array`, the task's whole part as one tile): its steps and fill and
  // drain, which tiles rounded up to folds only add to, and its MACs' energy; not its port
  // bytes and register energy, which tiles whose registers keep an operand can undercut.
  const double port = bw > 0 ? std::ceil((p.other_port_bytes + moved) / bw) : 0;
  const double dram = share > 0 ? moved / share : 0;
  const double narrowest = std::min(bw > 0 ? bw : share, share > 0 ? share : bw);
  const double cycles = std::max({p.array.steps + p.other_cycles, port, dram}) +
                        p.array.fill_cycles + (narrowest > 0 ? out_tile / narrowest : 0);
  const double energy = p.array.macs * spec.mac_pj +
                        p.other_port_bytes * 8 * spec.local_pj_per_bit +
                        moved * 8 * (spec.local_pj_per_bit + spec.dram_pj_per_bit);
  return cycles * energy;
}

double nest_edp_floor_tiled(const NestProblem& p, const DsaSpec& spec) {
  const double bw = spec.local_bandwidth();
  const double share = spec.dram_bytes_per_cycle() / std::max(1, spec.units());
  const double port_pj = 8 * spec.local_pj_per_bit, dram_pj = 8 * spec.dram_pj_per_bit;
  double once = 0;
  for (const NestInput& x : p.inputs) once += x.needed;
  const bool stageable = !spec.global_level.empty() && spec.global_bytes_per_cycle > 0 &&
                         once * p.units <= static_cast<double>(spec.global_bytes);
  // The least bytes any loop order loads (one reduction chunk: chunks only add loads;
  // buffer_nest.h).
  const size_t loops = p.trips.size();
  std::vector<int> order(loops);
  std::iota(order.begin(), order.end(), 0);
  double least = -1;
  do {
    double moved = p.out_bytes;
    for (const NestInput& x : p.inputs) {
      double selecting = 1, again = 1;
      bool inside = false;
      for (size_t l = 0; l < loops; ++l)
        if (x.relevant & (1u << l)) selecting *= p.trips[l];
      for (int l : order) {
        if (x.relevant & (1u << l)) {
          inside = true;
          continue;
        }
        if (inside) again *= p.trips[static_cast<size_t>(l)];
      }
      moved += x.resident ? x.needed : std::max(x.needed, x.tile * selecting) * again;
    }
    if (least < 0 || moved < least) least = moved;
  } while (std::next_permutation(order.begin(), order.end()));
  const std::vector<double> chunks =
      p.reduction > 0 ? chunk_counts(p.reduction, spec) : std::vector<double>{1};
  double edges = p.out_tile;
  for (const NestInput& x : p.inputs) edges += x.reduced ? x.tile / chunks.back() : x.tile;
  const double dram_moved = stageable ? p.out_bytes + once : least;
  const double port = bw > 0 ? std::ceil((p.other_port_bytes + least) / bw) : 0;
  const double dram = share > 0 ? dram_moved / share : 0;
  const double narrowest = std::min(bw > 0 ? bw : share, share > 0 ? share : bw);
  const double cycles = std::max({p.array.steps + p.other_cycles, port, dram}) +
                        p.array.fill_cycles + (narrowest > 0 ? edges / narrowest : 0);
  const double energy = p.array.macs * spec.mac_pj + p.other_port_bytes * port_pj +
                        least * port_pj + dram_moved * dram_pj;
  return cycles * energy;
}

std::string nest_order_name(const NestMapping& m, const std::vector<std::string>& names) {
  std::string s;
  for (int l : m.order) {
    if (!s.empty()) s += ">";
    s += static_cast<size_t>(l) < names.size() ? names[static_cast<size_t>(l)] : "R";
  }
  return s;
}

}  // namespace dgs
