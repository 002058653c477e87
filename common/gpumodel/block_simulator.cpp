// The event-driven block simulation (the rate rule and dispatch order are stated in gpu_model.h).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

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
  // The first resident's remaining work (0: no resident), set when the group was last advanced:
  // merge_groups's quick test (same_state implies equal values; compared with ==, like it).
  double first_remaining = 0;
  bool same_state(const SmGroup& o) const {
    return threads == o.threads && warps == o.warps && blocks == o.blocks && regs == o.regs &&
           smem == o.smem && residents == o.residents;
  }
};

// std::sort's result for the short lists of the water-filling, without its call overhead: for up
// to 16 elements libstdc++'s std::sort is exactly this insertion sort (an element less than the
// first goes to the front, any other moves past the greater ones before it), so the order is the
// same even for ties and for a comparison whose rounding breaks transitivity; longer lists are
// left to std::sort.
template <typename T, typename Less>
void small_sort_as_std(std::vector<T>& v, Less less) {
  if (v.size() > 16) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  for (size_t i = 1; i < v.size(); ++i) {
    const T x = v[i];
    if (less(x, v[0])) {
      std::move_backward(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i),
                         v.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      v[0] = x;
    } else {
      size_t j = i;
      for (; less(x, v[j - 1]); --j) v[j] = v[j - 1];
      v[j] = x;
    }
  }
}

