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

// The constants of one task's mappings (buffer_nest.h).
struct Pricing {
  double eb = 1, pb = 4, bw = 0, share = 0;
  double port_pj = 0, moved_pj = 0;  // a byte through the port; loaded or stored (and DRAM)
  double once = 0;                   // per unit: every input's needed bytes, loaded once
  bool stageable = false;            // the task's inputs fit the global level
  double bus = 0;                    // the unit's share of the cluster bus
  double out_tiles = 1;
  // The narrower of the port and the DRAM share (the edges' and serial loads' rate), and of the
  // port and the bus share (serial re-reads staged in the global level).
  double narrowest = 0, narrowest_bus = 0;
};

Pricing pricing(const NestProblem& p, const DsaSpec& spec) {
  Pricing c;
  c.eb = spec.element_bytes;
  c.pb = spec.partial_sum_bytes;
  c.bw = spec.local_bandwidth();
  c.share = spec.dram_bytes_per_cycle() / std::max(1, spec.units());
  c.port_pj = 8 * spec.local_pj_per_bit;
  c.moved_pj = 8 * (spec.local_pj_per_bit + spec.dram_pj_per_bit);
  for (const NestInput& x : p.inputs) c.once += x.needed;
  c.stageable = !spec.global_level.empty() && spec.global_bytes_per_cycle > 0 &&
                c.once * p.units <= static_cast<double>(spec.global_bytes);
  c.bus = spec.global_bytes_per_cycle / std::max(1, spec.cores_per_cluster);
  for (double t : p.trips) c.out_tiles *= t;
  c.narrowest = std::min(c.bw > 0 ? c.bw : c.share, c.share > 0 ? c.share : c.bw);
  c.narrowest_bus = std::min(c.bw > 0 ? c.bw : c.bus, c.bus > 0 ? c.bus : c.bw);
  return c;
}

// What a mapping's cycles are made of (buffer_nest.h): the array's steps (with the other ops'),
// the bytes the port, DRAM and (staged) the global level carry overlapped with them, the fill
// and drain, and the edges' cycles.
struct Bounds {
  double steps = 0, port = 0, dram = 0, global = 0, fill = 0, edges = 0;
  bool staged = false;
};

// The serial term of single-buffered loads and stores: `from_dram` bytes at the narrower of the
// port and the DRAM share, `from_global` (staged re-reads) at the narrower of the port and the
// bus, rounded up.
double stall_of(const Pricing& c, double from_dram, double from_global) {
  if (from_dram <= 0 && from_global <= 0) return 0;
  return std::ceil((c.narrowest > 0 ? from_dram / c.narrowest : 0) +
                   (c.narrowest_bus > 0 ? from_global / c.narrowest_bus : 0));
}

// The cycles of a mapping whose bounds are `b`, with `from_dram` and `from_global` bytes of it
// serial (out of the overlapped bounds, into the serial term).
double cycles_of(const Bounds& b, const Pricing& c, double from_dram, double from_global) {
  const double port = c.bw > 0 ? std::ceil((b.port - (from_dram + from_global)) / c.bw) : 0;
  const double dram = c.share > 0 ? (b.dram - from_dram) / c.share : 0;
  const double global = b.staged ? (b.global - from_global) / c.bus : 0;
  return std::max({b.steps, port, dram, global}) + b.fill + b.edges +
         stall_of(c, from_dram, from_global);
}

// An operand's loops in the order `ord` (inner to outer; `trips` per loop; loop `skip` left
// out): `again`, the trips of the loops that do not select it (`relevant`) outside its innermost
// selecting loop (the times it is loaded again, buffer_nest.h), and `unselected`, those of every
// loop that does not select it.
struct Reloads {
  double again = 1, unselected = 1;
};
Reloads reloads(uint32_t relevant, const std::vector<int>& ord, const std::vector<double>& trips,
                int skip = -1) {
  Reloads r;
  bool inside = false;
  for (int l : ord) {
    if (l == skip) continue;
    if (relevant & (1u << l)) {
      inside = true;
      continue;
    }
    r.unselected *= trips[static_cast<size_t>(l)];
    if (inside) r.again *= trips[static_cast<size_t>(l)];
  }
  return r;
}

// The tiles of the output loops that select an operand (`relevant`).
double selecting_tiles(uint32_t relevant, const std::vector<double>& trips) {
  double selecting = 1;
  for (size_t l = 0; l < trips.size(); ++l)
    if (relevant & (1u << l)) selecting *= trips[l];
  return selecting;
}

