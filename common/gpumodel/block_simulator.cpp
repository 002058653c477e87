// The event-driven block simulation (the rate rule and dispatch order are stated in gpu_model.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/gpumodel/model_internal.h"

namespace dgs::gpu_model_internal {

namespace {

// Blocks of one kernel resident on every SM of a group, all dispatched at the same instant.
struct Resident {
  int kernel = 0;
  int blocks = 0;          // per SM
  double remaining = 1.0;  // fraction of one block's work left
  double rate = 0;         // fraction per us
  int64_t stamp = 0;       // dispatch event
  // Cache of the terms of the rate rule that depend only on the kernel and on its SM's resident
  // warps (valid while cached_sm_warps equals the group's warps; -1: not computed): the
  // compute-limited block time and the per-block DRAM / L2 demand caps. Recomputing them gives
  // the same bits, so the cache changes no result.
  int cached_sm_warps = -1;
  double tc = 0;           // compute-limited block time (>= block_min_us)
  double dram_cap_pb = 0;  // min(dram_b / tc, warps * dram_warp_cap); 0 if no DRAM bytes
  double l2_cap_pb = 0;    // likewise for L2
  // Cache of the rate when neither DRAM nor L2 is saturated (every block then gets its cap, so
  // the rate depends only on the kernel, the SM's warps, the resident's blocks and the group's
  // SM count); valid while those equal the key (-1: not computed).
  int unsat_sm_warps = -1, unsat_blocks = -1, unsat_count = -1;
  double unsat_rate = 0;
  bool operator==(const Resident& o) const {
    return kernel == o.kernel && blocks == o.blocks && remaining == o.remaining;
  }
};

// SMs in identical state.
struct SmGroup {
  int count = 0;
  int threads = 0, warps = 0, blocks = 0, regs = 0;
  int64_t smem = 0;
  std::vector<Resident> residents;
  bool same_state(const SmGroup& o) const {
    return threads == o.threads && warps == o.warps && blocks == o.blocks && regs == o.regs &&
           smem == o.smem && residents == o.residents;
  }
};

// Water-filling: share `total` among items with weights w[i] and caps cap[i] (both summed over
// the item's blocks). Returns the allocation per item.
void water_fill(double total, const std::vector<double>& w, const std::vector<double>& cap,
                std::vector<double>& alloc, std::vector<size_t>& order) {
  const size_t n = w.size();
  alloc.assign(n, 0.0);
  double cap_sum = 0;
  for (size_t i = 0; i < n; ++i) cap_sum += cap[i];
  if (cap_sum <= total) {
    alloc = cap;
    return;
  }
  // Items without weight or demand get nothing; the others by ascending cap per weight (a strict
  // weak order once zero weights are out).
  order.clear();
  for (size_t i = 0; i < n; ++i)
    if (w[i] > 0 && cap[i] > 0) order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return cap[a] * w[b] < cap[b] * w[a]; });
  double left = total, wsum = 0;
  for (size_t i : order) wsum += w[i];
  for (size_t i : order) {
    const double fair = wsum > 0 ? left * w[i] / wsum : 0;
    if (cap[i] <= fair) {
      alloc[i] = cap[i];
    } else {
      alloc[i] = fair;
    }
    left -= alloc[i];
    wsum -= w[i];
  }
}

