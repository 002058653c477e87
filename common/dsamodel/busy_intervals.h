#pragma once
// The busy intervals of one shared resource (a DRAM channel, a DMA engine, a bus, a buffer port, a
// mesh link) over the timeline, so that a transfer issued later in plan order can use a gap left
// earlier (a load of the next stage between the stores of this one).
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace dgs {

// Disjoint intervals kept sorted in a vector (most transfers land at the end of the timeline,
// so an insertion moves few entries); the ones forgotten are skipped by an offset and dropped in
// bulk.
class BusyIntervals {
 public:
  // The earliest time >= t at which [time, time + duration) overlaps no busy interval.
  double earliest_free(double t, double duration) const {
    size_t slot = 0;
    return earliest_free(t, duration, slot);
  }
  // The same, and in `slot` where [time, time + duration) goes among the intervals (for add_at,
  // while no interval is added or forgotten in between).
  double earliest_free(double t, double duration, size_t& slot) const {
    if (duration <= 0 || head_ == busy_.size() || busy_.back().second <= t) {
      slot = busy_.size();
      return t;
    }
    auto it = after(t);
    if (it != first()) {
      auto prev = std::prev(it);
      if (prev->second > t) t = prev->second;
    }
    // The intervals starting after the new t: t only moved to prev's end, which is at or before
    // the start of `it` (disjoint, sorted), so they begin at `it` (skipping one that starts at t).
    while (it != busy_.end() && it->first <= t) ++it;
    for (; it != busy_.end() && it->first < t + duration; ++it) t = std::max(t, it->second);
    slot = static_cast<size_t>(it - busy_.begin());
    return t;
  }
  // earliest_free(t, duration, slot) for a t at or after a start s that an earlier call put at
  // `slot` (no interval added or forgotten since): the intervals before slot end by s, so the
  // search resumes there, and gives the same time and slot.
  double earliest_free_from(double t, double duration, size_t& slot) const {
    size_t i = slot;
    const size_t n = busy_.size();
    for (; i < n && busy_[i].first < t + duration; ++i) t = std::max(t, busy_[i].second);
    slot = i;
    return t;
  }
  // add(start, duration) where earliest_free(..., duration, slot) returned start (the slot's
  // neighbours: the interval before it ends at or before start, the one at it begins at or after
  // start + duration): the same intervals as add, without searching for the place.
  void add_at(size_t slot, double start, double duration) {
    if (duration <= 0) return;
    total_ += duration;
    const double end = start + duration;
    const bool join_prev = slot > head_ && busy_[slot - 1].second == start;
    if (slot < busy_.size() && busy_[slot].first == end) {
      if (join_prev) {
        busy_[slot - 1].second = busy_[slot].second;
        busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(slot));
      } else {
        busy_[slot].first = start;
      }
    } else if (join_prev) {
      busy_[slot - 1].second = end;
    } else {
      busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(slot), {start, end});
    }
  }
  // Marks [start, start + duration) busy (the caller found it free).
  void add(double start, double duration) {
    if (duration <= 0) return;
    total_ += duration;
    double end = start + duration;
    if (head_ < busy_.size() && busy_.back().second <= start) {  // at the end: the usual case
      if (busy_.back().second == start) {
        busy_.back().second = end;
      } else {
        busy_.push_back({start, end});
      }
      return;
    }
    // Merge with a neighbour that touches it, to keep the list short.
    auto next = at_or_after(end);
    if (next != busy_.end() && next->first == end) {
      end = next->second;
      busy_.erase(next);
    }
    auto it = at_or_after(start);
    if (it != first()) {
      auto prev = std::prev(it);
      if (prev->second == start) {
        prev->second = end;
        return;
      }
    }
    if (it != busy_.end() && it->first == start) {
      it->second = end;
      return;
    }
    busy_.insert(it, {start, end});
  }
  // Forgets the intervals that end at or before t (no transfer starts before t any more).
  void forget_before(double t) {
    while (head_ < busy_.size() && busy_[head_].second <= t) ++head_;
    if (head_ > 64 && head_ * 2 > busy_.size()) {
      busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(head_));
      finger_ -= std::min(finger_, head_);
      head_ = 0;
    }
  }
  double total() const { return total_; }  // busy time in all

 private:
  using Entry = std::pair<double, double>;  // start, end
  using Iter = std::vector<Entry>::iterator;
  using ConstIter = std::vector<Entry>::const_iterator;
  ConstIter first() const { return busy_.begin() + static_cast<std::ptrdiff_t>(head_); }
  Iter first() { return busy_.begin() + static_cast<std::ptrdiff_t>(head_); }
  // The first interval starting after t (strictly: `after`; at or after t: `at_or_after`).
  // Queries on one resource often repeat the last one's place (transfers of a stage from the
  // same ready time), so the place the last search found (the finger, a hint: any value gives
  // the same answer) is tried first; otherwise a binary search over the live entries without
  // branches on the data (the lists are short, a few dozen entries, and their queries land
  // anywhere, so a galloping search from the end mispredicted most of its steps) halves the
  // range, keeping the half that holds the first entry not `before`, by a conditional move.
  template <typename Before>
  size_t first_not(Before before) const {
    const size_t n = busy_.size();
    const size_t f = std::min(std::max(finger_, head_), n);
    if ((f == head_ || before(busy_[f - 1])) && (f == n || !before(busy_[f]))) return f;
    size_t len = n - head_;
    const Entry* b = busy_.data() + head_;
    while (len > 1) {
      const size_t half = len / 2;
      b = before(b[half]) ? b + half : b;  // b[half] `before`: so is all up to it
      len -= half;
    }
    finger_ = static_cast<size_t>(b - busy_.data()) + (before(*b) ? 1 : 0);
    return finger_;
  }
  ConstIter after(double t) const {
    return busy_.begin() +
           static_cast<std::ptrdiff_t>(first_not([t](const Entry& e) { return e.first <= t; }));
  }
  Iter at_or_after(double t) {
    return busy_.begin() +
           static_cast<std::ptrdiff_t>(first_not([t](const Entry& e) { return e.first < t; }));
  }

  std::vector<Entry> busy_;  // from head_ on: sorted by start, disjoint
  size_t head_ = 0;          // the entries before it are forgotten
  // The place the last search found (see first_not): a const search updates it, so one list
  // is not for readers on several threads at once (each simulation has its own).
  mutable size_t finger_ = 0;
  double total_ = 0;
};

}  // namespace dgs
