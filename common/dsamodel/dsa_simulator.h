#pragma once
// The DSA model's timeline simulator (dsa_model.h says what it models): the machine's resources
// and the transfers through them (here), the buffers' residency of written, pinned and held
// tensors (dsa_residency.cpp), and per task its loads, compute and stores (dsa_model.cpp).
// Internal to common/dsamodel.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/dsamodel/busy_intervals.h"
#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/mesh_noc.h"
#include "common/graph/iteration_space.h"
#include "common/graph/region_index.h"

namespace dgs::dsa_sim {

enum class Level : uint8_t { Local, Global, Dram };

struct Resource {
  double bytes_per_cycle = 0;
  BusyIntervals busy;
};

struct Span {
  double start = 0;
  double end = 0;
};

// A region of a tensor written by a task, where it lives and from when.
struct WriteRecord {
  Region region;
  Level level = Level::Dram;
  // The writer's units (a partial-sum group: its home's): its task's demand's, which outlive
  // every write record (Simulator::run keeps every task's demand until the end).
  const std::vector<int>* units = nullptr;
  double end = 0;
};

// A piece of a task's input: bytes of one write (or of DRAM for weights and graph inputs).
struct Piece {
  double bytes = 0;
  Level level = Level::Dram;
  const std::vector<int>* units = nullptr;
  double available = 0;
};

// Least recently used out (weights_stay): how many of a unit's held weights (`bytes`, least
// recently used first) leave so that the rest fit in `room`. The bytes of an entry marked
// `counted` (a weight the task's working set already holds whole) need no room beyond the
// working set while it is held; once it leaves, its bytes no longer excuse the others.
size_t lru_weights_to_drop(const std::vector<double>& bytes, const std::vector<bool>& counted,
                           double room);
// The same over `n` entries read through bytes(i) and counted(i) (the timeline reads its held
// list in place): the same sums in the same order, so the same count.
template <typename Bytes, typename Counted>
size_t lru_weights_to_drop(size_t n, Bytes bytes, Counted counted, double room) {
  double total = 0, excused = 0;
  for (size_t i = 0; i < n; ++i) {
    total += bytes(i);
    if (counted(i)) excused += bytes(i);
  }
  size_t drop = 0;
  while (drop < n && total - excused > room) {
    total -= bytes(drop);
    if (counted(drop)) excused -= bytes(drop);
    ++drop;
  }
  return drop;
}

class Simulator {
 public:
  Simulator(const Graph& g, const Plan& p, const DsaSpec& s)
      : g_(g), p_(p), s_(s), n_units_(s.units()) {
    if (s.topology == DsaTopology::Mesh)
      noc_ = std::make_unique<MeshNoc>(s.mesh_columns, s.mesh_rows, s.noc_link_bytes_per_cycle,
                                       s.noc_hop_cycles);
    port_.assign(static_cast<size_t>(n_units_), Resource{s.local_bandwidth(), {}});
    bus_.assign(static_cast<size_t>(s.clusters), Resource{s.global_bytes_per_cycle, {}});
    dma_.assign(static_cast<size_t>(s.clusters * s.dma_engines),
                Resource{s.dma_bytes_per_cycle, {}});
    dram_.bytes_per_cycle = s.dram_bytes_per_cycle();
    unit_free_.assign(static_cast<size_t>(n_units_), 0.0);
    unit_end_.assign(static_cast<size_t>(n_units_), 0.0);
    last_tile_start_.assign(static_cast<size_t>(n_units_), 0.0);
    prev_last_.assign(static_cast<size_t>(n_units_), 0.0);
    local_releases_.assign(static_cast<size_t>(n_units_), {});
    resident_local_.assign(static_cast<size_t>(n_units_), 0.0);
    held_params_.assign(static_cast<size_t>(n_units_), {});
    held_regions_.assign(static_cast<size_t>(n_units_), {});
    held_free_.assign(static_cast<size_t>(n_units_), {});
    pinned_.assign(static_cast<size_t>(n_units_), {});
    resident_global_.assign(static_cast<size_t>(s.clusters), 0.0);
    staged_.assign(static_cast<size_t>(s.clusters), {});
    global_releases_.assign(static_cast<size_t>(s.clusters), {});
    events_.resize(static_cast<size_t>(n_units_ + s.clusters));
    const size_t tensors = static_cast<size_t>(g.num_tensors());
    writes_.resize(tensors);
    last_end_.assign(tensors, 0.0);
    on_chip_.assign(tensors, 0);
    last_read_stage_.assign(tensors, kNoRead);
    reads_.resize(tensors);
    write_index_.resize(tensors);
    read_index_.resize(tensors);
    releases_.resize(p.stages.size() + 1);  // a release at the end of a stage, or of the plan
  }