// Water-filling: share `total` among items with weights w[i] and caps cap[i] (both summed over
// the item's blocks), for caps that sum (in item order) to more than `total` (the caller checks:
// when they fit, every item gets its cap). Returns the allocation per item.
void water_fill(double total, const std::vector<double>& w, const std::vector<double>& cap,
                std::vector<double>& alloc, std::vector<size_t>& order) {
  const size_t n = w.size();
  alloc.assign(n, 0.0);
  // Items without weight or demand get nothing; the others by ascending cap per weight (a strict
  // weak order once zero weights are out).
  order.clear();
  for (size_t i = 0; i < n; ++i)
    if (w[i] > 0 && cap[i] > 0) order.push_back(i);
  small_sort_as_std(order, [&](size_t a, size_t b) { return cap[a] * w[b] < cap[b] * w[a]; });
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

// The rates of every resident for each state of the SM groups met so far on this thread, under
// one model. The rate rule (compute_rates) reads only the model, the groups' SM counts and warps,
// and their residents' block counts and kernels' rate terms (warps, per-block work, rates and
// caps), in group and resident order; so a state with the same signature (those values, kernels
// named by an id of their rate terms' bits) gets the same rates, bit for bit. A search simulates
// many stages made of the same kernels, which meet the same states again and again (a NasNet
// stage search: 86% of the states met). Open addressing on a hash of the signature, tried after
// the state that followed the previous state when that one was last met (each record keeps its
// successor: a stage replays its predecessors' states in order); everything is dropped when the
// model changes or the memo outgrows kMaxWords (a dropped state is computed again, with the same
// bits).
class RateMemo {
 public:
  static constexpr size_t kMaxWords = size_t{1} << 19;  // 4 MiB of records, then start over

  // Called before each simulation: the model's rate terms; the kernels' ids (kernel_ids[i] for
  // ks[i]).
  void start(const Model& m, const std::vector<SimKernel>& ks, std::vector<uint32_t>& kernel_ids) {
    const double model_terms[] = {m.dram_bw,       m.l2_bw,       m.compute_sat_warps,
                                  m.dram_warp_cap, m.l2_warp_cap, m.block_min_us};
    static_assert(sizeof(model_terms) == sizeof(model_));
    if (std::memcmp(model_terms, model_, sizeof(model_)) != 0) {
      std::memcpy(model_, model_terms, sizeof(model_));
      kernels_.clear();
      clear();
    }
    if (pool_.size() > kMaxWords) clear();
    prev_ = 0;  // the simulation's first state follows the start record
    kernel_ids.resize(ks.size());
    for (size_t i = 0; i < ks.size(); ++i) kernel_ids[i] = kernel_id(ks[i]);
  }
  // The signature of the current state (filled by the caller before find / insert), and its
  // number of residents (of rates).
  std::vector<uint64_t>& sig() { return sig_; }
  void set_residents(size_t n) { residents_ = n; }
  // The stored rates (as bits) of a state with the current signature, or nullptr. First tried:
  // the state that followed the previous one the last time that one was met (a stage replays the
  // states of the stages before it that share its first kernels), which needs no hash.
  const uint64_t* find() {
    const uint64_t header = sig_.size() | uint64_t{residents_} << 32;
    const uint64_t guess = pool_[prev_ + 1];
    if (guess != kNone && matches(guess, header)) return found(guess);
    uint64_t h = sig_.size();
    for (uint64_t x : sig_) h = (h ^ x) * 0x9e3779b97f4a7c15ull;
    hash_ = static_cast<uint32_t>((h ^ (h >> 29)) >> 32);
    for (size_t i = hash_ & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.at == kEmpty) return nullptr;
      if (s.hash == hash_ && matches(s.at, header)) return found(s.at);
    }
  }
  // Stores the rates for the current signature (after a find that returned nullptr): put(rate)
  // is called for every resident in order.
  template <typename ForEachRate>
  void insert(ForEachRate&& for_each_rate) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    const size_t at = pool_.size();
    pool_.push_back(sig_.size() | uint64_t{residents_} << 32);
    pool_.push_back(kNone);
    pool_.insert(pool_.end(), sig_.begin(), sig_.end());
    for_each_rate([&](double r) { pool_.push_back(std::bit_cast<uint64_t>(r)); });
    place(slots_, hash_, static_cast<uint32_t>(at));
    ++count_;
    follow(at);
  }

 private:
  static constexpr uint32_t kEmpty = ~uint32_t{0};
  static constexpr uint64_t kNone = ~uint64_t{0};  // a record's successor, when none yet
  struct Slot {  // 8 bytes: the records stay below 2^32 words (kMaxWords, then a simulation's)
    uint32_t hash = 0;
    uint32_t at = kEmpty;
  };
  // The rate terms of a kernel (what compute_rates reads of it), as bits.
  struct KernelTerms {
    uint64_t v[8];
    bool operator==(const KernelTerms& o) const { return std::memcmp(v, o.v, sizeof(v)) == 0; }
  };
  struct TermsHash {
    size_t operator()(const KernelTerms& t) const {
      uint64_t h = 0;
      for (uint64_t x : t.v) h = (h ^ x) * 0x9e3779b97f4a7c15ull;
      return h ^ (h >> 29);
    }
  };
  static KernelTerms terms_of(const SimKernel& k) {
    const double d[] = {static_cast<double>(k.warps),
                        k.flops_b,
                        k.dram_b,
                        k.l2_b,
                        k.sm_rate,
                        k.floor_us,
                        k.dram_warp_cap,
                        k.sat_warps};
    KernelTerms t;
    static_assert(sizeof(d) == sizeof(t.v));
    std::memcpy(t.v, d, sizeof(d));
    return t;
  }
  uint32_t kernel_id(const SimKernel& k) {
    const KernelTerms t = terms_of(k);
    if (auto it = kernels_.find(t); it != kernels_.end()) return it->second;  // no node made
    return kernels_.emplace(t, static_cast<uint32_t>(kernels_.size())).first->second;
  }
  static void place(std::vector<Slot>& slots, uint32_t h, uint32_t at) {
    size_t i = h & (slots.size() - 1);
    while (slots[i].at != kEmpty) i = (i + 1) & (slots.size() - 1);
    slots[i] = Slot{h, at};
  }
  void grow() {
    std::vector<Slot> bigger(slots_.size() * 2);
    for (const Slot& s : slots_)
      if (s.at != kEmpty) place(bigger, s.hash, s.at);
    slots_.swap(bigger);
  }
  // Whether the record at `at` holds the current signature.
  bool matches(size_t at, uint64_t header) const {
    const uint64_t* rec = pool_.data() + at;
    return rec[0] == header && std::equal(sig_.begin(), sig_.end(), rec + 2);
  }
  // The rates of the record at `at`, now the previous state.
  const uint64_t* found(size_t at) {
    follow(at);
    // The record of the state that followed this one, towards the core for the next find.
    if (const uint64_t next = pool_[at + 1]; next != kNone) __builtin_prefetch(pool_.data() + next);
    return pool_.data() + at + 2 + sig_.size();
  }
  // The state at `at` follows the previous one (prev_).
  void follow(size_t at) {
    pool_[prev_ + 1] = at;
    prev_ = at;
  }
  void clear() {
    // The start record: no signature (none matches its header), and as its successor the first
    // state of the last simulation.
    pool_.assign({0, kNone});
    prev_ = 0;
    count_ = 0;
    slots_.assign(1024, Slot{});
  }
  double model_[6] = {};
  std::unordered_map<KernelTerms, uint32_t, TermsHash> kernels_;
  std::vector<uint64_t> sig_;
  size_t residents_ = 0;
  // The records: a header (the signature's length, and the residents' count << 32), the record
  // of the state that followed this one when last met (kNone: none), the signature, the rates
  // (as bits). pool_[0..1]: the start record.
  std::vector<uint64_t> pool_ = {0, kNone};
  size_t prev_ = 0;  // the record of the previous state (0: the start record)
  size_t count_ = 0;
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  uint32_t hash_ = 0;
};

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
  // Resident lists of groups merged away, reused by later splits (no allocation per split).
  std::vector<std::vector<Resident>> spare;
  RateMemo memo;
  std::vector<uint32_t> kernel_ids;  // the memo's id of each kernel
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
        order_(scratch.order),
        spare_(scratch.spare),
        memo_(scratch.memo),
        kernel_ids_(scratch.kernel_ids) {}

  StageResult run() {
    StageResult res;
    // One group of all SMs, empty (the first group's resident list keeps its capacity from the
    // previous simulation on this thread).
    for (size_t gi = 1; gi < groups_.size(); ++gi) retire(groups_[gi]);
    groups_.resize(1);
    memo_.start(m_, ks_, kernel_ids_);
    SmGroup& all = groups_[0];
    all.count = m_.sms;
    all.threads = all.warps = all.blocks = all.regs = 0;
    all.smem = 0;
    all.residents.clear();
    next_in_stream_.assign(streams_.size(), 0);
    exclusive_running_ = -1;
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
      // Next event: a resident group finishing (the earliest remaining / rate over the residents
      // in order, found by compute_rates when it sets the rates), or a kernel becoming ready.
      double dt = std::numeric_limits<double>::infinity();
      if (state_changed_) {
        dt = compute_rates();
      } else {
        for (const auto& g : groups_)
          for (const auto& r : g.residents) dt = std::min(dt, r.remaining / r.rate);
      }
      state_changed_ = false;
      // (Both minima are over values that are never NaN, so taking them apart gives the same.)
      dt = std::min(dt, next_launch_dt_);
      if (!std::isfinite(dt)) break;  // nothing resident, nothing to come
      // Advance to the event at t + dt; the residents whose blocks end there are completed in
      // the same pass (their group's warps and blocks are counted before, over the interval).
      const double t_next = t + dt;
      int64_t warps_now = 0, busy_now = 0;
      for (auto& g : groups_) {
        warps_now += int64_t{g.count} * g.warps;
        if (g.blocks > 0) busy_now += g.count;
        advance_group(g, dt, t_next);
      }
      warp_integral += static_cast<double>(warps_now) * dt;
      busy_integral += static_cast<double>(busy_now) * dt;
      t = t_next;
      ++events;
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
    // Also the time to the next launch: the earliest ready - t over the streams' next kernels not
    // ready yet (none of their blocks is dispatched; completions, which change the streams' next
    // kernels, come after it is read).
    next_launch_dt_ = std::numeric_limits<double>::infinity();
    for (size_t s = 0; s < streams_.size(); ++s) {
      const int i = next_in_stream_[s];
      if (i >= static_cast<int>(streams_[s].size())) continue;
      const int kid = streams_[s][static_cast<size_t>(i)];
      const SimKernel& k = ks_[static_cast<size_t>(kid)];
      if (k.ready <= t) {
        if (k.dispatched < k.grid) pending_.push_back(kid);
      } else if (k.dispatched == 0) {
        next_launch_dt_ = std::min(next_launch_dt_, k.ready - t);
      }
    }
    small_stable_sort(pending_, [&](int a, int b) {
      return ks_[static_cast<size_t>(a)].ready < ks_[static_cast<size_t>(b)].ready;
    });
    for (int kid : pending_) {
      SimKernel& k = ks_[static_cast<size_t>(kid)];
      if (k.blocked && !freed_) continue;
      // The exclusive-kernel rule: it waits while another exclusive kernel has blocks left.
      if (k.exclusive && exclusive_running_ >= 0 && exclusive_running_ != kid) continue;
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
        if (k.exclusive) exclusive_running_ = kid;
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
            SmGroup rest;  // the SMs that get no block: g's state (its resident list reused)
            rest.threads = g.threads;
            rest.warps = g.warps;
            rest.blocks = g.blocks;
            rest.regs = g.regs;
            rest.smem = g.smem;
            if (!spare_.empty()) {
              rest.residents = std::move(spare_.back());
              spare_.pop_back();
            }
            rest.residents = g.residents;
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
  // The rates of the current state: the memo's, or computed (compute_rates_of_state) and stored.
  // Returns the earliest remaining / rate over the residents in order.
  double compute_rates() {
    // Per group its SM count and resident count, then per resident its kernel's id and blocks
    // (the group's warps follow from those).
    std::vector<uint64_t>& sig = memo_.sig();
    sig.clear();
    size_t residents = 0;
    for (const SmGroup& g : groups_) {
      residents += g.residents.size();
      sig.push_back(static_cast<uint64_t>(static_cast<uint32_t>(g.count)) << 32 |
                    static_cast<uint32_t>(g.residents.size()));
      for (const Resident& r : g.residents)
        sig.push_back(uint64_t{kernel_ids_[static_cast<size_t>(r.kernel)]} << 32 |
                      static_cast<uint32_t>(r.blocks));
    }
    memo_.set_residents(residents);
    double dt = std::numeric_limits<double>::infinity();
    if (const uint64_t* rates = memo_.find()) {
      for (SmGroup& g : groups_)
        for (Resident& r : g.residents) {
          r.rate = std::bit_cast<double>(*rates++);
          dt = std::min(dt, r.remaining / r.rate);
        }
      return dt;
    }
    compute_rates_of_state();
    memo_.insert([&](auto&& put) {
      for (const SmGroup& g : groups_)
        for (const Resident& r : g.residents) {
          put(r.rate);
          dt = std::min(dt, r.remaining / r.rate);
        }
    });
    return dt;
  }

  void compute_rates_of_state() {
    size_t n = 0;
    for (const SmGroup& g : groups_) n += g.residents.size();
    items_.resize(n);
    tc_.resize(n);
    blocks_.resize(n);
    dram_cap_.resize(n);
    l2_cap_.resize(n);
    // The caps summed in item order (as water_fill forms the sums).
    double dram_sum = 0, l2_sum = 0;
    size_t i = 0;
    for (SmGroup& g : groups_) {
      for (Resident& r : g.residents) {
        const SimKernel& k = ks_[static_cast<size_t>(r.kernel)];
        // Compute-limited block time, then what the block can use of DRAM / L2 at that speed
        // (capped by Little's law).
        const double sat = k.sat_warps > 0 ? k.sat_warps : m_.compute_sat_warps;
        const double share = k.warps / std::max(static_cast<double>(g.warps), sat);
        double tc = k.flops_b > 0 ? k.flops_b / (k.sm_rate * share) : 0.0;
        tc = std::max(tc, m_.block_min_us);
        // A block whose latency floor binds (the suite's kernels) draws bandwidth at that pace.
        if (k.floor_us > tc) tc = k.floor_us;
        const double dram_wc = k.dram_warp_cap >= 0 ? k.dram_warp_cap : m_.dram_warp_cap;
        const double dram_cap_pb = k.dram_b > 0 ? std::min(k.dram_b / tc, k.warps * dram_wc) : 0;
        const double l2_cap_pb = k.l2_b > 0 ? std::min(k.l2_b / tc, k.warps * m_.l2_warp_cap) : 0;
        items_[i] = &r;
        tc_[i] = tc;
        const double blocks = static_cast<double>(r.blocks) * g.count;
        blocks_[i] = blocks;
        // Items that move no bytes of a kind get cap 0 there (water_fill skips them).
        dram_cap_[i] = dram_cap_pb * blocks;
        l2_cap_[i] = l2_cap_pb * blocks;
        dram_sum += dram_cap_[i];
        l2_sum += l2_cap_[i];
        ++i;
      }
    }
    // Neither bandwidth saturated: every item gets its caps, and an item's rate is a function of
    // its own state only. The arithmetic is water_fill's and
    // share_bytes's for that case, so the bits are the same.
    if (dram_sum <= m_.dram_bw && (m_.l2_bw <= 0 || l2_sum <= m_.l2_bw)) {
      i = 0;
      for (SmGroup& g : groups_) {
        for (Resident& r : g.residents) {
          const SimKernel& k = ks_[static_cast<size_t>(r.kernel)];
          const double td = dram_cap_[i] > 0 ? k.dram_b / (dram_cap_[i] / blocks_[i]) : 0.0;
          const double tl =
              m_.l2_bw > 0 && l2_cap_[i] > 0 ? k.l2_b / (l2_cap_[i] / blocks_[i]) : 0.0;
          r.rate = 1.0 / std::max({tc_[i], td, tl});
          ++i;
        }
      }
      return;
    }
    td_.assign(n, 0.0);
    tl_.assign(n, 0.0);
    w_valid_ = false;
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
    if (!w_valid_) {  // the weights: each item's warps
      w_.resize(n);
      size_t i = 0;
      for (const SmGroup& g : groups_)
        for (const Resident& r : g.residents)
          w_[i++] =
              static_cast<double>(ks_[static_cast<size_t>(r.kernel)].warps) * r.blocks * g.count;
      w_valid_ = true;
    }
    water_fill(bw, w_, cap, alloc_, order_);
    for (size_t i = 0; i < n; ++i) {
      if (alloc_[i] <= 0) continue;
      const double per_block = alloc_[i] / blocks_[i];
      t[i] = (ks_[static_cast<size_t>(items_[i]->kernel)].*bytes) / per_block;
    }
  }

  // Advances g's residents by dt and completes those whose blocks end (at time t), keeping the
  // others in order.
  void advance_group(SmGroup& g, double dt, double t) {
    size_t kept = 0;
    for (size_t ri = 0; ri < g.residents.size(); ++ri) {
      Resident& r = g.residents[ri];
      r.remaining -= r.rate * dt;
      if (r.remaining <= kDoneEpsilon) {
        r.remaining = 0;
        complete(g, r, t);
        continue;
      }
      if (kept != ri) g.residents[kept] = r;
      ++kept;
    }
    g.residents.resize(kept);
    g.first_remaining = kept > 0 ? g.residents[0].remaining : 0.0;
  }

  // Resident r of group g has finished its blocks at time t (the caller removes it).
  void complete(SmGroup& g, const Resident& r, double t) {
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
      if (r.kernel == exclusive_running_) exclusive_running_ = -1;
      const size_t s = static_cast<size_t>(k.stream);
      ++next_in_stream_[s];
      const int i = next_in_stream_[s];
      if (i < static_cast<int>(streams_[s].size()))
        ks_[static_cast<size_t>(streams_[s][static_cast<size_t>(i)])].ready = t + m_.launch_us;
    }
  }

  // Keeps a group's resident list (its capacity) for a later split.
  void retire(SmGroup& g) {
    g.residents.clear();
    spare_.push_back(std::move(g.residents));
  }

  // Merges the groups in the same state (called after advance_group has run on every group, so
  // that their first_remaining is current; a merge changes only the surviving group's count).
  void merge_groups() {
    for (size_t a = 0; a < groups_.size(); ++a)
      for (size_t b = a + 1; b < groups_.size();) {
        const SmGroup& ga = groups_[a];
        const SmGroup& gb = groups_[b];
        if (ga.first_remaining == gb.first_remaining &&
            ga.residents.size() == gb.residents.size() && ga.same_state(gb)) {
          groups_[a].count += groups_[b].count;
          state_changed_ = true;
          retire(groups_[b]);
          groups_.erase(groups_.begin() + static_cast<std::ptrdiff_t>(b));
        } else {
          ++b;
        }
      }
  }

  double next_launch_dt_ = 0;   // set by dispatch: the time to the next launch (inf: none)
  bool state_changed_ = true;   // a group changed since the rates were last computed
  bool w_valid_ = false;        // w_ holds the current items' weights
  bool freed_ = true;           // a block ended since the last dispatch
  int exclusive_running_ = -1;  // the exclusive kernel with blocks left to run (-1: none)
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
  std::vector<std::vector<Resident>>& spare_;
  RateMemo& memo_;
  std::vector<uint32_t>& kernel_ids_;
};

}  // namespace

StageResult run_simulation(const Model& m, std::vector<SimKernel>& ks,
                           const std::vector<std::vector<int>>& streams) {
  Simulator sim(m, ks, streams, thread_scratch());
  return sim.run();
}

}  // namespace dgs::gpu_model_internal
