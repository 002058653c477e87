#pragma once
// An index of the regions of one tensor that the DSA model's timeline has seen (its writes, or
// its reads), so that a task's reads are not each tested against every write of the tensor (and
// its writes against every read), and the box tests it needs without allocating; internal to
// common/dsamodel (dsa_model.cpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs {

// Which of a tensor's regions (numbered in the order added) may overlap a query region, so that
// a task's reads are not each tested against every write of the tensor (and its writes against
// every read): atom plans have thousands of each per tensor. Regions are bucketed by their start
// on one axis (the one the first region splits finest); the candidates are a superset of the
// overlapping ones, and the caller tests each exactly as before and restores the list order.
class RegionIndex {
 public:
  explicit RegionIndex(const Shape& shape) : shape_(shape) {}

  void add(const Region& r) {
    const uint32_t i = count_++;
    if (axis_ < 0 && !linear_) choose_axis(r);
    if (linear_) return;
    const size_t a = static_cast<size_t>(axis_);
    if (r.size() != shape_.size() || r[a].lo < 0 || r[a].lo >= shape_[a]) {
      always_.push_back(i);  // outside the buckets: a candidate of every query
      return;
    }
    max_len_ = std::max(max_len_, r[a].hi - r[a].lo);
    buckets_[static_cast<size_t>(r[a].lo / width_)].push_back(i);
  }

  // Calls f(number) for every region that may overlap `q` (in no particular order).
  template <typename F>
  void for_each_candidate(const Region& q, F&& f) const {
    if (linear_ || axis_ < 0 || q.size() != shape_.size()) {
      for (uint32_t i = 0; i < count_; ++i) f(i);
      return;
    }
    for (const uint32_t i : always_) f(i);
    const size_t a = static_cast<size_t>(axis_);
    // A region overlaps q on the axis only if it starts in (q.lo - max_len, q.hi).
    const int64_t from = std::max<int64_t>(0, q[a].lo - max_len_ + 1);
    const int64_t to = std::min<int64_t>(shape_[a] - 1, q[a].hi - 1);
    if (from <= to)
      for (int64_t b = from / width_; b <= to / width_; ++b)
        for (const uint32_t i : buckets_[static_cast<size_t>(b)]) f(i);
  }

  // The largest number among the regions that may overlap `q` for which match(number) is
  // Match::Yes, or -1: what for_each_candidate finds keeping the largest such number, but each
  // bucket is searched from its end (numbers ascend in a bucket) down to its first match, or to
  // a number for which match says Match::NoneBelow (neither it nor any smaller number matches).
  enum class Match { Yes, No, NoneBelow };
  template <typename P>
  int64_t last_candidate(const Region& q, P&& match) const {
    int64_t best = -1;
    auto search = [&](const std::vector<uint32_t>& v) {
      for (auto it = v.rbegin(); it != v.rend() && static_cast<int64_t>(*it) > best; ++it) {
        const Match m = match(*it);
        if (m == Match::NoneBelow) return;
        if (m == Match::Yes) {
          best = *it;
          return;
        }
      }
    };
    if (linear_ || axis_ < 0 || q.size() != shape_.size()) {
      for (int64_t i = static_cast<int64_t>(count_) - 1; i >= 0; --i) {
        const Match m = match(static_cast<uint32_t>(i));
        if (m == Match::NoneBelow) return -1;
        if (m == Match::Yes) return i;
      }
      return -1;
    }
    search(always_);
    const size_t a = static_cast<size_t>(axis_);
    const int64_t from = std::max<int64_t>(0, q[a].lo - max_len_ + 1);
    const int64_t to = std::min<int64_t>(shape_[a] - 1, q[a].hi - 1);
    if (from <= to)
      for (int64_t b = from / width_; b <= to / width_; ++b)
        search(buckets_[static_cast<size_t>(b)]);
    return best;
  }

 private:
  void choose_axis(const Region& r) {
    if (shape_.empty() || r.size() != shape_.size()) {
      linear_ = true;
      return;
    }
    double finest = 2;
    for (size_t d = 0; d < shape_.size(); ++d) {
      if (shape_[d] <= 1) continue;
      const double part = static_cast<double>(r[d].size()) / static_cast<double>(shape_[d]);
      if (part < finest) {
        finest = part;
        axis_ = static_cast<int>(d);
      }
    }
    if (axis_ < 0) {
      linear_ = true;
      return;
    }
    const int64_t extent = shape_[static_cast<size_t>(axis_)];
    width_ = std::max<int64_t>({1, r[static_cast<size_t>(axis_)].size(), (extent + 65535) / 65536});
    buckets_.resize(static_cast<size_t>((extent + width_ - 1) / width_));
  }

  Shape shape_;
  int axis_ = -1;
  bool linear_ = false;  // no useful axis: every region is a candidate
  int64_t width_ = 1;    // of a bucket, on the axis
  int64_t max_len_ = 0;  // the longest bucketed region on the axis
  uint32_t count_ = 0;
  std::vector<std::vector<uint32_t>> buckets_;  // by start on the axis / width_
  std::vector<uint32_t> always_;
};

// The number of elements two boxes of the same tensor have in common (no allocation: this runs
// for every pair of a read and a write of a tensor).
inline int64_t overlap_numel(const Region& a, const Region& b) {
  int64_t n = 1;
  for (size_t d = 0; d < a.size() && d < b.size(); ++d) {
    const int64_t lo = std::max(a[d].lo, b[d].lo), hi = std::min(a[d].hi, b[d].hi);
    if (hi <= lo) return 0;
    n *= hi - lo;
  }
  return n;
}

// Whether region_intersect(held, need) == need, without allocating: `held` holds every element
// of `need` (an empty `need` only where its empty intervals sit inside `held`'s).
inline bool region_contains_exactly(const Region& held, const Region& need) {
  if (held.size() != need.size()) return false;
  for (size_t d = 0; d < need.size(); ++d) {
    const int64_t lo = std::max(held[d].lo, need[d].lo);
    const int64_t hi = std::max(lo, std::min(held[d].hi, need[d].hi));
    if (lo != need[d].lo || hi != need[d].hi) return false;
  }
  return true;
}

// A region as a map key: its bounds, lo and hi per axis.
inline std::vector<int64_t> region_key(const Region& r) {
  std::vector<int64_t> k;
  for (const Interval& i : r) {
    k.push_back(i.lo);
    k.push_back(i.hi);
  }
  return k;
}

}  // namespace dgs
