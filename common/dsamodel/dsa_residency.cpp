// The buffers' residency in the DSA model's timeline (dsa_simulator.h): releases at stage ends,
// tensors pinned by Task::pinned, and weights that stay (weights_stay).
#include <algorithm>
#include <string>
#include <vector>

#include "common/dsamodel/dsa_simulator.h"
#include "common/util/error.h"

namespace dgs::dsa_sim {

void Simulator::release_stage(size_t stage, double at) {
  for (const auto& [buffer, bytes] : releases_[stage]) {
    if (buffer < n_units_) {
      resident_local_[static_cast<size_t>(buffer)] -= bytes;
      local_releases_[static_cast<size_t>(buffer)].push_back({at, bytes});
    } else {
      resident_global_[static_cast<size_t>(buffer - n_units_)] -= bytes;
      global_releases_[static_cast<size_t>(buffer - n_units_)].push_back({at, bytes});
    }
    events_[static_cast<size_t>(buffer)].push_back({at, -bytes});
  }
  if (!pin_last_read_.empty())
    for (std::vector<PinnedParam>& pins : pinned_)
      std::erase_if(pins, [&](const PinnedParam& p) { return p.until == stage; });
}

int64_t Simulator::last_later_read(int x, const Region& region, size_t si) const {
  const std::optional<RegionIndex>& ri = read_index_[static_cast<size_t>(x)];
  if (!ri) return -1;
  const std::vector<std::pair<size_t, Region>>& reads = reads_[static_cast<size_t>(x)];
  const int64_t last = ri->last_candidate(region, [&](uint32_t i) {
    // In stage order: no read before one at or before stage si is after it either.
    if (reads[i].first <= si) return RegionIndex::Match::NoneBelow;
    return overlap_numel(reads[i].second, region) != 0 ? RegionIndex::Match::Yes
                                                       : RegionIndex::Match::No;
  });
  return last < 0 ? -1 : static_cast<int64_t>(reads[static_cast<size_t>(last)].first);
}

bool Simulator::pinned_on_every_unit(const std::vector<int>& units, int x,
                                     const Region& need) const {
  for (int u : units) {
    const std::vector<PinnedParam>& pins = pinned_[static_cast<size_t>(u)];
    if (std::none_of(pins.begin(), pins.end(), [&](const PinnedParam& p) {
          return p.tensor == x && region_contains_exactly(p.region, need);
        }))
      return false;
  }
  return !units.empty();
}

void Simulator::pin_params(const Task& t, const DsaTaskDemandRef& d, size_t si, double at,
                           const std::string& label) {
  for (int x : t.pinned) {
    const auto in = std::find(d.inputs.begin(), d.inputs.end(), x);
    if (in == d.inputs.end()) continue;
    const Region& r = d.needed.at(x);
    const double bytes = static_cast<double>(region_numel(r)) * s_.element_bytes *
                         d.density[static_cast<size_t>(in - d.inputs.begin())] /
                         static_cast<double>(d.units.size());
    for (int u : d.units) {
      const auto last = pin_last_read_.find({u, x});
      if (last == pin_last_read_.end() || last->second <= si) continue;
      if (pinned_on_every_unit({u}, x, r)) continue;
      const size_t ui = static_cast<size_t>(u);
      if (resident_local_[ui] + bytes > static_cast<double>(s_.local_bytes))
        throw Error(label + ": pins " + std::to_string(static_cast<int64_t>(bytes)) +
                    " bytes of '" + g_.tensor(x).name + "' on " + unit_name(u) + " beside " +
                    std::to_string(static_cast<int64_t>(resident_local_[ui])) +
                    " bytes resident, capacity " + std::to_string(s_.local_bytes));
      resident_local_[ui] += bytes;
      events_[ui].push_back({at, bytes});
      releases_[last->second].push_back({u, bytes});
      pinned_[ui].push_back({x, r, bytes, last->second});
    }
  }
}

bool Simulator::held_by_every_unit(const std::vector<int>& units, int x, const Region& need) {
  for (int u : units) {
    std::vector<HeldParam>& held = held_params_[static_cast<size_t>(u)];
    const std::vector<Region>& regions = held_regions_[static_cast<size_t>(u)];
    const auto it = std::find_if(held.begin(), held.end(), [&](const HeldParam& h) {
      return h.tensor == x && region_contains_exactly(regions[h.region], need);
    });
    if (it == held.end()) return false;
    std::rotate(it, it + 1, held.end());  // used now: the most recent
  }
  return !units.empty();
}

size_t lru_weights_to_drop(const std::vector<double>& bytes, const std::vector<bool>& counted,
                           double room) {
  return lru_weights_to_drop(
      bytes.size(), [&](size_t i) { return bytes[i]; }, [&](size_t i) { return counted[i]; }, room);
}

// Least recently used out (weights_stay): the weights the task read go to the most recent end,
// and the least recently used leave until the rest fits beside the residents and the task's
// working set (which already counts the inputs it keeps whole, d.shape->stays). A weight is never
// refused while older ones stay: what a unit holds is the longest run of its most recently used
// weights that fits, so a larger buffer holds at every step all that a smaller one holds (the
// inclusion property of LRU), and never loads a weight again that the smaller one reads in place.
void Simulator::hold_params(const DsaTaskDemandRef& d) {
  if (!s_.weights_stay) return;
  for (int u : d.units) {
    std::vector<HeldParam>& held = held_params_[static_cast<size_t>(u)];
    std::vector<Region>& regions = held_regions_[static_cast<size_t>(u)];
    std::vector<uint32_t>& free = held_free_[static_cast<size_t>(u)];
    const double room = static_cast<double>(s_.local_bytes) -
                        resident_local_[static_cast<size_t>(u)] -
                        static_cast<double>(d.shape->working_set_bytes);
    std::vector<int>& kept_whole = held_kept_whole_;  // the task's weights counted whole
    kept_whole.clear();
    for (size_t i = 0; i < d.inputs.size(); ++i) {
      const int x = d.inputs[i];
      if (!g_.tensor(x).is_param()) continue;
      const Region& r = d.needed.at(x);
      const double bytes = static_cast<double>(region_numel(r)) * s_.element_bytes * d.density[i] /
                           static_cast<double>(d.units.size());
      // At most one entry per tensor: the new one replaces it, at the most recent end (searched
      // from there: a unit's tasks mostly read the weights its previous task read).
      const auto old = std::find_if(held.rbegin(), held.rend(),
                                    [x](const HeldParam& h) { return h.tensor == x; });
      if (old != held.rend()) {
        free.push_back(old->region);
        held.erase(std::next(old).base());
      }
      uint32_t slot = static_cast<uint32_t>(regions.size());
      if (free.empty()) {
        regions.push_back(r);
      } else {
        slot = free.back();
        free.pop_back();
        regions[slot] = r;
      }
      held.push_back({x, slot, bytes});
      if (d.shape->stays[i]) kept_whole.push_back(x);
    }
    const size_t drop = lru_weights_to_drop(
        held.size(), [&](size_t k) { return held[k].bytes; },
        [&](size_t k) {
          return std::find(kept_whole.begin(), kept_whole.end(), held[k].tensor) !=
                 kept_whole.end();
        },
        room);
    for (size_t i = 0; i < drop; ++i) free.push_back(held[i].region);
    held.erase(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(drop));
  }
}

double Simulator::staging_start(const std::vector<int>& units, double dram_once, double from) {
  from = std::max(from, horizon_);  // no transfer starts before the horizon
  std::vector<double>& share = staged_share_;
  share.assign(static_cast<size_t>(s_.clusters), 0.0);
  for (int u : units)
    share[static_cast<size_t>(cluster_of(u))] += dram_once / static_cast<double>(units.size());
  std::vector<std::pair<double, double>>& ev = staged_events_;
  double start = from;
  for (size_t c = 0; c < share.size(); ++c) {
    if (share[c] <= 0) continue;
    const double room = static_cast<double>(s_.global_bytes) - resident_global_[c] - share[c];
    if (room < 0) return INFINITY;
    std::vector<Staged>& held = staged_[c];
    std::erase_if(held, [&](const Staged& x) { return x.end <= horizon_; });
    ev.clear();
    for (const Staged& x : held)
      if (x.end > from) {
        ev.push_back({std::max(x.start, from), x.bytes});
        ev.push_back({x.end, -x.bytes});
      }
    // Tensors released at stage ends after `from` are still held until then.
    std::erase_if(global_releases_[c], [&](const auto& x) { return x.first <= horizon_; });
    for (const auto& [at, bytes] : global_releases_[c])
      if (at > from) {
        ev.push_back({from, bytes});
        ev.push_back({at, -bytes});
      }
    // After the last moment the earlier stagings and those tensors hold more than the room:
    // from the release that ends it (releases before acquisitions at the same time).
    std::sort(ev.begin(), ev.end());
    double cur = 0;
    bool over = false;
    for (const auto& [at, bytes] : ev) {
      if (over) start = std::max(start, at);
      cur += bytes;
      over = cur > room;
    }
  }
  return start;
}

void Simulator::hold_staging(const std::vector<int>& units, double dram_once, double start,
                             double end) {
  const double share = dram_once / static_cast<double>(units.size());
  for (int u : units) {
    const int c = cluster_of(u);
    staged_[static_cast<size_t>(c)].push_back({start, end, share});
    events_[static_cast<size_t>(n_units_ + c)].push_back({start, share});
    events_[static_cast<size_t>(n_units_ + c)].push_back({end, -share});
  }
}

}  // namespace dgs::dsa_sim