// Of the array's port bytes, what its registers keep across tiles in the order `ord` (inner to
// outer; `trips` per loop, the reduction's last when `ci` > 0, i.e. 2^ci chunks), buffer_nest.h.
// An operand the chunks do not select keeps across them.
double registers_kept(const NestProblem& p, const std::vector<int>& ord,
                      const std::vector<double>& trips, size_t ci) {
  const int reduction = static_cast<int>(p.trips.size());
  double kept = 0;
  for (const HeldOperand& h : p.array_held) {
    const bool by_chunks = ci > 0 && h.reduced;
    const uint32_t relevant = h.relevant | (by_chunks ? 1u << reduction : 0u);
    const Reloads r = reloads(relevant, ord, trips, by_chunks ? -1 : reduction);
    kept += (by_chunks ? h.chunked[ci] : h.bytes) * (1 - r.again / r.unselected);
  }
  return kept;
}

// One mapping: the order `ord` (inner to outer, with the reduction loop, index p.trips.size(),
// when `ch` > 1) and `trips` per loop, priced into `m` (its loaded, once, held and single
// resized), every operand loaded more than once double-buffered, and its cycles' parts into `b`;
// returns the bytes loaded and stored.
double price_order(const NestProblem& p, const DsaSpec& spec, const Pricing& c,
                   const std::vector<int>& ord, const std::vector<double>& trips, double ch,
                   size_t ci, NestMapping& m, Bounds& b) {
  const bool split = ch > 1;
  const int reduction = static_cast<int>(p.trips.size());
  // The output tiles whose partial sums the buffer keeps: those of the loops inside the
  // reduction loop.
  double inner = 1;
  for (int l : ord) {
    if (l == reduction) break;
    inner *= trips[static_cast<size_t>(l)];
  }
  if (!split) inner = 1;
  // The array's port bytes: less what its registers keep across tiles, plus the partial sums
  // between reduction chunks (array_nest.h), also those its registers would keep when other
  // tiles run between the chunks.
  const ChunkedArray& a = p.array.chunked[ci];
  const double kept = registers_kept(p, ord, trips, ci);
  const double sums = split && inner > 1 ? a.sums_kept : 0;
  const double array_port = a.port_bytes - kept + sums;
  const double reg_pj = 8 * spec.register_pj_per_bit;
  const double array_pj = a.energy_pj + (sums - kept) * (c.port_pj + reg_pj);
  double ws = 0, moved = p.out_bytes, second = 0;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const NestInput& x = p.inputs[i];
    const bool by_reduction = split && x.reduced;
    const uint32_t relevant = x.relevant | (by_reduction ? 1u << reduction : 0u);
    const double selecting = selecting_tiles(x.relevant, p.trips);
    const double again = reloads(relevant, ord, trips).again;
    const double sweep = std::max(x.needed, x.tile * selecting);
    m.loaded[i] = x.resident ? x.needed : sweep * again;
    m.once[i] = x.resident || (selecting <= 1 && !by_reduction);
    const double tile = by_reduction ? x.tile / ch : x.tile;
    m.held[i] = x.resident ? std::max(x.needed, tile) : tile * (m.once[i] ? 1 : 2);
    m.single[i] = false;
    ws += m.held[i];
    second += m.once[i] ? 0 : tile;
    moved += m.loaded[i];
  }
  const double out_tiles = c.out_tiles;
  if (split)
    ws += p.out_tile * inner * c.pb / c.eb + (out_tiles > 1 ? p.out_tile : 0);
  else
    ws += p.out_tile * (out_tiles > 1 ? 2 : 1);
  second += out_tiles > 1 ? p.out_tile : 0;
  const double kept_bytes = p.kept_tile + p.kept_reduced_tile / ch;
  ws += kept_bytes * (out_tiles * ch > 1 ? 2 : 1);
  second += out_tiles * ch > 1 ? kept_bytes : 0;
  // Staged: DRAM moves the output and each input once, the global level the re-reads.
  const double again = moved - p.out_bytes - c.once;
  const bool staged = c.stageable && again > 0;
  const double dram_moved = staged ? p.out_bytes + c.once : moved;
  // The first tile's loads come before any compute and the last tile's store after it.
  double edges = p.out_tile;
  for (const NestInput& x : p.inputs) edges += split && x.reduced ? x.tile / ch : x.tile;
  b.steps = p.array.steps + a.refill_stall + p.other_cycles;
  b.port = array_port + p.other_port_bytes + moved;
  b.dram = dram_moved;
  b.staged = staged;
  b.global = staged ? again : 0;
  b.fill = p.array.fill_cycles;
  b.edges = c.narrowest > 0 ? edges / c.narrowest : 0;
  m.cycles = cycles_of(b, c, 0, 0);
  m.single_output = false;
  m.serial_bytes = m.stall_cycles = 0;
  m.energy_pj = array_pj + p.other_port_bytes * c.port_pj +
                (staged ? moved * c.port_pj + dram_moved * 8 * spec.dram_pj_per_bit +
                              (c.once + again) * 8 * spec.global_pj_per_bit
                        : moved * c.moved_pj);
  m.working_set = ws;
  m.second_buffers = second;
  m.reduction_chunks = ch;
  m.tiles = out_tiles * ch;
  m.array_saved = kept;
  m.array_sums = sums;
  m.array_chunks = ci;
  return moved;
}

