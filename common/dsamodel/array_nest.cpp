// The array level of a matrix op's loop nest (see array_nest.h).
#include "common/dsamodel/array_nest.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "common/graph/op_cost.h"
#include "common/util/arith.h"

namespace dgs {

namespace {

enum Dim : uint8_t { kP = 0, kK = 1, kC = 2, kT = 3 };
constexpr char kDimName[4] = {'P', 'K', 'C', 'T'};

struct Operand {
  uint8_t relevant = 0;  // bit d: dimension d selects which data it holds
  double capacity = 1;   // combinations of its relevant dimensions its registers hold
};

// One loop of the nest: a dimension and its trips (a dimension may appear twice, split).
struct Loop {
  uint8_t dim = 0;
  double trips = 1;
};
using Nest = std::array<Loop, 6>;  // inner to outer

// How often an operand's register contents change over the whole nest, and how many distinct
// contents there are.
struct Fetches {
  double fetches = 0;
  double distinct = 0;
  double stay = 1;  // trips of the innermost loops irrelevant to it (consecutive uses of one datum)
  std::array<double, 4> again{1, 1, 1, 1};  // per dimension: the passes its loops add
};

Fetches fetches_of(const Operand& x, const Nest& nest, const std::array<double, 4>& n) {
  Fetches f;
  f.distinct = 1;
  for (int d = 0; d < 4; ++d)
    if (x.relevant & (1u << d)) f.distinct *= n[static_cast<size_t>(d)];
  for (const Loop& l : nest) {
    if (l.trips <= 1) continue;  // a loop of one trip changes nothing (nor ends the run)
    if (x.relevant & (1u << l.dim)) break;
    f.stay *= l.trips;
  }
  // The registers keep the innermost loops whose relevant combinations fit; the first relevant
  // loop that does not fit is split (its inner part inside).
  double held = 1;
  size_t i = 0;
  double outer_of_split = 0;  // trips of the split loop left above the cut (0: none)
  for (; i < nest.size(); ++i) {
    const Loop& l = nest[i];
    if (!(x.relevant & (1u << l.dim))) continue;
    if (held * l.trips <= x.capacity) {
      held *= l.trips;
      continue;
    }
    const double inside = std::max(1.0, std::floor(x.capacity / held));
    outer_of_split = ceil_div_real(l.trips, inside);
    ++i;
    break;
  }
  // Above the cut: read again once per iteration of an irrelevant loop that encloses a relevant
  // one.
  bool relevant_above = outer_of_split > 1;
  double again = 1;
  for (; i < nest.size(); ++i) {
    const Loop& l = nest[i];
    if (x.relevant & (1u << l.dim)) {
      relevant_above = relevant_above || l.trips > 1;
      continue;
    }
    if (relevant_above) {
      again *= l.trips;
      f.again[l.dim] *= l.trips;
    }
  }
  f.fetches = f.distinct * again;
  return f;
}

}  // namespace

ArrayShape matrix_shape(const Graph& g, int op, const Region& region, const DsaSpec& spec,
                        const std::string& axis, double fraction) {
  const Op& o = g.op(op);
  const Tensor& out = g.tensor(o.outputs.at(0));
  const OpCost c = op_cost(g, op);
  const double out_numel = static_cast<double>(out.numel());
  // Reduction per output element, split into channels and kernel taps.
  const double k_total = out_numel > 0 ? static_cast<double>(c.macs) / out_numel : 0;
  ArrayShape s;
  double n_per_group = 0, n_region = 0;
  const Shape rs = region_shape(region);
  if (is_conv_like(o.kind)) {
    const Shape& w = g.tensor(o.inputs.at(1)).shape;
    for (size_t d = 2; d < w.size(); ++d) s.taps *= static_cast<double>(w[d]);
    const double groups = static_cast<double>(o.attrs.get_int("group", 1));
    n_per_group = static_cast<double>(out.shape.at(1)) / groups;
    n_region = static_cast<double>(rs.at(1));
    s.pixels = static_cast<double>(rs.at(0));
    for (size_t d = 2; d < rs.size(); ++d) s.pixels *= static_cast<double>(rs[d]);
    s.pixel_rows = rs.size() >= 4 ? static_cast<double>(rs[rs.size() - 2]) : 1;
    s.pixel_columns = rs.size() >= 3 ? static_cast<double>(rs.back()) : 1;
    s.pixel_rows *= static_cast<double>(rs.at(0));  // images stacked along the grid's rows
  } else {                                          // Gemm, MatMul: [..., M, N]
    n_per_group = static_cast<double>(out.shape.back());
    n_region = static_cast<double>(rs.back());
    s.pixels = 1;
    for (size_t d = 0; d + 1 < rs.size(); ++d) s.pixels *= static_cast<double>(rs[d]);
    s.pixel_rows = s.pixels;
    s.pixel_columns = 1;
  }
  s.c = k_total / s.taps;
  if (axis == "c_in" || axis == "k" || axis.empty())
    s.c *= fraction;
  else
    s.taps *= fraction;
  s.groups = std::max(1.0, ceil_div_real(n_region, n_per_group));
  s.k = std::min(n_region, n_per_group);
  // yx: the input window one fold (one image, array rows x columns of output pixels) reads per
  // channel over all its taps (the shared iteration spaces give the region).
  if (spec.dataflow == DsaDataflow::YX && is_conv_like(o.kind) && o.kind == OpKind::Conv &&
      rs.size() == 4 && !region_empty(region)) {
    Region fold = region;
    fold[0].hi = fold[0].lo + 1;
    fold[1].hi = fold[1].lo + 1;
    fold[2].hi = std::min(fold[2].hi, fold[2].lo + spec.matrix_tile_rows);
    fold[3].hi = std::min(fold[3].hi, fold[3].lo + spec.matrix_tile_columns);
    const Region in = input_regions(g, op, fold).at(0);
    // The bounding box of a strided window holds inputs no PE reads: at most one per PE per tap.
    if (in.size() == 4 && in[1].size() > 0)
      s.input_window =
          std::min(static_cast<double>(region_numel(in)) / static_cast<double>(in[1].size()),
                   static_cast<double>(region_numel(fold)) * s.taps);
  }
  if (s.pixels <= 0 || s.k <= 0 || s.c <= 0) s.pixels = 0;
  return s;
}

double ArrayNest::cycles(double port_bandwidth, double other_port_bytes) const {
  const double port = port_bandwidth > 0 ? (port_bytes() + other_port_bytes) / port_bandwidth : 0;
  return std::max(steps, std::ceil(port)) + fill_cycles;
}

namespace {

// Fill and drain of `folds` folds run back to back (array_nest.h): once when they overlap (the
// stationary operand's registers hold two folds), else per fold; fold_overhead per fold.
double fill_and_drain(double folds, const DsaSpec& spec) {
  const double fill = spec.matrix_tile_rows + spec.matrix_tile_columns - 2;
  const bool overlapped = spec.dataflow == DsaDataflow::KC ? spec.pe_weight_registers >= 2
                                                           : spec.pe_output_registers >= 2;
  return (overlapped ? fill : folds * fill) + folds * spec.fold_overhead_cycles;
}

// array_nest without the memo.
ArrayNest search_array_nest(const ArrayShape& s, const DsaSpec& spec);

// The numbers array_nest depends on: the shape's and the spec's.
using NestKey = std::array<double, 23>;

// The numbers' bits mixed (std::hash<double> runs a byte hash on each number);
// 0 and -0 are equal keys, so both hash as 0.
struct NestKeyHash {
  size_t operator()(const NestKey& k) const {
    uint64_t h = 0;
    for (double x : k) {
      const uint64_t bits = x == 0 ? 0 : std::bit_cast<uint64_t>(x);
      h = (h ^ bits) * 0x9E3779B97F4A7C15ull;
      h ^= h >> 32;
    }
    return static_cast<size_t>(h);
  }
};

}  // namespace

ArrayNest array_nest(const ArrayShape& s, const DsaSpec& spec) {
  // Memoised per thread: atom searches price the same shapes again and again.
  const NestKey key = {s.groups,
                       s.pixels,
                       s.pixel_rows,
                       s.pixel_columns,
                       s.k,
                       s.c,
                       s.taps,
                       s.input_window,
                       s.port_sharing_bytes,
                       static_cast<double>(spec.dataflow),
                       static_cast<double>(spec.matrix_tile_rows),
                       static_cast<double>(spec.matrix_tile_columns),
                       spec.matrix_macs_per_cycle,
                       static_cast<double>(spec.pe_weight_registers),
                       static_cast<double>(spec.pe_input_registers),
                       static_cast<double>(spec.pe_output_registers),
                       static_cast<double>(spec.element_bytes),
                       static_cast<double>(spec.partial_sum_bytes),
                       spec.local_bandwidth(),
                       spec.fold_overhead_cycles,
                       spec.mac_pj,
                       spec.local_pj_per_bit,
                       spec.register_pj_per_bit};
  thread_local std::unordered_map<NestKey, ArrayNest, NestKeyHash> memo;
  const auto it = memo.find(key);
  if (it != memo.end()) return it->second;
  if (memo.size() > (1u << 16)) memo.clear();
  return memo.emplace(key, search_array_nest(s, spec)).first->second;
}

ArrayNest tiled_array_nest(const std::vector<ArrayTile>& tiles, const DsaSpec& spec) {
  ArrayNest r;
  bool first = true, first_chunked = true;
  for (const ArrayTile& t : tiles) {
    const ArrayNest a = array_nest(t.shape, spec);
    if (a.macs <= 0 || t.count <= 0) continue;
    if (first) {
      r.pixels_inner = a.pixels_inner;
      r.channels_inner = a.channels_inner;
      r.order = a.order;
      first = false;
    }
    r.macs += t.count * a.macs;
    r.folds += t.count * a.folds;
    r.steps += t.count * a.steps;
    r.weight_bytes += t.count * a.weight_bytes;
    r.input_bytes += t.count * a.input_bytes;
    r.output_bytes += t.count * a.output_bytes;
    r.register_bits += t.count * a.register_bits;
    r.weights_held += t.count * a.weights_held;
    r.inputs_held += t.count * a.inputs_held;
    r.energy_pj += t.count * a.energy_pj;
    for (size_t i = 0; i < r.chunked.size(); ++i) {
      ChunkedArray& c = r.chunked[i];
      if (first_chunked)
        c = a.chunked[i];
      else {
        c.port_bytes += t.count * a.chunked[i].port_bytes;
        c.register_bits += t.count * a.chunked[i].register_bits;
        c.energy_pj += t.count * a.chunked[i].energy_pj;
        c.weights_held += t.count * a.chunked[i].weights_held;
        c.inputs_held += t.count * a.chunked[i].inputs_held;
        c.sums_kept += t.count * a.chunked[i].sums_kept;
        continue;
      }
      c.port_bytes *= t.count;
      c.register_bits *= t.count;
      c.energy_pj *= t.count;
      c.weights_held *= t.count;
      c.inputs_held *= t.count;
      c.sums_kept *= t.count;
    }
    first_chunked = false;
  }
  if (r.folds > 0) r.fill_cycles = fill_and_drain(r.folds, spec);
  return r;
}

namespace {

// The reduction chunk counts of ArrayNest::chunked: 2^i.
constexpr std::array<double, 7> kChunks = {1, 2, 4, 8, 16, 32, 64};
static_assert(kChunks.size() == std::tuple_size_v<decltype(ArrayNest::chunked)>);

// A loop of exactly one trip changes nothing wherever it lies (fetches_of: it neither ends a
// run, nor fills registers, nor makes an operand come back) while every operand's registers hold
// at least one combination: two orders of the outer loops that differ only in where such loops
// lie give the same bytes, bits, energy and cycles, and search_array_nest's selections keep the
// first of equals (in next_permutation's order). Per split of the inner loops: whether an order
// is the first of its sequence of the loops of other than one trip.
class FirstOrders {
 public:
  bool first(const std::array<Loop, 4>& outer, const std::array<int, 4>& perm) {
    uint32_t sequence = 1;  // the leading 1 marks the length
    for (int j : perm)
      if (outer[static_cast<size_t>(j)].trips != 1)
        sequence = sequence * 4 + outer[static_cast<size_t>(j)].dim;
    const auto end = seen_.begin() + static_cast<std::ptrdiff_t>(n_);
    if (std::find(seen_.begin(), end, sequence) != end) return false;
    seen_[n_++] = sequence;
    return true;
  }