// std::stable_sort for the short lists of the event loop, without its temporary buffer (an
// allocation per call): insertion sort, which is stable (an element moves only past strictly
// greater ones), so the order is exactly stable_sort's.
template <typename T, typename Less>
void small_stable_sort(std::vector<T>& v, Less less) {
  for (size_t i = 1; i < v.size(); ++i) {
    const T x = v[i];
    size_t j = i;
    for (; j > 0 && less(x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

// The simulator's working vectors, kept per thread between simulations so that a search that
// simulates many stages does not reallocate them each time (contents never carry over).
struct SimScratch {
  std::vector<int> next_in_stream;
  std::vector<SmGroup> groups;
  std::vector<int> pending;
  std::vector<size_t> room;
  std::vector<Resident*> items;
  std::vector<double> tc, td, tl, w, alloc, blocks, dram_cap, l2_cap;
  std::vector<size_t> order;
};

SimScratch& thread_scratch() {
  thread_local SimScratch scratch;
  return scratch;
}

class Simulator {
 public:
  Simulator(const Model& m, std::vector<SimKernel>& ks,
            const std::vector<std::vector<int>>& streams, SimScratch& scratch)
      : m_(m),
        ks_(ks),
        streams_(streams),
        next_in_stream_(scratch.next_in_stream),
        groups_(scratch.groups),
        pending_(scratch.pending),
        room_(scratch.room),
        items_(scratch.items),
        tc_(scratch.tc),
        td_(scratch.td),
        tl_(scratch.tl),
        w_(scratch.w),
        alloc_(scratch.alloc),
        blocks_(scratch.blocks),
        dram_cap_(scratch.dram_cap),
        l2_cap_(scratch.l2_cap),
        order_(scratch.order) {}

  StageResult run() {
    StageResult res;
    // One group of all SMs, empty (the first group's resident list keeps its capacity from the
    // previous simulation on this thread).
    groups_.resize(1);
    SmGroup& all = groups_[0];
    all.count = m_.sms;
    all.threads = all.warps = all.blocks = all.regs = 0;
    all.smem = 0;
    all.residents.clear();
    next_in_stream_.assign(streams_.size(), 0);
    // One host thread issues the stage's launches stream by stream, in stream order within each,
    // each taking launch_us of host time: a stream's first kernel is ready when its launch is
    // issued, after every launch of the streams before it. (A later kernel of a stream needs no
    // such check: its launch follows its predecessor's by launch_us, and it is ready no earlier
    // than launch_us after its predecessor ends.)
    double host = 0;
    for (const auto& stream : streams_)
      if (!stream.empty()) {
        ks_[static_cast<size_t>(stream[0])].ready = host + m_.launch_us;
        host += m_.launch_us * static_cast<double>(stream.size());
      }
    double t = 0, warp_integral = 0, busy_integral = 0;
    int64_t events = 0;
    // Event-loop invariants: between two events every resident progresses at a constant rate;
    // rates are a function of the SM groups (their counts and resident lists' kernels and block
    // counts) only, so they are recomputed only after an event that changed a group
    // (state_changed_: a dispatch, a completion, a split or a merge). Skipping the recomputation
    // otherwise gives bit-identical rates.
    state_changed_ = true;
    while (true) {
      // Kernels whose launch has completed and whose blocks are not all dispatched, FIFO.
      dispatch(t, events);
      if (state_changed_) compute_rates();
      state_changed_ = false;
      // Next event: a resident group finishing, or a kernel becoming ready.
      double dt = std::numeric_limits<double>::infinity();
      for (const auto& g : groups_)
        for (const auto& r : g.residents) dt = std::min(dt, r.remaining / r.rate);
      for (size_t s = 0; s < streams_.size(); ++s) {
        const int i = next_in_stream_[s];
        if (i < static_cast<int>(streams_[s].size())) {
          const SimKernel& k = ks_[static_cast<size_t>(streams_[s][static_cast<size_t>(i)])];
          if (k.ready > t && k.dispatched == 0) dt = std::min(dt, k.ready - t);
        }
      }
      if (!std::isfinite(dt)) break;  // nothing resident, nothing to come
      // Advance.
      int64_t warps_now = 0, busy_now = 0;
      bool any_done = false;  // complete() changes nothing otherwise (an event of a launch)
      for (auto& g : groups_) {
        warps_now += int64_t{g.count} * g.warps;
        if (g.blocks > 0) busy_now += g.count;
        for (auto& r : g.residents) {
          r.remaining -= r.rate * dt;
          if (r.remaining <= kDoneEpsilon) {
            r.remaining = 0;
            any_done = true;
          }
        }
      }
      warp_integral += static_cast<double>(warps_now) * dt;
      busy_integral += static_cast<double>(busy_now) * dt;
      t += dt;
      ++events;
      if (any_done) complete(t);
      merge_groups();
    }
    res.latency_us = t;
    res.events = events;
    if (t > 0) {
      res.avg_active_warps_per_sm = warp_integral / (t * m_.sms);
      res.avg_busy_sms = busy_integral / t;
    }
    return res;
  }

 private:
  bool fits(const SmGroup& g, const SimKernel& k) const {
    return g.threads + k.threads <= m_.max_threads && g.warps + k.warps <= m_.max_warps &&
           g.blocks + 1 <= m_.max_blocks && g.regs + k.regs <= m_.max_regs &&
           (m_.max_smem <= 0 || g.smem + k.smem <= m_.max_smem);
  }

  // How many more blocks of k fit on each SM of g (>= 1 when fits(g, k)).
  int64_t room_for(const SmGroup& g, const SimKernel& k) const {
    int n = m_.max_blocks - g.blocks;  // per-SM counts fit in int
    if (k.threads > 0) n = std::min(n, (m_.max_threads - g.threads) / k.threads);
    if (k.warps > 0) n = std::min(n, (m_.max_warps - g.warps) / k.warps);
    if (k.regs > 0) n = std::min(n, (m_.max_regs - g.regs) / k.regs);
    if (m_.max_smem > 0 && k.smem > 0)
      n = static_cast<int>(std::min<int64_t>(n, (m_.max_smem - g.smem) / k.smem));
    return n;
  }

  void add_block(SmGroup& g, const SimKernel& k, int kernel, int64_t stamp) {
    add_blocks(g, k, kernel, stamp, 1);
  }

  // `blocks` blocks of k on every SM of g, dispatched at event `stamp`.
  void add_blocks(SmGroup& g, const SimKernel& k, int kernel, int64_t stamp, int blocks) {
    state_changed_ = true;
    g.threads += k.threads * blocks;
    g.warps += k.warps * blocks;
    g.blocks += blocks;
    g.regs += k.regs * blocks;
    g.smem += k.smem * blocks;
    // Residents are in dispatch order: this event's are at the end.
    for (auto r = g.residents.rbegin(); r != g.residents.rend() && r->stamp == stamp; ++r)
      if (r->kernel == kernel) {
        r->blocks += blocks;
        return;
      }
    Resident r;
    r.kernel = kernel;
    r.blocks = blocks;
    r.stamp = stamp;
    g.residents.push_back(r);
  }

  // The kernels that may dispatch at time t, in FIFO order of readiness (ties: stream order).
  void dispatch(double t, int64_t stamp) {
    pending_.clear();
    for (size_t s = 0; s < streams_.size(); ++s) {
      const int i = next_in_stream_[s];
      if (i >= static_cast<int>(streams_[s].size())) continue;
      const int kid = streams_[s][static_cast<size_t>(i)];
      const SimKernel& k = ks_[static_cast<size_t>(kid)];
      if (k.ready <= t && k.dispatched < k.grid) pending_.push_back(kid);
    }
    small_stable_sort(pending_, [&](int a, int b) {
      return ks_[static_cast<size_t>(a)].ready < ks_[static_cast<size_t>(b)].ready;
    });
    for (int kid : pending_) {
      SimKernel& k = ks_[static_cast<size_t>(kid)];
      if (k.blocked && !freed_) continue;
      k.blocked = false;
      while (k.dispatched < k.grid) {
        // SM groups with room for one more block, least loaded first.
        room_.clear();
        int64_t sms_with_room = 0;
        for (size_t gi = 0; gi < groups_.size(); ++gi)
          if (fits(groups_[gi], k)) {
            room_.push_back(gi);
            sms_with_room += groups_[gi].count;
          }
        if (room_.empty()) {
          k.blocked = true;
          break;
        }
        small_stable_sort(room_,
                          [&](size_t a, size_t b) { return groups_[a].warps < groups_[b].warps; });
        if (k.start < 0) k.start = t;
        int64_t n = k.grid - k.dispatched;
        if (n >= sms_with_room) {
          // Full passes: every group with room gets one more block per SM, which keeps their
          // order by warps (all grow alike), so the next passes see the same groups in the same
          // order for as long as each still has room: as many passes as all of them and the
          // remaining blocks allow are done at once (the same blocks, residents and counts).
          int64_t passes = n / sms_with_room;
          for (size_t gi : room_) {
            if (passes <= 1) break;
            passes = std::min(passes, room_for(groups_[gi], k));
          }
          for (size_t gi : room_) add_blocks(groups_[gi], k, kid, stamp, static_cast<int>(passes));
          k.dispatched += sms_with_room * passes;
          continue;
        }
        // Partial pass: the first n SMs (least loaded first) get one block each.
        for (size_t gi : room_) {
          if (n == 0) break;
          SmGroup& g = groups_[gi];
          if (g.count <= n) {
            add_block(g, k, kid, stamp);
            n -= g.count;
            k.dispatched += g.count;
          } else {
            SmGroup rest = g;  // the SMs that get no block
            rest.count = g.count - static_cast<int>(n);
            g.count = static_cast<int>(n);
            add_block(g, k, kid, stamp);
            k.dispatched += n;
            n = 0;
            groups_.push_back(std::move(rest));  // invalidates g (not used below)
            break;
          }
        }
      }
    }
    freed_ = false;
  }

  // The rate rule (see the header) for every resident. Items are the residents of all groups,
  // groups in order, residents in order (the order fixes the water-filling's arithmetic).
  void compute_rates() {
    size_t n = 0;
    for (const SmGroup& g : groups_) n += g.residents.size();
    items_.resize(n);
    tc_.resize(n);
    w_.resize(n);
    blocks_.resize(n);
    dram_cap_.resize(n);
    l2_cap_.resize(n);
    td_.assign(n, 0.0);
    tl_.assign(n, 0.0);
    size_t i = 0;
    for (SmGroup& g : groups_) {
      for (Resident& r : g.residents) {
        const SimKernel& k = ks_[static_cast<size_t>(r.kernel)];
        if (r.cached_sm_warps != g.warps) {
          // Compute-limited block time, then what the block can use of DRAM / L2 at that speed
          // (capped by Little's law).
          const double sat = k.sat_warps > 0 ? k.sat_warps : m_.compute_sat_warps;
          const double share = k.warps / std::max(static_cast<double>(g.warps), sat);
          r.tc = k.flops_b > 0 ? k.flops_b / (k.sm_rate * share) : 0.0;
          r.tc = std::max(r.tc, m_.block_min_us);
          // A block whose latency floor binds (the suite's kernels) draws bandwidth at that pace.
          if (k.floor_us > r.tc) r.tc = k.floor_us;
          const double dram_wc = k.dram_warp_cap >= 0 ? k.dram_warp_cap : m_.dram_warp_cap;
          r.dram_cap_pb = k.dram_b > 0 ? std::min(k.dram_b / r.tc, k.warps * dram_wc) : 0;
          r.l2_cap_pb = k.l2_b > 0 ? std::min(k.l2_b / r.tc, k.warps * m_.l2_warp_cap) : 0;
          r.cached_sm_warps = g.warps;
        }
        items_[i] = &r;
        tc_[i] = r.tc;
        w_[i] = static_cast<double>(k.warps) * r.blocks * g.count;
        const double blocks = static_cast<double>(r.blocks) * g.count;
        blocks_[i] = blocks;
        // Items that move no bytes of a kind get cap 0 there (water_fill skips them).
        dram_cap_[i] = r.dram_cap_pb * blocks;
        l2_cap_[i] = r.l2_cap_pb * blocks;
        ++i;
      }
    }
    // Neither bandwidth saturated (the sums as water_fill forms them): every item gets its caps,
    // and an item's rate is a function of its own state only, cached in the resident. The
    // arithmetic is water_fill's and share_bytes's for that case, so the bits are the same.
    double dram_sum = 0, l2_sum = 0;
    for (i = 0; i < n; ++i) dram_sum += dram_cap_[i];
    for (i = 0; i < n; ++i) l2_sum += l2_cap_[i];
    if (dram_sum <= m_.dram_bw && (m_.l2_bw <= 0 || l2_sum <= m_.l2_bw)) {
      i = 0;
      for (SmGroup& g : groups_) {
        for (Resident& r : g.residents) {
          if (r.unsat_sm_warps != g.warps || r.unsat_blocks != r.blocks ||
              r.unsat_count != g.count) {
            const SimKernel& k = ks_[static_cast<size_t>(r.kernel)];
            const double td = dram_cap_[i] > 0 ? k.dram_b / (dram_cap_[i] / blocks_[i]) : 0.0;
            const double tl =
                m_.l2_bw > 0 && l2_cap_[i] > 0 ? k.l2_b / (l2_cap_[i] / blocks_[i]) : 0.0;
            r.unsat_rate = 1.0 / std::max({tc_[i], td, tl});
            r.unsat_sm_warps = g.warps;
            r.unsat_blocks = r.blocks;
            r.unsat_count = g.count;
          }
          r.rate = r.unsat_rate;
          ++i;
        }
      }
      return;
    }
    share_bytes(m_.dram_bw, dram_cap_, dram_sum, &SimKernel::dram_b, td_);
    if (m_.l2_bw > 0) share_bytes(m_.l2_bw, l2_cap_, l2_sum, &SimKernel::l2_b, tl_);
    for (i = 0; i < n; ++i) items_[i]->rate = 1.0 / std::max({tc_[i], td_[i], tl_[i]});
  }

  // Water-fills bandwidth `bw` among the items (weights w_, caps `cap`) and sets t[i] to the
  // item's per-block transfer time at its allocation (0 if it moves no bytes).
  // cap_sum: the caps summed in item order (as water_fill sums them). When it fits in `bw`, every
  // item gets its cap (water_fill's first case, without the copy).
  void share_bytes(double bw, const std::vector<double>& cap, double cap_sum,
                   double SimKernel::*bytes, std::vector<double>& t) {
    const size_t n = items_.size();
    if (cap_sum <= bw) {
      for (size_t i = 0; i < n; ++i) {
        if (cap[i] <= 0) continue;
        const double per_block = cap[i] / blocks_[i];
        t[i] = (ks_[static_cast<size_t>(items_[i]->kernel)].*bytes) / per_block;
      }
      return;
    }
    water_fill(bw, w_, cap, alloc_, order_);
    for (size_t i = 0; i < n; ++i) {
      if (alloc_[i] <= 0) continue;
      const double per_block = alloc_[i] / blocks_[i];
      t[i] = (ks_[static_cast<size_t>(items_[i]->kernel)].*bytes) / per_block;
    }
  }

  void complete(double t) {
    for (auto& g : groups_) {
      for (size_t ri = 0; ri < g.residents.size();) {
        Resident& r = g.residents[ri];
        if (r.remaining > 0) {
          ++ri;
          continue;
        }
        SimKernel& k = ks_[static_cast<size_t>(r.kernel)];
        state_changed_ = true;
        freed_ = true;
        g.threads -= k.threads * r.blocks;
        g.warps -= k.warps * r.blocks;
        g.blocks -= r.blocks;
        g.regs -= k.regs * r.blocks;
        g.smem -= k.smem * r.blocks;
        k.finished += int64_t{r.blocks} * g.count;
        if (k.finished == k.grid) {
          k.end = t;
          const size_t s = static_cast<size_t>(k.stream);
          ++next_in_stream_[s];
          const int i = next_in_stream_[s];
          if (i < static_cast<int>(streams_[s].size()))
            ks_[static_cast<size_t>(streams_[s][static_cast<size_t>(i)])].ready = t + m_.launch_us;
        }
        g.residents.erase(g.residents.begin() + static_cast<std::ptrdiff_t>(ri));
      }
    }
  }

  void merge_groups() {
    for (size_t a = 0; a < groups_.size(); ++a)
      for (size_t b = a + 1; b < groups_.size();) {
        if (groups_[a].same_state(groups_[b])) {
          groups_[a].count += groups_[b].count;
          state_changed_ = true;
          groups_.erase(groups_.begin() + static_cast<std::ptrdiff_t>(b));
        } else {
          ++b;
        }
      }
  }

  bool state_changed_ = true;  // a group changed since the rates were last computed
  bool freed_ = true;          // a block ended since the last dispatch
  const Model& m_;
  std::vector<SimKernel>& ks_;
  const std::vector<std::vector<int>>& streams_;
  std::vector<int>& next_in_stream_;
  std::vector<SmGroup>& groups_;
  std::vector<int>& pending_;
  std::vector<size_t>& room_;
  std::vector<Resident*>& items_;
  std::vector<double>&tc_, &td_, &tl_, &w_, &alloc_, &blocks_, &dram_cap_, &l2_cap_;
  std::vector<size_t>& order_;
};

}  // namespace

StageResult run_simulation(const Model& m, std::vector<SimKernel>& ks,
                           const std::vector<std::vector<int>>& streams) {
  Simulator sim(m, ks, streams, thread_scratch());
  return sim.run();
}

}  // namespace dgs::gpu_model_internal
