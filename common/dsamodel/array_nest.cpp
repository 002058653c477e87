// The array level of a matrix op's loop nest (see array_nest.h).
#include "common/dsamodel/array_nest.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "common/dsamodel/array_nest_orders.h"
#include "common/graph/op_cost.h"
#include "common/util/arith.h"

namespace dgs {

namespace {

// kFX: the kernel columns as a loop of their own (the sliding input window, array_nest.h); the
// taps' loop kT then runs the kernel rows. Only the outer loops (P, K, C, T) are named.
enum Dim : uint8_t { kP = 0, kK = 1, kC = 2, kT = 3, kFX = 4 };
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
using Nest = std::array<Loop, 8>;  // inner to outer (the last: the reduction chunks)

// How often an operand's register contents change over the whole nest, and how many distinct
// contents there are.
struct Fetches {
  double fetches = 0;
  double distinct = 0;
  double stay = 1;  // trips of the innermost loops irrelevant to it (consecutive uses of one datum)
  // Per dimension (Dim, kFX included): the passes its loops add.
  std::array<double, 5> again{1, 1, 1, 1, 1};
};
static_assert(std::tuple_size_v<decltype(Fetches::again)> == kFX + 1, "one entry per Dim");

// The distinct combinations of an operand's relevant dimensions.
double distinct_of(const Operand& x, const std::array<double, 4>& n) {
  double distinct = 1;
  for (int d = 0; d < 4; ++d)
    if (x.relevant & (1u << d)) distinct *= n[static_cast<size_t>(d)];
  return distinct;
}

// `window`: the inputs' sliding window, the scale of what the registers hold and read when the
// kernel-column loop lies within what they hold (array_nest.h); 1 for the other operands.
Fetches fetches_of(const Operand& x, const Nest& nest, const std::array<double, 4>& n,
                   double window = 1) {
  Fetches f;
  f.distinct = distinct_of(x, n);
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
    const double scale = l.dim == kFX && l.trips > 1 ? window : 1;
    if (held * l.trips * scale <= x.capacity) {
      held *= l.trips * scale;
      f.distinct *= scale;  // each held block's window, once
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

// The register-refill stall of one operand (array_nest.h) over the nest: its registers hold `held`
// combinations of capacity; the set changes `passes` times (1: no stall); the last pass of the
// irrelevant loops at the top of what the registers keep takes `last_pass` cycles.
struct Refill {
  double held = 1, passes = 1, last_pass = 0;
};

// As fetches_of cuts the nest (without the sliding window: weights and partial sums only).
Refill refill_of(const Operand& x, const Nest& nest) {
  Refill r;
  double period = 1, top_irrelevant = 1;
  size_t i = 0;
  for (; i < nest.size(); ++i) {
    const Loop& l = nest[i];
    if (l.trips <= 1) continue;
    const bool relevant = x.relevant & (1u << l.dim);
    // The loop split: its inner part inside the pass, its outer part the first to change the set.
    const double inside = !relevant || r.held * l.trips <= x.capacity
                              ? l.trips
                              : std::max(1.0, std::floor(x.capacity / r.held));
    period *= inside;
    if (!relevant) {
      top_irrelevant *= inside;
      continue;
    }
    if (inside > 1) {
      r.held *= inside;
      top_irrelevant = 1;
    }
    if (inside < l.trips) {
      r.passes = ceil_div_real(l.trips, inside);
      ++i;
      break;
    }
  }
  // Every combination held (loaded once), or no irrelevant loop at the top (each entry freed
  // as soon as it is used: the refill streams in behind the pass, bounded by the port alone).
  if (r.passes <= 1 || top_irrelevant <= 1) {
    r.passes = 1;
    return r;
  }
  for (; i < nest.size(); ++i) r.passes *= nest[i].trips;
  r.last_pass = period / top_irrelevant;
  return r;
}

// The stall of each refill of `refill` (array_nest.h) when the operand's `bytes` cross a port of
// `bw` bytes a cycle: its registers hold w = refill.held of R = capacity, so with R / 2 < w <= R
// only R - w of the next set preload while the set is in use, and (2w - R) / w of each refill's
// bytes cross after the registers the last pass frees, within that pass or stalling the array.
// R = 1 is left to fill_and_drain (the next fold's weights not preloaded).
double stall_per_refill(const Refill& refill, double capacity, double groups, double bytes,
                        double bw) {
  const double w = refill.held, passes = groups * refill.passes;
  if (capacity < 2 || 2 * w <= capacity || refill.passes <= 1 || bw <= 0) return 0;
  const double waiting = (2 * w - capacity) / w * (bytes / passes) / bw;
  return std::max(0.0, std::ceil(waiting - refill.last_pass));  // whole cycles
}

// The distinct folds of one output axis over `n` PEs: the first, the interior ones, the one
// before the last and the last, each with how many of the axis's folds it stands for. For
// kernels up to 2n + 1 wide (pad <= n) the padding clips no fold but the first, the last and the
// one before it (which it reaches only when the last fold is short), so every
// fold from the second to the third-to-last has the same window and one stands for them all.
struct AxisFold {
  Interval span;
  double count = 1;
};
constexpr size_t kAxisFolds = 4;
int axis_folds(const Interval& a, int64_t n, std::array<AxisFold, kAxisFolds>& out) {
  const int64_t folds = (a.size() + n - 1) / n;
  auto span = [&](int64_t i) { return Interval{a.lo + i * n, std::min(a.hi, a.lo + (i + 1) * n)}; };
  int m = 0;
  out[m++] = {span(0), 1};
  if (folds >= 4) out[m++] = {span(1), static_cast<double>(folds - 3)};
  if (folds >= 3) out[m++] = {span(folds - 2), 1};
  if (folds >= 2) out[m++] = {span(folds - 1), 1};
  return m;
}

// The mean over the folds of one image of `region` (a conv's output, [N, C, H, W]) of the input
// elements per channel that a fold reads over its taps: its input window's rows x columns (a
// box: its rows follow from the fold's rows alone, its columns from its columns), at most one
// per PE per tap (the bounding box of a strided window holds inputs no PE reads).
double mean_fold_window(const Graph& g, int op, const Region& region, const DsaSpec& spec,
                        double taps) {
  std::array<AxisFold, kAxisFolds> rows{}, cols{};
  const int nr = axis_folds(region[2], spec.matrix_tile_rows, rows);
  const int nc = axis_folds(region[3], spec.matrix_tile_columns, cols);
  Region fold = region;
  fold[0].hi = fold[0].lo + 1;
  fold[1].hi = fold[1].lo + 1;
  std::array<double, kAxisFolds> in_rows{}, in_cols{};
  for (int i = 0; i < std::max(nr, nc); ++i) {
    fold[2] = rows[static_cast<size_t>(std::min(i, nr - 1))].span;
    fold[3] = cols[static_cast<size_t>(std::min(i, nc - 1))].span;
    const Region in = input_regions(g, op, fold).at(0);
    if (in.size() != 4 || in[1].size() == 0) return 0;
    if (i < nr) in_rows[static_cast<size_t>(i)] = static_cast<double>(in[2].size());
    if (i < nc) in_cols[static_cast<size_t>(i)] = static_cast<double>(in[3].size());
  }
  double window = 0, folds = 0;
  for (size_t i = 0; i < static_cast<size_t>(nr); ++i)
    for (size_t j = 0; j < static_cast<size_t>(nc); ++j) {
      const double pixels =
          static_cast<double>(rows[i].span.size()) * static_cast<double>(cols[j].span.size());
      const double count = rows[i].count * cols[j].count;
      window += count * std::min(in_rows[i] * in_cols[j], pixels * taps);
      folds += count;
    }
  return window / folds;
}

// kc's sliding input window (array_nest.h): the kernel columns of conv `op` and the stride and
// dilation between input columns, read from its iteration space's map of the input's last axis
// (output column x stride + kernel column x dilation); none (kernel_columns 1) where the map has
// another form or the reduction axis `axis` split (a fraction of the taps) is the kernel columns.
void set_kernel_columns(const Graph& g, int op, const std::string& axis, ArrayShape& s) {
  IterationSpace copy;
  IterationSpaceMemo* memo = IterationSpaceMemo::active(g);
  if (!memo) copy = iteration_space(g, op);
  const IterationSpace& space = memo ? memo->space(op) : copy;
  const AxisIndex& column = space.inputs.at(0).dims.back();
  if (column.full || column.terms.size() != 2) return;
  double fx = 1, stride = 0, dilation = 0;
  for (const IndexTerm& t : column.terms) {
    if (t.divisor != 1 || t.coef <= 0) return;
    if (!t.reduction) {
      stride = static_cast<double>(t.coef);
      continue;
    }
    const ReductionAxis& r = space.reduction_axes.at(static_cast<size_t>(t.axis));
    if (r.name == axis) return;
    fx = static_cast<double>(r.extent);
    dilation = static_cast<double>(t.coef);
  }
  if (stride <= 0 || dilation <= 0) return;
  s.kernel_columns = fx;
  s.column_stride = stride;
  s.column_dilation = dilation;
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
  // channel over all its taps (the shared iteration spaces give the region), the mean over the
  // region's folds: a fold at the region's far edge may be narrower than the array (a 28-row
  // region: folds of 16 and 12 rows) and reads only its own window.
  if (spec.dataflow == DsaDataflow::YX && is_conv_like(o.kind) && o.kind == OpKind::Conv &&
      rs.size() == 4 && !region_empty(region))
    s.input_window = mean_fold_window(g, op, region, spec, s.taps);
  if (spec.dataflow == DsaDataflow::KC && o.kind == OpKind::Conv && rs.size() >= 3)
    set_kernel_columns(g, op, axis, s);
  if (s.pixels <= 0 || s.k <= 0 || s.c <= 0) s.pixels = 0;
  return s;
}

double ArrayNest::cycles(double port_bandwidth, double other_port_bytes) const {
  const double port = port_bandwidth > 0 ? (port_bytes() + other_port_bytes) / port_bandwidth : 0;
  return std::max(steps + refill_stall, std::ceil(port)) + fill_cycles;
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
using NestKey = std::array<double, 26>;

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
                       s.kernel_columns,
                       s.column_stride,
                       s.column_dilation,
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
      r.kernel_columns_inner = a.kernel_columns_inner;
      r.order = a.order;
      r.refill_each = a.refill_each;
      first = false;
    }
    r.macs += t.count * a.macs;
    r.folds += t.count * a.folds;
    r.steps += t.count * a.steps;
    r.refill_stall += t.count * (a.refill_stall + a.refill_each);
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
        c.refill_stall += t.count * (a.chunked[i].refill_stall + a.chunked[i].refill_each);
        c.weights_held += t.count * a.chunked[i].weights_held;
        c.inputs_held += t.count * a.chunked[i].inputs_held;
        c.sums_kept += t.count * a.chunked[i].sums_kept;
        continue;
      }
      c.port_bytes *= t.count;
      c.register_bits *= t.count;
      c.energy_pj *= t.count;
      c.refill_stall = t.count * (c.refill_stall + c.refill_each);
      c.weights_held *= t.count;
      c.inputs_held *= t.count;
      c.sums_kept *= t.count;
    }
    first_chunked = false;
  }
  // Each tile's refills, and each next tile's first set as a refill too (it comes in as the
  // tile before runs its last pass, as a next fold's weights do): all but the first tile's.
  r.refill_stall -= r.refill_each;
  for (ChunkedArray& c : r.chunked) c.refill_stall -= c.refill_each;
  if (r.folds > 0) r.fill_cycles = fill_and_drain(r.folds, spec);
  return r;
}