  EvaluationResult run();

 private:
  int cluster_of(int u) const { return u / s_.cores_per_cluster; }
  MeshPoint point_of(int u) const { return {u % s_.mesh_columns, u / s_.mesh_columns}; }
  std::string unit_name(int u) const {
    if (s_.topology == DsaTopology::Mesh) {
      const MeshPoint p = point_of(u);
      return "engine [" + std::to_string(p.x) + "," + std::to_string(p.y) + "]";
    }
    return "core [" + std::to_string(cluster_of(u)) + "," +
           std::to_string(u % s_.cores_per_cluster) + "]";
  }
  Level level_of(const std::string& name) const {
    if (name == s_.local_level) return Level::Local;
    if (!s_.global_level.empty() && name == s_.global_level) return Level::Global;
    return Level::Dram;
  }
  // The DMA engine of `cluster` free earliest for `bytes` from `ready`.
  Resource* dma_for(int cluster, double bytes, double ready) {
    Resource* best = nullptr;
    double best_t = 0;
    for (int i = 0; i < s_.dma_engines; ++i) {
      Resource* r = &dma_[static_cast<size_t>(cluster * s_.dma_engines + i)];
      const double t = r->busy.earliest_free(ready, bytes / r->bytes_per_cycle);
      if (!best || t < best_t) {
        best = r;
        best_t = t;
      }
    }
    return best;
  }