// The operands a mapping may single-buffer (buffer_nest.h): per candidate the input (-1: the
// output), its second buffer and its serial bytes from DRAM and from the global level.
struct Single {
  int input = -1;
  double second = 0, from_dram = 0, from_global = 0;
};

// Every subset of up to this many candidates is tried; more: all of them single-buffered.
constexpr size_t kSingleCandidates = 4;

// The single-buffered variant buffer_nest.h takes of the mapping `m` (priced by price_order, its
// parts `b`, `ch` chunks), whose working set is over `capacity`, into `m`. `cands`: scratch.
void single_buffer(const NestProblem& p, const Pricing& c, const Bounds& b, double ch,
                   double capacity, std::vector<Single>& cands, NestMapping& m) {
  cands.clear();
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (m.once[i]) continue;  // held once already (resident inputs too)
    const NestInput& x = p.inputs[i];
    const double tile = ch > 1 && x.reduced ? x.tile / ch : x.tile;
    const double serial = std::max(0.0, m.loaded[i] - tile);  // after the first tile
    // Staged, the input's needed bytes come from DRAM, the re-reads from the global level.
    const double from_dram = b.staged ? std::min(serial, std::max(0.0, x.needed - tile)) : serial;
    cands.push_back({static_cast<int>(i), tile, from_dram, serial - from_dram});
  }
  if (c.out_tiles > 1)  // every store but the last tile's
    cands.push_back({-1, p.out_tile, std::max(0.0, p.out_bytes - p.out_tile), 0});
  if (cands.empty()) return;
  const size_t k = cands.size();
  double all = 0;
  for (const Single& x : cands) all += x.second;
  // The chosen subset (bit j: cands[j]); every candidate when none fits or there are many.
  uint32_t chosen = 0;
  bool everything = true;
  if (k <= kSingleCandidates && m.working_set - all <= capacity) {
    double best_cycles = 0, best_ws = 0;
    for (uint32_t mask = 1; mask < (1u << k); ++mask) {
      double second = 0, from_dram = 0, from_global = 0;
      for (size_t j = 0; j < k; ++j) {
        if (!(mask & (1u << j))) continue;
        second += cands[j].second;
        from_dram += cands[j].from_dram;
        from_global += cands[j].from_global;
      }
      const double ws = m.working_set - second;
      if (ws > capacity) continue;
      const double cycles = cycles_of(b, c, from_dram, from_global);
      if (everything || cycles < best_cycles || (cycles == best_cycles && ws < best_ws)) {
        everything = false;
        chosen = mask;
        best_cycles = cycles;
        best_ws = ws;
      }
    }
  }
  double second = 0, from_dram = 0, from_global = 0;
  for (size_t j = 0; j < k; ++j) {
    if (!everything && !(chosen & (1u << j))) continue;
    const Single& x = cands[j];
    second += x.second;
    from_dram += x.from_dram;
    from_global += x.from_global;
    if (x.input < 0) {
      m.single_output = true;
      continue;
    }
    m.single[static_cast<size_t>(x.input)] = true;
    m.held[static_cast<size_t>(x.input)] = x.second;
  }
  m.working_set -= second;
  m.second_buffers -= second;
  m.serial_bytes = from_dram + from_global;
  m.stall_cycles = stall_of(c, from_dram, from_global);
  m.cycles = cycles_of(b, c, from_dram, from_global);
}

}  // namespace