 private:
  std::array<uint32_t, 24> seen_{};  // one per order at most
  size_t n_ = 0;
};

ArrayNest search_array_nest(const ArrayShape& s, const DsaSpec& spec) {
  ArrayNest r;
  r.macs = s.macs();
  if (r.macs <= 0 || spec.matrix_macs_per_cycle <= 0) return r;
  const double rows = spec.matrix_tile_rows, cols = spec.matrix_tile_columns;
  const double per_pe = spec.matrix_macs_per_cycle / (rows * cols);
  const double eb = spec.element_bytes, pb = spec.partial_sum_bytes;
  std::array<double, 4> n{};
  // Elements a step moves per operand (weights into PEs, inputs into rows or PEs, partial sums
  // out of columns or PEs), and the combinations each operand's registers hold.
  double vec_w = 0, vec_i = 0, vec_o = 0, reads_i_per_step = 0;
  Operand w{(1u << kK) | (1u << kC) | (1u << kT), 1}, in{(1u << kP) | (1u << kC) | (1u << kT), 1},
      out{(1u << kP) | (1u << kK), 1};
  const Operand in_reads = in;  // what each register read selects (yx: before any sharing)
  const bool kc = spec.dataflow == DsaDataflow::KC;
  if (kc) {
    n = {ceil_div_real(s.pixels, per_pe), ceil_div_real(s.k, cols), ceil_div_real(s.c, rows),
         s.taps};
    const double rows_used = std::min(s.c, rows), cols_used = std::min(s.k, cols);
    const double pixels_per_step = s.pixels / n[kP];
    vec_w = rows_used * cols_used;
    vec_i = rows_used * pixels_per_step;
    reads_i_per_step = vec_i;
    vec_o = cols_used * pixels_per_step;
    w.capacity = spec.pe_weight_registers;
    in.capacity = std::max(1.0, std::floor(spec.pe_input_registers / pixels_per_step));
    out.capacity = std::max(1.0, std::floor(spec.pe_output_registers / pixels_per_step));
    r.folds = s.groups * n[kK] * n[kC] * n[kT];
  } else {
    const double folds = ceil_div_real(s.pixel_rows, rows) * ceil_div_real(s.pixel_columns, cols);
    n = {folds, s.k, ceil_div_real(s.c, per_pe), s.taps};
    const double channels_per_step = s.c / n[kC];
    const double pixels_per_fold = s.pixels / folds;
    vec_w = channels_per_step;
    vec_i = pixels_per_fold * channels_per_step;
    reads_i_per_step = vec_i;
    vec_o = pixels_per_fold;
    w.capacity = std::max(1.0, std::floor(spec.pe_weight_registers / channels_per_step));
    in.capacity = std::max(1.0, std::floor(spec.pe_input_registers / channels_per_step));
    out.capacity = spec.pe_output_registers;
    // Inputs passed between neighbours: a fold's window per channel, held across the taps.
    const double window = s.input_window * channels_per_step;
    const double array_registers = rows * cols * spec.pe_input_registers;
    if (s.input_window > 0 && window <= array_registers) {
      in.relevant = (1u << kP) | (1u << kC);
      vec_i = window;
      in.capacity = std::max(1.0, std::floor(array_registers / window));
    }
    r.folds = s.groups * folds;
  }
  r.steps = s.groups * n[0] * n[1] * n[2] * n[3];
  r.fill_cycles = fill_and_drain(r.folds, spec);

  // The pixels (output folds) split into an inner part, innermost, of 1, 2, 4, ... up to the
  // larger of the input and partial-sum registers, and an outer part; every order of the outer
  // part and the other three loops: the least energy x cycles (ties: fewer cycles).
  const double bw = spec.local_bandwidth();
  const double mac_pj = r.macs * spec.mac_pj;
  const double port_pj = 8 * spec.local_pj_per_bit, register_pj = spec.register_pj_per_bit;
  // The largest combination any operand's registers hold bounds the inner parts worth trying.
  const double most_inner = std::max({w.capacity, in.capacity, out.capacity});
  double best_edp = -1, best_cycles = 0;
  std::array<double, 7> chunk_edp, chunk_cycles{};
  chunk_edp.fill(-1);
  // Only the first of orders equal but for loops of one trip (FirstOrders), unless registers
  // of less than one combination split at such a loop.
  const bool skip_single_trips = w.capacity >= 1 && in.capacity >= 1 && out.capacity >= 1;
  // The fourth operand: its stay is the inputs' own when it selects the same dimensions.
  const bool reads_like_inputs = in_reads.relevant == in.relevant;
  for (double p_in = 1; p_in <= std::min(n[kP], most_inner); p_in *= 2) {
    for (double k_in = 1; k_in <= n[kK] && p_in * k_in <= most_inner; k_in *= 2) {
      const std::array<Loop, 4> outer = {Loop{kP, ceil_div_real(n[kP], p_in)},
                                         Loop{kK, ceil_div_real(n[kK], k_in)}, Loop{kC, n[kC]},
                                         Loop{kT, n[kT]}};
      std::array<int, 4> perm{0, 1, 2, 3};
      FirstOrders orders;
      do {
        if (skip_single_trips && !orders.first(outer, perm)) continue;
        const Nest nest = {Loop{kP, p_in},
                           Loop{kK, k_in},
                           outer[static_cast<size_t>(perm[0])],
                           outer[static_cast<size_t>(perm[1])],
                           outer[static_cast<size_t>(perm[2])],
                           outer[static_cast<size_t>(perm[3])]};
        const Fetches fw = fetches_of(w, nest, n), fi = fetches_of(in, nest, n),
                      fo = fetches_of(out, nest, n);
        const double wb = s.groups * fw.fetches * vec_w * eb;
        const double ib = s.groups * fi.fetches * vec_i * eb;
        const double partial = fo.fetches - fo.distinct;  // partial sums written and read back
        const double ob = s.groups * vec_o * (fo.distinct * eb + 2 * partial * pb);
        const double cycles =
            std::max(r.steps, bw > 0 ? std::ceil((wb + ib + ob + s.port_sharing_bytes) / bw) : 0);
        // Registers: the PEs' (kc) or the broadcast (yx) weights and the rows' (kc) or PEs' (yx)
        // inputs read once per datum while it stays; every partial sum read and written per
        // step; every operand written once per fetch from the buffer.
        const double reads_stay = reads_like_inputs ? fi.stay : fetches_of(in_reads, nest, n).stay;
        const double reads = r.steps / fw.stay * vec_w + r.steps / reads_stay * reads_i_per_step;
        const double bits = 8 * (eb * reads + pb * 2 * r.steps * vec_o) + 8 * (wb + ib + ob);
        const double energy = mac_pj + bits * register_pj + (wb + ib + ob) * port_pj;
        const double edp = energy * cycles;
        if (best_edp < 0 || edp < best_edp || (edp == best_edp && cycles < best_cycles)) {
          best_edp = edp;
          best_cycles = cycles;
          r.weight_bytes = wb;
          r.input_bytes = ib;
          r.output_bytes = ob;
          r.register_bits = bits;
          // An operand whose registers hold all of it is read once (tiled_array_nest).
          r.weights_held = s.groups <= 1 && fw.distinct <= w.capacity ? wb : 0;
          r.inputs_held = s.groups <= 1 && fi.distinct <= in.capacity ? ib : 0;
          r.energy_pj = energy;
          r.pixels_inner = p_in;
          r.channels_inner = k_in;
          for (size_t i = 0; i < 4; ++i)
            r.order[i] = kDimName[outer[static_cast<size_t>(perm[i])].dim];
        }
        // Under 2^i reduction chunks (array_nest.h): each output max(chunks, C passes) x T passes
        // through the port, unless the registers hold every partial sum; the best per count.
        const bool sums_stay = s.groups * fo.distinct <= out.capacity;
        const double outputs = sums_stay ? 0 : s.groups * vec_o * fo.distinct;
        for (size_t i = 0; i < r.chunked.size(); ++i) {
          const double chunks = kChunks[i];
          const double extra =
              outputs * 2 * pb * fo.again[kT] * (std::max(chunks, fo.again[kC]) - fo.again[kC]);
          const double port = wb + ib + ob + extra;
          const double c_i =
              std::max(r.steps, bw > 0 ? std::ceil((port + s.port_sharing_bytes) / bw) : 0);
          const double e_i = energy + extra * (port_pj + 8 * register_pj);
          ChunkedArray& b = r.chunked[i];
          if (chunk_edp[i] < 0 || e_i * c_i < chunk_edp[i] ||
              (e_i * c_i == chunk_edp[i] && c_i < chunk_cycles[i])) {
            chunk_edp[i] = e_i * c_i;
            chunk_cycles[i] = c_i;
            b.port_bytes = port;
            b.register_bits = bits + 8 * extra;
            b.energy_pj = e_i;
            b.weights_held = s.groups <= 1 && fw.distinct <= w.capacity ? wb : 0;
            b.inputs_held = s.groups <= 1 && fi.distinct <= in.capacity ? ib : 0;
            b.sums_kept = sums_stay ? s.groups * vec_o * fo.distinct * 2 * pb * (chunks - 1) : 0;
            b.pixels_inner = p_in;
            b.channels_inner = k_in;
            for (size_t j = 0; j < 4; ++j)
              b.order[j] = kDimName[outer[static_cast<size_t>(perm[j])].dim];
          }
        }
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
  return r;
}

}  // namespace

}  // namespace dgs