  // A transfer along `path` starts at the first moment at or after `ready` when every resource
  // of it is free for its part, streams at the narrowest bandwidth of the path (ceil(bytes /
  // narrowest) cycles) and arrives `latency` later. Each resource is taken for the time it needs
  // to serve those bytes at its own bandwidth (bytes / its bandwidth): a wide DRAM channel serves
  // many narrow ports in turn, transfers through one resource never overlap on it, and a transfer
  // issued later in plan order may use a gap left earlier.
  Span reserve(std::initializer_list<Resource*> path, double bytes, double ready, double latency) {
    Span sp{ready, ready};
    if (bytes <= 0) return sp;
    sp.start = std::max(sp.start, horizon_);
    double bw = 0;
    for (Resource* r : path) bw = bw == 0 ? r->bytes_per_cycle : std::min(bw, r->bytes_per_cycle);
    // The last pass checks every resource at the final start: each one's place for it (the
    // resources of a path are distinct, so adding to one leaves the others' places valid; a path
    // has at most 5: unit_transfer across clusters).
    std::array<size_t, 8> slots{};
    for (bool moved = true; moved;) {
      moved = false;
      size_t k = 0;
      for (Resource* r : path) {
        const double t = r->busy.earliest_free(sp.start, bytes / r->bytes_per_cycle, slots[k++]);
        if (t > sp.start) {
          sp.start = t;
          moved = true;
        }
      }
    }
    size_t k = 0;
    for (Resource* r : path) r->busy.add_at(slots[k++], sp.start, bytes / r->bytes_per_cycle);
    sp.end = sp.start + latency + std::ceil(bytes / bw);
    ++transfers_;
    return sp;
  }
  // DRAM <-> unit u (through its cluster's DMA; on a mesh, from the nearer edge column).
  Span dram_transfer(int u, double bytes, double ready) {
    const Span sp =
        reserve({&dram_, dma_for(cluster_of(u), bytes, ready), &port_[static_cast<size_t>(u)]},
                bytes, ready, s_.dram_latency_cycles);
    dram_bytes_ += bytes;
    local_bytes_ += bytes;
    if (!noc_ || bytes <= 0) return sp;
    const MeshPoint p = point_of(u);
    const MeshPoint edge{p.x <= s_.mesh_columns - 1 - p.x ? 0 : s_.mesh_columns - 1, p.y};
    const MeshNoc::Transfer t = noc_->send(edge, p, bytes, sp.start);
    return {sp.start, std::max(sp.end, t.end + s_.dram_latency_cycles)};
  }
  // The global buffer of cluster c <-> unit u.
  Span global_transfer(int c, int u, double bytes, double ready) {
    global_bytes_ += bytes;
    local_bytes_ += bytes;
    if (cluster_of(u) == c)
      return reserve({&bus_[static_cast<size_t>(c)], &port_[static_cast<size_t>(u)]}, bytes, ready,
                     0);
    dram_bytes_ += 2 * bytes;  // another cluster's buffer: through DRAM
    return reserve({&bus_[static_cast<size_t>(c)], &dram_, dma_for(cluster_of(u), bytes, ready),
                    &port_[static_cast<size_t>(u)]},
                   bytes, ready, s_.dram_latency_cycles);
  }
  // The local buffer of unit w -> that of unit u.
  Span unit_transfer(int w, int u, double bytes, double ready) {
    if (w == u || bytes <= 0) return {ready, ready};
    local_bytes_ += 2 * bytes;
    if (noc_) {
      const MeshNoc::Transfer t =
          noc_->send(point_of(w), point_of(u), bytes, std::max(ready, horizon_));
      ++transfers_;
      return {t.start, t.end};
    }
    const int cw = cluster_of(w), cu = cluster_of(u);
    if (cw == cu)
      return reserve({&port_[static_cast<size_t>(w)], &bus_[static_cast<size_t>(cw)],
                      &port_[static_cast<size_t>(u)]},
                     bytes, ready, 0);
    dram_bytes_ += 2 * bytes;
    return reserve({&port_[static_cast<size_t>(w)], dma_for(cw, bytes, ready), &dram_,
                    dma_for(cu, bytes, ready), &port_[static_cast<size_t>(u)]},
                   bytes, ready, 2 * s_.dram_latency_cycles);
  }
  // Moves `bytes` of a piece at `level` (held by `holders`) into unit u.
  Span fetch(Level level, const std::vector<int>* holders, int u, double bytes, double ready,
             double& local_hit) {
    if (level == Level::Dram || !holders || holders->empty()) return dram_transfer(u, bytes, ready);
    if (level == Level::Global)
      return global_transfer(cluster_of(holders->front()), u, bytes, ready);
    Span sp{ready, ready};
    const double share = bytes / static_cast<double>(holders->size());
    for (int w : *holders) {
      if (w == u) {
        local_hit += share;
        continue;
      }
      const Span t = unit_transfer(w, u, share, ready);
      sp.end = std::max(sp.end, t.end);
    }
    return sp;
  }
  // Moves `bytes` from unit u to `level` (the global buffer of u's cluster, or DRAM).
  Span store(Level level, int u, double bytes, double ready) {
    if (level == Level::Global) return global_transfer(cluster_of(u), u, bytes, ready);
    return dram_transfer(u, bytes, ready);
  }

  void forget_before(double t) {
    for (std::vector<Resource>* v : {&port_, &bus_, &dma_})
      for (Resource& r : *v) r.busy.forget_before(t);
    dram_.busy.forget_before(t);
    if (noc_) noc_->forget_before(t);
  }