NestMapping map_buffer_nest(const NestProblem& p, const DsaSpec& spec, double capacity) {
  const size_t loops = p.trips.size();
  const Pricing c = pricing(p, spec);
  std::vector<int> outputs(loops);
  std::iota(outputs.begin(), outputs.end(), 0);
  const std::vector<double> chunks =
      p.reduction > 0 ? chunk_counts(p.reduction, spec) : std::vector<double>{1};
  std::vector<double> trips = p.trips;
  trips.push_back(1);  // the reduction loop's
  NestMapping best;
  bool have = false, best_fits = false;
  double best_moved = 0;
  // The mapping being priced and the scratch, kept per thread between calls (the tile search
  // maps thousands of candidate tiles): price_order sets every field of `m` but its order, set
  // before it is kept.
  thread_local NestMapping m;
  thread_local std::vector<int> ord;
  thread_local std::vector<Single> cands;
  m.loaded.resize(p.inputs.size());
  m.once.resize(p.inputs.size());
  m.held.resize(p.inputs.size());
  m.single.resize(p.inputs.size());
  Bounds b;
  do {
    for (double ch : chunks) {
      const size_t ci =
          std::min(p.array.chunked.size() - 1, static_cast<size_t>(std::lround(std::log2(ch))));
      trips[loops] = ch;
      // The reduction loop at each position, innermost first (none without chunks).
      for (size_t at = 0; at <= (ch > 1 && p.reduction_anywhere ? loops : 0); ++at) {
        ord = outputs;
        if (ch > 1)
          ord.insert(ord.begin() + static_cast<std::ptrdiff_t>(at), static_cast<int>(loops));
        const double moved = price_order(p, spec, c, ord, trips, ch, ci, m, b);
        if (m.working_set > capacity) single_buffer(p, c, b, ch, capacity, cands, m);
        const bool fits = m.working_set <= capacity;
        bool better = !have;
        if (have) {
          const double edp = m.cycles * m.energy_pj, best_edp = best.cycles * best.energy_pj;
          if (fits != best_fits)
            better = fits;
          else if (!fits)
            better = m.working_set < best.working_set;
          else
            better =
                edp < best_edp ||
                (edp == best_edp && (m.working_set < best.working_set ||
                                     (m.working_set == best.working_set && moved < best_moved)));
        }
        if (!better) continue;
        have = true;
        best_fits = fits;
        best_moved = moved;
        m.order = ord;
        best = m;
      }
    }
  } while (std::next_permutation(outputs.begin(), outputs.end()));
  return best;
}

double nest_edp_floor(const NestProblem& p, const DsaSpec& spec, double out_tile) {
  const double bw = spec.local_bandwidth();
  const double share = spec.dram_bytes_per_cycle() / std::max(1, spec.units());
  double moved = p.out_bytes;
  for (const NestInput& x : p.inputs) moved += x.needed;
  // The array's part (`p.array`, the task's whole part as one tile): its steps and fill and
  // drain, which tiles rounded up to folds only add to, and its MACs' energy; not its refill
  // stall (array_nest.h: >= 0, and a tile's own mapping can undercut it), nor its port
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
  const Pricing c = pricing(p, spec);
  const double bw = c.bw, share = c.share, port_pj = c.port_pj;
  const double dram_pj = 8 * spec.dram_pj_per_bit;
  // The least bytes any loop order loads (one reduction chunk: chunks only add loads;
  // buffer_nest.h).
  const size_t loops = p.trips.size();
  std::vector<int> order(loops);
  std::iota(order.begin(), order.end(), 0);
  double least = -1;
  do {
    double moved = p.out_bytes;
    for (const NestInput& x : p.inputs) {
      const double selecting = selecting_tiles(x.relevant, p.trips);
      moved += x.resident ? x.needed
                          : std::max(x.needed, x.tile * selecting) *
                                reloads(x.relevant, order, p.trips).again;
    }
    if (least < 0 || moved < least) least = moved;
  } while (std::next_permutation(order.begin(), order.end()));
  const std::vector<double> chunks =
      p.reduction > 0 ? chunk_counts(p.reduction, spec) : std::vector<double>{1};
  double edges = p.out_tile;
  for (const NestInput& x : p.inputs) edges += x.reduced ? x.tile / chunks.back() : x.tile;
  const double dram_moved = c.stageable ? p.out_bytes + c.once : least;
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
