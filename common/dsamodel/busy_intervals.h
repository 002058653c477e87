#pragma once
// The busy intervals of one shared resource (a DRAM channel, a DMA engine, a bus, a buffer port, a
// mesh link) over the timeline, so that a transfer issued later in plan order can use a gap left
// earlier (a load of the next stage between the stores of this one).
#include <map>

namespace dgs {

class BusyIntervals {
 public:
  // The earliest time >= t at which [time, time + duration) overlaps no busy interval.
  double earliest_free(double t, double duration) const {
    if (duration <= 0 || busy_.empty()) return t;
    auto it = busy_.upper_bound(t);
    if (it != busy_.begin()) {
      auto prev = std::prev(it);
      if (prev->second > t) t = prev->second;
    }
    for (it = busy_.upper_bound(t); it != busy_.end() && it->first < t + duration; ++it)
      t = std::max(t, it->second);
    return t;
  }
  // Marks [start, start + duration) busy (the caller found it free).
  void add(double start, double duration) {
    if (duration <= 0) return;
    total_ += duration;
    double end = start + duration;
    // Merge with a neighbour that touches it, to keep the map small.
    auto next = busy_.find(end);
    if (next != busy_.end()) {
      end = next->second;
      busy_.erase(next);
    }
    auto it = busy_.lower_bound(start);
    if (it != busy_.begin()) {
      auto prev = std::prev(it);
      if (prev->second == start) {
        prev->second = end;
        return;
      }
    }
    busy_[start] = end;
  }
  // Forgets the intervals that end at or before t (no transfer starts before t any more).
  void forget_before(double t) {
    while (!busy_.empty() && busy_.begin()->second <= t) busy_.erase(busy_.begin());
  }
  double total() const { return total_; }  // busy time in all

 private:
  std::map<double, double> busy_;  // start -> end, disjoint
  double total_ = 0;
};

}  // namespace dgs