  void release_stage(size_t stage, double at);
  // What a task's run shares between its units (run_task and the per-unit steps below).
  struct TaskRun {
    const Task& t;
    const DsaTaskDemandRef& d;
    double n = 1;  // units
    bool tiled = false;
    double tiles = 1;
    double stage_start = 0;
    bool staged = false;     // DRAM re-reads staged through the cluster's global buffer
    double staged_from = 0;  // staged: their DRAM read waits for room in the global buffer
    double dram_once = 0;
    bool partial_follower = false;
    WriteRecord* home = nullptr;  // a partial follower's home
  };
  struct UnitLoads {
    double start = -1, end = 0, local_hit = 0;
    double add_cycles = 0;     // a partial sum's add of its running sum
    double staged_start = -1;  // staged: when its DRAM regions start coming into the global buffer
  };
  void run_task(size_t si, size_t ti, const DsaTaskDemandRef& d, double stage_start,
                double& stage_end);
  int64_t written_elems(const DsaTaskDemandRef& d, int x) const;
  WriteRecord* partial_home(const Task& t);
  void unit_needs(const TaskRun& r, double pinned_in_place, size_t si, size_t ti);
  double load_gate(const TaskRun& r, size_t k) const;
  UnitLoads load_unit(const TaskRun& r, int u, double gate);
  double store_unit(const TaskRun& r, int u, double store_ready, double ce);
  struct InputPieces {
    Piece from_dram{0, Level::Dram, nullptr, 0};  // also in pieces_ when it has bytes
    double dram_once = 0;                         // of from_dram, each region once (no re-reads)
    double pinned_in_place = 0;  // per unit: what its working set counts for inputs pinned there
  };
  InputPieces gather_pieces(const DsaTaskDemandRef& d);
  void record_writes(size_t si, size_t ti, const DsaTaskDemandRef& d, double task_end,
                     WriteRecord* home);
  // The stage of the last read of tensor x after stage si that overlaps `region` (of the reads
  // the pre-pass recorded, in stage order), or -1 when none does.
  int64_t last_later_read(int x, const Region& region, size_t si) const;
  // Whether every unit of `units` keeps `need` of tensor x pinned (Task::pinned).
  bool pinned_on_every_unit(const std::vector<int>& units, int x, const Region& need) const;
  // Task::pinned: the region of each pinned tensor the task read stays in each of its units'
  // buffers until the last later stage with a task on the unit that reads the tensor (none: not
  // kept), counted as resident there meanwhile.
  void pin_params(const Task& t, const DsaTaskDemandRef& d, size_t si, double at,
                  const std::string& label);
  // Whether every unit of `units` holds `need` of weight or constant tensor x since its last task.
  bool held_by_every_unit(const std::vector<int>& units, int x, const Region& need);
  // weights_stay: the weights and constants a unit's tasks read stay in its buffer, whole, in the
  // room its resident tensors and the working set of the task it runs leave (the task's own
  // inputs kept whole for its run, stays, count in that working set): least recently used out,
  // the task's own weights the most recent, so a larger buffer holds all a smaller one does.
  void hold_params(const DsaTaskDemandRef& d);
  // Staging (clusters): a task's DRAM regions read once (dram_once) take each unit's equal share
  // of it in the global buffer of the unit's cluster. The earliest time from `from` (the earliest
  // its DRAM read can start) after which, in every cluster of `units`, that fits beside the
  // resident tensors and what earlier tasks stage there; INFINITY when it never fits.
  double staging_start(const std::vector<int>& units, double dram_once, double from);
  // Holds the staged shares from `start` to `end` (counted in peak_<global>_bytes).
  void hold_staging(const std::vector<int>& units, double dram_once, double start, double end);