namespace {

// The reduction chunk counts of ArrayNest::chunked: 2^i.
constexpr std::array<double, 7> kChunks = {1, 2, 4, 8, 16, 32, 64};
static_assert(kChunks.size() == std::tuple_size_v<decltype(ArrayNest::chunked)>);

// The constants of one shape's search (search_array_nest): the folds, what a step moves per
// operand, the operands' registers, the energies.
struct NestSearch {
  std::array<double, 4> n{};  // folds per dimension (P, K, C, T)
  double steps = 0, groups = 1, port_sharing = 0;
  double vec_w = 0, vec_i = 0, vec_o = 0, reads_i_per_step = 0;
  Operand w{(1u << kK) | (1u << kC) | (1u << kT) | (1u << kFX), 1},
      in{(1u << kP) | (1u << kC) | (1u << kT) | (1u << kFX), 1}, out{(1u << kP) | (1u << kK), 1};
  Operand in_reads;  // what each register read selects (yx: before any sharing)
  double eb = 1, pb = 4, bw = 0, mac_pj = 0, port_pj = 0, register_pj = 0;
  double once_w = 0, once_i = 0;  // the weights' and the inputs' bytes, each read once
  double sums_bits = 0;           // the partial sums' register reads and writes
  // kc's sliding input window (array_nest.h): the kernel columns (1: not offered), the pixels a
  // step takes, the region's pixel columns, the stride and dilation along them.
  double fx = 1, pixels_per_step = 1, columns = 1, stride = 1, dilation = 1;
  bool refills = false;  // kc: the weights' and partial sums' refill stall priced (array_nest.h)
};

// One split of the inner loops: the pixels' and output channels' inner trips, the kernel
// columns' (1 or all of them) and the inputs' sliding-window scale with them (1: none).
struct Split {
  double p_in = 1, k_in = 1, fx_in = 1, window = 1;
};

// The sliding window's scale of the inputs' fetches for a pixels' inner part of `p_in` trips with
// every kernel column inside it (array_nest.h): the window over OX_b output columns x FX taps,
// or 0 where the window is not offered (no kernel columns, the block not whole columns of one
// row, the window over a row's input registers or no smaller than OX_b x FX).
double window_scale(const NestSearch& x, double p_in) {
  if (x.fx <= 1 || p_in < 2 || x.pixels_per_step != std::floor(x.pixels_per_step)) return 0;
  const double ox = p_in * x.pixels_per_step;
  if (std::fmod(x.columns, ox) != 0) return 0;
  const double window = (ox - 1) * x.stride + (x.fx - 1) * x.dilation + 1;
  // The registers hold the window as the nest's fetches count it: window / pixels a step, in
  // x.in.capacity (a row's input registers, in units of a step's pixels).
  if (window / x.pixels_per_step > x.in.capacity || window >= ox * x.fx) return 0;
  return window / (ox * x.fx);
}

// One nest priced (array_nest.h): its port bytes, register bits, energy and cycles.
struct NestPrice {
  Fetches fw, fi, fo;
  double wb = 0, ib = 0, ob = 0, bits = 0, energy = 0, cycles = 0;
  // kc: the weights' and partial sums' refill stall (array_nest.h), and of each refill (as a next
  // tile's first set comes in).
  double refill_stall = 0, refill_each = 0;
};

// The energy x cycles of `port` bytes through the port and `bits` register bits besides their
// writes (price_nest's arithmetic).
double edp_floor(const NestSearch& x, double port, double bits) {
  const double cycles = std::max(x.steps, x.bw > 0 ? std::ceil((port + x.port_sharing) / x.bw) : 0);
  return (x.mac_pj + (bits + 8 * port) * x.register_pj + port * x.port_pj) * cycles;
}

// Prices `nest` into `p`, unless its energy x cycles is sure to exceed `bound` (>= 0): then
// false. The floors: the outputs' bytes (computed first) with every weight and input read once,
// then with the weights' own bytes; the register reads at `reads_floor` (no more than the nest's)
// and the partial sums' (the same in every nest). Each term is no more than the nest's, in the same
// arithmetic and order, so a nest skipped is one the search would not choose (above the best of its
// chunk count so far).
bool price_nest(const NestSearch& x, const Nest& nest, double window, double bound,
                double reads_floor, NestPrice& p) {
  const double once_i = x.once_i * window;  // every input's window read once
  p.fo = fetches_of(x.out, nest, x.n);
  const double partial = p.fo.fetches - p.fo.distinct;  // partial sums written and read back
  p.ob = x.groups * x.vec_o * (p.fo.distinct * x.eb + 2 * partial * x.pb);
  const double bits_floor = 8 * (x.eb * reads_floor) + x.sums_bits;
  if (bound >= 0 && edp_floor(x, (x.once_w + once_i) + p.ob, bits_floor) > bound) return false;
  p.fw = fetches_of(x.w, nest, x.n);
  p.wb = x.groups * p.fw.fetches * x.vec_w * x.eb;
  if (bound >= 0 && edp_floor(x, (p.wb + once_i) + p.ob, bits_floor) > bound) return false;
  p.fi = fetches_of(x.in, nest, x.n, window);
  p.ib = x.groups * p.fi.fetches * x.vec_i * x.eb;
  const double port = p.wb + p.ib + p.ob;
  if (x.refills) {
    const Refill rw = refill_of(x.w, nest), ro = refill_of(x.out, nest);
    const double sw = stall_per_refill(rw, x.w.capacity, x.groups, p.wb, x.bw);
    const double so = stall_per_refill(ro, x.out.capacity, x.groups, p.ob, x.bw);
    p.refill_each = sw + so;
    p.refill_stall = (x.groups * rw.passes - 1) * sw + (x.groups * ro.passes - 1) * so;
  }
  p.cycles =
      std::max(x.steps + p.refill_stall, x.bw > 0 ? std::ceil((port + x.port_sharing) / x.bw) : 0);
  // Registers: the PEs' (kc) or the broadcast (yx) weights and the rows' (kc) or PEs' (yx)
  // inputs read once per datum while it stays; every partial sum read and written per step;
  // every operand written once per fetch from the buffer.
  const double reads_stay =
      x.in_reads.relevant == x.in.relevant ? p.fi.stay : fetches_of(x.in_reads, nest, x.n).stay;
  const double reads = x.steps / p.fw.stay * x.vec_w + x.steps / reads_stay * x.reads_i_per_step;
  p.bits = 8 * (x.eb * reads) + x.sums_bits + 8 * port;
  p.energy = x.mac_pj + p.bits * x.register_pj + port * x.port_pj;
  return true;
}

// The shape's folds, step vectors and registers under the spec's dataflow (array_nest.h); r's
// folds, steps and fill and drain.
NestSearch nest_search(const ArrayShape& s, const DsaSpec& spec, ArrayNest& r) {
  NestSearch x;
  const double rows = spec.matrix_tile_rows, cols = spec.matrix_tile_columns;
  const double per_pe = spec.matrix_macs_per_cycle / (rows * cols);
  x.eb = spec.element_bytes;
  x.pb = spec.partial_sum_bytes;
  x.groups = s.groups;
  x.port_sharing = s.port_sharing_bytes;
  x.in_reads = x.in;
  std::array<double, 4>& n = x.n;
  if (spec.dataflow == DsaDataflow::KC) {
    n = {ceil_div_real(s.pixels, per_pe), ceil_div_real(s.k, cols), ceil_div_real(s.c, rows),
         s.taps};
    const double rows_used = std::min(s.c, rows), cols_used = std::min(s.k, cols);
    const double pixels_per_step = s.pixels / n[kP];
    x.vec_w = rows_used * cols_used;
    x.vec_i = rows_used * pixels_per_step;
    x.reads_i_per_step = x.vec_i;
    x.vec_o = cols_used * pixels_per_step;
    x.w.capacity = spec.pe_weight_registers;
    x.in.capacity = std::max(1.0, std::floor(spec.pe_input_registers / pixels_per_step));
    x.out.capacity = std::max(1.0, std::floor(spec.pe_output_registers / pixels_per_step));
    r.folds = s.groups * n[kK] * n[kC] * n[kT];
    x.refills = true;
    if (s.kernel_columns > 1 && std::fmod(s.taps, s.kernel_columns) == 0) {
      x.fx = s.kernel_columns;
      x.pixels_per_step = pixels_per_step;
      x.columns = s.pixel_columns;
      x.stride = s.column_stride;
      x.dilation = s.column_dilation;
    }
  } else {
    const double folds = ceil_div_real(s.pixel_rows, rows) * ceil_div_real(s.pixel_columns, cols);
    n = {folds, s.k, ceil_div_real(s.c, per_pe), s.taps};
    const double channels_per_step = s.c / n[kC];
    const double pixels_per_fold = s.pixels / folds;
    x.vec_w = channels_per_step;
    x.vec_i = pixels_per_fold * channels_per_step;
    x.reads_i_per_step = x.vec_i;
    x.vec_o = pixels_per_fold;
    x.w.capacity = std::max(1.0, std::floor(spec.pe_weight_registers / channels_per_step));
    x.in.capacity = std::max(1.0, std::floor(spec.pe_input_registers / channels_per_step));
    x.out.capacity = spec.pe_output_registers;
    // Inputs passed between neighbours: a fold's window per channel, held across the taps.
    const double window = s.input_window * channels_per_step;
    const double array_registers = rows * cols * spec.pe_input_registers;
    if (s.input_window > 0 && window <= array_registers) {
      x.in.relevant = (1u << kP) | (1u << kC);
      x.vec_i = window;
      x.in.capacity = std::max(1.0, std::floor(array_registers / window));
    }
    r.folds = s.groups * folds;
  }
  r.steps = s.groups * n[0] * n[1] * n[2] * n[3];
  r.fill_cycles = fill_and_drain(r.folds, spec);
  x.steps = r.steps;
  x.bw = spec.local_bandwidth();
  x.mac_pj = r.macs * spec.mac_pj;
  x.port_pj = 8 * spec.local_pj_per_bit;
  x.register_pj = spec.register_pj_per_bit;
  // As price_nest computes the bytes, with one fetch per distinct datum.
  x.once_w = x.groups * distinct_of(x.w, n) * x.vec_w * x.eb;
  x.once_i = x.groups * distinct_of(x.in, n) * x.vec_i * x.eb;
  x.sums_bits = 8 * (x.pb * 2 * x.steps * x.vec_o);
  return x;
}

// Of an operand's distinct data (all the reduction's), what one of `chunks` reduction chunks
// selects: its reduction folds ceil(n_C / chunks) of n_C.
double per_chunk(const Fetches& f, const NestSearch& x, double chunks) {
  return f.distinct / x.n[kC] * ceil_div_real(x.n[kC], chunks);
}

// The nest of one mapping: the split's pixel, output-channel and kernel-column trips innermost,
// the outer loops `outer` in the order `perm` (inner to outer), the chunk loop of `chunks` trips
// outermost.
Nest nest_of(const Split& sp, const std::array<Loop, 4>& outer, const std::array<int, 4>& perm,
             double chunks) {
  return {Loop{kP, sp.p_in},
          Loop{kK, sp.k_in},
          Loop{kFX, sp.fx_in},
          outer[static_cast<size_t>(perm[0])],
          outer[static_cast<size_t>(perm[1])],
          outer[static_cast<size_t>(perm[2])],
          outer[static_cast<size_t>(perm[3])],
          Loop{kC, chunks}};
}

// The outer loops of a split under `chunks` reduction chunks: the pixels' and output channels'
// outer parts, the reduction folds of one chunk (ceil(n_C / chunks)), the taps (the kernel rows
// when the kernel columns are inner).
std::array<Loop, 4> outer_loops(const NestSearch& x, const Split& sp, double chunks) {
  return {Loop{kP, ceil_div_real(x.n[kP], sp.p_in)}, Loop{kK, ceil_div_real(x.n[kK], sp.k_in)},
          Loop{kC, ceil_div_real(x.n[kC], chunks)}, Loop{kT, x.n[kT] / sp.fx_in}};
}

// The fewest register reads of a split: a weight stays at most through the pixels' loops (p_in
// when an inner output-channel loop follows), an input through the output channels' (none when
// an inner pixel loop comes first); as price_nest computes the reads.
double reads_floor(const NestSearch& x, double p_in, double k_in) {
  const double stay_w = k_in > 1 ? p_in : p_in * ceil_div_real(x.n[kP], p_in);
  const double stay_i = p_in > 1 ? 1 : k_in * ceil_div_real(x.n[kK], k_in);
  return x.steps / stay_w * x.vec_w + x.steps / stay_i * x.reads_i_per_step;
}

// The best order of one split `sp` under `chunks` reduction chunks (search_chunks), into `b`,
// `chosen`, `best_edp`, `best_cycles` and `bound` when better than theirs.
void search_split(const NestSearch& x, const Split& sp, double chunks, bool skip_single_trips,
                  double ob_floor, double& bound, double& best_edp, double& best_cycles,
                  ChunkedArray& b, NestPrice& chosen) {
  const double p_in = sp.p_in, k_in = sp.k_in;
  const double reads = reads_floor(x, p_in, k_in);
  const double least =
      edp_floor(x, (x.once_w + x.once_i * sp.window) + ob_floor, 8 * (x.eb * reads) + x.sums_bits);
  if (bound >= 0 && least > bound) return;
  const std::array<Loop, 4> outer = outer_loops(x, sp, chunks);
  using namespace array_nest_internal;
  uint32_t multi = 0;  // outer[j] is loop j (outer_loops: P, K, C, T)
  for (size_t j = 0; j < outer.size(); ++j)
    if (outer[j].trips != 1) multi |= 1u << j;
  const OuterOrderList& orders =
      skip_single_trips ? first_outer_orders(multi) : every_outer_order();
  for (size_t o = 0; o < orders.size; ++o) {
    const std::array<int, 4>& perm = orders.orders[o];
    NestPrice p;
    if (!price_nest(x, nest_of(sp, outer, perm, chunks), sp.window, bound, reads, p)) continue;
    const double edp = p.energy * p.cycles;
    if (best_edp >= 0 && (edp > best_edp || (edp == best_edp && p.cycles >= best_cycles))) continue;
    best_edp = edp;
    best_cycles = p.cycles;
    bound = bound < 0 ? edp : std::min(bound, edp);
    chosen = p;
    b.port_bytes = p.wb + p.ib + p.ob;
    b.register_bits = p.bits;
    b.energy_pj = p.energy;
    b.refill_stall = p.refill_stall;
    b.refill_each = p.refill_each;
    // An operand whose registers hold all of what a chunk selects is read once per chunk
    // (buffer_nest.h: the chunks select it); the partial sums the registers keep through
    // the chunks when they hold every output.
    const bool one = x.groups <= 1;
    b.weights_held = one && per_chunk(p.fw, x, chunks) <= x.w.capacity ? p.wb : 0;
    b.inputs_held = one && per_chunk(p.fi, x, chunks) <= x.in.capacity ? p.ib : 0;
    b.sums_kept = x.groups * p.fo.distinct <= x.out.capacity
                      ? x.groups * x.vec_o * p.fo.distinct * 2 * x.pb * (chunks - 1)
                      : 0;
    b.pixels_inner = p_in;
    b.channels_inner = k_in;
    b.kernel_columns_inner = sp.fx_in;
    for (size_t j = 0; j < 4; ++j) b.order[j] = kDimName[outer[static_cast<size_t>(perm[j])].dim];
  }
}

// The best mapping under `chunks` reduction chunks (array_nest.h) into `b`. `bound` (>= 0): an
// energy x cycles some mapping of the count reaches (a nest above it is not the best: skipped).
// `chosen`: the best nest's price.
void search_chunks(const NestSearch& x, double chunks, double bound, ChunkedArray& b,
                   NestPrice& chosen) {
  const std::array<double, 4>& n = x.n;
  // The largest combination any operand's registers hold bounds the inner parts worth trying.
  const double most_inner = std::max({x.w.capacity, x.in.capacity, x.out.capacity});
  // Only the first of orders equal but for loops of one trip (array_nest_orders.h), unless
  // registers of less than one combination split at such a loop.
  const bool skip_single_trips = x.w.capacity >= 1 && x.in.capacity >= 1 && x.out.capacity >= 1;
  // No order of a split can beat the best so far when even its floor does not: the outputs
  // written once and, unless the registers hold them all, every partial sum out and back once
  // per chunk (the chunk loop encloses the loop that ends their stay).
  const double d_o = distinct_of(x.out, n);
  const double partial = d_o > x.out.capacity ? d_o * chunks - d_o : 0;
  const double ob_floor = x.groups * x.vec_o * (d_o * x.eb + 2 * partial * x.pb);
  double best_edp = -1, best_cycles = 0;
  for (double p_in = 1; p_in <= std::min(n[kP], most_inner); p_in *= 2) {
    // The kernel columns inside (the sliding window, array_nest.h) where it is offered, after
    // the taps as one loop (ties keep that).
    const double window = window_scale(x, p_in);
    for (int w = 0; w < (window > 0 ? 2 : 1); ++w)
      for (double k_in = 1; k_in <= n[kK] && p_in * k_in <= most_inner; k_in *= 2) {
        const Split sp{p_in, k_in, w ? x.fx : 1, w ? window : 1};
        search_split(x, sp, chunks, skip_single_trips, ob_floor, bound, best_edp, best_cycles, b,
                     chosen);
      }
  }
  // The window's blocks of OX_b output columns that are not a power of two (7 or 14 on a 14-wide
  // region, array_nest.h): with the window only, after every power of two (ties keep those). A
  // block's window holds at least its OX_b / (pixels a step) trips, so none above the input
  // registers' capacity is offered.
  for (double p_in = 3; p_in <= std::min(n[kP], x.in.capacity); ++p_in) {
    if (std::has_single_bit(static_cast<uint64_t>(p_in))) continue;
    const double window = window_scale(x, p_in);
    if (window <= 0) continue;
    for (double k_in = 1; k_in <= n[kK] && p_in * k_in <= most_inner; k_in *= 2) {
      const Split sp{p_in, k_in, x.fx, window};
      search_split(x, sp, chunks, skip_single_trips, ob_floor, bound, best_edp, best_cycles, b,
                   chosen);
    }
  }
}

// The energy x cycles of `b`'s loops under `chunks` reduction chunks: a bound for the search of
// that count.
double edp_of(const NestSearch& x, const ChunkedArray& b, double chunks) {
  const Split sp{b.pixels_inner, b.channels_inner, b.kernel_columns_inner,
                 b.kernel_columns_inner > 1 ? window_scale(x, b.pixels_inner) : 1};
  const std::array<Loop, 4> outer = outer_loops(x, sp, chunks);
  std::array<int, 4> perm{};
  for (size_t j = 0; j < 4; ++j)
    perm[j] = static_cast<int>(std::find(kDimName, kDimName + 4, b.order[j]) - kDimName);
  NestPrice p;
  price_nest(x, nest_of(sp, outer, perm, chunks), sp.window, -1, 0, p);
  return p.energy * p.cycles;
}

ArrayNest search_array_nest(const ArrayShape& s, const DsaSpec& spec) {
  ArrayNest r;
  r.macs = s.macs();
  if (r.macs <= 0 || spec.matrix_macs_per_cycle <= 0) return r;
  const NestSearch x = nest_search(s, spec, r);
  // The chunk counts priced: those of no more chunks than reduction folds (chunk_counts, in
  // buffer_nest.cpp, asks for no more: a chunk has at least the array's rows of channels).
  size_t counts = 1;
  while (counts < kChunks.size() && kChunks[counts] <= x.n[kC]) ++counts;
  // Per count, every split and order under the chunk loop; the previous count's best loops give
  // the search its first bound.
  NestPrice unchunked, p;
  for (size_t i = 0; i < counts; ++i)
    search_chunks(x, kChunks[i], i > 0 ? edp_of(x, r.chunked[i - 1], kChunks[i]) : -1, r.chunked[i],
                  i > 0 ? p : unchunked);
  // The unchunked mapping's; a chunk count above the reduction folds (never asked for) as the
  // largest priced.
  const ChunkedArray& b = r.chunked[0];
  r.weight_bytes = unchunked.wb;
  r.input_bytes = unchunked.ib;
  r.output_bytes = unchunked.ob;
  r.register_bits = b.register_bits;
  r.energy_pj = b.energy_pj;
  r.refill_stall = b.refill_stall;
  r.refill_each = b.refill_each;
  r.weights_held = b.weights_held;
  r.inputs_held = b.inputs_held;
  r.pixels_inner = b.pixels_inner;
  r.channels_inner = b.channels_inner;
  r.kernel_columns_inner = b.kernel_columns_inner;
  r.order = b.order;
  for (size_t i = counts; i < r.chunked.size(); ++i) r.chunked[i] = r.chunked[counts - 1];
  return r;
}

}  // namespace

}  // namespace dgs
