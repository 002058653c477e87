// The DSA model's timeline (see dsa_model.h for the mapping of plan fields).
#include "common/dsamodel/dsa_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "common/dsamodel/dsa_simulator.h"
#include "common/util/error.h"

namespace dgs {

namespace dsa_sim {

int64_t Simulator::written_elems(const DsaTaskDemandRef& d, int x) const {
  const auto w = std::find(d.written.begin(), d.written.end(), x);
  return written_elems_[static_cast<size_t>(w - d.written.begin())];
}

// Partial sums: the home of this task's group (null: the task is the first of its group, or has
// no reduction slice).
WriteRecord* Simulator::partial_home(const Task& t) {
  if (!t.reduction.active()) return nullptr;
  const int out = g_.op(t.ops.at(0)).outputs.at(0);
  const auto it = partial_home_.find(partial_key(out, task_written_region(g_, t, out)));
  if (it == partial_home_.end()) return nullptr;
  return &writes_[static_cast<size_t>(out)][it->second];
}

// Capacity of every unit's local buffer: working set (less inputs already resident there)
// plus the tensors resident there. `need` is what the task adds to its unit's buffer (the
// buffer's occupancy over time, peak_<local>_bytes, counts the same); into needs_ (by unit).
void Simulator::unit_needs(const TaskRun& r, double pinned_in_place, size_t si, size_t ti) {
  const Task& t = r.t;
  const DsaTaskDemandRef& d = r.d;
  const double n = r.n;
  const bool tiled = r.tiled;
  std::vector<Piece>& pieces = pieces_;
  // A tiled task whose output stays in its units' buffers holds its finished tiles there until
  // it ends: the whole output beside the working set.
  double kept_out = 0;
  if (tiled && !r.partial_follower)  // a later partial sum goes to its home
    for (int x : d.written) {
      const auto sc = t.scope.find(x);
      if (sc != t.scope.end() && level_of(sc->second) == Level::Local)
        kept_out += static_cast<double>(written_elems(d, x)) * s_.element_bytes / n;
    }
  std::vector<double>& needs = needs_;
  needs.clear();
  for (int u : d.units) {
    double in_place = 0;
    if (!tiled)
      for (const Piece& pc : pieces)
        if (pc.level == Level::Local && pc.units &&
            std::find(pc.units->begin(), pc.units->end(), u) != pc.units->end())
          in_place += pc.bytes / n / static_cast<double>(pc.units->size());
    const double need = std::max(0.0, static_cast<double>(d.shape->working_set_bytes) + kept_out -
                                          in_place - pinned_in_place);
    needs.push_back(need);
    const double resident = resident_local_[static_cast<size_t>(u)];
    if (need + resident > static_cast<double>(s_.local_bytes))
      throw Error(dsa_task_label(g_, t, si, ti) + ": overflows " + s_.local_level + " of " +
                  unit_name(u) + ": needs " + std::to_string(static_cast<int64_t>(need)) +
                  " bytes (working set) + " + std::to_string(static_cast<int64_t>(resident)) +
                  " bytes resident, capacity " + std::to_string(s_.local_bytes));
  }
}

// When the loads of the task's k-th unit may start: a double-buffered task may start loading
// once its unit's previous task has started its last tile (which then holds its
// last_tile_bytes), if both fit beside the residents.
double Simulator::load_gate(const TaskRun& r, size_t k) const {
  const size_t ui = static_cast<size_t>(r.d.units[k]);
  const std::vector<double>& needs = needs_;
  const double ws = needs[k];  // tiled: the working set and kept outputs, less what is pinned
  const bool across = p_.options.prefetch_across_stages;
  const bool prefetch =
      across && r.tiled &&
      ws + prev_last_[ui] + resident_local_[ui] <= static_cast<double>(s_.local_bytes);
  double gate = !across    ? std::max(unit_end_[ui], r.stage_start)
                : prefetch ? last_tile_start_[ui]
                           : unit_end_[ui];
  // Loads that start before the stage does share the buffer with what earlier stages release
  // at their ends (the capacity check above counts the buffer after the releases): with
  // loads_wait_for_releases they wait for the first release after which they fit.
  if (s_.loads_wait_for_releases) {
    const double adds = (prefetch ? ws + prev_last_[ui] : needs[k]) + resident_local_[ui];
    double held = 0;
    for (const auto& [at, bytes] : local_releases_[ui])
      if (at > gate) held += bytes;
    for (const auto& [at, bytes] : local_releases_[ui]) {
      if (adds + held <= static_cast<double>(s_.local_bytes)) break;
      if (at <= gate) continue;
      gate = at;
      held -= bytes;
    }
  }
  return gate;
}

// The loads of unit u's part of the task from `gate`: its pieces, and a partial sum's running
// sum kept at a global or DRAM level.
Simulator::UnitLoads Simulator::load_unit(const TaskRun& r, int u, double gate) {
  const double n = r.n;
  const bool staged = r.staged;
  const double dram_once = r.dram_once;
  const bool partial_follower = r.partial_follower;
  WriteRecord* home = r.home;
  std::vector<Piece>& pieces = pieces_;
  UnitLoads l;
  double& load_start = l.start;
  double& load_end = l.end;
  double& local_hit = l.local_hit;
  load_start = -1;
  load_end = std::max(gate, r.stage_start);
  local_hit = 0;
  for (const Piece& pc : pieces) {
    const double ready = std::max(gate, pc.available);
    if (staged && pc.level == Level::Dram && !pc.units) {
      const Span once = dram_transfer(u, dram_once / n, std::max(ready, r.staged_from));
      l.staged_start = once.start;
      global_bytes_ += dram_once / n;  // written into the global buffer on the way
      const Span again = global_transfer(cluster_of(u), u, (pc.bytes - dram_once) / n, once.start);
      load_start = load_start < 0 ? once.start : std::min(load_start, once.start);
      load_end = std::max({load_end, once.end, again.end});
      continue;
    }
    const Span sp = fetch(pc.level, pc.units, u, pc.bytes / n, ready, local_hit);
    load_start = load_start < 0 ? sp.start : std::min(load_start, sp.start);
    load_end = std::max(load_end, sp.end);
  }
  // A partial sum kept at a global or DRAM level: read the running sum, add, write back.
  double& add_cycles = l.add_cycles;
  add_cycles = 0;
  if (partial_follower && home->level != Level::Local) {
    const double b = static_cast<double>(region_numel(home->region)) * s_.element_bytes / n;
    const Span sp = fetch(home->level, home->units, u, b, std::max(gate, home->end), local_hit);
    load_end = std::max(load_end, sp.end);
    add_cycles = std::ceil(static_cast<double>(region_numel(home->region)) / n /
                           std::max(1, s_.vector_lanes));
  }
  if (load_start < 0) load_start = load_end;
  return l;
}

// The stores of unit u's part of the task's written tensors from `store_ready` (a later partial
// sum: sent to its home); when the unit is done with them (its compute ends at ce).
double Simulator::store_unit(const TaskRun& r, int u, double store_ready, double ce) {
  const Task& t = r.t;
  const DsaTaskDemandRef& d = r.d;
  const double n = r.n;
  const bool tiled = r.tiled;
  const double tiles = r.tiles;
  WriteRecord* home = r.home;
  double unit_done = ce;
  for (int x : d.written) {
    const auto sc = t.scope.find(x);
    const Level level = sc == t.scope.end() ? Level::Dram : level_of(sc->second);
    const double b = static_cast<double>(written_elems(d, x)) * s_.element_bytes / n;
    if (r.partial_follower && home->level == Level::Local) {
      // Sent to the home, whose vector unit adds it on arrival.
      const double share = b / static_cast<double>(home->units->size());
      for (int h : *home->units) {
        const Span sp = unit_transfer(u, h, share, store_ready);
        const double add = std::ceil(share / s_.element_bytes / std::max(1, s_.vector_lanes));
        const size_t hi = static_cast<size_t>(h);
        unit_free_[hi] = std::max(unit_free_[hi], sp.end) + add;
        vector_busy_ += add;
        core_busy_ += add;
        home->end = std::max(home->end, unit_free_[hi]);
        unit_done = std::max(unit_done, unit_free_[hi]);
      }
      continue;
    }
    if (level == Level::Local) continue;  // stays in this unit's buffer
    const Span sp = store(level, u, b, store_ready);
    unit_done =
        std::max(unit_done, tiled ? std::max(sp.end, ce + (sp.end - sp.start) / tiles) : sp.end);
  }
  return unit_done;
}

void Simulator::run_task(size_t si, size_t ti, const DsaTaskDemandRef& d, double stage_start,
                         double& stage_end) {
  const Task& t = p_.stages[si].tasks[ti];
  auto label = [&] { return dsa_task_label(g_, t, si, ti); };
  const double n = static_cast<double>(d.units.size());
  const bool tiled = !t.tile.empty();
  const double tiles = static_cast<double>(d.shape->tiles);

  // The elements of each written tensor's region (aligned with d.written; per task, not per unit).
  written_regions_.clear();
  written_elems_.clear();
  for (int x : d.written) {
    written_regions_.push_back(task_written_region(g_, t, x));
    written_elems_.push_back(region_numel(written_regions_.back()));
  }
  std::vector<Piece>& pieces = pieces_;  // reused: run_task runs for every task of a plan
  const InputPieces inputs = gather_pieces(d);
  const Piece& from_dram = inputs.from_dram;
  const double dram_once = inputs.dram_once;
  WriteRecord* home = partial_home(t);
  const bool partial_follower = home != nullptr;
  TaskRun run{t, d, n, tiled, tiles, stage_start, false, 0, dram_once, partial_follower, home};
  std::vector<double>& needs = needs_;
  unit_needs(run, inputs.pinned_in_place, si, ti);
  // Staging (clusters): the DRAM regions a task reads more than once (its loop nest's re-reads,
  // or several cores reading the same region) pass through its cluster's global buffer when they
  // fit beside the tensors resident there: DRAM gives each region once, the global buffer the rest
  // over the cluster bus. They hold their room from their DRAM read's start to the task's end;
  // the read waits until the other tasks' staging and the tensors released at stage ends leave it.
  if (!s_.global_level.empty() && from_dram.bytes > dram_once) {
    double from = INFINITY;  // the earliest its DRAM read can start
    for (size_t k = 0; k < d.units.size(); ++k)
      from = std::min(from, std::max(load_gate(run, k), from_dram.available));
    run.staged_from = staging_start(d.units, dram_once, from);
    run.staged = run.staged_from < INFINITY;
  }
  double staged_start = INFINITY;

  const double overhead = s_.task_overhead_cycles;
  double task_end = stage_start;
  for (size_t k = 0; k < d.units.size(); ++k) {
    const int u = d.units[k];
    const size_t ui = static_cast<size_t>(u);
    const double ws = needs[k];  // tiled: the working set and kept outputs, less what is pinned
    const double gate = load_gate(run, k);
    const UnitLoads loads = load_unit(run, u, gate);
    const double load_start = loads.start, load_end = loads.end, local_hit = loads.local_hit;
    const double add_cycles = loads.add_cycles;
    staged_start = std::min(staged_start, loads.staged_start);
    // The port carries the operands to and from the array and vector unit and, while tiles
    // run, this unit's loads and stores as well: the compute lasts as long as the longer of the
    // two (an untiled task loads before and stores after it computes). The loads and stores of
    // single-buffered tiles (buffer_nest.h) do not overlap it: their bytes leave the port's sum
    // and their stall (the mapper's, at the narrower of the port and the DRAM share) is added.
    double moved = 0;
    for (const Piece& pc : pieces) moved += tiled ? pc.bytes / n : 0;
    moved -= tiled ? local_hit : 0;
    for (int x : d.written) {
      if (!tiled) break;
      const auto sc = t.scope.find(x);
      const bool stays = sc != t.scope.end() && level_of(sc->second) == Level::Local;
      if (!stays || partial_follower)
        moved += static_cast<double>(written_elems(d, x)) * s_.element_bytes / n;
    }
    moved = tiled ? std::max(0.0, moved - d.shape->serial_bytes) : moved;
    const double port = std::ceil((d.shape->operand_bytes / n + moved) / s_.local_bandwidth());
    const double compute =
        std::max(d.shape->compute_cycles() + add_cycles, port + d.shape->fill_cycles) + overhead +
        (tiled ? d.shape->stall_cycles : 0);
    double cs = 0, ce = 0;
    if (tiled) {
      cs = std::max({stage_start, unit_free_[ui], load_start + (load_end - load_start) / tiles});
      ce = std::max(cs + compute, load_end + compute / tiles);
    } else {
      cs = std::max({stage_start, unit_free_[ui], load_end});
      ce = cs + compute;
    }
    core_busy_ += compute;
    matrix_busy_ += d.shape->matrix_cycles;
    vector_busy_ += d.shape->vector_cycles + add_cycles;
    const double store_ready = tiled ? cs + compute / tiles : ce;
    const double unit_done = store_unit(run, u, store_ready, ce);
    // The last tile needs no second buffers (of what the task adds, ws).
    const double second =
        std::min(ws, static_cast<double>(d.shape->working_set_bytes - d.shape->last_tile_bytes));
    if (tiled) {
      events_[ui].push_back({load_start, ws});
      events_[ui].push_back({ce - compute / tiles, -second});
      events_[ui].push_back({unit_done, -(ws - second)});
    } else {  // inputs already resident here are not loaded again
      events_[ui].push_back({load_start, needs[k]});
      events_[ui].push_back({unit_done, -needs[k]});
    }
    prev_last_[ui] = tiled ? ws - second : 0;
    unit_free_[ui] = std::max(unit_free_[ui], tiled ? ce : unit_done);
    unit_end_[ui] = std::max(unit_end_[ui], unit_done);
    last_tile_start_[ui] = tiled ? ce - compute / tiles : unit_done;
    std::erase_if(local_releases_[ui],
                  [&](const auto& r) { return r.first <= last_tile_start_[ui]; });
    task_end = std::max(task_end, unit_done);
  }
  if (run.staged) hold_staging(d.units, dram_once, staged_start, task_end);
  macs_ += d.shape->macs;
  local_bytes_ += d.shape->operand_bytes;
  register_bits_ += d.shape->register_bits;
  hold_params(d);
  if (!t.pinned.empty()) pin_params(t, d, si, task_end, label());

  record_writes(si, ti, d, task_end, home);  // home: set only for a partial follower
  stage_end = std::max(stage_end, task_end);
}

// The pieces of every input of a task into pieces_: the writes it intersects, or DRAM.
// Everything read from DRAM is one transfer (one DMA descriptor list), ready when its last
// piece is.
Simulator::InputPieces Simulator::gather_pieces(const DsaTaskDemandRef& d) {
  std::vector<Piece>& pieces = pieces_;
  pieces.clear();
  InputPieces r;
  Piece& from_dram = r.from_dram;
  double& dram_once = r.dram_once;
  double& pinned_in_place = r.pinned_in_place;
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    const int x = d.inputs[i];
    const Region& need = d.needed.at(x);
    const std::vector<WriteRecord>& ws = writes_[static_cast<size_t>(x)];
    const double refetch = d.shape->reload[i];
    const double touched = d.density[i];  // of the region's box, what its loads move
    if (!pin_last_read_.empty() && pinned_on_every_unit(d.units, x, need)) {
      pinned_in_place += d.shape->held[i];  // resident already: the buffer holds it once
      continue;                             // pinned on its units by an earlier task: read in place
    }
    if (s_.weights_stay && g_.tensor(x).is_param() && held_by_every_unit(d.units, x, need)) {
      continue;  // still in the buffer since an earlier task of its units: read in place
    }
    if (ws.empty() || !on_chip_[static_cast<size_t>(x)]) {
      // Weights, graph inputs, or a tensor written only to DRAM (whose writes tile it): the
      // region as one DMA read, available when the last write overlapping it is. Not when the
      // tensor's last write is: a pipeline stage that writes one sample of a tensor while
      // another task of the stage reads an earlier sample of it (CNN-P's CLPs) would otherwise
      // hold that read until the unrelated write ends, serialising the stage's regions.
      from_dram.bytes +=
          static_cast<double>(region_numel(need)) * s_.element_bytes * touched * refetch;
      dram_once += static_cast<double>(region_numel(need)) * s_.element_bytes * touched;
      if (!ws.empty() && last_end_[static_cast<size_t>(x)] > from_dram.available) {
        write_index_[static_cast<size_t>(x)]->for_each_candidate(need, [&](uint32_t wi) {
          if (ws[wi].end > from_dram.available && overlap_numel(ws[wi].region, need) != 0)
            from_dram.available = ws[wi].end;
        });
      }
      continue;
    }
    // The writes overlapping the region, in the order they were made.
    overlaps_.clear();
    if (const std::optional<RegionIndex>& wx = write_index_[static_cast<size_t>(x)])
      wx->for_each_candidate(need, [&](uint32_t wi) {
        const int64_t common = overlap_numel(ws[wi].region, need);
        if (common != 0) overlaps_.push_back({wi, common});
      });
    std::sort(overlaps_.begin(), overlaps_.end());
    for (const auto& [wi, common] : overlaps_) {
      const WriteRecord& w = ws[wi];
      const double bytes = static_cast<double>(common) * s_.element_bytes * touched * refetch;
      if (w.level == Level::Dram) {
        from_dram.bytes += bytes;
        dram_once += static_cast<double>(common) * s_.element_bytes * touched;
        from_dram.available = std::max(from_dram.available, w.end);
      } else {
        pieces.push_back({bytes, w.level, w.units, w.end});
      }
    }
  }
  if (from_dram.bytes > 0) pieces.push_back(from_dram);
  return r;
}

// Where the tensors task ti of stage si wrote now live (its output regions, their levels and
// releases); a later partial sum of a group (`home` non-null) only moves its home's end.
void Simulator::record_writes(size_t si, size_t ti, const DsaTaskDemandRef& d, double task_end,
                              WriteRecord* home) {
  const Task& t = p_.stages[si].tasks[ti];
  auto label = [&] { return dsa_task_label(g_, t, si, ti); };
  const double n = static_cast<double>(d.units.size());
  const bool partial_follower = home != nullptr;
  for (size_t k = 0; k < d.written.size(); ++k) {
    const int x = d.written[k];
    const auto sc = t.scope.find(x);
    const Level level = sc == t.scope.end() ? Level::Dram : level_of(sc->second);
    const size_t xi = static_cast<size_t>(x);
    double& last = last_end_[xi];
    if (partial_follower) {
      home->end = std::max(home->end, task_end);
      last = std::max(last, home->end);
      continue;
    }
    std::vector<WriteRecord>& ws = writes_[xi];
    ws.push_back({std::move(written_regions_[k]), level, &d.units, task_end});
    const Region& region = ws.back().region;
    if (!write_index_[xi]) write_index_[xi].emplace(g_.tensor(x).shape);
    write_index_[xi]->add(region);
    last = std::max(last, task_end);
    if (level != Level::Dram) on_chip_[xi] = 1;
    if (t.reduction.active()) partial_home_[partial_key(x, region)] = ws.size() - 1;
    const double bytes = static_cast<double>(region_numel(region)) * s_.element_bytes;
    // Released after the last later stage that reads part of this region (a region no later
    // stage reads: after the tensor's last read).
    const size_t lr = last_read_stage_[xi];
    size_t release = lr == kNoRead ? p_.stages.size() : lr;
    const int64_t region_release = last_later_read(x, region, si);
    if (region_release >= 0) release = static_cast<size_t>(region_release);
    if (level == Level::Local) {
      for (int u : d.units) {
        resident_local_[static_cast<size_t>(u)] += bytes / n;
        events_[static_cast<size_t>(u)].push_back({task_end, bytes / n});
        releases_[release].push_back({u, bytes / n});
      }
    } else if (level == Level::Global) {
      const int c = cluster_of(d.units.front());
      double& r = resident_global_[static_cast<size_t>(c)];
      if (r + bytes > static_cast<double>(s_.global_bytes))
        throw Error(label() + ": overflows " + s_.global_level + " of cluster " +
                    std::to_string(c) + ": " + std::to_string(static_cast<int64_t>(r)) +
                    " bytes resident + " + std::to_string(static_cast<int64_t>(bytes)) +
                    " written, capacity " + std::to_string(s_.global_bytes));
      r += bytes;
      events_[static_cast<size_t>(n_units_ + c)].push_back({task_end, bytes});
      releases_[release].push_back({n_units_ + c, bytes});
    }
  }
}

double peak_of(std::vector<std::pair<double, double>> ev) {
  // Releases before acquisitions at the same time.
  std::sort(ev.begin(), ev.end());
  double cur = 0, peak = 0;
  for (const auto& [time, delta] : ev) {
    (void)time;
    cur += delta;
    peak = std::max(peak, cur);
  }
  return peak;
}

EvaluationResult Simulator::run() {
  std::set<int> pinned;  // tensors some task pins
  for (const Stage& st : p_.stages)
    for (const Task& t : st.tasks) pinned.insert(t.pinned.begin(), t.pinned.end());
  std::vector<std::vector<DsaTaskDemandRef>> demand(p_.stages.size());
  for (size_t si = 0; si < p_.stages.size(); ++si) {
    demand[si].reserve(p_.stages[si].tasks.size());
    for (size_t ti = 0; ti < p_.stages[si].tasks.size(); ++ti) {
      const Task& t = p_.stages[si].tasks[ti];
      try {
        demand[si].push_back(
            dsa_task_demand_ref(g_, t, s_, dsa_placement_units(t.placement, s_), demand_cache_));
      } catch (const Error& e) {
        throw Error(dsa_task_label(g_, t, si, ti) + ": " + e.what());
      }
      if (!pinned.empty())
        for (int x : demand[si].back().inputs)
          if (pinned.count(x))
            for (int u : demand[si].back().units) pin_last_read_[{u, x}] = si;
      for (int x : demand[si].back().inputs) {
        // A task that needs an empty region of a tensor (a Concat slice of another input) does
        // not read it and does not keep it on chip.
        const auto nr = demand[si].back().needed.find(x);
        if (nr != demand[si].back().needed.end() && region_empty(nr->second)) continue;
        const size_t xi = static_cast<size_t>(x);
        last_read_stage_[xi] = si;
        if (nr != demand[si].back().needed.end()) {
          reads_[xi].push_back({si, nr->second});
          if (!read_index_[xi]) read_index_[xi].emplace(g_.tensor(x).shape);
          read_index_[xi]->add(nr->second);
        }
      }
    }
  }
  double stage_start = 0, previous_start = 0;
  for (size_t si = 0; si < p_.stages.size(); ++si) {
    horizon_ = previous_start;
    forget_before(horizon_);
    previous_start = stage_start;
    double stage_end = stage_start;
    for (size_t ti = 0; ti < p_.stages[si].tasks.size(); ++ti)
      run_task(si, ti, demand[si][ti], stage_start, stage_end);
    for (double f : unit_free_) stage_end = std::max(stage_end, f);
    release_stage(si, stage_end);
    stage_cycles_.push_back(stage_end - stage_start);
    stage_start = stage_end;
  }
  end_ = stage_start;
  release_stage(p_.stages.size(), end_);

  const double mhz = s_.clock_mhz;
  const double latency_us = end_ / mhz;
  EvaluationResult r;
  r.hardware_kind = "dsa";
  r.hardware_name = s_.name;
  r.evaluator = "DSA model";
  r.latency_us = latency_us;
  r.flops = 2 * macs_;
  r.stages = static_cast<int64_t>(p_.stages.size());
  for (double c : stage_cycles_) r.stage_latency_us.push_back(c / mhz);
  r.tasks = p_.num_tasks();
  r.kernels = r.tasks;
  add_value(r.bytes_by_level, s_.local_level, local_bytes_);
  if (!s_.global_level.empty()) add_value(r.bytes_by_level, s_.global_level, global_bytes_);
  add_value(r.bytes_by_level, s_.dram_level, dram_bytes_);
  const bool mesh = s_.topology == DsaTopology::Mesh;
  add_value(r.busy_us_by_unit, mesh ? "engine" : "core", core_busy_ / mhz);
  add_value(r.busy_us_by_unit, "matrix", matrix_busy_ / mhz);
  add_value(r.busy_us_by_unit, "vector", vector_busy_ / mhz);
  double dma_busy = 0;
  for (const Resource& x : dma_) dma_busy += x.busy.total();
  add_value(r.busy_us_by_unit, "dma", dma_busy / mhz);
  const double byte_hops = noc_ ? noc_->byte_hops() : 0;
  add_value(r.energy_pj_by_component, "mac", macs_ * s_.mac_pj);
  add_value(r.energy_pj_by_component, "registers", register_bits_ * s_.register_pj_per_bit);
  add_value(r.energy_pj_by_component, s_.local_level, local_bytes_ * 8 * s_.local_pj_per_bit);
  if (!s_.global_level.empty())
    add_value(r.energy_pj_by_component, s_.global_level, global_bytes_ * 8 * s_.global_pj_per_bit);
  if (mesh) add_value(r.energy_pj_by_component, "noc", byte_hops * 8 * s_.noc_pj_per_bit_hop);
  add_value(r.energy_pj_by_component, s_.dram_level, dram_bytes_ * 8 * s_.dram_pj_per_bit);
  // mW x us = 1e-9 J = 1e3 pJ.
  add_value(r.energy_pj_by_component, "static",
            s_.static_mw_per_unit * n_units_ * latency_us * 1e3);
  double peak_local = 0, peak_global = 0;
  for (int b = 0; b < n_units_ + s_.clusters; ++b) {
    const double pk = peak_of(std::move(events_[static_cast<size_t>(b)]));  // not read again
    (b < n_units_ ? peak_local : peak_global) =
        std::max(b < n_units_ ? peak_local : peak_global, pk);
  }
  add_value(r.details, "peak_" + s_.local_level + "_bytes", peak_local);
  if (!s_.global_level.empty())
    add_value(r.details, "peak_" + s_.global_level + "_bytes", peak_global);
  if (mesh) {
    double max_link = 0, used = 0;
    const std::vector<double>& link_bytes = noc_->link_bytes();
    for (size_t id = 0; id < link_bytes.size(); ++id) {
      const double b = link_bytes[id];
      max_link = std::max(max_link, b);
      used += b > 0 ? 1 : 0;
      if (b > 0) add_value(r.bytes_by_link, noc_->link_name(static_cast<int>(id)), b);
    }
    add_value(r.details, "noc_byte_hops", byte_hops);
    add_value(r.details, "noc_max_link_bytes", max_link);
    add_value(r.details, "noc_links_used", used);
  }
  const double peak_macs = s_.matrix_macs_per_cycle * n_units_ * end_;
  add_value(r.details, "mac_utilisation", peak_macs > 0 ? macs_ / peak_macs : 0);
  add_value(r.details, "dram_busy_fraction", end_ > 0 ? dram_.busy.total() / end_ : 0);
  add_value(r.details, "transfers", static_cast<double>(transfers_));
  return r;
}

}  // namespace dsa_sim

EvaluationResult evaluate_dsa_plan(const Graph& g, const Plan& plan, const DsaSpec& spec) {
  // Every task's regions come from its ops' spaces: built once (unless a caller's memo lives).
  std::optional<IterationSpaceMemo> spaces;
  if (!IterationSpaceMemo::active(g)) spaces.emplace(g);
  dsa_sim::Simulator sim(g, plan, spec);
  return sim.run();
}

}  // namespace dgs