  const Graph& g_;
  const Plan& p_;
  const DsaSpec& s_;
  int n_units_;
  std::unique_ptr<MeshNoc> noc_;
  std::vector<Resource> port_, bus_, dma_;
  Resource dram_;
  std::vector<double> unit_free_, unit_end_, last_tile_start_;
  std::vector<double> prev_last_;  // what a unit's last task holds while its last tile runs
  // Per local buffer, the (time, bytes) of its releases at stage ends not older than its unit's
  // last tile start (a load of a later task may start before them, when they are still held).
  std::vector<std::vector<std::pair<double, double>>> local_releases_;
  std::vector<double> resident_local_, resident_global_;
  // A weight a unit holds: its region is held_regions_[unit][region] (kept apart, so that the
  // list, which hold_params reorders for every task, moves 16-byte entries: a unit holds about 90
  // weights' slices on Fig. 8's atom plans).
  struct HeldParam {
    int tensor = -1;
    uint32_t region = 0;
    double bytes = 0;  // per unit
  };
  std::vector<std::vector<HeldParam>> held_params_;  // per unit, least recently used first
  std::vector<std::vector<Region>> held_regions_;    // per unit, by HeldParam::region
  std::vector<std::vector<uint32_t>> held_free_;     // per unit: slots of held_regions_ unused
  struct PinnedParam {
    int tensor = -1;
    Region region;
    double bytes = 0;  // per unit
    size_t until = 0;  // released at the end of this stage
  };
  std::vector<std::vector<PinnedParam>> pinned_;  // per unit (Task::pinned)
  struct Staged {
    double start = 0, end = 0, bytes = 0;
  };
  std::vector<std::vector<Staged>> staged_;  // per cluster: what tasks stage in its global buffer
  // Per global buffer, the (time, bytes) of its releases at stage ends not older than the horizon.
  std::vector<std::vector<std::pair<double, double>>> global_releases_;
  std::vector<double> staged_share_;  // scratch: a staging task's bytes by cluster
  std::vector<int> held_kept_whole_;  // scratch of hold_params: the task's weights counted whole
  std::vector<std::pair<double, double>> staged_events_;  // scratch of staging_start
  // (unit, tensor) -> the last stage with a task on the unit reading the tensor, for the tensors
  // some task pins.
  std::map<std::pair<int, int>, size_t> pin_last_read_;
  std::vector<std::vector<std::pair<double, double>>> events_;  // per buffer: (time, +/- bytes)
  std::vector<std::vector<std::pair<int, double>>> releases_;   // by stage: (buffer, bytes)
  DsaDemandCache demand_cache_;
  // Per tensor, indexed by its id (dense: 0 .. Graph::num_tensors() - 1; every one is looked up
  // for each input and output of each task, where maps keyed by id walked a tree each time; no
  // loop goes over them in id order, so the order of the entries changes nothing).
  std::vector<std::vector<WriteRecord>> writes_;  // empty: no write yet
  std::vector<double> last_end_;                  // the end of its last write
  std::vector<char> on_chip_;                     // whether a write is kept on chip
  // (tensor, region bounds) -> index in writes_ of the first partial sum there (the home); keyed
  // by partial_key (the tensor, then lo and hi per axis), looked up without allocating.
  std::unordered_map<std::vector<int64_t>, size_t, DsaDemandKeyHash> partial_home_;
  std::vector<int64_t> partial_key_;  // scratch of partial_key
  const std::vector<int64_t>& partial_key(int x, const Region& region) {
    partial_key_.clear();
    partial_key_.push_back(x);
    for (const Interval& i : region) {
      partial_key_.push_back(i.lo);
      partial_key_.push_back(i.hi);
    }
    return partial_key_;
  }
  static constexpr size_t kNoRead = static_cast<size_t>(-1);
  std::vector<size_t> last_read_stage_;  // kNoRead: no task reads it
  // (stage, region) of every read, for region-level release.
  std::vector<std::vector<std::pair<size_t, Region>>> reads_;
  // Of writes_ and reads_ (none: no write or read yet).
  std::vector<std::optional<RegionIndex>> write_index_, read_index_;
  std::vector<Piece> pieces_;                           // scratch of run_task
  std::vector<double> needs_;                           // scratch of run_task
  std::vector<Region> written_regions_;                 // scratch of run_task (by d.written)
  std::vector<int64_t> written_elems_;                  // scratch of run_task
  std::vector<std::pair<uint32_t, int64_t>> overlaps_;  // scratch: (write, common elements)
  double local_bytes_ = 0, global_bytes_ = 0, dram_bytes_ = 0;
  double macs_ = 0, core_busy_ = 0, matrix_busy_ = 0, vector_busy_ = 0, register_bits_ = 0;
  double end_ = 0;
  std::vector<double> stage_cycles_;  // per stage: its end less its start (the barrier's)
  // No transfer starts before the start of the previous stage (prefetch looks one stage ahead);
  // reservations that end before it are forgotten.
  double horizon_ = 0;
  int64_t transfers_ = 0;
};

// The peak of a buffer's occupancy from its (time, +/- bytes) events.
double peak_of(std::vector<std::pair<double, double>> ev);

}  // namespace dgs::dsa_sim
